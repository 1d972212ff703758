package analyzer

import (
	"slices"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/encoding/simplifiedchinese"
)

// CharCount is one component of a character-frequency vector: the
// character's index (see CharIndex) and how often it occurs.
type CharCount struct {
	Index uint16
	Count uint32
}

// Dimensions of the character-frequency vector (the feature-string
// paper, §2.1): the GB2312 characters first, then the Latin letters.
const (
	// GB2312Chars is the number of Chinese characters of GB2312 (levels
	// 1 and 2), the paper's basis of the vector.
	GB2312Chars = 6763
	// CharDims is the vector's length: the GB2312 characters, then a–z.
	CharDims = GB2312Chars + 26
)

// gb2312 maps a rune in the CJK Unified Ideographs block to its GB2312
// index + 1 (0: not a GB2312 character). Built once, from the encoding's
// own table, in GB2312 order (by pronunciation, then by radical).
var gb2312 = sync.OnceValue(func() []uint16 {
	t := make([]uint16, 0x9FFF-0x4E00+1)
	dec := simplifiedchinese.GBK.NewDecoder()
	n := uint16(0)
	var buf [8]byte
	for b1 := 0xB0; b1 <= 0xF7; b1++ {
		for b2 := 0xA1; b2 <= 0xFE; b2++ {
			nDst, _, err := dec.Transform(buf[:], []byte{byte(b1), byte(b2)}, true)
			dec.Reset()
			if err != nil {
				continue
			}
			r, _ := utf8.DecodeRune(buf[:nDst])
			if r < 0x4E00 || r > 0x9FFF || t[r-0x4E00] != 0 {
				continue // the five unassigned codes at the end of level 2
			}
			n++
			t[r-0x4E00] = n
		}
	}
	return t
})

// CharIndex returns r's dimension in the character-frequency vector: a
// GB2312 character's position in GB2312 (0..6762), a Latin letter's
// GB2312Chars + 0..25 (either case), or -1 for anything else.
func CharIndex(r rune) int {
	switch {
	case r >= 0x4E00 && r <= 0x9FFF:
		return int(gb2312()[r-0x4E00]) - 1
	case 'a' <= r && r <= 'z':
		return GB2312Chars + int(r-'a')
	case 'A' <= r && r <= 'Z':
		return GB2312Chars + int(r-'A')
	}
	return -1
}

// appendCharFreq appends the character-frequency vector of normalised
// text to dst, sorted by index; counts is scratch memory of CharDims
// zeros, left zeroed.
func appendCharFreq(dst []CharCount, text []byte, counts []uint32) []CharCount {
	t := gb2312()
	start := len(dst)
	add := func(i int) {
		if counts[i] == 0 {
			dst = append(dst, CharCount{Index: uint16(i)})
		}
		counts[i]++
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' { // normalised text is lower case
				add(GB2312Chars + int(c-'a'))
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(text[i:])
		if r >= 0x4E00 && r <= 0x9FFF {
			if x := t[r-0x4E00]; x != 0 {
				add(int(x) - 1)
			}
		}
		i += size
	}
	out := dst[start:]
	slices.SortFunc(out, func(a, b CharCount) int { return int(a.Index) - int(b.Index) })
	for i := range out {
		out[i].Count = counts[out[i].Index]
		counts[out[i].Index] = 0
	}
	return dst
}
