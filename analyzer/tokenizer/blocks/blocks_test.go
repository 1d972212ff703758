package blocks

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
)

func hexSHA1(s string) string {
	sum := sha1.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

func terms(ts analysis.TokenStream) []string {
	out := make([]string, len(ts))
	for i, tok := range ts {
		out[i] = string(tok.Term)
	}
	return out
}

func TestConstructor(t *testing.T) {
	const text = "短句。这是最长的一个句子！中等长度句\n尾"
	for _, tc := range []struct {
		name    string
		config  map[string]interface{}
		want    []string
		wantErr error
	}{
		{"defaults", nil, []string{hexSHA1("这是最长的一个句子"), hexSHA1("中等长度句"), hexSHA1("短句"), hexSHA1("尾")}, nil},
		{"top 1", map[string]interface{}{"blocks": 1.0}, []string{hexSHA1("这是最长的一个句子")}, nil},
		{"paragraph blocks", map[string]interface{}{"block_delimiters": "", "blocks": 1.0}, []string{hexSHA1("短句这是最长的一个句子中等长度句")}, nil},
		{"negative", map[string]interface{}{"blocks": -1.0}, nil, analyzer.ErrInvalidOptions},
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
}

func TestAnalyzerRegistered(t *testing.T) {
	a, err := registry.NewCache().AnalyzerNamed(Name)
	if err != nil {
		t.Fatalf("AnalyzerNamed(%q): %v", Name, err)
	}
	if got, want := terms(a.Analyze([]byte("一句话。"))), []string{hexSHA1("一句话")}; !slices.Equal(got, want) {
		t.Errorf("tokens = %q, want %q", got, want)
	}
}
