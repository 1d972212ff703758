// Package minhash is a bleve tokenizer, and an analyzer of the same name,
// emitting the LSH band keys of a text's MinHash signature
// (analyzer.Analyzer.MinHash, analyzer.Bands) as 16-character lowercase hex
// tokens, band 0 first. Two documents sharing any token are LSH candidates:
// with b bands of r rows, documents of Jaccard similarity s share one with
// probability 1-(1-s^r)^b. A disjunction of a document's tokens finds its
// candidates.
//
// Config keys (optional): "size" (number, default
// analyzer.DefaultOptions().MinHashSize), "shingle" (number, default
// analyzer.DefaultOptions().Shingle) and "bands" (number, default
// DefaultBands); bands must divide size.
package minhash

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/analyzer/internal/component"
)

// Name is the registered name of both the tokenizer and the analyzer.
const Name = "dedup_minhash"

// DefaultBands is the default number of bands: 32 bands of 4 rows of the
// default 128 values, a candidate threshold near Jaccard 0.42 ((1/32)^(1/4))
// that favours recall; verification must then reject false candidates.
const DefaultBands = 32

// Tokenizer emits LSH band keys. It is safe for concurrent use.
type Tokenizer struct {
	a     *analyzer.Analyzer
	bands int
}

// New returns a Tokenizer using opts' MinHashSize and Shingle with the given
// number of bands, or an error wrapping analyzer.ErrInvalidOptions.
func New(opts analyzer.Options, bands int) (*Tokenizer, error) {
	a, err := analyzer.New(opts)
	if err != nil {
		return nil, err
	}
	if opts.MinHashSize == 0 || bands < 1 || opts.MinHashSize%bands != 0 {
		return nil, fmt.Errorf("minhash: %d bands do not divide MinHashSize %d: %w", bands, opts.MinHashSize, analyzer.ErrInvalidOptions)
	}
	return &Tokenizer{a: a, bands: bands}, nil
}

// Tokenize normalises input and returns its band keys as tokens.
func (t *Tokenizer) Tokenize(input []byte) analysis.TokenStream {
	keys, err := analyzer.Bands(t.a.MinHash(analyzer.AppendNormalized(nil, string(input))), t.bands)
	if err != nil {
		return nil // unreachable: New checked that bands divide the size
	}
	const size = 2 * 8
	buf := make([]byte, len(keys)*size) // one allocation for all terms
	terms := make([][]byte, len(keys))
	var raw [8]byte
	for i, k := range keys {
		binary.BigEndian.PutUint64(raw[:], k)
		terms[i] = buf[i*size : (i+1)*size]
		hex.Encode(terms[i], raw[:])
	}
	return component.Stream(terms, len(input), analysis.AlphaNumeric)
}

// Constructor is the tokenizer registry adapter.
func Constructor(config map[string]interface{}, cache *registry.Cache) (analysis.Tokenizer, error) {
	opts := analyzer.DefaultOptions()
	var err error
	if opts.MinHashSize, err = component.Int(config, "size", opts.MinHashSize); err != nil {
		return nil, err
	}
	if opts.Shingle, err = component.Int(config, "shingle", opts.Shingle); err != nil {
		return nil, err
	}
	bands, err := component.Int(config, "bands", DefaultBands)
	if err != nil {
		return nil, err
	}
	return New(opts, bands)
}

func init() {
	// Also registers an analyzer of the same name: the tokenizer alone.
	component.RegisterTokenizer(Name, Constructor)
}
