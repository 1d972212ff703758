package dedupfilter

import (
	"errors"
	"slices"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/similarity"
)

// devCorpus is the labelled development set, when the shared data is
// present.
const devCorpus = "../../shared/data/neardup/dev-corpus.jsonl.gz"

// TestStopWords: with BooleanStopShare, a term in more than the share of
// the stored documents leaves the boolean-model measures, and the counts
// follow Adds and Deletes.
func TestStopWords(t *testing.T) {
	// (The embedded store: New refuses stop words over a shared one.)
	o := DefaultOptions()
	o.BooleanStopShare, o.BooleanStopMinDocs = 0.5, 2
	f, err := openEmbedded(t.TempDir(), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a := testAnalyzer(t)
	for i, text := range []string{"common words alpha beta", "common words gamma delta", "common words epsilon zeta"} {
		mustAdd(t, f, Doc{ID: string(rune('a' + i)), Features: a.Analyze([]string{text})})
	}
	stop := f.opts.Stop
	if stop == nil {
		t.Fatal("no stop-word test")
	}
	h := func(term string) uint32 { return uint32(similarity.HashString(term)) }
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
	o.BooleanStopMinDocs = 1
	g, err := openEmbedded(t.TempDir(), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	mustAdd(t, g, Doc{ID: "x", Features: a.Analyze([]string{"one two"})})
	if !g.opts.Stop(h("one")) {
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
		p, err := f.prepare(b)
		if err != nil {
			t.Fatal(err)
		}
		ids, err := f.candidates(p)
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
		{"votes over voters", func(o *Options) { o.Voters = []similarity.Measure{similarity.CharFreq}; o.Votes = 2 }},
		{"no sources", func(o *Options) { o.Sources = nil }},
		{"unknown source", func(o *Options) { o.Sources = []Source{9} }},
		{"gate", func(o *Options) { o.StructureGate = -2 }},
		{"stop share", func(o *Options) { o.BooleanStopShare = 1.5 }},
		{"stop min docs", func(o *Options) { o.BooleanStopMinDocs = 0 }},
	} {
		o := DefaultOptions()
		tt.edit(&o)
		if err := o.validate(); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("%s: %v, want ErrInvalidOptions", tt.name, err)
		}
	}
	if _, err := ParseSources("pieces,bogus"); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("ParseSources: %v", err)
	}
}
