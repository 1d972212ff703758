// Package blocks is a bleve tokenizer, and an analyzer of the same name,
// emitting the fingerprint paper's block fingerprints (analyzer.Analyzer.Blocks) as
// 40-character lowercase hex SHA-1 tokens, most important block first. A
// term query for one fingerprint finds the documents sharing that block.
//
// Config keys (optional, defaults from analyzer.DefaultOptions): "blocks"
// (number, m) and "block_delimiters" (string).
package blocks

import (
	"crypto/sha1"
	"encoding/hex"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/analyzer/internal/component"
)

// Name is the registered name of both the tokenizer and the analyzer.
const Name = "dedup_blocks"

// Tokenizer emits block fingerprints. It is safe for concurrent use.
type Tokenizer struct {
	a *analyzer.Analyzer
}

// New returns a Tokenizer using opts' Blocks and BlockDelimiters, or an
// error wrapping analyzer.ErrInvalidOptions.
func New(opts analyzer.Options) (*Tokenizer, error) {
	a, err := analyzer.New(opts)
	if err != nil {
		return nil, err
	}
	return &Tokenizer{a: a}, nil
}

// Tokenize normalises input and returns its block fingerprints as tokens.
// Lines of the input are paragraphs.
func (t *Tokenizer) Tokenize(input []byte) analysis.TokenStream {
	fps := t.a.Blocks(analyzer.AppendNormalized(nil, string(input)))
	const size = 2 * sha1.Size
	buf := make([]byte, len(fps)*size) // one allocation for all terms
	terms := make([][]byte, len(fps))
	for i, fp := range fps {
		terms[i] = buf[i*size : (i+1)*size]
		hex.Encode(terms[i], fp[:])
	}
	return component.Stream(terms, len(input), analysis.AlphaNumeric)
}

// Constructor is the tokenizer registry adapter.
func Constructor(config map[string]interface{}, cache *registry.Cache) (analysis.Tokenizer, error) {
	opts := analyzer.DefaultOptions()
	var err error
	if opts.Blocks, err = component.Int(config, "blocks", opts.Blocks); err != nil {
		return nil, err
	}
	if opts.BlockDelimiters, err = component.String(config, "block_delimiters", opts.BlockDelimiters); err != nil {
		return nil, err
	}
	return New(opts)
}

func init() {
	// Also registers an analyzer of the same name: the tokenizer alone.
	component.RegisterTokenizer(Name, Constructor)
}
