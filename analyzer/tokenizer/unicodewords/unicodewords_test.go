package unicodewords

import (
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/registry"

	"github.com/bleve-dedup/bleve-dedup/internal/testkit/extracttest"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/tokentest"
)

var seeds = []string{
	"", "a b", "Hello, World! don't 3.14 e.g. x_y 1_2 abc123",
	"我们的Ｇｏ语言，Go!  全角，标点。“引号”！ ＡＢＣ１２３ ｶﾞｷﾞ",
	"カタカナ漢字abc ひらがな 한국어 中\u0301文 a\u0301 b",
	"tab\tsep\r\nCRLF \u00a0nbsp (word) end. \"quoted\" _a b_ c-d 'tis ...z!?",
	"\xff\xfe invalid \xe4\xb8 utf8 中\xff", "潷ﾞ 中\u00ad文 中\u200e文 中\u302a 中，文。「引」", "ok 中文 then \xff",
}

func TestTokenize(t *testing.T) {
	bleve := unicode.NewUnicodeTokenizer()
	for _, s := range seeds {
		if d := tokentest.Diff(New().Tokenize([]byte(s)), bleve.Tokenize([]byte(s))); d != "" {
			t.Errorf("Tokenize(%q): %s", s, d)
		}
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	bleve := unicode.NewUnicodeTokenizer()
	f.Fuzz(func(t *testing.T, s string) {
		if d := tokentest.Diff(New().Tokenize([]byte(s)), bleve.Tokenize([]byte(s))); d != "" {
			t.Errorf("Tokenize(%q): %s", s, d)
		}
	})
}

func TestRegistered(t *testing.T) {
	a, err := registry.NewCache().AnalyzerNamed(Name)
	if err != nil {
		t.Fatalf("AnalyzerNamed(%q): %v", Name, err)
	}
	if ts := a.Analyze([]byte("中文 Text")); len(ts) != 3 || string(ts[2].Term) != "Text" {
		t.Errorf("Analyze tokens = %v, want [中 文 Text]", ts)
	}
}

// BenchmarkTokenize compares bleve's tokenizer and this one on mixed
// English and Chinese text.
func BenchmarkTokenize(b *testing.B) {
	text := []byte(strings.Repeat("The quick brown fox, 3.14 times; 我们的语言，标点。“引号”！ ", 50))
	for _, c := range []struct {
		name string
		fn   func([]byte) analysis.TokenStream
	}{
		{"tokenizer=bleve", unicode.NewUnicodeTokenizer().Tokenize},
		{"tokenizer=unicodewords", New().Tokenize},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				c.fn(text)
			}
		})
	}
}

// TestRealText checks the tokens of real English and Chinese pages
// against bleve's tokenizer: their gold main text as published (not
// normalised), and their raw HTML, markup and scripts included.
func TestRealText(t *testing.T) {
	bleve := unicode.NewUnicodeTokenizer()
	for _, s := range append(extracttest.LoadEN(t), extracttest.LoadZH(t)...) {
		for _, text := range []string{s.Gold, s.HTML} {
			if d := tokentest.Diff(New().Tokenize([]byte(text)), bleve.Tokenize([]byte(text))); d != "" {
				t.Errorf("%s: Tokenize(%.60q...): %s", s.Name, text, d)
			}
		}
	}
}
