package similarity

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/extract"
	"github.com/bleve-dedup/bleve-dedup/htmltags"
	"github.com/bleve-dedup/bleve-dedup/page"
)

// devCorpus is the labelled development set, when the shared data is
// present.
const devCorpus = "../../shared/data/neardup/dev-corpus.jsonl.gz"

func testAnalyzer(tb testing.TB) *analyzer.Analyzer {
	tb.Helper()
	a, err := analyzer.New(analyzer.DefaultOptions())
	if err != nil {
		tb.Fatal(err)
	}
	return a
}

// realText is n paragraphs of the first development page, or of a
// paragraph written here when the data is absent.
func realText(tb testing.TB, n int) []string {
	var paras []string
	for p, err := range page.Read([]string{devCorpus}, page.DefaultOptions()) {
		if err != nil {
			break
		}
		if c, err := extract.FromPage(p); err == nil && len(c.Paragraphs) >= n {
			paras = c.Paragraphs[:n]
			break
		}
	}
	for len(paras) < n {
		paras = append(paras, "The council approved the budget after a long debate on Tuesday. Spending on parks rises by ten percent next year.")
	}
	return paras
}

// TestOf: the parts only CharFreq, TagEdit and SameURL use are
// kept only when that measure can decide.
func TestOf(t *testing.T) {
	f := &analyzer.Features{Pieces: []string{"ab"}, CharFreq: []analyzer.CharCount{{Index: 1, Count: 2}}, Tags: []byte{1, 2}}
	const pageURL = "https://Example.com/a?utm_source=x"
	tests := []struct {
		name                 string
		edit                 func(*Options)
		chars, tags, withURL bool
	}{
		{"default", nil, false, false, false},
		{"charfreq decides", func(o *Options) { o.Measure = CharFreq }, true, false, false},
		{"tagedit votes", func(o *Options) { o.Voters = append(DefaultVoters(), TagEdit) }, false, true, false},
		{"sameurl decides", func(o *Options) { o.Measure = SameURL }, false, false, true},
		{"tagedit listed but featurestring decides", func(o *Options) { o.Measure = FeatureString; o.Voters = []Measure{TagEdit} }, false, false, false},
	}
	for _, tt := range tests {
		o := DefaultOptions()
		if tt.edit != nil {
			tt.edit(&o)
		}
		s := Of(f, pageURL, o)
		if got := [3]bool{s.chars != nil, s.tags != nil, s.url != 0}; got != [3]bool{tt.chars, tt.tags, tt.withURL} {
			t.Errorf("%s: chars, tags, url kept = %v, want %v", tt.name, got, [3]bool{tt.chars, tt.tags, tt.withURL})
		}
	}
	if urlHash("https://example.com/a") != urlHash("HTTPS://EXAMPLE.COM:443/a?utm_campaign=y") || urlHash("") != 0 || urlHash("mailto:x") != 0 {
		t.Error("urlHash does not follow canonical URLs")
	}
}

func TestNewMeasures(t *testing.T) {
	a := testAnalyzer(t)
	zh := func(text string) Signature { return New(a.Analyze([]string{text})) }
	page := func(pageURL string, tags ...byte) Signature {
		return New(&analyzer.Features{Tags: tags}).WithURL(pageURL)
	}
	o := DefaultOptions()
	tests := []struct {
		name string
		a, b Signature
		m    Measure
		want float64
	}{
		{"charfreq equal", zh("北京今天发布暴雨预警。"), zh("暴雨预警北京今天发布。"), CharFreq, 1},
		{"charfreq disjoint", zh("北京今天"), zh("暴雨预警"), CharFreq, 0},
		{"tagedit", page("", 1, 2, 3, 4), page("", 1, 2, 3, 5), TagEdit, 0.75},
		{"sameurl", page("https://x.org/a/index.html"), page("https://x.org/a/"), SameURL, 1},
		{"sameurl differs", page("https://x.org/a"), page("https://x.org/b"), SameURL, 0},
		{"sameurl no url", page(""), page(""), SameURL, 0},
	}
	for _, tt := range tests {
		s, _ := Compare(tt.a, tt.b, o).Score(tt.m)
		if d := s.Value - tt.want; d > 1e-9 || d < -1e-9 {
			t.Errorf("%s: %v = %v, want %v", tt.name, tt.m, s.Value, tt.want)
		}
	}
}

// TestVoters: a measure outside Voters does not vote, and Votes counts
// Voters only.
func TestVoters(t *testing.T) {
	a := testAnalyzer(t)
	x := a.Analyze([]string{"北京今天发布暴雨预警。市民出行请注意安全。"})
	y := a.Analyze([]string{"安全注意请出行市民。预警暴雨发布今天北京。"}) // the same characters
	o := DefaultOptions()
	if v := CompareFeatures(x, y, o); v.Duplicate {
		t.Errorf("default voters: duplicate (%d votes)", v.Votes)
	}
	if s, _ := CompareFeatures(x, y, o).Score(CharFreq); !s.Duplicate {
		t.Errorf("charfreq %v does not say duplicate", s.Value)
	}
	o.Voters, o.Votes, o.HeldMin = []Measure{CharFreq}, 1, 0 // (the same characters, other words)
	if v := CompareFeatures(x, y, o); !v.Duplicate || v.Measure != CharFreq || v.Votes != 1 {
		t.Errorf("charfreq voting alone: %+v", v)
	}
}

// BenchmarkCompare is the cost of verifying one candidate: "features" is
// CompareFeatures (both sides converted), "stored" what a filter pays per
// candidate (the new document is converted once per Add).
func BenchmarkCompare(b *testing.B) {
	a := testAnalyzer(b)
	orig := realText(b, 15)
	x, y := a.Analyze(orig), a.Analyze(append(orig[:len(orig)-1:len(orig)-1], "A closing line the copy adds."))
	opts := DefaultOptions()
	b.Run("features", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			CompareFeatures(x, y, opts)
		}
	})
	b.Run("stored", func(b *testing.B) {
		px, enc := New(x), New(y).Encode("y")
		b.ReportAllocs()
		for b.Loop() {
			_, py, err := Decode(enc)
			if err != nil {
				b.Fatal(err)
			}
			Verify(px, py, opts)
		}
	})
}

// BenchmarkSignatureSize reports the stored signature's size on the
// development pages: as today (v2, what every store keeps), and what
// CharFreq and TagEdit add when they vote or decide, with the time of a
// TagEdit comparison between consecutive pages.
func BenchmarkSignatureSize(b *testing.B) {
	if _, err := os.Stat(devCorpus); err != nil {
		b.Skipf("no development set at %s: %v", filepath.Clean(devCorpus), err)
	}
	an := testAnalyzer(b)
	var sigs []Signature
	for p, err := range page.Read([]string{devCorpus}, page.DefaultOptions()) {
		if err != nil {
			continue
		}
		c, err := extract.FromPage(p)
		if err != nil {
			continue
		}
		f := an.Analyze(c.Paragraphs)
		f.Tags = htmltags.Sequence(p.HTML, htmltags.DefaultMax)
		sigs = append(sigs, New(f))
	}
	var base, chars, tags, ntags int
	for _, s := range sigs {
		plain := s
		plain.chars, plain.tags = nil, nil
		n := len(plain.Encode("id"))
		base += n
		withChars := plain
		withChars.chars = s.chars
		chars += len(withChars.Encode("id")) - n
		withTags := plain
		withTags.tags = s.tags
		tags += len(withTags.Encode("id")) - n
		ntags += len(s.tags)
	}
	b.ResetTimer()
	i := 0
	for b.Loop() {
		htmltags.Similarity(sigs[i%len(sigs)].tags, sigs[(i+1)%len(sigs)].tags)
		i++
	}
	n := float64(len(sigs))
	b.ReportMetric(float64(base)/n, "B/doc-v2")
	b.ReportMetric(float64(chars)/n, "B/doc-charfreq")
	b.ReportMetric(float64(tags)/n, "B/doc-tagedit")
	b.ReportMetric(float64(ntags)/n, "tags/doc")
}
