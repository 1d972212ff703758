package dedupfilter

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/store/embedded"
)

// opsString renders ops compactly for comparisons, sorted: "+id" to
// index, "-id" to delete.
func opsString(ops []Op) []string {
	var out []string
	for _, op := range ops {
		if op.Kind == OpIndex {
			out = append(out, "+"+op.ID)
		} else {
			out = append(out, "-"+op.ID)
		}
	}
	slices.Sort(out)
	return out
}

func TestAddFindsClusters(t *testing.T) {
	f := openTest(t, nil)
	docs := newCorpus(1).clusters(t, testAnalyzer(t), 20, 3)
	for _, d := range docs {
		mustAdd(t, f, d.doc)
	}
	got := partition(t, f)
	for _, x := range docs {
		for _, y := range docs {
			same := got[x.doc.ID] == got[y.doc.ID]
			if same != (x.label == y.label) {
				t.Errorf("%s and %s together = %v, want %v", x.doc.ID, y.doc.ID, same, !same)
			}
		}
	}
}

func TestPolicies(t *testing.T) {
	a := testAnalyzer(t)
	c := newCorpus(2)
	orig := c.article(5)
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	first := Doc{ID: "first", Features: a.Analyze(orig), Payload: []byte("p1"), Time: t0}
	// The second copy is newer and shorter (last paragraph dropped).
	second := Doc{ID: "second", Features: a.Analyze(c.reprint(orig, 0.02, true)), Payload: []byte("p2"), Time: t0.Add(time.Hour)}
	tests := []struct {
		name    string
		policy  Policy
		keep    Keep
		action  Action
		ops     []string
		rep     string
		indexed []string
	}{
		{"suppress", Suppress, Newer, Skip, nil, "first", []string{"first"}},
		{"mark", Mark, Newer, Index, []string{"+second"}, "first", []string{"first", "second"}},
		{"replace newer", Replace, Newer, Index, []string{"+second", "-first"}, "second", []string{"second"}},
		{"replace longer", Replace, Longer, Skip, nil, "first", []string{"first"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := openTest(t, func(o *Options) { o.Policy, o.Keep = tt.policy, tt.keep })
			d1 := mustAdd(t, f, first)
			if d1.Duplicate || d1.Action != Index || !slices.Equal(opsString(d1.Ops), []string{"+first"}) {
				t.Fatalf("first: got dup=%v action=%v ops=%v, want new, index, [+first]", d1.Duplicate, d1.Action, opsString(d1.Ops))
			}
			d2 := mustAdd(t, f, second)
			if !d2.Duplicate || d2.Of != "first" || d2.Cluster != d1.Cluster {
				t.Errorf("second: dup=%v of=%q cluster=%q, want duplicate of first in %q", d2.Duplicate, d2.Of, d2.Cluster, d1.Cluster)
			}
			if d2.Action != tt.action || !slices.Equal(opsString(d2.Ops), tt.ops) || d2.Representative != tt.rep {
				t.Errorf("second: action=%v ops=%v rep=%q, want %v %v %q", d2.Action, opsString(d2.Ops), d2.Representative, tt.action, tt.ops, tt.rep)
			}
			var indexed []string
			for _, id := range []string{"first", "second"} {
				e, err := f.Doc(id)
				if err != nil {
					t.Fatalf("Doc(%s): %v", id, err)
				}
				if e.Indexed {
					indexed = append(indexed, id)
				}
			}
			if !slices.Equal(indexed, tt.indexed) {
				t.Errorf("indexed = %v, want %v", indexed, tt.indexed)
			}
			for _, op := range d2.Ops {
				if op.Kind == OpIndex && (op.Cluster != d1.Cluster || string(op.Payload) != "p2") {
					t.Errorf("index op %+v, want cluster %q payload p2", op, d1.Cluster)
				}
			}
		})
	}
}

func TestDeleteRepair(t *testing.T) {
	a := testAnalyzer(t)
	c := newCorpus(3)
	orig := c.article(5)
	tests := []struct {
		name    string
		policy  Policy
		del     []string // deleted in order; the last one is checked
		wantOps []string
		wantRep string
	}{
		{"suppress representative: promote earliest member", Suppress, []string{"a"}, []string{"+b", "-a"}, "b"},
		{"suppress member: delete is always sent", Suppress, []string{"b"}, []string{"-b"}, "a"},
		{"mark representative: nothing to reindex", Mark, []string{"a"}, []string{"-a"}, "b"},
		{"replace representative: promote newest", Replace, []string{"c"}, []string{"+b", "-c"}, "b"},
		{"last member", Suppress, []string{"b", "c", "a"}, []string{"-a"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := openTest(t, func(o *Options) { o.Policy = tt.policy })
			var cluster string
			for i, id := range []string{"a", "b", "c"} {
				text := orig
				if i > 0 {
					text = c.reprint(orig, 0.02, false)
				}
				d := mustAdd(t, f, Doc{ID: id, Features: a.Analyze(text), Payload: []byte("payload " + id),
					Time: time.Unix(int64(i), 0)})
				cluster = d.Cluster
			}
			var res DeleteResult
			for _, id := range tt.del {
				var err error
				if res, err = f.Delete(id); err != nil {
					t.Fatalf("Delete(%s): %v", id, err)
				}
			}
			if got := opsString(res.Ops); !slices.Equal(got, tt.wantOps) || res.Representative != tt.wantRep || res.Cluster != cluster {
				t.Errorf("got ops=%v rep=%q cluster=%q, want %v %q %q", got, res.Representative, res.Cluster, tt.wantOps, tt.wantRep, cluster)
			}
			for _, op := range res.Ops {
				if op.Kind == OpIndex && (string(op.Payload) != "payload "+op.ID || op.Cluster != cluster) {
					t.Errorf("promotion %+v lacks its payload or cluster", op)
				}
			}
			cl, err := f.Cluster(cluster)
			if tt.wantRep == "" {
				if !errors.Is(err, ErrNotFound) {
					t.Errorf("Cluster after last delete: %v, want ErrNotFound", err)
				}
				return
			}
			if err != nil || cl.Representative != tt.wantRep || slices.Contains(cl.Members, tt.del[0]) {
				t.Errorf("Cluster = %+v, %v; want representative %q without %q", cl, err, tt.wantRep, tt.del[0])
			}
		})
	}
}

func TestDeleteNotFound(t *testing.T) {
	f := openTest(t, nil)
	if _, err := f.Delete("nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Delete(nope) = %v, want ErrNotFound", err)
	}
	if _, err := f.Doc("nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Doc(nope) = %v, want ErrNotFound", err)
	}
	if _, err := f.ClusterOf("nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("ClusterOf(nope) = %v, want ErrNotFound", err)
	}
}

func TestStableClusterIDs(t *testing.T) {
	a := testAnalyzer(t)
	c := newCorpus(4)
	orig := c.article(5)
	f := openTest(t, func(o *Options) { o.Policy, o.Keep = Replace, Newer })
	var ids []string
	for i := range 4 {
		d := mustAdd(t, f, Doc{ID: fmt.Sprint("v", i), Features: a.Analyze(c.reprint(orig, 0.02, false)), Time: time.Unix(int64(i), 0)})
		ids = append(ids, d.Cluster)
	}
	if _, err := f.Delete("v3"); err != nil { // the representative under Replace/Newer
		t.Fatal(err)
	}
	cl, err := f.ClusterOf("v0")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if id != ids[0] || cl.ID != ids[0] {
			t.Fatalf("cluster ids %v then %q, want one id throughout", ids, cl.ID)
		}
	}
	if cl.Representative != "v2" {
		t.Errorf("representative %q, want v2 (newest left)", cl.Representative)
	}
	// A new, unrelated document gets a new id, later in Clusters order.
	other := mustAdd(t, f, Doc{ID: "other", Features: a.Analyze(c.article(5))})
	if other.Cluster <= ids[0] {
		t.Errorf("new cluster id %q not after %q", other.Cluster, ids[0])
	}
}

func TestReAdd(t *testing.T) {
	a := testAnalyzer(t)
	c := newCorpus(5)
	orig, unrelated := c.article(5), c.article(5)
	f := openTest(t, nil)
	d0 := mustAdd(t, f, Doc{ID: "a", Features: a.Analyze(orig), Payload: []byte("a1")})
	mustAdd(t, f, Doc{ID: "b", Features: a.Analyze(c.reprint(orig, 0.02, false)), Payload: []byte("b1")})

	// Re-adding unchanged content changes nothing but the stored version:
	// the search index holds it as it is.
	d := mustAdd(t, f, Doc{ID: "a", Features: a.Analyze(orig), Payload: []byte("a1")})
	if d.Cluster != d0.Cluster || d.Representative != "a" || d.Action != Index || len(d.Ops) != 0 {
		t.Errorf("same re-add: cluster=%q rep=%q action=%v ops=%v, want %q, a, index, []", d.Cluster, d.Representative, d.Action, opsString(d.Ops), d0.Cluster)
	}
	// The same content under another payload (a new title, say) is
	// written again.
	d = mustAdd(t, f, Doc{ID: "a", Features: a.Analyze(orig), Payload: []byte("a1'")})
	if d.Cluster != d0.Cluster || d.Action != Index || !slices.Equal(opsString(d.Ops), []string{"+a"}) {
		t.Errorf("re-add, new payload: cluster=%q action=%v ops=%v, want %q, index, [+a]", d.Cluster, d.Action, opsString(d.Ops), d0.Cluster)
	}
	// Re-adding the representative with other content: it leaves, b is
	// promoted (indexed with its payload), a gets a cluster of its own.
	d = mustAdd(t, f, Doc{ID: "a", Features: a.Analyze(unrelated), Payload: []byte("a2")})
	if d.Duplicate || d.Cluster == d0.Cluster || d.Action != Index {
		t.Errorf("re-add: dup=%v cluster=%q action=%v, want a new cluster (not %q), index", d.Duplicate, d.Cluster, d.Action, d0.Cluster)
	}
	if got, want := opsString(d.Ops), []string{"+a", "+b"}; !slices.Equal(got, want) {
		t.Errorf("re-add ops = %v, want %v", got, want)
	}
	old, err := f.Cluster(d0.Cluster)
	if err != nil || old.Representative != "b" || !slices.Equal(old.Members, []string{"b"}) {
		t.Errorf("old cluster = %+v, %v; want b alone", old, err)
	}
	// Re-adding a as a copy of b again: back into b's cluster, skipped and
	// removed from the search index.
	d = mustAdd(t, f, Doc{ID: "a", Features: a.Analyze(orig), Payload: []byte("a3")})
	if !d.Duplicate || d.Cluster != d0.Cluster || d.Action != Skip || !slices.Equal(opsString(d.Ops), []string{"-a"}) {
		t.Errorf("re-add back: dup=%v cluster=%q action=%v ops=%v, want dup in %q, skip, [-a]", d.Duplicate, d.Cluster, d.Action, opsString(d.Ops), d0.Cluster)
	}
	// A document alone in its cluster keeps the cluster id whatever its
	// new content.
	lone := mustAdd(t, f, Doc{ID: "lone", Features: a.Analyze(c.article(4))})
	if d := mustAdd(t, f, Doc{ID: "lone", Features: a.Analyze(c.article(6))}); d.Cluster != lone.Cluster {
		t.Errorf("singleton re-add moved from %q to %q", lone.Cluster, d.Cluster)
	}
	if _, err := f.Delete("lone"); err != nil {
		t.Fatal(err)
	}
	e, err := f.Doc("a")
	if err != nil || string(e.Payload) != "a3" || e.Indexed {
		t.Errorf("Doc(a) = payload %q indexed %v, %v; want a3, false", e.Payload, e.Indexed, err)
	}
	s, err := f.backend.Stats()
	if err != nil || s.Docs != 2 || s.Clusters != 1 {
		t.Errorf("Stats = %+v, %v; want 2 docs, 1 cluster (a's emptied cluster gone)", s, err)
	}
}

func TestPendingReplay(t *testing.T) {
	a := testAnalyzer(t)
	c := newCorpus(6)
	orig := c.article(5)
	dir := t.TempDir()
	f, err := openEmbedded(dir, DefaultOptions(), nil)
	if err != nil {
		t.Fatal(err)
	}
	d1 := mustAdd(t, f, Doc{ID: "x", Features: a.Analyze(orig), Payload: []byte("x1")})
	if err := f.Applied(d1.Ops...); err != nil {
		t.Fatal(err)
	}
	d2 := mustAdd(t, f, Doc{ID: "y", Features: a.Analyze(c.article(5)), Payload: []byte("y1")})
	d3 := mustAdd(t, f, Doc{ID: "x", Features: a.Analyze(orig), Payload: []byte("x2")})
	// A stale confirmation (x's first version) must not clear x's newer mark.
	if err := f.Applied(d1.Ops...); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil { // as if killed before the index write
		t.Fatal(err)
	}
	f, err = openEmbedded(dir, DefaultOptions(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []Op
	if err := f.pendingOps(func(op Op) error { got = append(got, op); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []Op{d3.Ops[0], d2.Ops[0]}
	if len(got) != 2 || got[0].ID != "x" || string(got[0].Payload) != "x2" || got[0].Seq != d3.Seq || got[1].ID != "y" {
		t.Errorf("pendingOps = %+v, want %+v", got, want)
	}
	if err := f.Applied(got...); err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := f.pendingOps(func(Op) error { n++; return nil }); err != nil || n != 0 {
		t.Errorf("pendingOps after Applied: %d ops, %v; want none", n, err)
	}
	// Counters survived the reopen: a new document gets a fresh cluster.
	d4 := mustAdd(t, f, Doc{ID: "z", Features: a.Analyze(c.article(5))})
	if d4.Cluster <= d2.Cluster || d4.Seq <= d3.Seq {
		t.Errorf("after reopen cluster %q seq %d, want after %q and %d", d4.Cluster, d4.Seq, d2.Cluster, d3.Seq)
	}
}

// TestConcurrentAddsMatchSerial adds a shuffled labelled set from many
// goroutines (run with -race) and expects the serial partition.
func TestConcurrentAddsMatchSerial(t *testing.T) {
	docs := newCorpus(8).clusters(t, testAnalyzer(t), 15, 4)
	serial := openTest(t, nil)
	for _, d := range docs {
		mustAdd(t, serial, d.doc)
	}
	want := partition(t, serial)

	shuffled := slices.Clone(docs)
	rand.New(rand.NewPCG(9, 9)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	f := openTest(t, nil)
	var wg sync.WaitGroup
	errs := make(chan error, len(shuffled))
	next := make(chan Doc)
	for range 8 {
		wg.Go(func() {
			for d := range next {
				if _, err := f.Add(d); err != nil {
					errs <- err
				}
			}
		})
	}
	for _, d := range shuffled {
		next <- d.doc
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got := partition(t, f)
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: concurrent cluster %q, serial %q", id, got[id], w)
		}
	}
	// Each cluster has exactly one indexed document under Suppress.
	oneIndexedPerCluster(t, f, f)
}

// oneIndexedPerCluster fails t unless each of clusters' clusters has
// exactly one member that meta says is indexed (under Suppress).
func oneIndexedPerCluster(t *testing.T, clusters, meta *Filter) {
	t.Helper()
	err := clusters.Clusters(func(c Cluster) error {
		n := 0
		for _, m := range c.Members {
			e, err := meta.Meta(m)
			if err != nil {
				return err
			}
			if e.Indexed {
				n++
			}
		}
		if n != 1 {
			t.Errorf("cluster %s has %d indexed members, want 1", c, n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Documents prepared in parallel and added in order decide exactly as
// Add in the same order.
func TestPrepareInParallelMatchesAdd(t *testing.T) {
	docs := newCorpus(10).clusters(t, testAnalyzer(t), 10, 3)
	serial := openTest(t, nil)
	var want []Decision
	for _, d := range docs {
		want = append(want, mustAdd(t, serial, d.doc))
	}

	f := openTest(t, nil)
	prep := make([]*prepared, len(docs))
	var wg sync.WaitGroup
	for i, d := range docs {
		wg.Go(func() {
			var err error
			if prep[i], err = f.prepare(d.doc); err != nil {
				t.Errorf("prepare(%s): %v", d.doc.ID, err)
			}
		})
	}
	wg.Wait()
	for i, p := range prep {
		got, err := f.addPrepared(p, addOptions{})
		if err != nil {
			t.Fatalf("addPrepared(%s): %v", docs[i].doc.ID, err)
		}
		w := want[i]
		if got.Duplicate != w.Duplicate || got.Of != w.Of || got.Cluster != w.Cluster || got.Action != w.Action {
			t.Errorf("%s: got duplicate=%v of %q cluster %s %v, want duplicate=%v of %q cluster %s %v",
				got.ID, got.Duplicate, got.Of, got.Cluster, got.Action, w.Duplicate, w.Of, w.Cluster, w.Action)
		}
	}
	if _, err := f.prepare(Doc{ID: "x"}); !errors.Is(err, ErrInvalidDocument) {
		t.Errorf("prepare without features = %v, want ErrInvalidDocument", err)
	}
}

// AddBatch decides as Add one document after another, and a document Add
// refuses fails the batch before any is decided.
func TestAddBatchMatchesAdd(t *testing.T) {
	docs := newCorpus(11).clusters(t, testAnalyzer(t), 15, 3)
	serial, f := openTest(t, nil), openTest(t, nil)
	batch := make([]Doc, len(docs))
	for i, d := range docs {
		batch[i] = d.doc
	}
	if len(batch) <= planAhead {
		t.Fatalf("%d documents: the batch must outgrow a plan's window (%d)", len(batch), planAhead)
	}
	bad := append(slices.Clone(batch[:3]), Doc{ID: "x"})
	if decs, err := f.AddBatch(bad); !errors.Is(err, ErrInvalidDocument) || len(decs) != 0 || !f.Empty() {
		t.Fatalf("AddBatch with a document without features: %d decisions, %v, empty store %v; want none, ErrInvalidDocument, empty", len(decs), err, f.Empty())
	}
	got, err := f.AddBatch(batch)
	if err != nil || len(got) != len(batch) {
		t.Fatalf("AddBatch: %d decisions, %v", len(got), err)
	}
	for i, d := range batch {
		w := mustAdd(t, serial, d)
		if g := got[i]; g.Duplicate != w.Duplicate || g.Of != w.Of || g.Cluster != w.Cluster || g.Action != w.Action {
			t.Errorf("%s: got duplicate=%v of %q cluster %s %v, want duplicate=%v of %q cluster %s %v",
				g.ID, g.Duplicate, g.Of, g.Cluster, g.Action, w.Duplicate, w.Of, w.Cluster, w.Action)
		}
	}
}

func TestBadInput(t *testing.T) {
	f := openTest(t, nil)
	feat := &analyzer.Features{MinHash: make([]uint64, 7)}
	tests := []struct {
		name string
		doc  Doc
	}{
		{"empty id", Doc{Features: &analyzer.Features{}}},
		{"nil features", Doc{ID: "a"}},
		{"minhash not bands*rows", Doc{ID: "a", Features: feat}},
		{"id longer than MaxIDBytes", Doc{ID: strings.Repeat("L", MaxIDBytes+1), Features: &analyzer.Features{}}},
	}
	for _, tt := range tests {
		if _, err := f.Add(tt.doc); !errors.Is(err, ErrInvalidDocument) {
			t.Errorf("%s: err = %v, want ErrInvalidDocument", tt.name, err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Add(Doc{ID: "a", Features: &analyzer.Features{}}); !errors.Is(err, ErrClosed) {
		t.Errorf("Add after Close = %v, want ErrClosed", err)
	}
}

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Options)
	}{
		{"bad policy", func(o *Options) { o.Policy = 7 }},
		{"bad measure", func(o *Options) { o.Measure = -1 }},
		{"zero votes", func(o *Options) { o.Votes = 0 }},
		{"zero bands", func(o *Options) { o.Bands = 0 }},
		{"zero max postings", func(o *Options) { o.MaxPostings = 0 }},
	}
	for _, tt := range tests {
		o := DefaultOptions()
		tt.edit(&o)
		if _, err := openEmbedded(t.TempDir(), o, nil); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("%s: New = %v, want ErrInvalidOptions", tt.name, err)
		}
	}
}

func TestParse(t *testing.T) {
	for _, p := range []Policy{Suppress, Mark, Replace} {
		if got, err := ParsePolicy(p.String()); got != p || err != nil {
			t.Errorf("ParsePolicy(%q) = %v, %v", p, got, err)
		}
	}
	if got, err := ParseKeep("LONGER"); got != Longer || err != nil {
		t.Errorf("ParseKeep(LONGER) = %v, %v", got, err)
	}
	for _, bad := range []string{"", "drop"} {
		if _, err := ParsePolicy(bad); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("ParsePolicy(%q) = %v, want ErrInvalidOptions", bad, err)
		}
	}
}

// TestMaxPostingsSkipsStopLists: when every list is over the limit, no
// candidate is found, so even an exact copy is admitted.
func TestMaxPostingsSkipsStopLists(t *testing.T) {
	a := testAnalyzer(t)
	text := newCorpus(10).article(5)
	for _, tt := range []struct {
		max int
		dup bool
	}{{200, true}, {1, false}} {
		f := openTest(t, func(o *Options) { o.MaxPostings = tt.max })
		mustAdd(t, f, Doc{ID: "1", Features: a.Analyze(text)})
		mustAdd(t, f, Doc{ID: "2", Features: a.Analyze(text)})
		if d := mustAdd(t, f, Doc{ID: "3", Features: a.Analyze(text)}); d.Duplicate != tt.dup {
			t.Errorf("MaxPostings=%d: dup=%v, want %v", tt.max, d.Duplicate, tt.dup)
		}
	}
}

func TestEmpty(t *testing.T) {
	f := openTest(t, nil)
	if !f.Empty() {
		t.Error("new store: Empty = false")
	}
	mustAdd(t, f, Doc{ID: "a", Features: testAnalyzer(t).Analyze(newCorpus(1).article(3))})
	if f.Empty() {
		t.Error("after an Add: Empty = true")
	}
}

func TestReadOnly(t *testing.T) {
	dir := t.TempDir()
	a := testAnalyzer(t)
	f, err := openEmbedded(dir, DefaultOptions(), nil)
	if err != nil {
		t.Fatal(err)
	}
	mustAdd(t, f, Doc{ID: "a", Features: a.Analyze(newCorpus(2).article(4)), Payload: []byte("pa")})
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	ro, err := openEmbedded(dir, DefaultOptions(), func(o *embedded.Options) { o.ReadOnly = true })
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if e, err := ro.Doc("a"); err != nil || string(e.Payload) != "pa" {
		t.Errorf("read-only Doc = %+v, %v; want a's payload", e, err)
	}
	if _, err := ro.Add(Doc{ID: "b", Features: a.Analyze(newCorpus(3).article(4))}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("read-only Add error = %v, want ErrReadOnly", err)
	}
	if _, err := ro.Delete("a"); !errors.Is(err, ErrReadOnly) {
		t.Errorf("read-only Delete error = %v, want ErrReadOnly", err)
	}
}

// TestReplay: after a crash every document a pending mark names is
// written as the store holds it, and no mark is left, not even one whose
// ops later mutations superseded (x's Add, under its Delete).
func TestReplay(t *testing.T) {
	a := testAnalyzer(t)
	orig := newCorpus(6).article(5)
	f := openTest(t, func(o *Options) { o.Policy = Mark })
	mustAdd(t, f, Doc{ID: "x", Features: a.Analyze(orig), Payload: []byte("x")})
	y := mustAdd(t, f, Doc{ID: "y", Features: a.Analyze(orig), Payload: []byte("y")})
	if !y.Duplicate {
		t.Fatalf("y: not a duplicate of x")
	}
	if _, err := f.Delete("x"); err != nil {
		t.Fatal(err)
	}
	c, err := f.ClusterOf("y")
	if err != nil {
		t.Fatal(err)
	}
	var got []Op
	n, err := f.Replay(func(ops []Op) error { got = append(got, ops...); return nil })
	want := []Op{{Kind: OpDelete, ID: "x"}, {Kind: OpIndex, ID: "y", Cluster: c.ID, Payload: []byte("y")}}
	if err != nil || n != 2 || !slices.EqualFunc(got, want, func(a, b Op) bool {
		return a.Kind == b.Kind && a.ID == b.ID && a.Cluster == b.Cluster && string(a.Payload) == string(b.Payload)
	}) {
		t.Errorf("Replay = %d, %+v, %v; want 2, %+v", n, got, err, want)
	}
	left := 0
	if err := f.pendingOps(func(Op) error { left++; return nil }); err != nil || left != 0 {
		t.Errorf("after Replay: %d ops pending, %v; want none", left, err)
	}
}
