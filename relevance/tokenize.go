package relevance

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/segment"
	"golang.org/x/text/width"
)

// Tokenizer turns text into the terms a Profile counts. Keywords and page
// text go through the same Tokenizer, so it must be idempotent on its own
// output: tokenising a term it produced must yield that term again (Learn
// stores terms and NewProfile re-tokenises them).
type Tokenizer func(text string) []string

// DefaultTokenizer segments text into words with Unicode word boundaries
// (github.com/blevesearch/segment), width-folds (full-width Latin to ASCII)
// and lowercases them, and turns each run of Han characters into
// overlapping bigrams ("人工智能" -> 人工, 工智, 智能; a lone character stays a
// unigram), because Chinese has no spaces and bigrams are the usual
// dictionary-free stand-in for words. Punctuation and spaces are dropped.
func DefaultTokenizer(text string) []string {
	text = width.Fold.String(text)
	seg := segment.NewWordSegmenterDirect([]byte(text))
	var (
		out []string
		run []int // byte offsets where the pending ideographs start, plus their end
		off int   // byte offset of the current segment in text
	)
	// Terms are substrings of text, not copies: one allocation per page
	// rather than one per term.
	flush := func() {
		switch {
		case len(run) == 2:
			out = append(out, text[run[0]:run[1]])
		case len(run) > 2:
			for i := 0; i+2 < len(run); i++ {
				out = append(out, text[run[i]:run[i+2]])
			}
		}
		run = run[:0]
	}
	for seg.Segment() {
		n := len(seg.Bytes())
		switch seg.Type() {
		case segment.Ideo:
			// The segmenter yields one Han character per token; a longer
			// token (ideographs with combining marks) is split into runes.
			if len(run) > 0 && run[len(run)-1] != off {
				flush()
			}
			if len(run) > 0 {
				run = run[:len(run)-1]
			}
			for i := range text[off : off+n] {
				run = append(run, off+i)
			}
			run = append(run, off+n)
		case segment.Letter, segment.Number, segment.Kana:
			flush()
			out = append(out, strings.ToLower(text[off:off+n]))
		default:
			flush()
		}
		off += n
	}
	// A segmenter error (only for tokens over 64 KiB) ends the text early;
	// the terms found so far are still a fair sample of it.
	flush()
	return out
}

// isWordish reports whether a term has at least one letter (ideographs
// are letters): Learn skips pure numbers (years, counts), which name no
// topic.
func isWordish(term string) bool {
	return strings.IndexFunc(term, unicode.IsLetter) >= 0
}

// mostlyHan reports whether at least half of the terms are Han (bigrams
// or single characters).
func mostlyHan(terms []string) bool {
	h := 0
	for _, t := range terms {
		if r, _ := utf8.DecodeRuneInString(t); unicode.Is(unicode.Han, r) {
			h++
		}
	}
	return 2*h >= len(terms) && h > 0
}
