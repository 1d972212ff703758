package docbody

import (
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/standard"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/whitespace"
	"github.com/blevesearch/bleve/v2/registry"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/bleve-dedup/bleve-dedup/analyzer/tokenfilter/cjkchain"
	"github.com/bleve-dedup/bleve-dedup/analyzer/tokenizer/unicodewords"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/extracttest"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/tokentest"
)

const mixedText = "我们的Ｇｏ语言，Go!  全角，标点。“引号”！ ＡＢＣ１２３ ｶﾞｷﾞ カタカナ漢字abc 한국어\n" +
	"The Quick brown fox's 2nd jump, don't 3.14 e.g. ΣΟΦΙΑ Straße \xff 中 文 中文字"

func TestFaster(t *testing.T) {
	cache := registry.NewCache()
	named := func(name string) analysis.Analyzer {
		a, err := cache.AnalyzerNamed(name)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	chain := func(unigrams bool) []analysis.TokenFilter {
		return []analysis.TokenFilter{cjk.NewCJKWidthFilter(), lowercase.NewLowerCaseFilter(), cjk.NewCJKBigramFilter(unigrams)}
	}
	whitespaceTokenizer, err := cache.TokenizerNamed(whitespace.Name)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name               string
		a                  analysis.Analyzer
		tokenizer, filters bool // replaced
	}{
		{"cjk", named(cjk.AnalyzerName), true, true},
		{"standard", named(standard.Name), true, false},
		{"keyword", named(keyword.Name), false, false},
		{"cjk with unigrams", &analysis.DefaultAnalyzer{Tokenizer: unicode.NewUnicodeTokenizer(), TokenFilters: chain(true)}, true, false},
		{"cjk filters on whitespace", &analysis.DefaultAnalyzer{Tokenizer: whitespaceTokenizer, TokenFilters: chain(false)}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := faster(tt.a)
			if f2 := faster(tt.a); f2 != f {
				t.Errorf("made twice")
			}
			if !tt.tokenizer && !tt.filters {
				if f != tt.a {
					t.Errorf("replaced, want a itself")
				}
				return
			}
			d, ok := f.(*analysis.DefaultAnalyzer)
			if !ok || f == tt.a {
				t.Fatalf("got %T %p, want a new DefaultAnalyzer", f, f)
			}
			if _, got := d.Tokenizer.(*unicodewords.Tokenizer); got != tt.tokenizer {
				t.Errorf("tokenizer replaced: %v, want %v", got, tt.tokenizer)
			}
			if got := len(d.TokenFilters) == 1 && isChain(d.TokenFilters[0]); got != tt.filters {
				t.Errorf("filters replaced: %v, want %v", got, tt.filters)
			}
			for _, text := range []string{mixedText, "", "中", "Ab"} {
				if diff := tokentest.Diff(f.Analyze([]byte(text)), tt.a.Analyze([]byte(text))); diff != "" {
					t.Errorf("Analyze(%.30q): %s", text, diff)
				}
			}
		})
	}
}

func isChain(f analysis.TokenFilter) bool {
	_, ok := f.(*cjkchain.Filter)
	return ok
}

// BenchmarkFaster compares bleve's cjk analyzer and its faster form on
// mixed English and Chinese text.
func BenchmarkFaster(b *testing.B) {
	text := []byte(strings.Repeat("The quick brown fox, 3.14 times; 我们的语言，标点。“引号”！ ", 50))
	a, err := registry.NewCache().AnalyzerNamed(cjk.AnalyzerName)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		a    analysis.Analyzer
	}{{"cjk=bleve", a}, {"cjk=faster", faster(a)}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				c.a.Analyze(text)
			}
		})
	}
}

// TestFrequencies checks frequencies against analysis.TokenFrequency for
// each combination of the options it reads.
func TestFrequencies(t *testing.T) {
	a, err := registry.NewCache().AnalyzerNamed(cjk.AnalyzerName)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		options index.FieldIndexingOptions
	}{
		{"term vectors", index.IndexField | index.IncludeTermVectors},
		{"no term vectors", index.IndexField},
		{"term vectors, no frequencies", index.IndexField | index.IncludeTermVectors | index.SkipFreqNorm},
		{"no frequencies", index.IndexField | index.SkipFreqNorm},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, text := range []string{"", "中", strings.Repeat(mixedText+" ", 40)} {
				tokens := a.Analyze([]byte(text))
				pos := []uint64{1, 4}
				got, want := frequencies(tokens, pos, tt.options), analysis.TokenFrequency(tokens, pos, tt.options)
				if len(got) != len(want) || got.Size() != want.Size() {
					t.Errorf("%.20q: %d terms, size %d; want %d, %d", text, len(got), got.Size(), len(want), want.Size())
				}
				for term, w := range want {
					g := got[term]
					if g == nil || string(g.Term) != string(w.Term) || g.Frequency() != w.Frequency() || locations(g) != locations(w) {
						t.Errorf("%.20q, term %q: %v %s, want %d %s", text, term, g != nil && g.Frequency() == w.Frequency(), locations(g), w.Frequency(), locations(w))
					}
				}
			}
		})
	}
}

// BenchmarkFrequencies compares analysis.TokenFrequency and frequencies
// on the tokens of real English and Chinese pages' main text.
func BenchmarkFrequencies(b *testing.B) {
	a, err := registry.NewCache().AnalyzerNamed(cjk.AnalyzerName)
	if err != nil {
		b.Fatal(err)
	}
	for _, lang := range []struct {
		name    string
		samples []extracttest.Sample
	}{{"en", extracttest.LoadEN(b)}, {"zh", extracttest.LoadZH(b)}} {
		var pages []analysis.TokenStream
		for _, s := range lang.samples {
			pages = append(pages, a.Analyze([]byte(s.Gold)))
		}
		opts := index.IndexField | index.IncludeTermVectors
		for _, c := range []struct {
			name string
			fn   func(analysis.TokenStream, []uint64, index.FieldIndexingOptions) index.TokenFrequencies
		}{{"bleve", analysis.TokenFrequency}, {"frequencies", frequencies}} {
			b.Run(lang.name+"/"+c.name, func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					c.fn(pages[i%len(pages)], nil, opts)
				}
			})
		}
	}
}
