package synth

import (
	"math/rand/v2"
	"strings"
	"unicode"
)

// Query is a search drawn from a page of the corpus.
type Query struct {
	Text string `json:"text"` // 1 to 3 words or Han bigrams, separated by spaces
	Lang string `json:"lang"`
	From string `json:"from"` // the page it was drawn from
}

// QuerySampler draws queries from n pages picked at random among a
// corpus' pages, as they stream by.
type QuerySampler struct {
	pick map[int]bool
	r    *rand.Rand
	k    int
	out  []Query
}

// NewQuerySampler prepares n queries from a corpus of pages pages.
func NewQuerySampler(n, pages int, seed uint64) *QuerySampler {
	s := &QuerySampler{pick: map[int]bool{}, r: rng(seed, saltQuery, 0)}
	for len(s.pick) < min(n, pages) {
		s.pick[s.r.IntN(pages)] = true
	}
	return s
}

// Offer shows the sampler the next page of the corpus.
func (s *QuerySampler) Offer(p Page) {
	k := s.k
	s.k++
	if !s.pick[k] {
		return
	}
	if q := queryFrom(s.r, p); q != "" {
		s.out = append(s.out, Query{Text: q, Lang: p.Lang, From: p.ID})
	}
}

// Queries returns the queries drawn, in corpus order.
func (s *QuerySampler) Queries() []Query { return s.out }

// enStop are words too common to be what someone searches for.
var enStop = map[string]bool{
	"the": true, "and": true, "for": true, "that": true, "with": true, "was": true, "are": true,
	"this": true, "from": true, "have": true, "has": true, "but": true, "not": true, "they": true,
	"his": true, "her": true, "its": true, "said": true, "were": true, "been": true, "their": true,
	"which": true, "will": true, "would": true, "there": true, "about": true, "more": true, "than": true,
}

// queryFrom draws 1 to 3 words (English) or Han bigrams (Chinese) from
// p's article text, so that the query matches at least p.
func queryFrom(r *rand.Rand, p Page) string {
	var cands []string
	for _, para := range p.body {
		if p.Lang == "zh" {
			var prev rune
			for _, ch := range para {
				if isHan(ch) && prev != 0 && isHan(prev) {
					cands = append(cands, string([]rune{prev, ch}))
				}
				prev = ch
			}
			continue
		}
		for _, w := range strings.FieldsFunc(strings.ToLower(para), func(r rune) bool { return !unicode.IsLetter(r) }) {
			if len(w) >= 3 && !enStop[w] {
				cands = append(cands, w)
			}
		}
	}
	if len(cands) == 0 {
		return ""
	}
	n := 1 + r.IntN(3)
	var terms []string
	for range n {
		terms = append(terms, cands[r.IntN(len(cands))])
	}
	return strings.Join(terms, " ")
}
