package dedupfilter

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/extract"
	"github.com/bleve-dedup/bleve-dedup/htmltags"
	"github.com/bleve-dedup/bleve-dedup/page"
)

// devCorpus is the labelled development set, when the shared data is
// present.
const devCorpus = "../../shared/data/neardup/dev-corpus.jsonl.gz"

// BenchmarkSignatureSize reports the stored signature's size on the
// development pages: as today (v2, what every store keeps), and what
// CharFreq and TagEdit add when they vote or decide, with the time of a
// TagEdit comparison between consecutive pages.
func BenchmarkSignatureSize(b *testing.B) {
	if _, err := os.Stat(devCorpus); err != nil {
		b.Skipf("no development set at %s: %v", filepath.Clean(devCorpus), err)
	}
	an := testAnalyzer(b)
	var sigs []signature
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
		sigs = append(sigs, newSignature(f))
	}
	var base, chars, tags, ntags int
	for _, s := range sigs {
		plain := s
		plain.chars, plain.tags = nil, nil
		n := len(encodeSignature("id", plain))
		base += n
		withChars := plain
		withChars.chars = s.chars
		chars += len(encodeSignature("id", withChars)) - n
		withTags := plain
		withTags.tags = s.tags
		tags += len(encodeSignature("id", withTags)) - n
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

// TestSignatureOf: the parts only CharFreq, TagEdit and SameURL use are
// kept only when that measure can decide.
func TestSignatureOf(t *testing.T) {
	d := Doc{ID: "x", URL: "https://Example.com/a?utm_source=x", Features: &analyzer.Features{
		Pieces: []string{"ab"}, CharFreq: []analyzer.CharCount{{Index: 1, Count: 2}}, Tags: []byte{1, 2}}}
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
		o := DefaultOptions("")
		if tt.edit != nil {
			tt.edit(&o)
		}
		s := o.signatureOf(d)
		if got := [3]bool{s.chars != nil, s.tags != nil, s.url != 0}; got != [3]bool{tt.chars, tt.tags, tt.withURL} {
			t.Errorf("%s: chars, tags, url kept = %v, want %v", tt.name, got, [3]bool{tt.chars, tt.tags, tt.withURL})
		}
	}
	if urlHash("https://example.com/a") != urlHash("HTTPS://EXAMPLE.COM:443/a?utm_campaign=y") || urlHash("") != 0 || urlHash("mailto:x") != 0 {
		t.Error("urlHash does not follow canonical URLs")
	}
}

func TestNewMeasures(t *testing.T) {
	zh := func(text string) Doc {
		a := testAnalyzer(t)
		return Doc{Features: a.Analyze([]string{text})}
	}
	o := DefaultOptions("")
	tests := []struct {
		name string
		a, b Doc
		m    Measure
		want float64
	}{
		{"charfreq equal", zh("北京今天发布暴雨预警。"), zh("暴雨预警北京今天发布。"), CharFreq, 1},
		{"charfreq disjoint", zh("北京今天"), zh("暴雨预警"), CharFreq, 0},
		{"tagedit", Doc{Features: &analyzer.Features{Tags: []byte{1, 2, 3, 4}}}, Doc{Features: &analyzer.Features{Tags: []byte{1, 2, 3, 5}}}, TagEdit, 0.75},
		{"sameurl", Doc{URL: "https://x.org/a/index.html", Features: &analyzer.Features{}}, Doc{URL: "https://x.org/a/", Features: &analyzer.Features{}}, SameURL, 1},
		{"sameurl differs", Doc{URL: "https://x.org/a", Features: &analyzer.Features{}}, Doc{URL: "https://x.org/b", Features: &analyzer.Features{}}, SameURL, 0},
		{"sameurl no url", Doc{Features: &analyzer.Features{}}, Doc{Features: &analyzer.Features{}}, SameURL, 0},
	}
	for _, tt := range tests {
		s, _ := CompareDocs(tt.a, tt.b, o).Score(tt.m)
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
	o := DefaultOptions("")
	if v := Compare(x, y, o); v.Duplicate {
		t.Errorf("default voters: duplicate (%d votes)", v.Votes)
	}
	if s, _ := Compare(x, y, o).Score(CharFreq); !s.Duplicate {
		t.Errorf("charfreq %v does not say duplicate", s.Value)
	}
	o.Voters, o.Votes = []Measure{CharFreq}, 1
	if v := Compare(x, y, o); !v.Duplicate || v.Measure != CharFreq || v.Votes != 1 {
		t.Errorf("charfreq voting alone: %+v", v)
	}
}

// TestStopWords: with BooleanStopShare, a term in more than the share of
// the stored documents leaves the boolean-model measures, and the counts
// follow Adds and Deletes.
func TestStopWords(t *testing.T) {
	if os.Getenv(redisEnv) != "" {
		t.Skip("document frequencies are counted by the embedded store only (NewRedis refuses BooleanStopShare)")
	}
	f := openTest(t, func(o *Options) { o.BooleanStopShare = 0.5; o.BooleanStopMinDocs = 2 })
	a := testAnalyzer(t)
	for i, text := range []string{"common words alpha beta", "common words gamma delta", "common words epsilon zeta"} {
		mustAdd(t, f, Doc{ID: string(rune('a' + i)), Features: a.Analyze([]string{text})})
	}
	stop := f.opts.stopTerm
	if stop == nil {
		t.Fatal("no stop-word test")
	}
	h := func(term string) uint32 { return uint32(hashString(term)) }
	if !stop(h("common")) || stop(h("alpha")) {
		t.Errorf("stop(common) = %v, stop(alpha) = %v; want true, false", stop(h("common")), stop(h("alpha")))
	}
	for _, id := range []string{"b", "c"} {
		if _, err := f.Delete(id); err != nil {
			t.Fatal(err)
		}
	}
	if stop(h("common")) {
		t.Error("after the deletes, one document left (under BooleanStopMinDocs): common is still a stop word")
	}
	// Reopening counts the stored documents again.
	g := openTest(t, func(o *Options) { o.BooleanStopShare = 0.5; o.BooleanStopMinDocs = 1 })
	mustAdd(t, g, Doc{ID: "x", Features: a.Analyze([]string{"one two"})})
	if !g.opts.stopTerm(h("one")) {
		t.Error("a term of the only document is not in more than half of them")
	}
}

func TestGateAndSources(t *testing.T) {
	a, b, _ := chain(t)
	for _, tt := range []struct {
		name string
		edit func(*Options)
		want bool // b finds a
	}{
		{"today", chainOptions, true},
		{"gate far", func(o *Options) { chainOptions(o); o.StructureGate = 20 }, true},
		{"gate own cell", func(o *Options) { chainOptions(o); o.StructureGate = 0 }, a.Features.Structure == b.Features.Structure},
		{"no sources that hold a", func(o *Options) { chainOptions(o); o.Sources = []Source{TermSource} }, false},
		{"pieces and cells", func(o *Options) { chainOptions(o); o.Sources = []Source{PieceSource, StructureSource}; o.MinShared = 1 }, true},
	} {
		f := openTest(t, tt.edit)
		mustAdd(t, f, a)
		p, err := f.Prepare(b)
		if err != nil {
			t.Fatal(err)
		}
		ids, err := f.Candidates(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(ids) == 1 && ids[0] == "a"; got != tt.want {
			t.Errorf("%s: candidates %v, want a: %v", tt.name, ids, tt.want)
		}
	}
}

func TestEarlierCandidates(t *testing.T) {
	f := openTest(t, chainOptions)
	a, b, c := chain(t)
	for _, d := range []Doc{a, b, c} {
		mustAdd(t, f, d)
	}
	got := map[string][]string{}
	if err := f.EarlierCandidates(f.Options(), func(id string, cands []string) error {
		got[id] = cands
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got["a"]) != 0 || !slices.Equal(got["b"], []string{"a"}) || !slices.Contains(got["c"], "b") || len(got) != 3 {
		t.Errorf("candidates %v: want none for a, a for b, b among c's", got)
	}
}

func TestMethodOptionsInvalid(t *testing.T) {
	for _, tt := range []struct {
		name string
		edit func(*Options)
	}{
		{"no voters", func(o *Options) { o.Voters = nil }},
		{"votes over voters", func(o *Options) { o.Voters = []Measure{CharFreq}; o.Votes = 2 }},
		{"combined voting", func(o *Options) { o.Voters = []Measure{Combined, Pugh} }},
		{"voter twice", func(o *Options) { o.Voters = []Measure{Pugh, Pugh}; o.Votes = 1 }},
		{"no sources", func(o *Options) { o.Sources = nil }},
		{"unknown source", func(o *Options) { o.Sources = []Source{9} }},
		{"gate", func(o *Options) { o.StructureGate = -2 }},
		{"stop share", func(o *Options) { o.BooleanStopShare = 1.5 }},
		{"stop min docs", func(o *Options) { o.BooleanStopMinDocs = 0 }},
	} {
		o := DefaultOptions(t.TempDir())
		tt.edit(&o)
		if err := o.validate(); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("%s: %v, want ErrInvalidOptions", tt.name, err)
		}
	}
	if _, err := ParseSources("pieces,bogus"); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("ParseSources: %v", err)
	}
	if got, err := ParseMeasures("charfreq, TagEdit"); err != nil || !slices.Equal(got, []Measure{CharFreq, TagEdit}) {
		t.Errorf("ParseMeasures = %v, %v", got, err)
	}
}
