package recluster

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/similarity"
	"github.com/bleve-dedup/bleve-dedup/store/storetest"
)

// chain returns three overlapping windows of one article's paragraphs:
// A~B and B~C under the feature-string measure, A and C too far apart.
func chain(tb testing.TB) (a, b, c dedupfilter.Doc) {
	tb.Helper()
	an, err := analyzer.New(analyzer.DefaultOptions())
	if err != nil {
		tb.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 1))
	p := make([]string, 16)
	for i := range p {
		var b strings.Builder
		for w := range 48 {
			fmt.Fprintf(&b, "w%d", r.IntN(3000))
			if w%12 == 11 {
				b.WriteByte('.')
			}
			b.WriteByte(' ')
		}
		p[i] = b.String()
	}
	doc := func(id string, from, to int) dedupfilter.Doc {
		return dedupfilter.Doc{ID: id, Features: an.Analyze(p[from:to]), Payload: []byte("payload " + id)}
	}
	return doc("a", 0, 10), doc("b", 3, 13), doc("c", 6, 16)
}

// openTest opens a filter with the feature-string measure in a fresh
// store (see storetest.Open), under policy.
func openTest(tb testing.TB, policy dedupfilter.Policy) *dedupfilter.Filter {
	tb.Helper()
	o := dedupfilter.DefaultOptions()
	o.Measure, o.Policy = similarity.FeatureString, policy
	f, err := dedupfilter.New(storetest.Open(tb), o)
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

func mustAdd(tb testing.TB, f *dedupfilter.Filter, d dedupfilter.Doc) dedupfilter.Decision {
	tb.Helper()
	dec, err := f.Add(d)
	if err != nil {
		tb.Fatalf("Add(%s): %v", d.ID, err)
	}
	return dec
}

func mustFind(tb testing.TB, f *dedupfilter.Filter) *Plan {
	tb.Helper()
	p, err := Find(context.Background(), f, DefaultOptions())
	if err != nil {
		tb.Fatalf("Find: %v", err)
	}
	return p
}

func apply(tb testing.TB, f *dedupfilter.Filter, p *Plan) []dedupfilter.Op {
	tb.Helper()
	var ops []dedupfilter.Op
	stale, err := p.Apply(f, func(o []dedupfilter.Op) error {
		ops = append(ops, o...)
		return f.Applied(o...)
	})
	if err != nil || stale != 0 {
		tb.Fatalf("Apply: %d stale, %v", stale, err)
	}
	return ops
}

// TestFindAfterAdd: a page linking two clusters whose representatives
// hold too little of each other's text does not merge them as it is
// added; recluster, single link on request, proposes the merge.
func TestFindAfterAdd(t *testing.T) {
	if os.Getenv(storetest.RedisEnv) != "" {
		t.Skip("a shared store does not merge on Add")
	}
	f := openTest(t, dedupfilter.Suppress)
	a, b, c := chain(t)
	mustAdd(t, f, a)
	mustAdd(t, f, c)
	if db := mustAdd(t, f, b); len(db.Merged) != 0 {
		t.Fatalf("b merged %v, want none", db.Merged)
	}
	if p := mustFind(t, f); len(p.Merges) != 1 || len(p.Splits) != 0 {
		t.Errorf("Find after the add: %d merges, %d splits, want 1 and 0", len(p.Merges), len(p.Splits))
	}
}

// TestReclusterSplit: the page that linked a cluster's two halves is
// deleted; recluster splits them, the representative's half keeping the
// cluster id.
func TestReclusterSplit(t *testing.T) {
	for _, policy := range []dedupfilter.Policy{dedupfilter.Suppress, dedupfilter.Mark} {
		t.Run(policy.String(), func(t *testing.T) {
			f := openTest(t, policy)
			a, b, c := chain(t)
			da := mustAdd(t, f, a)
			mustAdd(t, f, b)
			if dc := mustAdd(t, f, c); dc.Cluster != da.Cluster {
				t.Fatalf("c joined %s, want a's cluster %s", dc.Cluster, da.Cluster)
			}
			if _, err := f.Delete("b"); err != nil {
				t.Fatal(err)
			}
			p := mustFind(t, f)
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
			// indexed and becomes its cluster's copy; under Mark it is indexed
			// again with the new id.
			want := []dedupfilter.Op{{Kind: dedupfilter.OpIndex, ID: "c", Cluster: cc.ID, Payload: []byte("payload c")}}
			for i := range ops {
				ops[i].Seq = 0
			}
			if !reflect.DeepEqual(ops, want) {
				t.Errorf("ops = %+v, want %+v", ops, want)
			}
			if again := mustFind(t, f); len(again.Merges)+len(again.Splits) != 0 {
				t.Errorf("a second pass changes more: %+v", again)
			}
		})
	}
}

// TestReclusterMerge: the page linking two clusters joins the first it
// matches, and does not merge them as it is added (their representatives
// hold too little of each other's text; a shared store never merges on
// Add); recluster merges the other into its cluster, keeping the older
// id.
func TestReclusterMerge(t *testing.T) {
	for _, policy := range []dedupfilter.Policy{dedupfilter.Suppress, dedupfilter.Mark} {
		t.Run(policy.String(), func(t *testing.T) {
			f := openTest(t, policy)
			a, b, c := chain(t)
			dc := mustAdd(t, f, c)
			da := mustAdd(t, f, a)
			db := mustAdd(t, f, b)
			if da.Cluster == dc.Cluster || db.Cluster != dc.Cluster {
				t.Fatalf("clusters a %s, b %s, c %s: want b with c, a apart", da.Cluster, db.Cluster, dc.Cluster)
			}
			p := mustFind(t, f)
			if len(p.Merges) != 1 || len(p.Splits) != 0 {
				t.Fatalf("got %d merges, %d splits, want 1 and 0", len(p.Merges), len(p.Splits))
			}
			m := p.Merges[0]
			if m.Into != dc.Cluster || !slices.Equal(m.From, []string{da.Cluster}) || m.Members != 3 || len(m.Evidence) != 1 ||
				m.Evidence[0].A != "a" || m.Evidence[0].B != "b" || !m.Evidence[0].Verdict.Duplicate {
				t.Errorf("merge = %+v, want %s <- %s by a~b", m, dc.Cluster, da.Cluster)
			}
			if p.Classes != 1 {
				t.Errorf("Classes = %d, want 1", p.Classes)
			}
			ops := apply(t, f, p)
			got, err := f.ClusterOf("a")
			if err != nil || got.ID != dc.Cluster || !slices.Equal(got.Members, []string{"a", "b", "c"}) || got.Representative != "c" {
				t.Errorf("after: %+v, %v", got, err)
			}
			if _, err := f.Cluster(da.Cluster); err == nil {
				t.Errorf("cluster %s still exists", da.Cluster)
			}
			for i := range ops {
				ops[i].Seq = 0
			}
			// Under either policy a stays in the index, under c's cluster
			// id: c, which represents the cluster, does not hold its text.
			want := []dedupfilter.Op{{Kind: dedupfilter.OpIndex, ID: "a", Cluster: dc.Cluster, Payload: []byte("payload a")}}
			if !reflect.DeepEqual(ops, want) {
				t.Errorf("ops = %+v, want %+v", ops, want)
			}
		})
	}
}

// TestReclusterDeterministic: two plans of one store agree, and a store
// that changed since its plan is left alone.
func TestReclusterDeterministic(t *testing.T) {
	f := openTest(t, dedupfilter.Suppress)
	a, b, c := chain(t)
	mustAdd(t, f, a)
	mustAdd(t, f, c)
	mustAdd(t, f, b)
	p1, p2 := mustFind(t, f), mustFind(t, f)
	if !reflect.DeepEqual(p1, p2) {
		t.Errorf("two plans differ:\n%+v\n%+v", p1, p2)
	}
	if _, err := f.Delete("b"); err != nil {
		t.Fatal(err)
	}
	stale, err := p1.Apply(f, func([]dedupfilter.Op) error { return nil })
	if err != nil || stale != 1 {
		t.Errorf("Apply after a change: %d stale, %v; want 1 stale", stale, err)
	}
}

func TestReclusterOptions(t *testing.T) {
	f := openTest(t, dedupfilter.Suppress)
	for _, o := range []Options{{MinST: 0, MaxPairwise: 10}, {MinST: 1.5, MaxPairwise: 10}, {MinST: 0.5, MaxPairwise: 1}} {
		if _, err := Find(context.Background(), f, o); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("%+v: %v, want ErrInvalidOptions", o, err)
		}
	}
}
