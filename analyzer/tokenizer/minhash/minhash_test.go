package minhash

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
)

func terms(ts analysis.TokenStream) []string {
	out := make([]string, len(ts))
	for i, tok := range ts {
		out[i] = string(tok.Term)
	}
	return out
}

// wantKeys computes the band keys with the analyzer package directly.
func wantKeys(tb testing.TB, text string, size, shingle, bands int) []string {
	tb.Helper()
	opts := analyzer.DefaultOptions()
	opts.MinHashSize, opts.Shingle = size, shingle
	a, err := analyzer.New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	keys, err := analyzer.Bands(a.MinHash(analyzer.AppendNormalized(nil, text)), bands)
	if err != nil {
		tb.Fatal(err)
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = fmt.Sprintf("%016x", k)
	}
	return out
}

func TestConstructor(t *testing.T) {
	const text = "自然语言处理是人工智能的一个重要方向。The quick brown fox."
	for _, tc := range []struct {
		name                 string
		config               map[string]interface{}
		size, shingle, bands int
		wantErr              error
	}{
		{"defaults", nil, 128, 3, 32, nil},
		{"16x8", map[string]interface{}{"bands": 16.0}, 128, 3, 16, nil},
		{"64 values, shingle 4", map[string]interface{}{"size": 64.0, "shingle": 4.0, "bands": 8.0}, 64, 4, 8, nil},
		{"bands do not divide", map[string]interface{}{"bands": 3.0}, 0, 0, 0, analyzer.ErrInvalidOptions},
		{"zero bands", map[string]interface{}{"bands": 0.0}, 0, 0, 0, analyzer.ErrInvalidOptions},
		{"zero size", map[string]interface{}{"size": 0.0}, 0, 0, 0, analyzer.ErrInvalidOptions},
		{"zero shingle", map[string]interface{}{"shingle": 0.0}, 0, 0, 0, analyzer.ErrInvalidOptions},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok, err := Constructor(tc.config, registry.NewCache())
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Constructor error = %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			got := terms(tok.Tokenize([]byte(text)))
			if want := wantKeys(t, text, tc.size, tc.shingle, tc.bands); !slices.Equal(got, want) {
				t.Errorf("tokens = %q, want %q", got, want)
			}
		})
	}
}

func TestAnalyzerRegistered(t *testing.T) {
	a, err := registry.NewCache().AnalyzerNamed(Name)
	if err != nil {
		t.Fatalf("AnalyzerNamed(%q): %v", Name, err)
	}
	if got := a.Analyze([]byte("some text")); len(got) != DefaultBands {
		t.Errorf("%d tokens, want %d", len(got), DefaultBands)
	}
}
