package analyzer

import (
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/segment"
)

// word is the byte range of one token of normalised text.
type word struct {
	start, end int32
	ideo       bool // a single ideographic or kana character
}

// lastSegmentedHan is the last character of the CJK Unified Ideographs
// block in Unicode 8.0, the version of github.com/blevesearch/segment's
// tables; it does not know later additions and skips them.
const lastSegmentedHan = 0x9FD5

// segmenter holds reusable memory for appendWords.
type segmenter struct {
	val   [][]byte
	types []int
}

// appendWords segments normalised text into words (Unicode UAX #29, via
// github.com/blevesearch/segment) and appends each letter or number token.
// Ideographic and kana tokens are split into single characters, marked
// ideo, since those scripts do not separate words with spaces. Punctuation
// and spaces are skipped. Segmentation runs once per text; terms and
// MinHash shingles are both built from its result.
//
// The segmenter is the slowest step of Analyze, so the two commonest
// tokens whose UAX #29 boundaries are certain are cut here directly and
// only the text between them goes through it: a common Han character
// (U+4E00..lastSegmentedHan, always a token of its own, unless a combining
// mark follows, which UAX #29 attaches to it) and a run of ASCII letters
// and digits between spaces or line breaks (or the text's edges), with
// only ASCII punctuation other than '_' between the run and them (UAX #29
// never breaks inside such a run, and joins punctuation to letters or
// digits only when letters or digits follow it). FuzzAppendWords checks the result equals the segmenter's alone.
// seg may be nil.
func appendWords(dst []word, text []byte, seg *segmenter) []word {
	if seg == nil {
		seg = new(segmenter)
	}
	other := 0 // start of the pending stretch for the segmenter
	for i := 0; i < len(text); {
		if i == 0 || text[i-1] == ' ' || text[i-1] == '\n' {
			start := skipPunct(text, i)
			end := start
			for end < len(text) && isASCIIAlnum(text[end]) {
				end++
			}
			if next := skipPunct(text, end); end > start && (next == len(text) || text[next] == ' ' || text[next] == '\n') {
				dst = seg.appendSegmented(dst, text, other, i)
				dst = append(dst, word{int32(start), int32(end), false})
				i, other = next, next
				continue
			}
		}
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(text[i:])
		}
		if r >= 0x4E00 && r <= lastSegmentedHan && !markAt(text, i+size) {
			dst = seg.appendSegmented(dst, text, other, i)
			dst = append(dst, word{int32(i), int32(i + size), true})
			other = i + size
		}
		i += size
	}
	return seg.appendSegmented(dst, text, other, len(text))
}

// skipPunct returns the index of the first byte from i on that is not
// ASCII punctuation. '_' (ExtendNumLet) joins words, so it is not skipped.
func skipPunct(text []byte, i int) int {
	for i < len(text) && text[i] > ' ' && text[i] < utf8.RuneSelf && text[i] != '_' && !isASCIIAlnum(text[i]) {
		i++
	}
	return i
}

// markAt reports whether text[i:] starts with a combining mark.
func markAt(text []byte, i int) bool {
	if i >= len(text) || text[i] < utf8.RuneSelf {
		return false
	}
	r, _ := utf8.DecodeRune(text[i:])
	return unicode.IsMark(r)
}

// appendSegmented appends the words of text[start:end].
func (s *segmenter) appendSegmented(dst []word, text []byte, start, end int) []word {
	if start == end {
		return dst
	}
	// The segmenter only fails on input it cannot parse; the tokens found
	// before the failure are still a usable, deterministic approximation.
	s.val, s.types, _, _ = segment.SegmentWordsDirect(text[start:end], s.val[:0], s.types[:0])
	for i, tok := range s.val {
		next := start + len(tok)
		switch s.types[i] {
		case segment.Letter, segment.Number:
			dst = append(dst, word{int32(start), int32(next), false})
		case segment.Ideo, segment.Kana:
			for j := start; j < next; {
				_, size := utf8.DecodeRune(text[j:next])
				dst = append(dst, word{int32(j), int32(j + size), true})
				j += size
			}
		}
		start = next
	}
	return dst
}

// eachTerm calls yield with the byte range of every boolean-model paper term of the
// segmented text, in order, once per occurrence: words and numbers as
// segmented, and each run of adjacent ideographic characters as its
// overlapping bigrams (a run of one character as that character).
func eachTerm(words []word, yield func(start, end int32)) {
	for i, w := range words {
		if !w.ideo {
			yield(w.start, w.end)
			continue
		}
		prevAdjacent := i > 0 && words[i-1].ideo && words[i-1].end == w.start
		nextAdjacent := i+1 < len(words) && words[i+1].ideo && words[i+1].start == w.end
		switch {
		case nextAdjacent:
			yield(w.start, words[i+1].end)
		case !prevAdjacent:
			yield(w.start, w.end) // a run of one
		}
	}
}
