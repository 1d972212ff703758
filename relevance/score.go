package relevance

import "math"

// Score is a page's relevance to a topic.
type Score struct {
	// Title is B, the title's cosine similarity with the topic, in [0, 1].
	Title float64
	// Body is C, the body's cosine similarity with the topic, in [0, 1].
	Body float64
	// Value is the topic-crawler paper's A = α·B + C divided by α+1, so it lies in
	// [0, 1] whatever α is and can be compared with link values and with
	// Options.Threshold. A page whose title has no terms at all is scored
	// by its body alone (Value = C): a missing title is no evidence
	// against the page, whereas an off-topic title is.
	Value float64
	// Relevant reports Value >= Options.Threshold.
	Relevant bool
}

// Score rates a page by the topic-crawler paper's vector space model with title
// weighting: B and C from Similarity, A = α·B + C normalised to [0, 1].
func (p *Profile) Score(title, body string) Score {
	titleTerms := p.opts.Tokenizer(title)
	s := Score{Title: p.similarity(titleTerms), Body: p.Similarity(body)}
	if len(titleTerms) == 0 {
		s.Value = s.Body
	} else {
		a := p.opts.TitleWeight
		s.Value = (a*s.Title + s.Body) / (a + 1)
	}
	s.Relevant = s.Value >= p.opts.Threshold
	return s
}

// Similarity returns the cosine between text and the topic in [0, 1]
// (the topic-crawler paper): each keyword term's frequency in text is divided by the
// largest keyword-term frequency (so the most frequent keyword counts 1)
// and multiplied by the term's weight; the cosine of that vector with the
// weight vector is the similarity. Terms that are not keywords are not
// counted, so the length of a page does not dilute it. Empty or
// keyword-free text scores 0.
func (p *Profile) Similarity(text string) float64 {
	return p.similarity(p.opts.Tokenizer(text))
}

func (p *Profile) similarity(terms []string) float64 {
	tf := make(map[string]int)
	most := 0
	for _, t := range terms {
		if _, ok := p.terms[t]; ok {
			tf[t]++
			most = max(most, tf[t])
		}
	}
	if most == 0 {
		return 0
	}
	var dot, length float64
	for t, f := range tf {
		w := p.terms[t]
		x := float64(f) / float64(most) * w
		dot += x * w
		length += x * x
	}
	if length == 0 { // only weights so small their squares underflow
		return 0
	}
	// One square root: sqrt(d*d) == d exactly, so a page matching the topic
	// vector's direction scores exactly 1, not 1-ε (thresholds at 1 work).
	return min(dot/math.Sqrt(length*p.normSq), 1)
}
