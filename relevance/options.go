package relevance

import (
	"fmt"
	"math"
)

// Options control how a Profile scores pages.
type Options struct {
	// TitleWeight is α in the topic-crawler paper's A = α·B + C, where B is the title's
	// and C the body's cosine similarity with the topic. Default 4 (the
	// seed's value). 0 ignores titles. Larger values trust titles more:
	// good for article pages with descriptive titles, bad for sites whose
	// titles are keyword-stuffed or carry only the site name.
	//
	// Measured on hand-labelled Wikipedia passages and news articles
	// (eval_test.go) with profiles of 30 learnt terms, α = 4 was worse
	// than α = 0 (macro F1 0.17 vs 0.73 at r = 0.4; 0.70 vs 0.79 with r
	// tuned per topic): short titles share few terms with a large profile, so B is
	// small. α = 4 suits small hand-written keyword lists whose words
	// appear in titles; with large or learnt profiles use a small α or
	// lower r.
	TitleWeight float64

	// Threshold is r: a page is relevant when its normalised value
	// A/(α+1) is at least r. Default 0.4, the paper's r = 2 on its scale
	// A ∈ [0, 5]. Lower r fetches more pages (higher recall, more
	// off-topic pages); higher r fewer. Must lie in [0, 1].
	Threshold float64

	// Tokenizer splits keywords and page text into terms. Default
	// DefaultTokenizer. It must be safe for concurrent use.
	Tokenizer Tokenizer
}

// DefaultOptions returns the topic-crawler paper's settings: α = 4, r = 0.4 (2 of 5),
// DefaultTokenizer.
func DefaultOptions() Options {
	return Options{TitleWeight: 4, Threshold: 0.4, Tokenizer: DefaultTokenizer}
}

func (o Options) validate() error {
	if math.IsNaN(o.TitleWeight) || math.IsInf(o.TitleWeight, 0) || o.TitleWeight < 0 {
		return fmt.Errorf("relevance: title weight %v must be finite and non-negative: %w", o.TitleWeight, ErrInvalidOptions)
	}
	if !(o.Threshold >= 0 && o.Threshold <= 1) {
		return fmt.Errorf("relevance: threshold %v must lie in [0, 1]: %w", o.Threshold, ErrInvalidOptions)
	}
	if o.Tokenizer == nil {
		return fmt.Errorf("relevance: nil tokenizer: %w", ErrInvalidOptions)
	}
	return nil
}

// LinkOptions control how a LinkScorer learns its signal weights.
type LinkOptions struct {
	// Smoothing is added to each signal's mean deviation before it is
	// inverted into a weight, so a signal with zero deviation gets a large
	// but finite weight and the others keep a little. Default 0.05. Larger
	// values keep the weights closer to equal.
	Smoothing float64

	// MinRelevance is the floor on R(p) in the deviation |I_k − R|/R, so
	// pages with R = 0 (common: most fetched pages are off-topic) give a
	// finite deviation |I_k|/MinRelevance instead of dividing by zero.
	// Default 0.1: a deviation is then at most 10. Smaller values punish
	// signals that over-predict off-topic pages harder.
	MinRelevance float64
}

// DefaultLinkOptions returns Smoothing 0.05 and MinRelevance 0.1.
func DefaultLinkOptions() LinkOptions {
	return LinkOptions{Smoothing: 0.05, MinRelevance: 0.1}
}

func (o LinkOptions) validate() error {
	if !(o.Smoothing > 0) || math.IsInf(o.Smoothing, 0) {
		return fmt.Errorf("relevance: smoothing %v must be positive and finite: %w", o.Smoothing, ErrInvalidOptions)
	}
	if !(o.MinRelevance > 0 && o.MinRelevance <= 1) {
		return fmt.Errorf("relevance: min relevance %v must lie in (0, 1]: %w", o.MinRelevance, ErrInvalidOptions)
	}
	return nil
}
