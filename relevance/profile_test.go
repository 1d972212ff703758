package relevance

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

func mustProfile(tb testing.TB, keywords map[string]float64, opts Options) *Profile {
	tb.Helper()
	p, err := NewProfile("test", keywords, opts)
	if err != nil {
		tb.Fatalf("NewProfile(%v): %v", keywords, err)
	}
	return p
}

func TestDefaultTokenizer(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  ，。!! ", nil},
		{"Hello, World", []string{"hello", "world"}},
		{"ＦＵＬＬ　Ｗｉｄｔｈ１２", []string{"full", "width12"}},
		{"人工智能", []string{"人工", "工智", "智能"}},
		{"中", []string{"中"}},
		{"足球，联赛", []string{"足球", "联赛"}},
		{"是AI的未来", []string{"是", "ai", "的未", "未来"}},
		{"2019年11月", []string{"2019", "年", "11", "月"}},
	}
	for _, tt := range tests {
		if got := DefaultTokenizer(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("DefaultTokenizer(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTokenizerIdempotent(t *testing.T) {
	// Learn stores terms that NewProfile tokenises again.
	for _, term := range DefaultTokenizer("The 人工智能 crawler's ＡＢＣ campaign 2019") {
		if got := DefaultTokenizer(term); !slices.Equal(got, []string{term}) {
			t.Errorf("DefaultTokenizer(%q) = %q, want [%q]", term, got, term)
		}
	}
}

func TestSimilarity(t *testing.T) {
	ab := map[string]float64{"alpha": 1, "beta": 1}
	weighted := map[string]float64{"alpha": 2, "beta": 1}
	tests := []struct {
		name     string
		keywords map[string]float64
		text     string
		want     float64
	}{
		{"empty text", ab, "", 0},
		{"no keyword", ab, "gamma delta", 0},
		{"all keywords once", ab, "alpha beta", 1},
		{"one of two", ab, "alpha", 1 / math.Sqrt2},
		// x = (1, 0.5): the most frequent keyword is scaled to 1.
		{"scaled to max", ab, "alpha alpha beta", 1.5 / (math.Sqrt(1.25) * math.Sqrt2)},
		{"scaling ignores length", ab, "alpha alpha alpha alpha beta beta gamma", 1.5 / (math.Sqrt(1.25) * math.Sqrt2)},
		{"other words ignored", ab, "alpha gamma beta delta", 1},
		{"weights: both", weighted, "alpha beta", 1},
		{"weights: heavy only", weighted, "alpha", 2 / math.Sqrt(5)},
		{"weights: light only", weighted, "beta", 1 / math.Sqrt(5)},
		{"case and width folded", ab, "ＡＬＰＨＡ Beta", 1},
		{"chinese", map[string]float64{"足球": 1, "联赛": 1}, "中国足球甲级联赛", 1},
		{"chinese word as bigrams", map[string]float64{"人工智能": 1}, "智能手机", 1 / math.Sqrt(3)},
		{"phrase keyword", map[string]float64{"south dakota": 1}, "South Dakota", 1},
	}
	for _, tt := range tests {
		p := mustProfile(t, tt.keywords, DefaultOptions())
		if got := p.Similarity(tt.text); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: Similarity(%q) = %v, want %v", tt.name, tt.text, got, tt.want)
		}
	}
}

func TestScore(t *testing.T) {
	kw := map[string]float64{"football": 1, "league": 1}
	opts := func(alpha, r float64) Options {
		o := DefaultOptions()
		o.TitleWeight, o.Threshold = alpha, r
		return o
	}
	tests := []struct {
		name        string
		opts        Options
		title, body string
		want        Score
	}{
		{"empty page", DefaultOptions(), "", "", Score{}},
		{"on-topic title, off-topic body", opts(4, 0.4), "Football league", "cats and dogs",
			Score{Title: 1, Body: 0, Value: 0.8, Relevant: true}},
		{"same page, title ignored", opts(0, 0.4), "Football league", "cats and dogs",
			Score{Title: 1, Body: 0, Value: 0, Relevant: false}},
		{"off-topic title caps value", opts(4, 0.4), "Cats", "football league, football league",
			Score{Title: 0, Body: 1, Value: 0.2, Relevant: false}},
		{"off-topic title, alpha 0", opts(0, 0.4), "Cats", "football league, football league",
			Score{Title: 0, Body: 1, Value: 1, Relevant: true}},
		{"no title: body alone", opts(4, 0.4), " — ", "football league, football league",
			Score{Title: 0, Body: 1, Value: 1, Relevant: true}},
		{"threshold reached exactly", opts(4, 0.8), "Football league", "cats",
			Score{Title: 1, Body: 0, Value: 0.8, Relevant: true}},
		{"threshold missed", opts(4, 0.81), "Football league", "cats",
			Score{Title: 1, Body: 0, Value: 0.8, Relevant: false}},
		{"threshold 0 accepts all", opts(4, 0), "x", "y", Score{Relevant: true}},
		{"one mention is thin evidence", opts(0, 0.4), "", "the football",
			Score{Title: 0, Body: 1.0 / 3 * (1 / math.Sqrt2), Value: 1.0 / 3 * (1 / math.Sqrt2), Relevant: false}},
		{"three mentions are enough", opts(0, 0.4), "", "football, football, football",
			Score{Title: 0, Body: 1 / math.Sqrt2, Value: 1 / math.Sqrt2, Relevant: true}},
	}
	for _, tt := range tests {
		got := mustProfile(t, kw, tt.opts).Score(tt.title, tt.body)
		if math.Abs(got.Value-tt.want.Value) > 1e-12 || got.Title != tt.want.Title ||
			math.Abs(got.Body-tt.want.Body) > 1e-12 || got.Relevant != tt.want.Relevant {
			t.Errorf("%s: Score(%q, %q) = %+v, want %+v", tt.name, tt.title, tt.body, got, tt.want)
		}
	}
}

func TestNewProfileErrors(t *testing.T) {
	badOpts := DefaultOptions()
	badOpts.Threshold = 2
	negAlpha := DefaultOptions()
	negAlpha.TitleWeight = -1
	noTok := DefaultOptions()
	noTok.Tokenizer = nil
	tests := []struct {
		name     string
		keywords map[string]float64
		opts     Options
		want     error
	}{
		{"nil keywords", nil, DefaultOptions(), ErrNoKeywords},
		{"punctuation only", map[string]float64{"，。": 1}, DefaultOptions(), ErrNoKeywords},
		{"all zero", map[string]float64{"a": 0}, DefaultOptions(), ErrNoKeywords},
		{"negative weight", map[string]float64{"a": -1}, DefaultOptions(), ErrBadWeight},
		{"NaN weight", map[string]float64{"a": math.NaN()}, DefaultOptions(), ErrBadWeight},
		{"infinite weight", map[string]float64{"a": math.Inf(1)}, DefaultOptions(), ErrBadWeight},
		{"threshold above 1", map[string]float64{"a": 1}, badOpts, ErrInvalidOptions},
		{"negative alpha", map[string]float64{"a": 1}, negAlpha, ErrInvalidOptions},
		{"nil tokenizer", map[string]float64{"a": 1}, noTok, ErrInvalidOptions},
	}
	for _, tt := range tests {
		if _, err := NewProfile("t", tt.keywords, tt.opts); !errors.Is(err, tt.want) {
			t.Errorf("%s: NewProfile error = %v, want %v", tt.name, err, tt.want)
		}
	}
}

func TestReadProfile(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr error // nil: success; errAny: any error
	}{
		{"valid", `{"name": "football", "keywords": {"足球": 1, "league": 0.5}}`, nil},
		{"trailing space", "{\"keywords\": {\"a\": 1}}\n", nil},
		{"unknown field", `{"name": "x", "keyword": {"a": 1}}`, errAny},
		{"trailing data", `{"keywords": {"a": 1}} {}`, errAny},
		{"not an object", `["a"]`, errAny},
		{"empty", ``, errAny},
		{"weight not a number", `{"keywords": {"a": "1"}}`, errAny},
		{"no keywords", `{"name": "x"}`, ErrNoKeywords},
		{"negative weight", `{"keywords": {"a": -0.5}}`, ErrBadWeight},
	}
	for _, tt := range tests {
		p, err := ParseProfile([]byte(tt.in), DefaultOptions())
		switch {
		case tt.wantErr == nil && err != nil:
			t.Errorf("%s: ParseProfile error %v, want none", tt.name, err)
		case tt.wantErr == errAny && err == nil, tt.wantErr != nil && tt.wantErr != errAny && !errors.Is(err, tt.wantErr):
			t.Errorf("%s: ParseProfile error %v, want %v", tt.name, err, tt.wantErr)
		case err == nil && p.Similarity(strings.Repeat("a 足球 ", 2)) == 0 && tt.name == "valid":
			t.Errorf("%s: profile matches nothing", tt.name)
		}
	}
}

var errAny = errors.New("any error")

func TestProfileRoundTrip(t *testing.T) {
	in := `{"name":"football","keywords":{"league":0.5,"足球":1}}`
	p, err := ParseProfile([]byte(in), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != in {
		t.Errorf("MarshalJSON = %s, want %s", out, in)
	}
	if p.Name() != "football" || p.Keywords()["足球"] != 1 {
		t.Errorf("Name, Keywords = %q, %v", p.Name(), p.Keywords())
	}
}

func FuzzReadProfile(f *testing.F) {
	f.Add([]byte(`{"name": "football", "keywords": {"足球": 1, "league": 0.5}}`))
	f.Add([]byte(`{"keywords": {"a": -1}}`))
	f.Add([]byte(`{"keywords": {"": 1e308, "ＡＢ": 1e-308}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProfile(data, DefaultOptions())
		if err != nil {
			return
		}
		// Any profile that loads must score within [0, 1] and survive a
		// round trip.
		for _, kw := range []string{"", "a", "足球"} {
			if s := p.Score(kw, kw+" "+kw); !(s.Value >= 0 && s.Value <= 1) {
				t.Fatalf("Score(%q).Value = %v outside [0, 1]", kw, s.Value)
			}
		}
		for kw := range p.Keywords() {
			if s := p.Similarity(kw); !(s >= 0 && s <= 1) {
				t.Fatalf("Similarity(%q) = %v outside [0, 1]", kw, s)
			}
		}
		out, err := p.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseProfile(out, DefaultOptions()); err != nil {
			t.Fatalf("re-reading %s: %v", out, err)
		}
	})
}

func TestLearn(t *testing.T) {
	examples := []string{
		"The football league match ended with a late goal.",
		"A goal in the league: football fans cheered the striker.",
		"Football: the striker scored the winning goal.",
	}
	background := []string{
		"The weather was mild and the market ended higher.",
		"The council voted on the budget.",
		"The league of nations was founded in 1920.",
		"A cat sat on the mat in the sun.",
	}
	p, err := Learn("football", examples, background, 4, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	kw := p.Keywords()
	want := []string{"football", "goal", "striker", "scored"}
	// "scored" and "late" etc. tie; the test pins the three frequent terms
	// and the count.
	if len(kw) != 4 {
		t.Errorf("Learn kept %d terms %v, want 4", len(kw), kw)
	}
	for _, w := range want[:3] {
		if kw[w] == 0 {
			t.Errorf("Learn terms %v lack %q", kw, w)
		}
	}
	if kw["the"] != 0 {
		t.Errorf("Learn kept the stop word \"the\": %v", kw)
	}
	top := 0.0
	for _, w := range kw {
		top = max(top, w)
	}
	if top != 1 {
		t.Errorf("largest learnt weight = %v, want 1", top)
	}
	if p.Similarity("a football goal by the striker") <= p.Similarity("the weather and the market") {
		t.Error("learnt profile does not prefer an on-topic text")
	}
	again, _ := Learn("football", examples, background, 4, DefaultOptions())
	if a, b := again.Keywords(), kw; len(a) != len(b) {
		t.Errorf("Learn not deterministic: %v vs %v", a, b)
	} else {
		for k, v := range a {
			if b[k] != v {
				t.Errorf("Learn not deterministic: %v vs %v", a, b)
				break
			}
		}
	}
}

func TestLearnErrors(t *testing.T) {
	if _, err := Learn("x", nil, nil, 3, DefaultOptions()); !errors.Is(err, ErrNoExamples) {
		t.Errorf("Learn(no examples) error = %v, want %v", err, ErrNoExamples)
	}
	if _, err := Learn("x", []string{"a b"}, nil, 0, DefaultOptions()); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("Learn(n=0) error = %v, want %v", err, ErrInvalidOptions)
	}
	if _, err := Learn("x", []string{"2019 11"}, nil, 3, DefaultOptions()); !errors.Is(err, ErrNoKeywords) {
		t.Errorf("Learn(numbers only) error = %v, want %v", err, ErrNoKeywords)
	}
}

func FuzzDefaultTokenizer(f *testing.F) {
	f.Add("人工智能是AI的未来，ＡＢＣ Hello 2019年")
	f.Add("e\u0301t\u00e9 日\u0301本 ﾃｽﾄ")
	f.Fuzz(func(t *testing.T, text string) {
		for _, term := range DefaultTokenizer(text) {
			if term == "" {
				t.Fatalf("DefaultTokenizer(%q) yields an empty term", text)
			}
		}
	})
}
