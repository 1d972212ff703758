// Package normalize is a bleve char filter applying the dedup analyzer's
// text normalisation (analyzer.AppendNormalized): width folding, lowercase,
// traditional to simplified Chinese characters, invisible characters
// dropped, one quote style, collapsed whitespace. Use
// it in front of other bleve tokenizers so that reprints differing only in
// those respects index identically. The dedup tokenizers normalise by
// themselves and do not need it.
package normalize

import (
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
)

// Name is the char filter's registered name.
const Name = "dedup_normalize"

// CharFilter normalises text. It is stateless and safe for concurrent use.
type CharFilter struct{}

// New returns a CharFilter.
func New() *CharFilter { return &CharFilter{} }

// Filter returns the normalised input in a new slice.
func (*CharFilter) Filter(input []byte) []byte {
	return analyzer.AppendNormalized(make([]byte, 0, len(input)), string(input))
}

// Constructor is the registry adapter; the filter takes no config.
func Constructor(config map[string]interface{}, cache *registry.Cache) (analysis.CharFilter, error) {
	return New(), nil
}

func init() {
	// Registration only fails for a duplicate name: a build defect that
	// must stop the program, as in bleve's own components.
	if err := registry.RegisterCharFilter(Name, Constructor); err != nil {
		panic(err)
	}
}
