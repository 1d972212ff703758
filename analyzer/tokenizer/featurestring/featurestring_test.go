package featurestring

import (
	"errors"
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

func TestConstructor(t *testing.T) {
	const text = "我的书很好，他的也好。Hello there. Bye"
	for _, tc := range []struct {
		name    string
		config  map[string]interface{}
		want    []string
		wantErr error
	}{
		{"defaults", nil, []string{"好他", "好hel", "erebye"}, nil},
		{"table 3-1 row 。的", map[string]interface{}{"delimiters": "。的"}, []string{"我书", "他也", "好hel"}, nil},
		{"windows", map[string]interface{}{"delimiters": "，", "han_window": 2.0}, []string{"很好他的"}, nil},
		{"latin window", map[string]interface{}{"latin_window": 1.0}, []string{"好他", "好h", "eb"}, nil},
		{"empty delimiters", map[string]interface{}{"delimiters": ""}, nil, analyzer.ErrInvalidOptions},
		{"zero window", map[string]interface{}{"han_window": 0.0}, nil, analyzer.ErrInvalidOptions},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok, err := Constructor(tc.config, registry.NewCache())
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Constructor error = %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if got := terms(tok.Tokenize([]byte(text))); !slices.Equal(got, tc.want) {
				t.Errorf("tokens = %q, want %q", got, tc.want)
			}
		})
	}
	if _, err := Constructor(map[string]interface{}{"han_window": "1"}, registry.NewCache()); err == nil {
		t.Errorf("string han_window accepted")
	}
}

func TestAnalyzerRegistered(t *testing.T) {
	a, err := registry.NewCache().AnalyzerNamed(Name)
	if err != nil {
		t.Fatalf("AnalyzerNamed(%q): %v", Name, err)
	}
	if got, want := terms(a.Analyze([]byte("天气不错。他去了。"))), []string{"错他", "了"}; !slices.Equal(got, want) {
		t.Errorf("tokens = %q, want %q", got, want)
	}
}
