package collapse_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/bleve-dedup/bleve-dedup/collapse"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testindex"
	"github.com/bleve-dedup/bleve-dedup/page"
)

// synthIndex writes n documents straight into bleve (around the filter),
// in clusters of 1 to 4 whose members share their text, from a vocabulary
// small enough that many scores tie across clusters.
func synthIndex(tb testing.TB, n int, seed uint64) *indexer.Index {
	tb.Helper()
	ix, err := indexer.Open(tb.TempDir(), indexer.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ix.Close() })
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta")
	r := rand.New(rand.NewPCG(seed, 1))
	b := ix.Unwrap().NewBatch()
	for i, c := 0, 0; i < n; c++ {
		copies := min(1+r.IntN(4), n-i)
		text := make([]string, 3)
		for j := range text {
			text[j] = words[r.IntN(len(words))]
		}
		for range copies {
			doc := map[string]any{
				indexer.FieldText:    strings.Join(text, " "),
				indexer.FieldCluster: fmt.Sprintf("%016x", c),
			}
			if err := b.Index(fmt.Sprintf("d%03d", r.IntN(1000)*1000+i), doc); err != nil {
				tb.Fatal(err)
			}
			i++
		}
	}
	if err := ix.Unwrap().Batch(b); err != nil {
		tb.Fatal(err)
	}
	return ix
}

// bruteCollapse is the reference: every match in the documented order,
// first member of each cluster kept.
func bruteCollapse(tb testing.TB, ix *indexer.Index, q query.Query) []collapse.Hit {
	tb.Helper()
	req := bleve.NewSearchRequestOptions(q, 1<<20, 0, false)
	req.SortBy([]string{"-_score", "_id"})
	req.Fields = []string{indexer.FieldCluster}
	res, err := ix.Unwrap().Search(req)
	if err != nil {
		tb.Fatal(err)
	}
	seen := map[string]bool{}
	var hits []collapse.Hit
	for _, h := range res.Hits {
		c := h.Fields[indexer.FieldCluster].(string)
		if !seen[c] {
			seen[c] = true
			hits = append(hits, collapse.Hit{ID: h.ID, Score: h.Score, Cluster: c})
		}
	}
	return hits
}

func ids(hits []collapse.Hit) []string {
	s := make([]string, len(hits))
	for i, h := range hits {
		s[i] = h.ID + "/" + h.Cluster
	}
	return s
}

func TestSearchCollapsedPagingMatchesReference(t *testing.T) {
	ix := synthIndex(t, 300, 7)
	searcher := collapse.New(ix.Unwrap(), ix.Filter())
	ctx := context.Background()
	for _, qs := range []string{"alpha", "alpha beta", "gamma delta zeta", "*"} {
		var q query.Query = bleve.NewQueryStringQuery(qs)
		if qs == "*" {
			q = bleve.NewMatchAllQuery()
		}
		want := bruteCollapse(t, ix, q)
		if len(want) == 0 {
			t.Fatalf("%q: reference found nothing", qs)
		}
		for _, size := range []int{1, 3, 10, 1000} {
			var got []collapse.Hit
			for from := 0; from < len(want)+size; from += size {
				res, err := searcher.Search(ctx, collapse.Request{Query: q, From: from, Size: size, Collapse: true})
				if err != nil {
					t.Fatal(err)
				}
				if !res.ClustersExact || res.Clusters != len(want) {
					t.Errorf("%q size %d from %d: clusters %d exact %v, want %d exact", qs, size, from, res.Clusters, res.ClustersExact, len(want))
				}
				got = append(got, res.Hits...)
			}
			if g, w := ids(got), ids(want); !slices.Equal(g, w) {
				t.Errorf("%q size %d: pages concatenated\n got %v\nwant %v", qs, size, g, w)
			}
		}
	}
}

func TestSearchCollapsedClusterBound(t *testing.T) {
	ix := synthIndex(t, 300, 7)
	searcher := collapse.New(ix.Unwrap(), ix.Filter())
	q := bleve.NewMatchAllQuery()
	all := len(bruteCollapse(t, ix, q))
	tests := []struct {
		bound     int
		want      int
		wantExact bool
	}{
		{bound: -1, want: all, wantExact: true},
		{bound: all, want: all, wantExact: true},
		{bound: all - 1, want: all - 1, wantExact: false},
		{bound: 5, want: 5, wantExact: false},
	}
	for _, tt := range tests {
		res, err := searcher.Search(context.Background(), collapse.Request{Query: q, Collapse: true, ClusterBound: tt.bound})
		if err != nil {
			t.Fatal(err)
		}
		if res.Clusters != tt.want || res.ClustersExact != tt.wantExact {
			t.Errorf("bound %d: got %d exact %v, want %d exact %v", tt.bound, res.Clusters, res.ClustersExact, tt.want, tt.wantExact)
		}
		if res.Total != 300 {
			t.Errorf("bound %d: total %d, want 300", tt.bound, res.Total)
		}
	}
}

func TestSearchCollapsedPolicies(t *testing.T) {
	// The fixture's library-bees story has three copies, which the filter
	// puts in one cluster.
	q := bleve.NewMatchQuery("bees")
	copies := []string{"en/bee-archive/library-bees", "en/daily-reader/rooftop-hives-reprint", "en/harbor-gazette/library-bees"}
	tests := []struct {
		policy   dedupfilter.Policy
		collapse bool
		wantHits int // hits that are copies
		folded   int
		members  int // members of the hit listed as indexed
	}{
		{dedupfilter.Mark, false, 3, 0, 0},
		{dedupfilter.Mark, true, 1, 2, 2},
		{dedupfilter.Suppress, false, 1, 0, 0},
		{dedupfilter.Suppress, true, 1, 2, 0},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%v/collapse=%v", tt.policy, tt.collapse), func(t *testing.T) {
			ix := testindex.Pages(t, "", tt.policy)
			searcher := collapse.New(ix.Unwrap(), ix.Filter())
			res, err := searcher.Search(context.Background(), collapse.Request{Query: q, Size: 100, Collapse: tt.collapse})
			if err != nil {
				t.Fatal(err)
			}
			var found []collapse.Hit
			for _, h := range res.Hits {
				if slices.Contains(copies, h.ID) {
					found = append(found, h)
				}
				if h.Title == "" || h.Cluster == "" {
					t.Errorf("hit %s: title %q cluster %q, want both", h.ID, h.Title, h.Cluster)
				}
			}
			if len(found) != tt.wantHits {
				t.Fatalf("hits among the copies: got %v, want %d", ids(found), tt.wantHits)
			}
			h := found[0]
			if h.Folded != tt.folded || len(h.Members) != tt.folded {
				t.Errorf("folded %d members %v, want %d", h.Folded, h.Members, tt.folded)
			}
			indexed := 0
			for _, m := range h.Members {
				if m.ID == h.ID || !slices.Contains(copies, m.ID) || m.Title == "" {
					t.Errorf("member %+v of %s: want another copy, with its title", m, h.ID)
				}
				if m.Indexed {
					indexed++
				}
			}
			if indexed != tt.members {
				t.Errorf("indexed members %d, want %d", indexed, tt.members)
			}
		})
	}
}

func TestSearchCollapsedMaxMembers(t *testing.T) {
	ix := testindex.Pages(t, "", dedupfilter.Mark)
	searcher := collapse.New(ix.Unwrap(), ix.Filter())
	res, err := searcher.Search(context.Background(), collapse.Request{
		Query: bleve.NewMatchQuery("bees"), Collapse: true, MaxMembers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if h.Folded == 2 && len(h.Members) != 1 {
			t.Errorf("%s: %d members listed, want 1 of 2", h.ID, len(h.Members))
		}
	}
}

func TestSearchCollapsedInvalid(t *testing.T) {
	ix := synthIndex(t, 10, 1)
	searcher := collapse.New(ix.Unwrap(), ix.Filter())
	q := bleve.NewMatchAllQuery()
	tests := []collapse.Request{
		{},
		{Query: q, Size: -1},
		{Query: q, From: -1},
		{Query: q, From: collapse.MaxWindow},
	}
	for _, req := range tests {
		if _, err := searcher.Search(context.Background(), req); !errors.Is(err, collapse.ErrInvalidRequest) {
			t.Errorf("%+v: got %v, want ErrInvalidRequest", req, err)
		}
	}
}

func TestSearchCollapsedCanceled(t *testing.T) {
	ix := synthIndex(t, 10, 1)
	searcher := collapse.New(ix.Unwrap(), ix.Filter())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := searcher.Search(ctx, collapse.Request{Query: bleve.NewMatchAllQuery(), Collapse: true}); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

func ExampleSearcher_Search() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	o := indexer.Options{}
	o.Policy = dedupfilter.Mark
	ix, err := indexer.Open(dir, o)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ix.Close()
	story := []string{"The city library opens its doors at night for students preparing exams this winter.",
		"Volunteers keep the reading rooms open until midnight, and the lamps stay lit for everyone."}
	ix.Index("a", indexer.Document{URL: "https://a.example/night", Title: "Night library", Paragraphs: story})
	ix.Index("b", indexer.Document{URL: "https://b.example/copy", Title: "Night library (reprint)", Paragraphs: story})
	searcher := collapse.New(ix.Unwrap(), ix.Filter())
	res, err := searcher.Search(context.Background(), collapse.Request{Query: bleve.NewMatchQuery("library"), Collapse: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, h := range res.Hits {
		fmt.Println(h.ID, h.Folded, h.Members[0].URL)
	}
	fmt.Println(res.Total, "documents,", res.Clusters, "cluster")
	// Output:
	// a 1 https://b.example/copy
	// 2 documents, 1 cluster
}

// TestSearchCollapsedDevSet indexes the labelled development set under
// the mark policy, then (1) searches the title of the largest cluster:
// its copies, several in the plain results, come back as one hit with
// the cluster's other members folded; (2) pages through every match of
// two queries with collapsing: each cluster comes exactly once, in the
// reference order. Extraction makes indexing take minutes; set
// BLEVE_DEDUP_DEV_JSONL to a pre-extracted JSONL ({"id","title","text"})
// of the same pages to skip it.
func TestSearchCollapsedDevSet(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes the development set")
	}
	input := os.Getenv("BLEVE_DEDUP_DEV_JSONL")
	if input == "" {
		input = filepath.Join("..", "..", "shared", "data", "neardup", "dev-corpus.jsonl.gz")
	}
	if _, err := os.Stat(input); err != nil {
		t.Skipf("no development set: %v", err)
	}
	o := indexer.Options{}
	o.Policy = dedupfilter.Mark
	ix, err := indexer.Open(t.TempDir(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	st, err := ix.IndexPages(context.Background(), page.Read([]string{input}, page.DefaultOptions()), indexer.DefaultRunOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("indexed %d of %d pages, %d duplicates, in %s", st.Indexed, st.Read, st.Duplicates, st.Elapsed)
	searcher := collapse.New(ix.Unwrap(), ix.Filter())

	// (1) The largest cluster that is exactly a labelled cluster, searched
	// by the start of its representative's text.
	labels := readLabels(t, filepath.Join("..", "..", "shared", "data", "neardup", "dev-labels.jsonl"))
	var big dedupfilter.Cluster
	clusters := 0
	err = ix.Filter().Clusters(func(c dedupfilter.Cluster) error {
		clusters++
		if len(c.Members) > len(big.Members) && slices.Equal(c.Members, labels[labels[c.Members[0]][0]]) {
			big = c
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(big.Members) < 3 {
		t.Fatalf("no labelled cluster of 3 or more found whole: %v", big)
	}
	rep, err := ix.Filter().Doc(big.Representative)
	if err != nil {
		t.Fatal(err)
	}
	var body struct{ Text string }
	if err := json.Unmarshal(rep.Payload, &body); err != nil {
		t.Fatal(err)
	}
	start := []rune(body.Text)[:min(80, len([]rune(body.Text)))]
	q := bleve.NewMatchQuery(string(start))
	q.SetField(indexer.FieldText)
	plain, err := searcher.Search(context.Background(), collapse.Request{Query: q, Size: 20})
	if err != nil {
		t.Fatal(err)
	}
	copies := 0
	for _, h := range plain.Hits {
		if h.Cluster == big.ID {
			copies++
		}
	}
	col, err := searcher.Search(context.Background(), collapse.Request{Query: q, Size: 20, Collapse: true})
	if err != nil {
		t.Fatal(err)
	}
	var once []collapse.Hit
	for _, h := range col.Hits {
		if h.Cluster == big.ID {
			once = append(once, h)
		}
	}
	t.Logf("query %.60q: %d copies of cluster %s (%d members) in the top 20 plain hits; collapsed: %v", string(start), copies, big.ID, len(big.Members), ids(once))
	if copies < 2 {
		t.Errorf("plain results hold %d copies of cluster %s, want several", copies, big.ID)
	}
	if len(once) != 1 || once[0].Folded != len(big.Members)-1 || len(once[0].Members) != len(big.Members)-1 {
		t.Fatalf("collapsed: %+v, want one hit folding %d members", once, len(big.Members)-1)
	}
	if p := plain.Hits[slices.IndexFunc(plain.Hits, func(h collapse.Hit) bool { return h.Cluster == big.ID })]; p.ID != once[0].ID {
		t.Errorf("collapsed hit %s, want the best plain copy %s", once[0].ID, p.ID)
	}

	// (2) Paging through every match.
	for _, q := range []query.Query{bleve.NewMatchAllQuery(), bleve.NewMatchQuery("the 的 news 新闻")} {
		want := bruteCollapse(t, ix, q)
		var got []collapse.Hit
		var total uint64
		seen := map[string]int{}
		for from := 0; ; from += 10 {
			res, err := searcher.Search(context.Background(), collapse.Request{Query: q, From: from, Size: 10, Collapse: true, ClusterBound: -1})
			if err != nil {
				t.Fatal(err)
			}
			if !res.ClustersExact || res.Clusters != len(want) {
				t.Fatalf("from %d: %d clusters (exact %v), want %d", from, res.Clusters, res.ClustersExact, len(want))
			}
			total = res.Total
			if len(res.Hits) == 0 {
				break
			}
			for _, h := range res.Hits {
				seen[h.Cluster]++
			}
			got = append(got, res.Hits...)
		}
		for c, n := range seen {
			if n != 1 {
				t.Errorf("cluster %s on %d pages", c, n)
			}
		}
		if g, w := ids(got), ids(want); !slices.Equal(g, w) {
			t.Errorf("paged results differ from the reference: got %d, want %d hits", len(g), len(w))
		}
		t.Logf("%T: paged through %d clusters of %d matching documents; %d clusters in the store", q, len(got), total, clusters)
	}
}

// readLabels reads {"id","cluster"} lines into a map from a document id
// to its label and from a label to its sorted members (both []string).
func readLabels(tb testing.TB, path string) map[string][]string {
	tb.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		tb.Skipf("no labels: %v", err)
	}
	m := map[string][]string{}
	for line := range strings.Lines(string(raw)) {
		var l struct{ ID, Cluster string }
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			tb.Fatal(err)
		}
		m[l.ID] = []string{"label:" + l.Cluster}
		m["label:"+l.Cluster] = append(m["label:"+l.Cluster], l.ID)
	}
	for k, v := range m {
		if strings.HasPrefix(k, "label:") {
			slices.Sort(v)
		}
	}
	return m
}

// TestSearchCollapsedAfterWrites checks the per-segment cluster tables
// as bleve adds, replaces and merges segments, with searches running
// concurrently with the writes.
func TestSearchCollapsedAfterWrites(t *testing.T) {
	ix := synthIndex(t, 200, 3)
	searcher := collapse.New(ix.Unwrap(), ix.Filter())
	q := bleve.NewMatchAllQuery()
	check := func(round int) {
		t.Helper()
		want := bruteCollapse(t, ix, q)
		res, err := searcher.Search(context.Background(), collapse.Request{Query: q, Size: 1000, Collapse: true, ClusterBound: -1})
		if err != nil {
			t.Fatal(err)
		}
		if g, w := ids(res.Hits), ids(want); !slices.Equal(g, w) || res.Clusters != len(want) {
			t.Fatalf("round %d: %d hits, %d clusters; want %d", round, len(g), res.Clusters, len(w))
		}
	}
	check(0)
	done := make(chan struct{})
	go func() { // concurrent readers, for -race and for stale tables
		defer close(done)
		for range 20 {
			if _, err := searcher.Search(context.Background(), collapse.Request{Query: q, Collapse: true}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for round := 1; round <= 5; round++ {
		b := ix.Unwrap().NewBatch()
		for i := range 40 {
			// New documents, some joining old clusters, some moving an
			// existing document to another cluster.
			id := fmt.Sprintf("w%d-%02d", round, i)
			if i%4 == 0 {
				id = fmt.Sprintf("w%d-%02d", round-1, i+1)
			}
			doc := map[string]any{indexer.FieldText: "alpha omega", indexer.FieldCluster: fmt.Sprintf("%016x", (round*7+i)%60)}
			if err := b.Index(id, doc); err != nil {
				t.Fatal(err)
			}
		}
		b.Delete(fmt.Sprintf("w%d-%02d", round-1, 3))
		if err := ix.Unwrap().Batch(b); err != nil {
			t.Fatal(err)
		}
		check(round)
	}
	<-done
}

// TestSearchVisit: a Visit that leaves documents out and ranks by another
// score gives the pages the reference gives over the documents kept, with
// the new scores, collapsed or not, and sees every match once.
func TestSearchVisit(t *testing.T) {
	ix := synthIndex(t, 300, 11)
	searcher := collapse.New(ix.Unwrap(), ix.Filter())
	q := bleve.NewMatchAllQuery()
	// keep: ids whose last digit is even; the new score: the id's number
	// modulo 7 (many ties, broken by id).
	keep := func(id string) bool { return (id[len(id)-1]-'0')%2 == 0 }
	score := func(id string) float64 {
		n := 0
		for _, r := range id[1:] {
			n = n*10 + int(r-'0')
		}
		return float64(n % 7)
	}
	req := bleve.NewSearchRequestOptions(q, 1<<20, 0, false)
	req.Fields = []string{indexer.FieldCluster}
	all, err := ix.Unwrap().Search(req)
	if err != nil {
		t.Fatal(err)
	}
	var kept []collapse.Hit
	for _, h := range all.Hits {
		if keep(h.ID) {
			kept = append(kept, collapse.Hit{ID: h.ID, Score: score(h.ID), Cluster: h.Fields[indexer.FieldCluster].(string)})
		}
	}
	slices.SortFunc(kept, func(a, b collapse.Hit) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	var wantCollapsed []collapse.Hit
	seen := map[string]bool{}
	for _, h := range kept {
		if !seen[h.Cluster] {
			seen[h.Cluster] = true
			wantCollapsed = append(wantCollapsed, h)
		}
	}
	for _, fold := range []bool{true, false} {
		want := kept
		if fold {
			want = wantCollapsed
		}
		visited := 0
		visit := func(m *collapse.Match) bool {
			visited++
			if m.Cluster == "" {
				t.Errorf("%s: no cluster", m.ID)
			}
			m.Score = score(m.ID)
			return keep(m.ID)
		}
		var got []collapse.Hit
		var total uint64
		for from := 0; from < len(want)+7; from += 7 {
			res, err := searcher.Search(context.Background(), collapse.Request{Query: q, From: from, Size: 7, Collapse: fold, Visit: visit})
			if err != nil {
				t.Fatal(err)
			}
			got, total = append(got, res.Hits...), res.Total
			if fold && res.Clusters != len(wantCollapsed) {
				t.Errorf("collapse %v: clusters %d, want %d", fold, res.Clusters, len(wantCollapsed))
			}
		}
		if visited != 300*((len(want)+7+6)/7) {
			t.Errorf("collapse %v: visited %d matches, want 300 a page", fold, visited)
		}
		if total != uint64(len(kept)) {
			t.Errorf("collapse %v: total %d, want %d", fold, total, len(kept))
		}
		gotIDs, wantIDs := ids(got), ids(want)
		if !slices.Equal(gotIDs, wantIDs) {
			t.Errorf("collapse %v: pages concatenated\n got %v\nwant %v", fold, gotIDs, wantIDs)
		}
		for i := range min(len(got), len(want)) {
			if got[i].Score != want[i].Score {
				t.Errorf("collapse %v: hit %d score %v, want %v", fold, i, got[i].Score, want[i].Score)
				break
			}
		}
	}
}
