package terms

import (
	"maps"
	"testing"

	"github.com/blevesearch/bleve/v2/registry"
)

func TestTokenize(t *testing.T) {
	for _, tc := range []struct {
		text string
		want map[string]int
	}{
		{"我们的Ｇｏ语言，Go!", map[string]int{"我们": 1, "们的": 1, "go": 2, "语言": 1}},
		{"", map[string]int{}},
	} {
		got := map[string]int{}
		for _, tok := range New().Tokenize([]byte(tc.text)) {
			got[string(tok.Term)]++
		}
		if !maps.Equal(got, tc.want) {
			t.Errorf("Tokenize(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestRegistered(t *testing.T) {
	cache := registry.NewCache()
	if _, err := cache.TokenizerNamed(Name); err != nil {
		t.Errorf("TokenizerNamed(%q): %v", Name, err)
	}
	a, err := cache.AnalyzerNamed(Name)
	if err != nil {
		t.Fatalf("AnalyzerNamed(%q): %v", Name, err)
	}
	if ts := a.Analyze([]byte("中文 text")); len(ts) != 2 || string(ts[0].Term) != "中文" || string(ts[1].Term) != "text" {
		t.Errorf("Analyze tokens = %v, want [中文 text]", ts)
	}
}
