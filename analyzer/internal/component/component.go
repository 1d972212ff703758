// Package component holds what the dedup bleve analysis components share:
// reading their JSON-style config and building token streams of derived
// features.
package component

import (
	"fmt"
	"math"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
)

// Stream returns terms as a token stream with positions 1, 2, ... Derived
// features (pieces, fingerprints, band keys) are not substrings of the
// input, so every token spans the whole input: offsets are only good for
// highlighting the field as a whole. The token terms are not copied.
func Stream(terms [][]byte, inputLen int, typ analysis.TokenType) analysis.TokenStream {
	tokens := make([]analysis.Token, len(terms))
	out := make(analysis.TokenStream, len(terms))
	for i, term := range terms {
		tokens[i] = analysis.Token{Term: term, Start: 0, End: inputLen, Position: i + 1, Type: typ}
		out[i] = &tokens[i]
	}
	return out
}

// String returns config[key], or def when it is absent.
func String(config map[string]interface{}, key, def string) (string, error) {
	v, ok := config[key]
	if !ok {
		return def, nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("config %q: got %T, want a string", key, v)
	}
	return s, nil
}

// Int returns config[key], or def when it is absent. JSON numbers arrive as
// float64; they must be whole.
func Int(config map[string]interface{}, key string, def int) (int, error) {
	v, ok := config[key]
	if !ok {
		return def, nil
	}
	switch n := v.(type) {
	case int:
		return n, nil
	case float64:
		if n != math.Trunc(n) || math.Abs(n) > math.MaxInt32 {
			return 0, fmt.Errorf("config %q: %v is not a whole number", key, n)
		}
		return int(n), nil
	}
	return 0, fmt.Errorf("config %q: got %T, want a number", key, v)
}

// RegisterTokenizer registers a tokenizer constructor under name, and an
// analyzer of the same name made of that tokenizer alone, so that a mapping
// can name either. It runs from init functions; registration fails only for
// a duplicate name, a build defect that must stop the program, as in
// bleve's own components.
func RegisterTokenizer(name string, c registry.TokenizerConstructor) {
	if err := registry.RegisterTokenizer(name, c); err != nil {
		panic(err)
	}
	analyzer := func(config map[string]interface{}, cache *registry.Cache) (analysis.Analyzer, error) {
		t, err := cache.TokenizerNamed(name)
		if err != nil {
			return nil, err
		}
		return &analysis.DefaultAnalyzer{Tokenizer: t}, nil
	}
	if err := registry.RegisterAnalyzer(name, analyzer); err != nil {
		panic(err)
	}
}
