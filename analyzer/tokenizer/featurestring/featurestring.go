// Package featurestring is a bleve tokenizer, and an analyzer of the same
// name, emitting the feature-string paper's pieces (analyzer.Analyzer.Pieces)
// as tokens, one per effective delimiter in text order. A field analysed
// with it can find documents sharing pieces, and a phrase query over pieces
// finds documents sharing a run of the feature string.
//
// Config keys (all optional, defaults from analyzer.DefaultOptions):
// "delimiters" (string), "han_window" and "latin_window" (numbers).
package featurestring

import (
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/analyzer/internal/component"
)

// Name is the registered name of both the tokenizer and the analyzer.
const Name = "dedup_featurestring"

// Tokenizer emits feature-string pieces. It is safe for concurrent use.
type Tokenizer struct {
	a *analyzer.Analyzer
}

// New returns a Tokenizer using opts' Delimiters, HanWindow and
// LatinWindow, or an error wrapping analyzer.ErrInvalidOptions.
func New(opts analyzer.Options) (*Tokenizer, error) {
	a, err := analyzer.New(opts)
	if err != nil {
		return nil, err
	}
	return &Tokenizer{a: a}, nil
}

// Tokenize normalises input and returns its pieces as tokens. Lines of the
// input are paragraphs.
func (t *Tokenizer) Tokenize(input []byte) analysis.TokenStream {
	pieces := t.a.Pieces(analyzer.AppendNormalized(nil, string(input)))
	n := 0
	for _, p := range pieces {
		n += len(p)
	}
	buf := make([]byte, 0, n) // one allocation for all terms
	terms := make([][]byte, len(pieces))
	for i, p := range pieces {
		start := len(buf)
		buf = append(buf, p...)
		terms[i] = buf[start:len(buf):len(buf)]
	}
	return component.Stream(terms, len(input), analysis.AlphaNumeric)
}

// Constructor is the tokenizer registry adapter.
func Constructor(config map[string]interface{}, cache *registry.Cache) (analysis.Tokenizer, error) {
	opts := analyzer.DefaultOptions()
	var err error
	if opts.Delimiters, err = component.String(config, "delimiters", opts.Delimiters); err != nil {
		return nil, err
	}
	if opts.HanWindow, err = component.Int(config, "han_window", opts.HanWindow); err != nil {
		return nil, err
	}
	if opts.LatinWindow, err = component.Int(config, "latin_window", opts.LatinWindow); err != nil {
		return nil, err
	}
	return New(opts)
}

func init() {
	// Also registers an analyzer of the same name: the tokenizer alone.
	component.RegisterTokenizer(Name, Constructor)
}
