package extract

import "fmt"

// Engine names a main-content extractor.
type Engine int

// Engines.
const (
	// Native is this package's extractor: one pass of an HTML lexer
	// builds the page's blocks, and the element whose text weighs most
	// holds the article (see native.go).
	Native Engine = iota + 1
	// Trafilatura runs go-trafilatura on a parsed page. Pages past
	// MaxTrafilaturaElements or MaxTrafilaturaRunes, and pages that
	// html.Parse cannot read (more than 512 open elements), go to Native.
	// It runs only in programs that import package
	// github.com/bleve-dedup/bleve-dedup/extract/trafilatura (see the
	// package doc for why).
	Trafilatura
)

func (e Engine) String() string {
	switch e {
	case Native:
		return "native"
	case Trafilatura:
		return "trafilatura"
	}
	return fmt.Sprintf("Engine(%d)", int(e))
}

// Focus trades precision against recall in go-trafilatura (its
// ExtractionFocus, which this package cannot name without linking it).
type Focus int

// Focus values.
const (
	Balanced Focus = iota
	FavorRecall
	FavorPrecision
)

// Options configures HTML extraction.
type Options struct {
	// Engine is the main-content extractor: Native (default: F1
	// 0.975/0.956 on English/Chinese, precision/recall 0.956/0.964 on the
	// near-duplicate corpus's reprints, 0.5-0.6 ms of CPU a page there) or
	// Trafilatura (0.965/0.925, 0.948/0.960, 12 ms; the program must import
	// package extract/trafilatura, else the options are invalid).
	Engine Engine
	// TitleAnchor narrows the engine's result to the section that starts
	// at the heading naming the page's <title>, when the result starts
	// with that section and is much longer (the other posts of a blog or
	// forum page); see the package doc and narrow.go. Default true: with
	// Native, near-duplicate corpus precision 0.956 vs 0.893 at equal
	// recall (0.964), English F1 0.975 vs 0.967, Chinese unchanged (with
	// go-trafilatura, 0.947 vs 0.884). Its risk is a title heading in a
	// box of its own (a recipe card, a header with a long standfirst),
	// narrowed to that box.
	TitleAnchor bool

	// The fields below apply to the Trafilatura engine only.

	// Focus: Balanced (default: F1 0.965/0.925 on English/Chinese),
	// FavorPrecision (0.961/0.920) or FavorRecall (0.958/0.916).
	Focus Focus
	// Fallback lets go-trafilatura compare its result with go-readability
	// and go-domdistiller and keep the better one: F1 0.965 vs 0.956
	// (English), 0.925 vs 0.912 (Chinese), near-duplicate reprints
	// precision/recall 0.948/0.960 vs 0.943/0.955, at about twice the CPU
	// (12.0 vs 6.3 ms a page on the near-duplicate corpus).
	Fallback bool
	// MinArticleRunes is the article length below which go-trafilatura
	// tries its fallbacks and finally takes the whole page text as one
	// paragraph, template included (its MinExtractedSize). 100 measured
	// better than go-trafilatura's 250, which lets short articles, such as
	// encyclopedia passages, fall to that last resort more often.
	MinArticleRunes int
	// MaxTrafilaturaElements and MaxTrafilaturaRunes bound the pages
	// go-trafilatura sees (elements, and runes of text outside script and
	// style): a larger page goes to the Native engine. go-trafilatura's
	// cost grows faster than the page (measured: 0.21, 0.44 and 1.0 s of
	// CPU for a table of 128, 256 and 512 KB; 0.07, 0.12 and 0.29 s for
	// paragraphs of as much text), and it cannot be interrupted once
	// started. The defaults, 10,000 elements and 200,000 runes, are 8 and
	// 9 times the 99th percentile of the pages of the extraction
	// benchmarks and the near-duplicate corpus, and above their largest
	// (7,615 elements, 56,085 runes).
	MaxTrafilaturaElements int
	MaxTrafilaturaRunes    int

	// native replaces the Native engine's weights (defaultWeights) when
	// not nil: only tests measuring other values set it.
	native *weights
}

// DefaultOptions returns the options measured best on the English and
// Chinese extraction benchmarks and the near-duplicate corpus (TestF1 and
// TestNeardup in data_test.go).
func DefaultOptions() Options {
	return Options{
		Engine:                 Native,
		TitleAnchor:            true,
		Focus:                  Balanced,
		Fallback:               true,
		MinArticleRunes:        100,
		MaxTrafilaturaElements: 10000,
		MaxTrafilaturaRunes:    200000,
	}
}

// validate reports the first invalid field, wrapping ErrInvalidOptions.
func (o Options) validate() error {
	switch {
	case o.Engine != Native && o.Engine != Trafilatura:
		return fmt.Errorf("extract: unknown engine %v: %w", o.Engine, ErrInvalidOptions)
	case o.Engine == Trafilatura && engines[Trafilatura] == nil:
		return fmt.Errorf("extract: engine %v not linked: import github.com/bleve-dedup/bleve-dedup/extract/trafilatura: %w", o.Engine, ErrInvalidOptions)
	case o.Engine == Trafilatura && (o.Focus < Balanced || o.Focus > FavorPrecision):
		return fmt.Errorf("extract: unknown focus %d: %w", o.Focus, ErrInvalidOptions)
	case o.Engine == Trafilatura && o.MinArticleRunes < 1:
		return fmt.Errorf("extract: MinArticleRunes %d < 1: %w", o.MinArticleRunes, ErrInvalidOptions)
	case o.Engine == Trafilatura && o.MaxTrafilaturaElements < 1:
		return fmt.Errorf("extract: MaxTrafilaturaElements %d < 1: %w", o.MaxTrafilaturaElements, ErrInvalidOptions)
	case o.Engine == Trafilatura && o.MaxTrafilaturaRunes < 1:
		return fmt.Errorf("extract: MaxTrafilaturaRunes %d < 1: %w", o.MaxTrafilaturaRunes, ErrInvalidOptions)
	}
	return nil
}
