// Package terms is a bleve tokenizer, and an analyzer of the same name,
// emitting the boolean-model paper's terms (analyzer.EachTerm) once per
// occurrence, so bleve's term frequencies equal analyzer.Features.Terms:
// normalised UAX #29 words and numbers, and Han (and kana) runs as
// overlapping bigrams. It takes no config.
package terms

import (
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/analyzer/internal/component"
)

// Name is the registered name of both the tokenizer and the analyzer.
const Name = "dedup_terms"

// Tokenizer emits terms. It is stateless and safe for concurrent use.
type Tokenizer struct{}

// New returns a Tokenizer.
func New() *Tokenizer { return &Tokenizer{} }

// Tokenize normalises input and returns its terms as tokens.
func (*Tokenizer) Tokenize(input []byte) analysis.TokenStream {
	text := analyzer.AppendNormalized(nil, string(input))
	var terms [][]byte
	analyzer.EachTerm(text, func(term []byte) { terms = append(terms, term) })
	return component.Stream(terms, len(input), analysis.AlphaNumeric)
}

// Constructor is the tokenizer registry adapter.
func Constructor(config map[string]interface{}, cache *registry.Cache) (analysis.Tokenizer, error) {
	return New(), nil
}

func init() {
	// Also registers an analyzer of the same name: the tokenizer alone.
	component.RegisterTokenizer(Name, Constructor)
}
