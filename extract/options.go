package extract

import "github.com/markusmobius/go-trafilatura"

// Focus trades precision against recall in go-trafilatura.
type Focus = trafilatura.ExtractionFocus

// Focus values.
const (
	Balanced       = trafilatura.Balanced
	FavorRecall    = trafilatura.FavorRecall
	FavorPrecision = trafilatura.FavorPrecision
)

// Options configures HTML extraction.
type Options struct {
	// Focus: Balanced (default; FavorPrecision scored 0.956/0.911 and
	// FavorRecall 0.951/0.904 on English/Chinese), FavorRecall or
	// FavorPrecision.
	Focus Focus
	// Fallback lets go-trafilatura compare its result with go-readability
	// and go-domdistiller and keep the better one. Default true: F1 0.958
	// vs 0.952 (English), 0.925 vs 0.907 (Chinese).
	Fallback bool
	// MinArticleRunes is the article length below which go-trafilatura
	// tries its fallbacks and finally takes the whole page text as one
	// paragraph, template included (its MinExtractedSize). Default 100:
	// go-trafilatura's 250 lets short articles, such as encyclopedia
	// passages, fall to that last resort more often. Zero means 250.
	MinArticleRunes int
	// TitleAnchor narrows go-trafilatura's result to the section that
	// starts at the heading naming the page's <title>, when the result
	// starts with that section and is much longer (the other posts of a
	// blog or forum page); see the package doc and narrow.go. Default
	// true: near-duplicate corpus precision 0.947 vs 0.884 at equal recall
	// (0.960), English F1 0.960 vs 0.958, Chinese unchanged; about 1 ms a
	// page. Its risk is a title heading in a box of its own (a recipe
	// card, a header with a long standfirst), narrowed to that box.
	TitleAnchor bool
}

// trafilaturaConfig returns go-trafilatura's configuration for o.

func (o Options) trafilaturaConfig() *trafilatura.Config {
	c := trafilatura.DefaultConfig()
	if o.MinArticleRunes > 0 {
		c.MinExtractedSize = o.MinArticleRunes
	}
	return c
}

// DefaultOptions returns the options measured best on the English and
// Chinese extraction benchmarks (TestF1 in data_test.go).
func DefaultOptions() Options {
	return Options{Focus: Balanced, Fallback: true, MinArticleRunes: 100, TitleAnchor: true}
}
