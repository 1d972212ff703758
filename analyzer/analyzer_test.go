package analyzer

import (
	"crypto/sha1"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
)

// mustNew returns an Analyzer for the default options changed by edit.
func mustNew(tb testing.TB, edit func(*Options)) *Analyzer {
	tb.Helper()
	opts := DefaultOptions()
	if edit != nil {
		edit(&opts)
	}
	a, err := New(opts)
	if err != nil {
		tb.Fatalf("New(%+v): %v", opts, err)
	}
	return a
}

// TestTable31 reproduces every delimiter choice of the feature-string paper's table 3-1.
func TestTable31(t *testing.T) {
	text := []string{"我们的生活很好，天气也不错。他的书在桌上，我看了。"}
	for _, tc := range []struct {
		delims string
		want   []string
	}{
		{"。", []string{"错他", "了"}},
		{"，", []string{"好天", "上我"}},
		{",", []string{"好天", "上我"}}, // the same after width folding
		{"的", []string{"们生", "他书"}},
		{"。，", []string{"好天", "错他", "上我", "了"}},
		{"。的", []string{"们生", "错他", "他书", "了"}},
	} {
		a := mustNew(t, func(o *Options) { o.Delimiters = tc.delims })
		if got := a.Analyze(text).Pieces; !slices.Equal(got, tc.want) {
			t.Errorf("Delimiters %q: Pieces = %q, want %q", tc.delims, got, tc.want)
		}
	}
}

func TestPieces(t *testing.T) {
	for _, tc := range []struct {
		name string
		text string
		want []string
	}{
		{"han window is one character", "天气不错。他去了", []string{"错他"}},
		{"latin window is three letters across spaces", "I am. He is", []string{"iamhei"}},
		{"decimal point is not a delimiter", "Pi is 3.14 now. Next", []string{"nownex"}},
		{"digits around a delimiter are content", "It costs 3.14. Next", []string{"314nex"}},
		{"abbreviation interior is not a delimiter", "See e.g. this", []string{"eegthi"}},
		{"domain name is not a delimiter", "Visit example.com today. Ok", []string{"dayok"}},
		{"thousands separator with comma delimiter", "It was 1,000, she said", []string{"000she"}},
		{"full-width stop between digits is a delimiter", "第3。14条", []string{"第314条"}},
		{"window stops at the next delimiter", "A. B. C", []string{"ab", "bc"}},
		{"delimiter run is one boundary", "Really?! Yes", []string{"llyyes"}},
		{"trailing delimiter", "The end.", []string{"end"}},
		{"leading delimiter", "。开始", []string{"开"}},
		{"mixed: latin before, latin after", "我爱Go。Rust很好", []string{"爱gorus"}},
		{"mixed: han nearest decides", "abc中。文def", []string{"中文"}},
		{"doc example: latin window takes han", "学习Go. Next", []string{"习gonex"}},
		{"doc example: han window", "用Go学。再见", []string{"学再"}},
		{"hangul uses the han window", "한국어. 좋아", []string{"어좋"}},
		{"width and case folded", "ＡＢＣ！ ＤＥＦ", []string{"abcdef"}},
		{"folded delimiter between latin letters is not a delimiter", "ＡＢＣ！ＤＥＦ", nil},
		{"quotes skipped", "他说：“好。”“走吧。”", []string{"好走", "吧"}},
		{"no delimiter", "没有句号", nil},
		{"only delimiters", "。。。", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := mustNew(t, func(o *Options) { o.Delimiters = "。！？.!?," })
			if got := a.Analyze([]string{tc.text}).Pieces; !slices.Equal(got, tc.want) {
				t.Errorf("Pieces(%q) = %q, want %q", tc.text, got, tc.want)
			}
		})
	}
}

func TestWindowOptions(t *testing.T) {
	a := mustNew(t, func(o *Options) { o.HanWindow, o.LatinWindow = 2, 5 })
	got := a.Analyze([]string{"今天天气不错。我们去公园吧! Hello world. Bye now"}).Pieces
	want := []string{"不错我们", "园吧hello", "worldbyeno"}
	if !slices.Equal(got, want) {
		t.Errorf("Pieces = %q, want %q", got, want)
	}
}

func TestParagraphsDoNotCutPieces(t *testing.T) {
	a := mustNew(t, nil)
	split := a.Analyze([]string{"第一段结束。", "第二段开始。"})
	merged := a.Analyze([]string{"第一段结束。第二段开始。"})
	if !slices.Equal(split.Pieces, merged.Pieces) {
		t.Errorf("split Pieces %q != merged Pieces %q", split.Pieces, merged.Pieces)
	}
	if got, want := split.FeatureString(), "束第始"; got != want {
		t.Errorf("FeatureString() = %q, want %q", got, want)
	}
	if got, want := split.Structure, (Structure{Paragraphs: 2, Length: 1, Sentences: 2}); got != want {
		t.Errorf("split Structure = %+v, want %+v", got, want)
	}
}

func TestStructure(t *testing.T) {
	rep := func(s string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = s
		}
		return out
	}
	for _, tc := range []struct {
		name       string
		paragraphs []string
		want       Structure
	}{
		{"empty page clamps up", nil, Structure{1, 1, 1}},
		{"blank paragraphs do not count", []string{" ", "一句话。", "\u200b"}, Structure{1, 1, 1}},
		{"paragraph without delimiter is a sentence", []string{"标题", "正文一句。正文二句。"}, Structure{2, 1, 3}},
		{"length in units of 120 characters", []string{strings.Repeat("字", 121)}, Structure{1, 2, 1}},
		{"latin length counts letters and digits", []string{strings.Repeat("ab 1 ", 40)}, Structure{1, 1, 1}},
		{"paragraphs clamp at 50", rep("段。", 60), Structure{50, 1, 60}},
		{"sentences clamp at 100", []string{strings.Repeat("句。", 150)}, Structure{1, 2, 100}},
		{"length clamps at 200", []string{strings.Repeat("字", 30000)}, Structure{1, 200, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mustNew(t, nil).Analyze(tc.paragraphs).Structure; got != tc.want {
				t.Errorf("Structure = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestCell(t *testing.T) {
	for _, tc := range []struct {
		s    Structure
		want uint32
	}{
		{Structure{1, 1, 1}, 0},
		{Structure{0, -5, 0}, 0},
		{Structure{1, 1, 2}, 1},
		{Structure{1, 2, 1}, MaxSentences},
		{Structure{2, 1, 1}, MaxLength * MaxSentences},
		{Structure{50, 200, 100}, MaxParagraphs*MaxLength*MaxSentences - 1},
		{Structure{99, 999, 999}, MaxParagraphs*MaxLength*MaxSentences - 1},
	} {
		if got := tc.s.Cell(); got != tc.want {
			t.Errorf("%+v.Cell() = %d, want %d", tc.s, got, tc.want)
		}
	}
}

func TestAppendNormalized(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Ａｂｃ，ｄ１２３", "abc,d123"},
		{"ｶﾀｶﾅ｡", "カタカナ。"},
		{"HeLLo WÖRLD", "hello wörld"},
		{"“引号”「括号」『书名』«fr»", `"引号""括号""书名""fr"`},
		{"don’t ‘x’", "don't 'x'"},
		{"a\u200bb\u200dc\ufeffd\u00ade\ufe0f", "abcde"},
		{"a\x00b\x7fc", "abc"},
		{"\xffa\xc3", "a"},
		{"  a \t b\u3000c  ", "a b c"},
		{"a \n\n b\r\nc", "a\nb\nc"},
		{"\n\n", ""},
	} {
		if got := string(AppendNormalized(nil, tc.in)); got != tc.want {
			t.Errorf("AppendNormalized(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTerms(t *testing.T) {
	for _, tc := range []struct {
		text string
		want map[string]int
	}{
		{"我们的Go语言", map[string]int{"我们": 1, "们的": 1, "go": 1, "语言": 1}},
		{"我 and 你", map[string]int{"我": 1, "and": 1, "你": 1}},
		{"ＡＢＣ１２３ abc123 ABC123", map[string]int{"abc123": 3}},
		{"Don’t don't, 3.14!", map[string]int{"don't": 2, "3.14": 1}},
		{"中国中国", map[string]int{"中国": 2, "国中": 1}},
		{"カタカナ", map[string]int{"カタ": 1, "タカ": 1, "カナ": 1}},
		{"，。！", map[string]int{}},
	} {
		a := mustNew(t, nil)
		if got := a.Analyze([]string{tc.text}).Terms; !maps.Equal(got, tc.want) {
			t.Errorf("Analyze(%q).Terms = %v, want %v", tc.text, got, tc.want)
		}
		if got := a.Terms([]string{tc.text}); !maps.Equal(got, tc.want) {
			t.Errorf("Terms(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestBlocks(t *testing.T) {
	a := mustNew(t, func(o *Options) { o.Blocks, o.BlockDelimiters = 2, "。！？.!?" })
	orig := []string{
		"短句。这是一个比较长的句子，有很多字。",
		"第二段的最长句子在这里，它比前面的都长得多。结尾。",
	}
	// A reprint: paragraphs merged, punctuation and quote style changed.
	reprint := []string{"短句. 这是一个比较长的句子,有很多字!  第二段的“最长句子”在这里，它比前面的都长得多。结尾。"}
	got := a.Analyze(orig).Blocks
	want := [][sha1.Size]byte{
		sha1.Sum([]byte("第二段的最长句子在这里它比前面的都长得多")),
		sha1.Sum([]byte("这是一个比较长的句子有很多字")),
	}
	if !slices.Equal(got, want) {
		t.Errorf("Blocks = %x, want %x", got, want)
	}
	if re := a.Analyze(reprint).Blocks; !slices.Equal(re, got) {
		t.Errorf("reprint Blocks = %x, want the original's %x", re, got)
	}
	if dup := a.Analyze([]string{"一样的句子。一样的句子。"}).Blocks; len(dup) != 1 {
		t.Errorf("repeated sentence gave %d blocks, want 1", len(dup))
	}
	if none := mustNew(t, func(o *Options) { o.Blocks = 0 }).Analyze(orig).Blocks; none != nil {
		t.Errorf("Blocks=0 gave %x, want none", none)
	}
}

func TestBlocksDefaultClauses(t *testing.T) {
	got := mustNew(t, nil).Analyze([]string{"天气很好，我们去公园；然后：回家。"}).Blocks
	want := [][sha1.Size]byte{
		sha1.Sum([]byte("我们去公园")),
		sha1.Sum([]byte("天气很好")),
		sha1.Sum([]byte("然后")),
		sha1.Sum([]byte("回家")),
	}
	if !slices.Equal(got, want) {
		t.Errorf("Blocks = %x, want %x", got, want)
	}
}

func TestBlockDelimitersEmpty(t *testing.T) {
	a := mustNew(t, func(o *Options) { o.BlockDelimiters = "" })
	got := a.Analyze([]string{"一。二。", "三"}).Blocks
	want := [][sha1.Size]byte{sha1.Sum([]byte("一二")), sha1.Sum([]byte("三"))}
	if !slices.Equal(got, want) {
		t.Errorf("paragraph blocks = %x, want %x", got, want)
	}
}

func TestNewValidates(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Options)
	}{
		{"no delimiters", func(o *Options) { o.Delimiters = "" }},
		{"space delimiter", func(o *Options) { o.Delimiters = "。 " }},
		{"space block delimiter", func(o *Options) { o.BlockDelimiters = "\n" }},
		{"han window", func(o *Options) { o.HanWindow = 0 }},
		{"latin window", func(o *Options) { o.LatinWindow = -1 }},
		{"blocks", func(o *Options) { o.Blocks = -1 }},
		{"shingle", func(o *Options) { o.Shingle = 0 }},
		{"minhash size", func(o *Options) { o.MinHashSize = -1 }},
	} {
		opts := DefaultOptions()
		tc.edit(&opts)
		if _, err := New(opts); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("%s: New error = %v, want ErrInvalidOptions", tc.name, err)
		}
	}
}

// TestComponentsMatchAnalyze checks that the per-feature methods used by the
// bleve components compute exactly what Analyze computes.
func TestComponentsMatchAnalyze(t *testing.T) {
	a := mustNew(t, nil)
	paragraphs := []string{"“Ｇｏ语言”很好。It is 3.14 times better!", "", "第二段。Second one? 结尾"}
	f := a.Analyze(paragraphs)
	text := AppendNormalized(nil, strings.Join(paragraphs, "\n"))
	if got := a.Pieces(text); !slices.Equal(got, f.Pieces) {
		t.Errorf("Pieces = %q, Analyze gave %q", got, f.Pieces)
	}
	if got := a.Blocks(text); !slices.Equal(got, f.Blocks) {
		t.Errorf("Blocks = %x, Analyze gave %x", got, f.Blocks)
	}
	if got := a.MinHash(text); !slices.Equal(got, f.MinHash) {
		t.Errorf("MinHash differs from Analyze's")
	}
	terms := map[string]int{}
	EachTerm(text, func(term []byte) { terms[string(term)]++ })
	if !maps.Equal(terms, f.Terms) {
		t.Errorf("EachTerm = %v, Analyze gave %v", terms, f.Terms)
	}
}

func TestMinHash(t *testing.T) {
	a := mustNew(t, nil)
	base := strings.Repeat("The quick brown fox jumps over the lazy dog near the river bank today. ", 1) +
		"自然语言处理是人工智能的一个重要方向，研究如何让计算机理解人类的语言。"
	edited := strings.Replace(base, "lazy", "sleepy", 1)
	for _, tc := range []struct {
		name     string
		x, y     string
		min, max float64
	}{
		{"identical", base, base, 1, 1},
		{"width and quotes only", base, strings.ReplaceAll(base, "，", ","), 1, 1},
		{"one word changed", base, edited, 0.7, 0.99},
		{"unrelated", base, "完全不同的一段中文文本，讲的是天气和旅游的事情。", 0, 0.1},
	} {
		sx, sy := a.Analyze([]string{tc.x}).MinHash, a.Analyze([]string{tc.y}).MinHash
		if len(sx) != 128 || len(sy) != 128 {
			t.Fatalf("%s: signature lengths %d, %d, want 128", tc.name, len(sx), len(sy))
		}
		if got := agreement(sx, sy); got < tc.min || got > tc.max {
			t.Errorf("%s: agreement %.2f, want in [%.2f, %.2f]", tc.name, got, tc.min, tc.max)
		}
	}
	if got := a.Analyze(nil).MinHash; len(got) != 128 || got[0] != ^uint64(0) {
		t.Errorf("empty text MinHash = %v..., want 128 x MaxUint64", got[:1])
	}
	short := a.Analyze([]string{"hi"}).MinHash
	if slices.Contains(short, ^uint64(0)) {
		t.Errorf("short text left empty bins after densification")
	}
	if got := mustNew(t, func(o *Options) { o.MinHashSize = 0 }).Analyze([]string{base}).MinHash; got != nil {
		t.Errorf("MinHashSize=0 gave %d values, want none", len(got))
	}
}

func agreement(x, y []uint64) float64 {
	same := 0
	for i := range x {
		if x[i] == y[i] {
			same++
		}
	}
	return float64(same) / float64(len(x))
}

func TestBands(t *testing.T) {
	sig := make([]uint64, 128)
	for i := range sig {
		sig[i] = uint64(i * 7)
	}
	keys, err := Bands(sig, 32)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 32 {
		t.Fatalf("len(Bands) = %d, want 32", len(keys))
	}
	changed := slices.Clone(sig)
	changed[5]++ // in band 1 of 32 (rows 4..7)
	keys2, _ := Bands(changed, 32)
	for i := range keys {
		if same := keys[i] == keys2[i]; same != (i != 1) {
			t.Errorf("band %d: keys equal = %v, want %v", i, same, i != 1)
		}
	}
	if keys[0] == keys[1] {
		t.Errorf("bands 0 and 1 share a key")
	}
	for _, bands := range []int{0, -1, 3, 256} {
		if _, err := Bands(sig, bands); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("Bands(128 values, %d) error = %v, want ErrInvalidOptions", bands, err)
		}
	}
}

func TestAnalyzeConcurrent(t *testing.T) {
	a := mustNew(t, nil)
	texts := [][]string{{"第一篇文章。内容不同。"}, {"Second article. Different text!"}, {"第三篇。Mixed 文本。"}}
	want := make([]*Features, len(texts))
	for i, p := range texts {
		want[i] = a.Analyze(p)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				k := (g + i) % len(texts)
				if got := a.Analyze(texts[k]); fmt.Sprint(got) != fmt.Sprint(want[k]) {
					t.Errorf("concurrent Analyze(%q) differs", texts[k])
				}
			}
		})
	}
	wg.Wait()
}

func TestNumbers(t *testing.T) {
	body := "The eel grows to 45 centimetres and lives at depths of 120 to 3.5 thousand metres off the coast of Japan, where it was described in 1890."
	for _, tc := range []struct {
		name  string
		paras []string
		want  []string
	}{
		{"a paragraph's facts", []string{body}, []string{"120", "1890", "3.5", "45"}},
		{"a date line is not a fact", []string{"Published January 1, 2024 12:29 PM", body, "© 2017 Ashland Monitor"}, []string{"120", "1890", "3.5", "45"}},
		{"Chinese", []string{"发布时间：2024-01-01 06:00", "高氏前肛鳗是鳗鲡目前肛鳗科的一种，体长可达45厘米，栖息深度120至350米，分布于日本沿海，1890年被描述。"}, []string{"120", "1890", "350", "45"}},
		{"no numbers", []string{"a short line"}, nil},
	} {
		if got := mustNew(t, nil).Analyze(tc.paras).Numbers; !slices.Equal(got, tc.want) {
			t.Errorf("%s: Numbers = %q, want %q", tc.name, got, tc.want)
		}
	}
}
