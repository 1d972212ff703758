package dedupfilter

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/similarity"
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

func mustPlan(tb testing.TB, f *Filter) *Plan {
	tb.Helper()
	p, err := f.PlanRecluster(context.Background(), DefaultReclusterOptions())
	if err != nil {
		tb.Fatalf("PlanRecluster: %v", err)
	}
	return p
}

func apply(tb testing.TB, f *Filter, p *Plan) []Op {
	tb.Helper()
	var ops []Op
	stale, err := f.ApplyRecluster(p, func(o []Op) error {
		ops = append(ops, o...)
		return f.Applied(o...)
	})
	if err != nil || stale != 0 {
		tb.Fatalf("ApplyRecluster: %d stale, %v", stale, err)
	}
	return ops
}

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

// TestReclusterSplit: the page that linked a cluster's two halves is
// deleted; recluster splits them, the representative's half keeping the
// cluster id.
func TestReclusterSplit(t *testing.T) {
	for _, policy := range []Policy{Suppress, Mark} {
		t.Run(policy.String(), func(t *testing.T) {
			f := openTest(t, func(o *Options) { chainOptions(o); o.Policy = policy })
			a, b, c := chain(t)
			da := mustAdd(t, f, a)
			mustAdd(t, f, b)
			if dc := mustAdd(t, f, c); dc.Cluster != da.Cluster {
				t.Fatalf("c joined %s, want a's cluster %s", dc.Cluster, da.Cluster)
			}
			if _, err := f.Delete("b"); err != nil {
				t.Fatal(err)
			}
			p := mustPlan(t, f)
			if len(p.Merges) != 0 || len(p.Splits) != 1 {
				t.Fatalf("got %d merges, %d splits, want 0 and 1", len(p.Merges), len(p.Splits))
			}
			s := p.Splits[0]
			if s.Cluster != da.Cluster || !reflect.DeepEqual(s.Parts, [][]string{{"c"}}) || s.Closest.A != "a" || s.Closest.B != "c" || s.Closest.Verdict.Duplicate {
				t.Errorf("split = %+v, want cluster %s, parts [[c]], closest a~c not duplicate", s, da.Cluster)
			}
			if p.Classes != 2 {
				t.Errorf("Classes = %d, want 2", p.Classes)
			}
			ops := apply(t, f, p)
			ca, _ := f.ClusterOf("a")
			cc, _ := f.ClusterOf("c")
			if ca.ID != da.Cluster || cc.ID == da.Cluster || !slices.Equal(cc.Members, []string{"c"}) || cc.Representative != "c" {
				t.Errorf("after: a in %+v, c in %+v", ca, cc)
			}
			// c is indexed under its new cluster: under Suppress it was not
			// indexed and becomes its cluster's copy; under Mark it is
			// indexed again with the new id.
			want := []Op{{Kind: OpIndex, ID: "c", Cluster: cc.ID, Payload: []byte("payload c")}}
			for i := range ops {
				ops[i].Seq = 0
			}
			if !reflect.DeepEqual(ops, want) {
				t.Errorf("ops = %+v, want %+v", ops, want)
			}
			if again := mustPlan(t, f); len(again.Merges)+len(again.Splits) != 0 {
				t.Errorf("a second pass changes more: %+v", again)
			}
		})
	}
}

// TestReclusterMerge: the page linking two clusters comes last and joins
// the first it matches; recluster merges the other into it, keeping the
// older id.
func TestReclusterMerge(t *testing.T) {
	for _, policy := range []Policy{Suppress, Mark} {
		t.Run(policy.String(), func(t *testing.T) {
			f := openTest(t, func(o *Options) { chainOptions(o); o.Policy = policy })
			a, b, c := chain(t)
			da := mustAdd(t, f, a)
			dc := mustAdd(t, f, c)
			db := mustAdd(t, f, b)
			if dc.Cluster == da.Cluster || db.Cluster != da.Cluster {
				t.Fatalf("clusters a %s, b %s, c %s: want b with a, c apart", da.Cluster, db.Cluster, dc.Cluster)
			}
			p := mustPlan(t, f)
			if len(p.Merges) != 1 || len(p.Splits) != 0 {
				t.Fatalf("got %d merges, %d splits, want 1 and 0", len(p.Merges), len(p.Splits))
			}
			m := p.Merges[0]
			if m.Into != da.Cluster || !slices.Equal(m.From, []string{dc.Cluster}) || m.Members != 3 || len(m.Evidence) != 1 ||
				m.Evidence[0].A != "c" || m.Evidence[0].B != "b" || !m.Evidence[0].Verdict.Duplicate {
				t.Errorf("merge = %+v, want %s <- %s by c~b", m, da.Cluster, dc.Cluster)
			}
			if p.Classes != 1 {
				t.Errorf("Classes = %d, want 1", p.Classes)
			}
			ops := apply(t, f, p)
			got, err := f.ClusterOf("c")
			if err != nil || got.ID != da.Cluster || !slices.Equal(got.Members, []string{"a", "b", "c"}) || got.Representative != "a" {
				t.Errorf("after: %+v, %v", got, err)
			}
			if _, err := f.Cluster(dc.Cluster); err == nil {
				t.Errorf("cluster %s still exists", dc.Cluster)
			}
			for i := range ops {
				ops[i].Seq = 0
			}
			want := []Op{{Kind: OpDelete, ID: "c"}} // c is no longer its cluster's copy
			if policy == Mark {
				want = []Op{{Kind: OpIndex, ID: "c", Cluster: da.Cluster, Payload: []byte("payload c")}}
			}
			if !reflect.DeepEqual(ops, want) {
				t.Errorf("ops = %+v, want %+v", ops, want)
			}
		})
	}
}

// TestReclusterDeterministic: two plans of one store agree, and a store
// that changed since its plan is left alone.
func TestReclusterDeterministic(t *testing.T) {
	f := openTest(t, chainOptions)
	a, b, c := chain(t)
	mustAdd(t, f, a)
	mustAdd(t, f, c)
	mustAdd(t, f, b)
	p1, p2 := mustPlan(t, f), mustPlan(t, f)
	if !reflect.DeepEqual(p1, p2) {
		t.Errorf("two plans differ:\n%+v\n%+v", p1, p2)
	}
	if _, err := f.Delete("b"); err != nil {
		t.Fatal(err)
	}
	stale, err := f.ApplyRecluster(p1, func([]Op) error { return nil })
	if err != nil || stale != 1 {
		t.Errorf("ApplyRecluster after a change: %d stale, %v; want 1 stale", stale, err)
	}
}

func TestReclusterOptions(t *testing.T) {
	f := openTest(t, nil)
	for _, o := range []ReclusterOptions{{MinST: 0, MaxPairwise: 10}, {MinST: 1.5, MaxPairwise: 10}, {MinST: 0.5, MaxPairwise: 1}} {
		if _, err := f.PlanRecluster(context.Background(), o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}
