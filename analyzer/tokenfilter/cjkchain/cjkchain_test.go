package cjkchain

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	stdunicode "unicode"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/character"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/registry"

	"github.com/bleve-dedup/bleve-dedup/internal/testkit/extracttest"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/tokentest"
)

var seeds = []string{
	"", "a b", "Hello, World! don't 3.14 e.g. x_y 1_2 abc123 ABC",
	"我们的Ｇｏ语言，Go!  全角，标点。“引号”！ ＡＢＣ１２３ ｶﾞｷﾞ ﾊﾟﾋﾟ ｳﾞ",
	"カタカナ漢字abc ひらがな 한국어 中\u0301文 a\u0301 b 中",
	"tab\tsep\r\nCRLF \u00a0nbsp (word) end. \"quoted\" _a b_ c-d 'tis ...z!?",
	"\xff\xfe invalid \xe4\xb8 utf8 中\xff", "潷ﾞ 中\u00ad文 中\u200e文 中\u302a 中，文。「引」",
	"ΣΟΦΙΑ σοφός ΟΔΟΣ Ⱥ Ⱦ İstanbul Straße ǅ", "中 文 中文 中文字 a中b文c 字",
}

// bleveChain is the filters this package stands for, as bleve's cjk
// analyzer has them.
func bleveChain(ts analysis.TokenStream) analysis.TokenStream {
	ts = cjk.NewCJKWidthFilter().Filter(ts)
	ts = lowercase.NewLowerCaseFilter().Filter(ts)
	return cjk.NewCJKBigramFilter(false).Filter(ts)
}

// check compares the filter with bleve's on the tokens tokenize makes of
// text, and checks that text is left as it was. Where bleve's bigram
// filter panics (a term lowered into invalid UTF-8 in an ideographic
// token, whose characters it cuts past the term's capacity), the filter
// must only not.
func check(t *testing.T, tokenize func([]byte) analysis.TokenStream, text string) {
	t.Helper()
	in := []byte(text)
	got := New().Filter(tokenize(in))
	if !bytes.Equal(in, []byte(text)) {
		t.Fatalf("Filter(%.60q) changed its input to %.60q", text, in)
	}
	want, ok := bleveOrPanic(tokenize([]byte(text)))
	if !ok {
		return
	}
	if d := tokentest.Diff(got, want); d != "" {
		t.Errorf("Filter(%.60q): %s", text, d)
	}
}

// bleveOrPanic is bleveChain, ok false where it panics.
func bleveOrPanic(ts analysis.TokenStream) (out analysis.TokenStream, ok bool) {
	defer func() {
		if recover() != nil {
			out, ok = nil, false
		}
	}()
	return bleveChain(ts), true
}

// tokenizers give the filter token streams of each kind: bleve's words
// (keywords or not), whitespace-cut tokens (letters, Han and punctuation
// in one; ideographic when they hold Han), and the whole input as one
// ideographic token.
var tokenizers = []struct {
	name string
	fn   func([]byte) analysis.TokenStream
}{
	{"unicode", unicode.NewUnicodeTokenizer().Tokenize},
	{"whitespace", func(b []byte) analysis.TokenStream {
		ts := character.NewCharacterTokenizer(func(r rune) bool { return !stdunicode.IsSpace(r) }).Tokenize(b)
		for _, tok := range ts {
			if bytes.ContainsFunc(tok.Term, func(r rune) bool { return stdunicode.Is(stdunicode.Han, r) }) {
				tok.Type = analysis.Ideographic
			}
		}
		return ts
	}},
	{"ideographic", func(b []byte) analysis.TokenStream {
		return analysis.TokenStream{{Term: b, Start: 3, End: 3 + len(b), Position: 1, Type: analysis.Ideographic}}
	}},
	{"keywords", func(b []byte) analysis.TokenStream {
		ts := unicode.NewUnicodeTokenizer().Tokenize(b)
		for _, tok := range ts {
			tok.KeyWord = true
		}
		return ts
	}},
}

func TestFilter(t *testing.T) {
	for _, tk := range tokenizers {
		t.Run(tk.name, func(t *testing.T) {
			for _, s := range seeds {
				check(t, tk.fn, s)
			}
			check(t, tk.fn, strings.Join(seeds, "\n"))
		})
	}
}

func FuzzFilter(f *testing.F) {
	for _, s := range seeds {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, s string, kind uint8) {
		check(t, tokenizers[int(kind)%len(tokenizers)].fn, s)
	})
}

// TestRealText checks the filter against bleve's on real English and
// Chinese pages: their gold main text as published, and their raw HTML.
func TestRealText(t *testing.T) {
	tokenize := unicode.NewUnicodeTokenizer().Tokenize
	for _, s := range append(extracttest.LoadEN(t), extracttest.LoadZH(t)...) {
		check(t, tokenize, s.Gold)
		check(t, tokenize, s.HTML)
	}
}

func TestRegistered(t *testing.T) {
	f, err := registry.NewCache().TokenFilterNamed(Name)
	if err != nil {
		t.Fatalf("TokenFilterNamed(%q): %v", Name, err)
	}
	ts := f.Filter(unicode.NewUnicodeTokenizer().Tokenize([]byte("中文字 Text")))
	var got []string
	for _, tok := range ts {
		got = append(got, string(tok.Term))
	}
	if want := []string{"中文", "文字", "text"}; !slices.Equal(got, want) {
		t.Errorf("terms = %q, want %q", got, want)
	}
}

// BenchmarkFilter compares bleve's three filters and this one on the
// words of mixed English and Chinese text.
func BenchmarkFilter(b *testing.B) {
	text := []byte(strings.Repeat("The quick brown fox, 3.14 times; 我们的语言，标点。“引号”！ ", 50))
	tokenize := unicode.NewUnicodeTokenizer().Tokenize
	for _, c := range []struct {
		name string
		fn   func(analysis.TokenStream) analysis.TokenStream
	}{{"bleve", bleveChain}, {"cjkchain", New().Filter}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				ts := tokenize(text)
				b.StartTimer()
				c.fn(ts)
			}
		})
	}
}
