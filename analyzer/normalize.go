package analyzer

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// AppendNormalized appends the normalised form of s to dst and returns the
// extended slice. Every feature is computed on normalised text, so that
// reprints which only change character width, case, Chinese script, quote
// style or invisible characters produce the same features:
//
//   - full-width forms fold to ASCII ("Ａ，１" -> "a,1") and half-width
//     katakana to the usual forms (width folding, golang.org/x/text/width);
//   - letters are lowercased;
//   - traditional Chinese characters fold to simplified ones, character by
//     character ("圖書館" -> "图书馆", "後" -> "后"), using OpenCC's
//     TSCharacters table with its first candidate where a character has
//     several ("乾" -> "干", "於" -> "于"); phrases are not converted;
//   - control, format and zero-width characters (ZWSP, ZWJ, BOM, soft
//     hyphen, variation selectors) and invalid UTF-8 are dropped;
//   - double quotes of every style (“” „ 「」 『』 «» 〝〞) become '"', single
//     quotes and apostrophes (‘’ ‚ ‹›) become the ASCII apostrophe;
//   - runs of whitespace become one ' ', or one '\n' when the run holds a
//     line break; leading and trailing whitespace is dropped. '\n' is
//     therefore the only paragraph separator in normalised text.
//
// Normalisation is idempotent.
func AppendNormalized(dst []byte, s string) []byte {
	return appendNormalized(dst, s, '\n')
}

// appendNormalized implements AppendNormalized; lineBreak is what a
// whitespace run holding a line break becomes ('\n', or ' ' to keep a
// paragraph in one line).
func appendNormalized(dst []byte, s string, lineBreak byte) []byte {
	start := len(dst)
	var pending byte // whitespace owed before the next visible character
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf { // fast path for ASCII
			i++
			switch f := asciiFold[c]; f {
			case 0:
			case ' ':
				if pending == 0 {
					pending = ' '
				}
			case '\n':
				pending = lineBreak
			default:
				dst = flush(dst, start, &pending)
				dst = append(dst, f)
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r >= hanLo && r <= hanHi { // common Han: only script folding
			if simp := simplifiedHan[r-hanLo]; simp != 0 {
				r = simp
			}
			dst = flush(dst, start, &pending)
			dst = utf8.AppendRune(dst, r)
			continue
		}
		r = fold(r, size)
		switch {
		case r < 0:
			continue
		case r == '\n' || r == '\r' || r == 0x2028 || r == 0x2029 || r == 0x85:
			pending = lineBreak
		case r == ' ' || unicode.IsSpace(r):
			if pending == 0 {
				pending = ' '
			}
		case r < utf8.RuneSelf:
			dst = flush(dst, start, &pending)
			dst = append(dst, byte(r))
		default:
			dst = flush(dst, start, &pending)
			dst = utf8.AppendRune(dst, r)
		}
	}
	return dst
}

// flush writes the pending whitespace unless it would lead the output.
func flush(dst []byte, start int, pending *byte) []byte {
	if *pending != 0 && len(dst) > start {
		dst = append(dst, *pending)
	}
	*pending = 0
	return dst
}

// asciiFold is fold for ASCII, as a table: the normalised byte, ' ' for
// spaces, '\n' for line breaks, 0 to drop.
var asciiFold = func() (t [utf8.RuneSelf]byte) {
	for c := range t {
		switch r := fold(rune(c), 1); {
		case r < 0:
		case r == '\n' || r == '\r':
			t[c] = '\n'
		case r == ' ' || r == '\t' || r == '\v' || r == '\f':
			t[c] = ' '
		default:
			t[c] = byte(r)
		}
	}
	return t
}()

// fold maps one decoded rune (size is its encoded length, 1 with
// utf8.RuneError for invalid input) to its normalised form, or -1 to drop
// it. Whitespace is returned unchanged for the caller to collapse.
func fold(r rune, size int) rune {
	if r < utf8.RuneSelf {
		switch {
		case 'A' <= r && r <= 'Z':
			return r + 'a' - 'A'
		case r == '\n' || r == '\r' || r == '\t' || r == '\v' || r == '\f':
			return r
		case r < 0x20 || r == 0x7f:
			return -1
		}
		return r
	}
	if r == utf8.RuneError && size == 1 {
		return -1
	}
	if p := width.LookupRune(r); p.Kind() == width.EastAsianFullwidth || p.Kind() == width.EastAsianHalfwidth {
		if f := p.Folded(); f != 0 {
			r = f
			if r < utf8.RuneSelf {
				return fold(r, 1)
			}
		}
	}
	switch r {
	case '“', '”', '„', '‟', '「', '」', '『', '』', '«', '»', '〝', '〞', '〟', '″':
		return '"'
	case '‘', '’', '‚', '‛', '‹', '›', '′':
		return '\''
	case utf8.RuneError:
		return -1
	}
	if unicode.IsSpace(r) {
		return r
	}
	if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co) || (r >= 0xFE00 && r <= 0xFE0F) || (r >= 0xE0100 && r <= 0xE01EF) {
		return -1
	}
	return simplifiedRare(unicode.ToLower(r))
}
