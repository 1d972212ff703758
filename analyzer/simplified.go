package analyzer

import "unicode/utf8"

//go:generate go run ./internal/tsgen -o simplified_table.go

// hanLo and hanHi bound the CJK Unified Ideographs block, which holds
// nearly every Han character of real text and is appendNormalized's fast
// path.
const (
	hanLo = 0x4E00
	hanHi = 0x9FFF
)

// simplifiedHan[r-hanLo] is the simplified form of the traditional
// character r of the main block, or 0 when r is the same in both scripts:
// one array index per Han rune, with no hashing on the hot path.
// simplifiedOther holds the few traditional characters outside the block
// (extensions A to D), which take the slow path anyway. Both are built
// from the generated simplifiedPairs at init (about 0.2 ms, 19 KB).
var (
	simplifiedHan   [hanHi - hanLo + 1]rune
	simplifiedOther = map[rune]rune{}
)

func init() {
	for s := simplifiedPairs; s != ""; {
		t, n := utf8.DecodeRuneInString(s)
		simp, m := utf8.DecodeRuneInString(s[n:])
		s = s[n+m:]
		if t >= hanLo && t <= hanHi {
			simplifiedHan[t-hanLo] = simp
		} else {
			simplifiedOther[t] = simp
		}
	}
}

// simplifiedRare returns the simplified form of r, a rune outside the main
// Han block, or r itself. The range check keeps punctuation and other
// scripts away from the map.
func simplifiedRare(r rune) rune {
	if (r >= 0x3400 && r <= 0x4DBF) || r >= 0x20000 { // extension A; ideographic planes
		if s, ok := simplifiedOther[r]; ok {
			return s
		}
	}
	return r
}
