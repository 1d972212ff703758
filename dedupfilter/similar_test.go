package dedupfilter

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// similarFixture stores an article and pages sharing less and less of
// it: a copy, rewrites changing a fifth to a half of its words, a page
// quoting two of its paragraphs inside text of its own, and an unrelated
// article.
func similarFixture(t *testing.T) (*Filter, map[string][]string) {
	t.Helper()
	a := testAnalyzer(t)
	f := openTest(t, func(o *Options) { o.Policy = Mark })
	t.Cleanup(func() { f.Close() })
	c := newCorpus(7)
	orig := c.article(6)
	docs := map[string][]string{"orig": orig, "copy": c.reprint(orig, 0.03, false)}
	ids := []string{"orig", "copy"}
	for _, fr := range []float64{0.2, 0.3, 0.4, 0.5} {
		id := fmt.Sprintf("rewrite%.0f", fr*100)
		docs[id] = c.reprint(orig, fr, false)
		ids = append(ids, id)
	}
	docs["quote"] = append(slices.Clone(orig[:2]), c.article(4)...)
	docs["other"] = c.article(6)
	ids = append(ids, "quote", "other")
	for _, id := range ids {
		mustAdd(t, f, Doc{ID: id, Features: a.Analyze(docs[id])})
	}
	return f, docs
}

func TestSimilarToGrades(t *testing.T) {
	f, _ := similarFixture(t)
	got, err := f.SimilarTo("orig", SimilarOptions{})
	if err != nil {
		t.Fatalf("SimilarTo: %v", err)
	}
	grades := map[string]Grade{}
	for _, s := range got {
		grades[s.ID] = s.Grade
	}
	tests := []struct {
		id   string
		want Grade // "": not returned
	}{
		{"orig", ""}, // the page itself
		{"copy", GradeCopy},
		{"rewrite40", GradeRewritten},
		{"rewrite50", GradeRelated}, // each holds 0.44 of the other's terms
		{"quote", GradeRelated},
		{"other", ""}, // shares no list
	}
	for _, tt := range tests {
		if g := grades[tt.id]; g != tt.want {
			t.Errorf("grade of %s: got %q, want %q", tt.id, g, tt.want)
		}
	}
	for i := 1; i < len(got); i++ {
		a, b := got[i-1], got[i]
		if a.Grade.rank() > b.Grade.rank() || a.Grade == b.Grade && a.Score < b.Score {
			t.Errorf("order: %s (%s %.3f) before %s (%s %.3f)", a.ID, a.Grade, a.Score, b.ID, b.Grade, b.Score)
		}
	}
	for _, s := range got {
		if s.Lists.Total() == 0 && !s.SameCluster {
			t.Errorf("%s: found on no shared list and not in the cluster", s.ID)
		}
		if s.Grade == GradeCopy && !s.Verdict.Duplicate && !s.SameCluster {
			t.Errorf("%s: a copy neither verified nor clustered", s.ID)
		}
		if s.Verdict.Duplicate && s.Grade != GradeCopy {
			t.Errorf("%s: verified duplicate graded %s", s.ID, s.Grade)
		}
	}
	if c := got[0]; c.ID != "copy" || c.Lists.Bands == 0 || c.Verdict.SharedTerms == 0 {
		t.Errorf("first: got %s with lists %+v and %d shared terms, want the copy sharing bands and terms", c.ID, c.Lists, c.Verdict.SharedTerms)
	}
}

func TestSimilarToK(t *testing.T) {
	f, _ := similarFixture(t)
	all, err := f.SimilarTo("orig", SimilarOptions{})
	if err != nil {
		t.Fatalf("SimilarTo: %v", err)
	}
	for _, k := range []int{1, 2, 3} {
		got, err := f.SimilarTo("orig", SimilarOptions{K: k})
		if err != nil {
			t.Fatalf("SimilarTo K %d: %v", k, err)
		}
		if len(got) != k {
			t.Fatalf("K %d: got %d documents, want %d", k, len(got), k)
		}
		for i := range got {
			if got[i].ID != all[i].ID {
				t.Errorf("K %d: #%d is %s, want %s (the first K of all)", k, i, got[i].ID, all[i].ID)
			}
		}
	}
}

func TestSimilarToFeatures(t *testing.T) {
	f, docs := similarFixture(t)
	got, err := f.SimilarToFeatures(testAnalyzer(t).Analyze(docs["orig"]), "", SimilarOptions{K: 3})
	if err != nil {
		t.Fatalf("SimilarToFeatures: %v", err)
	}
	if len(got) == 0 || got[0].Grade != GradeCopy || got[0].SameCluster {
		t.Fatalf("got %+v, want the stored page itself first, a copy, in no cluster of the query's", got)
	}
	if got[0].ID != "orig" && got[0].ID != "copy" {
		t.Errorf("first: got %s, want orig or copy", got[0].ID)
	}
	// The query's features name its terms, which stored signatures keep
	// only as hashes.
	if len(got[0].Verdict.TermSample) == 0 {
		t.Errorf("first: no term sample")
	}
}

func TestSimilarErrors(t *testing.T) {
	f, _ := similarFixture(t)
	tests := []struct {
		name string
		id   string
		o    SimilarOptions
		want error
	}{
		{"unknown id", "nope", SimilarOptions{}, ErrNotFound},
		{"negative K", "orig", SimilarOptions{K: -1}, ErrInvalidOptions},
		{"too many candidates", "orig", SimilarOptions{Candidates: MaxSimilarCandidates + 1}, ErrInvalidOptions},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.SimilarTo(tt.id, tt.o)
			if !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
	if _, err := f.SimilarToFeatures(nil, "", SimilarOptions{}); !errors.Is(err, ErrInvalidDocument) {
		t.Errorf("nil features: got %v, want %v", err, ErrInvalidDocument)
	}
}

// TestSimilarBounded: however many documents share a page's lists, a
// query compares at most Candidates of them and its cluster's members.
func TestSimilarBounded(t *testing.T) {
	a := testAnalyzer(t)
	f := openTest(t, func(o *Options) { o.Policy = Mark })
	defer f.Close()
	c := newCorpus(3)
	orig := c.article(6)
	mustAdd(t, f, Doc{ID: "orig", Features: a.Analyze(orig)})
	for i := range 40 {
		// Each quotes one paragraph: on the page's lists, never its copy.
		mustAdd(t, f, Doc{ID: fmt.Sprintf("q%02d", i), Features: a.Analyze(append([]string{orig[i%6]}, c.article(5)...))})
	}
	got, err := f.SimilarTo("orig", SimilarOptions{K: 20, Candidates: 20})
	if err != nil {
		t.Fatalf("SimilarTo: %v", err)
	}
	if len(got) != 20 {
		t.Errorf("got %d, want 20", len(got))
	}
	got, err = f.SimilarTo("orig", SimilarOptions{K: 5, Candidates: 5})
	if err != nil {
		t.Fatalf("SimilarTo: %v", err)
	}
	if len(got) != 5 {
		t.Errorf("got %d, want 5", len(got))
	}
}
