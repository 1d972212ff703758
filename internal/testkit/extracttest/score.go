package extracttest

import (
	"strings"
	"unicode"
)

// pageScore returns precision and recall of got against want by shingle
// multisets, with the benchmark's conventions: both empty is perfect, an
// empty side scores 0.
func pageScore(got, want string) (precision, recall float64) {
	g, w := shingles(got), shingles(want)
	var tp, fp, fn int
	for k, n := range g {
		tp += min(n, w[k])
		fp += max(0, n-w[k])
	}
	for k, n := range w {
		fn += max(0, n-g[k])
	}
	if fp == 0 && fn == 0 {
		return 1, 1
	}
	if tp+fp > 0 {
		precision = float64(tp) / float64(tp+fp)
	}
	if tp+fn > 0 {
		recall = float64(tp) / float64(tp+fn)
	}
	return precision, recall
}

// scorer averages page scores.
type scorer struct {
	p, r float64
	n    int
}

func (s *scorer) add(got, want string) {
	p, r := pageScore(got, want)
	s.p += p
	s.r += r
	s.n++
}

// prf returns averaged precision and recall and the F1 of those averages.
func (s *scorer) prf() (p, r, f1 float64) {
	if s.n == 0 {
		return 0, 0, 0
	}
	p, r = s.p/float64(s.n), s.r/float64(s.n)
	return p, r, harmonic(p, r)
}

// harmonic returns the harmonic mean of precision and recall (F1).
func harmonic(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// shingleLen is the number of tokens in a shingle, as in the benchmark
// (and in package extract's narrowing).
const shingleLen = 4

// tokens splits s into comparison tokens as package extract's tokenHashes
// does (words, and Han characters one by one), as strings.
func tokens(s string) []string {
	var out []string
	var word strings.Builder
	flush := func() {
		if word.Len() > 0 {
			out = append(out, word.String())
			word.Reset()
		}
	}
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.Is(unicode.Han, r):
			flush()
			out = append(out, string(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_':
			word.WriteRune(r)
		default:
			flush()
		}
	}
	flush()
	return out
}

// shingles counts the shingles of s; a text shorter than shingleLen tokens
// is one shingle.
func shingles(s string) map[string]int {
	t := tokens(s)
	m := map[string]int{}
	if len(t) > 0 && len(t) < shingleLen {
		m[strings.Join(t, " ")]++
	}
	for i := 0; i+shingleLen <= len(t); i++ {
		m[strings.Join(t[i:i+shingleLen], " ")]++
	}
	return m
}
