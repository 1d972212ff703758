// Package segwords segments text into words as Unicode UAX #29 does
// through github.com/blevesearch/segment, with the same segments and
// types, in about half the time: the segmenter is the slowest step of
// tokenising text, so the commonest segments whose UAX #29 boundaries
// are certain are cut directly, and only the text between them goes
// through it:
//
//   - a common Han character (U+4E00..lastSegmentedHan) followed by
//     what surely breaks from it (breakAt: the end, ASCII, Han, CJK,
//     full-width and common punctuation), a segment of its own;
//   - a word of letters (ASCII, Latin-1, Latin Extended-A, Cyrillic) and
//     digits ("don't" and "3.14" included) with sure boundaries on both
//     sides (word): spaces, tabs, line breaks, the text's edges, Han
//     characters, or punctuation (ASCII other than '_', or punct's) that
//     joins nothing; UAX #29 never breaks inside a run of letters and
//     digits, and joins punctuation to them only when it is one character
//     between letters or between digits;
//   - between those, the spaces and punctuation where UAX #29 finds no
//     word (noWords) are passed over without the segmenter.
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
	passed          int // bytes given to the segmenter (BenchmarkAppendRealText)
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
	other := 0 // start of the pending stretch for the segmenter, a sure boundary
	for i := 0; i < len(text); {
		// A word starts at a boundary, and not with a character of
		// U+4000..U+9FFF (lead bytes 0xE4..0xE9): Han, most of Chinese text.
		if (i == other || text[i-1] <= ' ') && (text[i] < 0xE4 || text[i] > 0xE9) {
			if start, end, next, typ, ok := word(text, i); ok {
				dst = s.between(dst, text, other, i)
				dst = append(dst, Segment{int32(start), int32(end), typ})
				i, other = next, next
				continue
			}
		}
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(text[i:])
		}
		if isHan(r) && breakAt(text, i+size) {
			dst = s.between(dst, text, other, i)
			dst = append(dst, Segment{int32(i), int32(i + size), segment.Ideo})
			other = i + size
		}
		i += size
	}
	return s.between(dst, text, other, len(text))
}

// word reads the word of letters and digits (wordChar) that text[i:]
// starts with, after punctuation (skipPunct), when UAX #29 surely breaks
// on both sides of it: i is a boundary, and after it come only punctuation
// and then a space or control character (ASCII or the ideographic space),
// the end, a Han character or another such word. Punctuation joins two
// runs of letters and digits into one word only when it is a single
// character between letters (MidLetter, MidNumLet: "don't", "e.g") or
// between digits (MidNum, MidNumLet: "3.14", "1,000"); next is where the
// text after the word and its punctuation starts, itself a boundary.
func word(text []byte, i int) (start, end, next, typ int, ok bool) {
	start = skipPunct(text, i)
	end = start
	anyLetter := false
	for {
		from := end
		var letter, digit bool // of the run's last character
		for end < len(text) {
			l, d, size := wordChar(text, end)
			if !l && !d {
				break
			}
			letter, digit = l, d
			anyLetter = anyLetter || l
			end += size
		}
		if end == from {
			return 0, 0, 0, 0, false
		}
		if end == len(text) {
			break
		}
		r, size := utf8.DecodeRune(text[end:])
		if end+size >= len(text) {
			break
		}
		if l, d, _ := wordChar(text, end+size); !joins(r, letter && l, digit && d) {
			break
		}
		end += size
	}
	next = skipPunct(text, end)
	if !wordEnds(text, end, next) {
		return 0, 0, 0, 0, false
	}
	return start, end, next, wordType(anyLetter), true
}

// wordEnds reports whether UAX #29 surely breaks at next, after a word
// that ends at end and the punctuation that follows it: at a space or a
// control character (ASCII or the ideographic space), the end, a Han
// character, or another word behind punctuation that did not join it (two
// characters or more, or one that does not join what is on its sides).
func wordEnds(text []byte, end, next int) bool {
	if next == len(text) || text[next] <= ' ' {
		return true
	}
	if l, d, _ := wordChar(text, next); l || d {
		return next > end
	}
	r, _ := utf8.DecodeRune(text[next:])
	return isHan(r) || r == '\u3000'
}

func wordType(letter bool) int {
	if letter {
		return segment.Letter
	}
	return segment.Number
}

// wordChar reports whether the character at text[i] is a letter word
// reads (Word_Break ALetter: ASCII, Latin-1 and Latin Extended-A letters,
// Cyrillic letters) or a digit (ASCII), with its size.
func wordChar(text []byte, i int) (letter, digit bool, size int) {
	if c := text[i]; c < utf8.RuneSelf {
		return c > '9' && IsASCIIAlnum(c), '0' <= c && c <= '9', 1
	}
	r, size := utf8.DecodeRune(text[i:])
	switch {
	case r >= 0xC0 && r <= 0x17F: // but × and ÷
		return r != 0xD7 && r != 0xF7, false, size
	case r >= 0x400 && r <= 0x4FF: // but a symbol and combining marks
		return r < 0x482 || r > 0x489, false, size
	}
	return false, false, size
}

// joins reports whether UAX #29 joins two runs of letters and digits
// across r, given whether r has letters or digits on both sides (WB6,
// WB7, WB11, WB12).
func joins(r rune, letters, digits bool) bool {
	switch r {
	case ':', '·', '：': // MidLetter
		return letters
	case '.', '\'', '‘', '’': // MidNumLet, Single_Quote
		return letters || digits
	case ',', ';', '，', '；': // MidNum
		return digits
	}
	return false
}

// isHan reports whether r is a common Han character the segmenter knows.
func isHan(r rune) bool { return r >= 0x4E00 && r <= lastSegmentedHan }

// between appends the words of text[start:end], a stretch between the
// words Append cut itself. Most such stretches are the space or the
// punctuation between two of them, where the segmenter finds no word: it
// is not called for those.
func (s *Segmenter) between(dst []Segment, text []byte, start, end int) []Segment {
	if noWords(text[start:end]) {
		return dst
	}
	return s.segmented(dst, text, start, end)
}

// noWords reports whether UAX #29 surely finds no word in text: it holds
// only spaces (ASCII or ideographic), control characters and punctuation,
// ASCII (but '_', ExtendNumLet, which is a word of its own) or common in
// Chinese and English text (punct). None of those is a letter, digit,
// kana or ideograph, and punctuation joins a word only between letters or
// digits.
func noWords(text []byte) bool {
	const ideographicSpace = "\u3000"
	for i := skipPunct(text, 0); i < len(text); i = skipPunct(text, i) {
		switch {
		case text[i] <= ' ':
			i++
		case len(text)-i >= len(ideographicSpace) && string(text[i:i+len(ideographicSpace)]) == ideographicSpace:
			i += len(ideographicSpace)
		default:
			return false
		}
	}
	return true
}

// punct reports whether r is punctuation common in Chinese or English
// text that UAX #29 joins to no word (Word_Break Other) or only between
// letters or digits (MidLetter, MidNum, MidNumLet): full-width and
// ideographic punctuation, curly quotes, dashes, the ellipsis and the
// middle dot.
func punct(r rune) bool {
	switch r {
	case '、', '。', '，', '！', '？', '：', '；', '（', '）', '《', '》', '「', '」', '『', '』', '【', '】',
		'“', '”', '‘', '’', '–', '—', '…', '·':
		return true
	}
	return false
}

// segmented appends the words of text[start:end], through the segmenter.
func (s *Segmenter) segmented(dst []Segment, text []byte, start, end int) []Segment {
	if start == end {
		return dst
	}
	s.passed += end - start
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
// punctuation: ASCII, or common in Chinese and English text (punct). '_'
// (ExtendNumLet) joins words, so it is not skipped.
func skipPunct(text []byte, i int) int {
	for i < len(text) {
		if c := text[i]; c < utf8.RuneSelf {
			if c <= ' ' || c == '_' || IsASCIIAlnum(c) {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(text[i:])
		if !punct(r) {
			return i
		}
		i += size
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
	return isHan(r) || r >= 0x3000 && r <= 0x3029 || r >= 0xFF01 && r <= 0xFF5E || punct(r)
}
