package analyzer

import "github.com/bleve-dedup/bleve-dedup/analyzer/internal/segwords"

// word is one token of normalised text: a letter or number word, or a
// single ideographic or kana character (Ideographic).
type word = segwords.Segment

// segmenter holds reusable memory for appendWords.
type segmenter = segwords.Segmenter

// appendWords segments normalised text into words (Unicode UAX #29,
// package segwords) and appends each letter or number token. Ideographic
// and kana tokens are split into single characters, since those scripts
// do not separate words with spaces. Punctuation and spaces are skipped.
// Segmentation runs once per text; terms and MinHash shingles are both
// built from its result. seg may be nil.
func appendWords(dst []word, text []byte, seg *segmenter) []word {
	if seg == nil {
		seg = new(segmenter)
	}
	seg.SplitIdeographs = true
	return seg.Append(dst, text)
}

// eachTerm calls yield with the byte range of every boolean-model paper term of the
// segmented text, in order, once per occurrence: words and numbers as
// segmented, and each run of adjacent ideographic characters as its
// overlapping bigrams (a run of one character as that character).
func eachTerm(words []word, yield func(start, end int32)) {
	for i, w := range words {
		if !w.Ideographic() {
			yield(w.Start, w.End)
			continue
		}
		prevAdjacent := i > 0 && words[i-1].Ideographic() && words[i-1].End == w.Start
		nextAdjacent := i+1 < len(words) && words[i+1].Ideographic() && words[i+1].Start == w.End
		switch {
		case nextAdjacent:
			yield(w.Start, words[i+1].End)
		case !prevAdjacent:
			yield(w.Start, w.End) // a run of one
		}
	}
}
