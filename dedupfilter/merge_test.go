package dedupfilter

import (
	"os"
	"slices"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/similarity"
	"github.com/bleve-dedup/bleve-dedup/store/storetest"
)

// chain returns three overlapping windows of one article's paragraphs:
// A~B and B~C under the feature-string measure, A and C too far apart.
func chain(tb testing.TB) (a, b, c Doc) {
	tb.Helper()
	an := testAnalyzer(tb)
	p := newCorpus(7).article(16)
	doc := func(id string, from, to int) Doc {
		return Doc{ID: id, Features: an.Analyze(p[from:to]), Payload: []byte("payload " + id)}
	}
	return doc("a", 0, 10), doc("b", 3, 13), doc("c", 6, 16)
}

func chainOptions(o *Options) { o.Measure = similarity.FeatureString }

func TestChainVerdicts(t *testing.T) {
	a, b, c := chain(t)
	o := DefaultOptions()
	chainOptions(&o)
	for _, tt := range []struct {
		x, y Doc
		want bool
	}{{a, b, true}, {b, c, true}, {a, c, false}} {
		if v := similarity.CompareFeatures(tt.x.Features, tt.y.Features, o.Options); v.Duplicate != tt.want {
			t.Fatalf("%s~%s: duplicate %v (%.2f), want %v", tt.x.ID, tt.y.ID, v.Duplicate, v.Similarity, tt.want)
		}
	}
}

// TestNoChainOnAdd: the page linking two clusters comes last; it joins
// the first it matches, and does not merge the other into it, since the
// two clusters' representatives hold too little of each other's text
// (a and c share 4 of their 10 paragraphs): single link would chain
// them. c stays in the search index.
func TestNoChainOnAdd(t *testing.T) {
	skipShared(t)
	for _, policy := range []Policy{Suppress, Mark} {
		t.Run(policy.String(), func(t *testing.T) {
			f := openTest(t, func(o *Options) { chainOptions(o); o.Policy = policy })
			a, b, c := chain(t)
			da := mustAdd(t, f, a)
			dc := mustAdd(t, f, c)
			if dc.Cluster == da.Cluster {
				t.Fatalf("c joined a's cluster %s, want it apart", da.Cluster)
			}
			db := mustAdd(t, f, b)
			if db.Cluster != da.Cluster || db.Representative != "a" || db.Merged != nil {
				t.Fatalf("b: cluster %s, representative %s, merged %v; want %s, a, none", db.Cluster, db.Representative, db.Merged, da.Cluster)
			}
			got, err := f.ClusterOf("c")
			if err != nil || got.ID != dc.Cluster || !slices.Equal(got.Members, []string{"c"}) {
				t.Errorf("c after: %+v, %v; want alone in %s", got, err, dc.Cluster)
			}
			if e, err := f.Meta("c"); err != nil || !e.Indexed {
				t.Errorf("c indexed %v (%v), want true", e.Indexed, err)
			}
		})
	}
}

// TestNoChainPlanned: the linking page leaves the clusters apart whether
// its batch was planned (prefetch) or not, and whatever the batches.
func TestNoChainPlanned(t *testing.T) {
	skipShared(t)
	a, b, c := chain(t)
	for _, batches := range [][][]Doc{{{a, c, b}}, {{a, c}, {b}}, {{a}, {c}, {b}}} {
		for _, prefetch := range []bool{false, true} {
			f := openTest(t, chainOptions)
			var last Decision
			for _, batch := range batches {
				decs := decideBatch(t, f, batch, prefetch)
				last = decs[len(decs)-1]
			}
			got, err := f.ClusterOf("a")
			if err != nil || !slices.Equal(got.Members, []string{"a", "b"}) || got.Representative != "a" || last.Merged != nil {
				t.Errorf("%d batches, prefetch %v: a's cluster %+v (%v), b merged %v; want a, b represented by a, none merged", len(batches), prefetch, got, err, last.Merged)
			}
		}
	}
}

// skipShared skips a test of merging on Add when the tests run on a
// shared store, which does not merge.
func skipShared(t *testing.T) {
	if os.Getenv(storetest.RedisEnv) != "" {
		t.Skip("a shared store does not merge on Add")
	}
}

// TestCover: a page leaves the search index, or lets another take the
// representative's place, only for a page that holds its whole text: a fuller
// page (the article and as much again) takes the place of the one it
// holds; a page that neither holds the representative nor is held by it
// joins its cluster and stays in the index.
func TestCover(t *testing.T) {
	an := testAnalyzer(t)
	p := newCorpus(7).article(16)
	doc := func(id string, from, to int) Doc {
		return Doc{ID: id, Features: an.Analyze(p[from:to]), Payload: []byte("payload " + id)}
	}
	short, full, other := doc("short", 0, 7), doc("full", 0, 14), doc("other", 1, 8)
	// A page whose site's template, left out of its features, is as long
	// as its article: full holds its features, not its whole text.
	templated := doc("templated", 0, 7)
	templated.Features.Left = an.Analyze(newCorpus(8).article(7)).Terms
	tests := []struct {
		name    string
		policy  Policy
		docs    []Doc
		wantRep string
		indexed []string // every member in the search index, in id order
		cover   float64  // CoverMin, when not the default
	}{
		{"suppress: the fuller page takes the place", Suppress, []Doc{short, full}, "full", []string{"full"}, 0},
		{"mark: the fuller page represents", Mark, []Doc{short, full}, "full", []string{"full", "short"}, 0},
		{"replace: the shorter newer page does not", Replace, []Doc{full, short}, "full", []string{"full"}, 0},
		{"suppress: the held page leaves", Suppress, []Doc{full, short}, "full", []string{"full"}, 0},
		// short and other share 6 paragraphs of 7: neither holds 0.95 of the other.
		{"suppress: neither holds the other", Suppress, []Doc{short, other}, "short", []string{"other", "short"}, 0.95},
		{"suppress: the text a template left out counts", Suppress, []Doc{full, templated}, "full", []string{"full", "templated"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := openTest(t, func(o *Options) {
				chainOptions(o)
				o.Policy = tt.policy
				if tt.cover > 0 {
					o.CoverMin = tt.cover
				}
			})
			var last Decision
			for _, d := range tt.docs {
				last = mustAdd(t, f, d)
			}
			if !last.Duplicate {
				t.Fatalf("%s: not a duplicate (%+v)", last.ID, last.Verdict)
			}
			c, err := f.ClusterOf(last.ID)
			if err != nil || c.Representative != tt.wantRep {
				t.Fatalf("cluster %+v (%v), want represented by %s", c, err, tt.wantRep)
			}
			var indexed []string
			for _, m := range c.Members {
				e, err := f.Meta(m)
				if err != nil {
					t.Fatal(err)
				}
				if e.Indexed {
					indexed = append(indexed, m)
				}
			}
			if !slices.Equal(indexed, tt.indexed) {
				t.Errorf("in the search index: %v, want %v", indexed, tt.indexed)
			}
		})
	}
}

// TestCoverAfterDelete: when the representative goes, the member taking
// its place keeps out of the index only the members whose text it holds.
func TestCoverAfterDelete(t *testing.T) {
	an := testAnalyzer(t)
	p := newCorpus(7).article(16)
	doc := func(id string, from, to int) Doc {
		return Doc{ID: id, Features: an.Analyze(p[from:to]), Payload: []byte("payload " + id)}
	}
	f := openTest(t, chainOptions)
	for _, d := range []Doc{doc("full", 0, 14), doc("head", 0, 7), doc("tail", 7, 14)} {
		if dec := mustAdd(t, f, d); d.ID != "full" && (!dec.Duplicate || dec.Action != Skip) {
			t.Fatalf("%s: duplicate %v, action %v; want a duplicate left out", d.ID, dec.Duplicate, dec.Action)
		}
	}
	res, err := f.Delete("full")
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Ops {
		res.Ops[i].Seq, res.Ops[i].Cluster = 0, ""
	}
	want := []Op{{Kind: OpDelete, ID: "full"}, {Kind: OpIndex, ID: "head", Payload: []byte("payload head")}, {Kind: OpIndex, ID: "tail", Payload: []byte("payload tail")}}
	if res.Representative != "head" || !slices.EqualFunc(res.Ops, want, func(a, b Op) bool { return a.Kind == b.Kind && a.ID == b.ID }) {
		t.Errorf("delete: representative %s, ops %+v; want head, %+v (tail's text is not head's)", res.Representative, res.Ops, want)
	}
}
