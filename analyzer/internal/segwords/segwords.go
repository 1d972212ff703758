// Package segwords segments text into words as Unicode UAX #29 does
// through github.com/blevesearch/segment, with the same segments and
// types, in about half the time: the segmenter is the slowest step of
// tokenising text, so the two commonest segments whose UAX #29
// boundaries are certain are cut directly, and only the text between
// them goes through it:
//
//   - a common Han character (U+4E00..lastSegmentedHan) followed by
//     what surely breaks from it (breakAt: the end, ASCII, Han, CJK or
//     full-width punctuation), a segment of its own;
//   - a run of ASCII letters and digits between spaces or line breaks (or
//     the text's edges), with only ASCII punctuation other than '_'
//     between the run and them: UAX #29 never breaks inside such a run,
//     and joins punctuation to letters or digits only when letters or
//     digits follow it.
//
// FuzzAppend checks the result against the segmenter alone.
package segwords

import (
	"unicode/utf8"

	"github.com/blevesearch/segment"
)

// lastSegmentedHan is the last character of the CJK Unified Ideographs
// block in Unicode 8.0, the version of github.com/blevesearch/segment's
// tables; it does not know later additions and skips them.
const lastSegmentedHan = 0x9FD5

// Segment is one word of a text: its byte range and its type
// (segment.Letter, segment.Number, segment.Kana or segment.Ideo).
// Punctuation and spaces (segment.None) are not segments.
type Segment struct {
	Start, End int32
	Type       int
}

// Segmenter holds memory reused between calls. The zero value is ready.
type Segmenter struct {
	// SplitIdeographs splits ideographic and kana segments into single
	// characters (a run of katakana is one UAX #29 word), for scripts
	// that do not separate words with spaces.
	SplitIdeographs bool
	val             [][]byte
	types           []int
}

// Ideographic reports whether s is an ideographic or kana segment.
func (s Segment) Ideographic() bool { return ideographic(s.Type) }

func ideographic(typ int) bool { return typ == segment.Ideo || typ == segment.Kana }

// Append appends the words of text to dst.
func (s *Segmenter) Append(dst []Segment, text []byte) []Segment {
	if !utf8.Valid(text) {
		// The segmenter gives nothing of a text past an invalid byte it
		// fails on, even before it: so must the words, found by it alone.
		return s.segmented(dst, text, 0, len(text))
	}
	other := 0 // start of the pending stretch for the segmenter
	for i := 0; i < len(text); {
		if i == 0 || text[i-1] == ' ' || text[i-1] == '\n' {
			start := skipPunct(text, i)
			end, letter := start, false
			for end < len(text) && IsASCIIAlnum(text[end]) {
				letter = letter || text[end] > '9'
				end++
			}
			if next := skipPunct(text, end); end > start && (next == len(text) || text[next] == ' ' || text[next] == '\n') {
				dst = s.segmented(dst, text, other, i)
				typ := segment.Number
				if letter {
					typ = segment.Letter
				}
				dst = append(dst, Segment{int32(start), int32(end), typ})
				i, other = next, next
				continue
			}
		}
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(text[i:])
		}
		if r >= 0x4E00 && r <= lastSegmentedHan && breakAt(text, i+size) {
			dst = s.segmented(dst, text, other, i)
			dst = append(dst, Segment{int32(i), int32(i + size), segment.Ideo})
			other = i + size
		}
		i += size
	}
	return s.segmented(dst, text, other, len(text))
}

// segmented appends the words of text[start:end], through the segmenter.
func (s *Segmenter) segmented(dst []Segment, text []byte, start, end int) []Segment {
	if start == end {
		return dst
	}
	// The segmenter fails only on invalid UTF-8, which Append hands it
	// whole: it then gives no segments, as it would alone.
	s.val, s.types, _, _ = segment.SegmentWordsDirect(text[start:end], s.val[:0], s.types[:0])
	for i, tok := range s.val {
		next, typ := start+len(tok), s.types[i]
		switch {
		case typ == segment.None:
		case s.SplitIdeographs && ideographic(typ):
			for j := start; j < next; {
				_, size := utf8.DecodeRune(text[j:next])
				dst = append(dst, Segment{int32(j), int32(j + size), typ})
				j += size
			}
		default:
			dst = append(dst, Segment{int32(start), int32(next), typ})
		}
		start = next
	}
	return dst
}

// IsASCIIAlnum reports whether c is an ASCII letter or digit.
func IsASCIIAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || 'A' <= c && c <= 'Z'
}

// skipPunct returns the index of the first byte from i on that is not
// ASCII punctuation. '_' (ExtendNumLet) joins words, so it is not skipped.
func skipPunct(text []byte, i int) int {
	for i < len(text) && text[i] > ' ' && text[i] < utf8.RuneSelf && text[i] != '_' && !IsASCIIAlnum(text[i]) {
		i++
	}
	return i
}

// breakAt reports whether UAX #29 surely breaks before text[i:] after a
// Han character: at the end, or before a character that cannot attach to
// it (Extend, Format and ZWJ do, WB4: combining marks, the half-width
// voiced sound marks, a soft hyphen, direction marks). It answers for the
// characters that commonly follow Han (ASCII, Han, CJK and full-width
// punctuation) and says no to the rest, which the segmenter then takes.
func breakAt(text []byte, i int) bool {
	if i >= len(text) || text[i] < utf8.RuneSelf {
		return true
	}
	r, _ := utf8.DecodeRune(text[i:])
	return r >= 0x4E00 && r <= lastSegmentedHan || r >= 0x3000 && r <= 0x3029 || r >= 0xFF01 && r <= 0xFF5E
}
