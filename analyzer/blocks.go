package analyzer

import (
	"cmp"
	"crypto/sha1"
	"slices"
	"unicode/utf8"
)

// span is a block: runes[start:end] of a scan.
type span struct{ start, end int }

// appendBlocks appends the SHA-1 fingerprints of the m most important
// blocks of the scanned text to dst, most important first, without
// repeats.
//
// The fingerprint paper leaves "block" and "importance" open. Blocks here are sentences
// (cut at Options.BlockDelimiters and at paragraph breaks) reduced to their
// content characters, and importance is length, ties broken by text order.
// That choice survives what reprints do: re-splitting or merging paragraphs
// moves no sentence boundary, changed punctuation, quotes, spacing and width
// vanish with the non-content characters, and a few changed characters
// spoil only the sentences they fall in. Long sentences come first because
// they are the least likely to recur in unrelated pages (unlike "责任编辑"
// lines or one-word headings).
func (s *scan) appendBlocks(dst [][sha1.Size]byte, spans []span, buf []byte, m int) ([][sha1.Size]byte, []span, []byte) {
	if m == 0 || len(s.runes) == 0 {
		return dst, spans, buf
	}
	spans = spans[:0]
	start := 0
	for i := 1; i <= len(s.runes); i++ {
		if i == len(s.runes) || s.gaps[i]&(gapBlock|gapPara) != 0 {
			spans = append(spans, span{start, i})
			start = i
		}
	}
	slices.SortStableFunc(spans, func(x, y span) int {
		return cmp.Compare(y.end-y.start, x.end-x.start)
	})
	first := len(dst)
	for _, sp := range spans {
		if len(dst)-first == m {
			break
		}
		buf = buf[:0]
		for _, r := range s.runes[sp.start:sp.end] {
			buf = utf8.AppendRune(buf, r)
		}
		sum := sha1.Sum(buf)
		if !slices.Contains(dst[first:], sum) {
			dst = append(dst, sum)
		}
	}
	return dst, spans, buf
}
