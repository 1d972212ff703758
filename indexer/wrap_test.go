package indexer_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
	"html"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testindex"
	"github.com/bleve-dedup/bleve-dedup/page"
	"github.com/bleve-dedup/bleve-dedup/store/storetest"
)

// webPage is a user's own document type.
type webPage struct {
	URL   string
	Title string
	HTML  string
}

// testPages are the repository's test pages, plain-text ones as HTML.
func testPages(t *testing.T) []page.Page {
	t.Helper()
	var out []page.Page
	for p, err := range page.Read([]string{testindex.PagesDir(t)}, page.DefaultOptions()) {
		if err != nil {
			t.Fatal(err)
		}
		if p.Text != "" {
			var b strings.Builder
			for para := range strings.SplitSeq(p.Text, "\n\n") {
				b.WriteString("<p>" + html.EscapeString(para) + "</p>\n")
			}
			p.HTML, p.Text = b.String(), ""
		}
		out = append(out, p)
	}
	return out
}

// clustersOfFilter is f's clusters as sorted member lists, sorted.
func clustersOfFilter(t *testing.T, f *dedupfilter.Filter) []string {
	t.Helper()
	var got []string
	err := f.Clusters(func(c dedupfilter.Cluster) error {
		m := slices.Clone(c.Members)
		sort.Strings(m)
		got = append(got, strings.Join(m, ","))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(got)
	return got
}

// pageFields are the fields of a webPage.
var pageFields = indexer.Options{HTMLField: "HTML", TitleField: "Title", URLField: "URL"}

// wrapNew makes a bleve index with bleve's default mapping (plus the
// filter's fields) and wraps it with o and its own store.
func wrapNew(t *testing.T, o indexer.Options) *indexer.Index {
	t.Helper()
	dir := t.TempDir()
	m := bleve.NewIndexMapping()
	indexer.AddFilterFields(m)
	idx, err := bleve.New(filepath.Join(dir, "idx"), m)
	if err != nil {
		t.Fatal(err)
	}
	o.Store = filepath.Join(dir, "dedup")
	w, err := indexer.Wrap(idx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// TestWrapDecidesAsIndexer: the test pages written through a Wrap of a
// plain bleve index, as a user's own struct type in batches, end in the
// clusters the indexer makes of them; every document carries its cluster
// id; searches fold each cluster into one hit.
func TestWrapDecidesAsIndexer(t *testing.T) {
	pages := testPages(t)
	want := clustersOfFilter(t, testindex.Pages(t, "", dedupfilter.Mark).Filter())

	o := pageFields
	o.Policy = dedupfilter.Mark
	w := wrapNew(t, o)
	var decided int
	for start := 0; start < len(pages); start += 7 {
		b := w.NewBatch()
		for _, p := range pages[start:min(start+7, len(pages))] {
			if err := b.Index(p.ID, webPage{URL: p.URL, Title: p.Title, HTML: p.HTML}); err != nil {
				t.Fatal(err)
			}
		}
		decs, err := w.BatchDecisions(b)
		if err != nil {
			t.Fatal(err)
		}
		decided += len(decs)
	}
	if decided != len(pages) {
		t.Errorf("%d decisions for %d pages", decided, len(pages))
	}
	if got := clustersOfFilter(t, w.Filter()); !slices.Equal(got, want) {
		t.Errorf("clusters through Wrap:\n%s\nthe indexer's:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	n, err := w.DocCount()
	if err != nil || int(n) != len(pages) {
		t.Errorf("DocCount = %d, %v; want %d (mark keeps every copy)", n, err, len(pages))
	}
	doc, err := w.Document(pages[0].ID)
	if err != nil || doc == nil {
		t.Fatalf("Document(%s): %v", pages[0].ID, err)
	}
	var cluster string
	doc.VisitFields(func(f index.Field) {
		if f.Name() == indexer.FieldCluster {
			cluster = string(f.Value())
		}
	})
	if e, err := w.Filter().Meta(pages[0].ID); err != nil || cluster == "" || cluster != e.Cluster {
		t.Errorf("stored cluster field %q, the filter's %q (%v)", cluster, e.Cluster, err)
	}

	// One hit per cluster, with what it folds.
	req := bleve.NewSearchRequestOptions(bleve.NewMatchAllQuery(), 100, 0, false)
	req.Fields = []string{"Title"}
	res, err := w.Search(req)
	if err != nil {
		t.Fatal(err)
	}
	if int(res.Total) != len(want) || len(res.Hits) != len(want) {
		t.Errorf("collapsed search: total %d, %d hits; want one per cluster, %d", res.Total, len(res.Hits), len(want))
	}
	folded := 0
	for _, h := range res.Hits {
		folded += h.Fields[indexer.FieldFolded].(int)
		if h.Fields["Title"] == nil || h.Fields[indexer.FieldCluster] == "" {
			t.Errorf("hit %s without its title or cluster: %v", h.ID, h.Fields)
		}
	}
	if folded+len(res.Hits) != len(pages) {
		t.Errorf("hits fold %d documents, with themselves %d; want %d", folded, folded+len(res.Hits), len(pages))
	}
	plain, err := w.SearchInContext(indexer.Uncollapsed(context.Background()), req)
	if err != nil || int(plain.Total) != len(pages) {
		t.Errorf("uncollapsed search: total %d, %v; want %d", plain.Total, err, len(pages))
	}
}

// TestWrapSuppressAndDelete: under Suppress a copy stays out of the
// wrapped index, and takes its original's place when that is deleted.
func TestWrapSuppressAndDelete(t *testing.T) {
	w := wrapNew(t, indexer.Options{TextFields: []string{"Body"}, Policy: dedupfilter.Suppress})
	text := "The council approved the library's new opening hours on Tuesday, after a long debate about costs and staff.\n" +
		"Readers can now borrow books until ten at night on weekdays, and the reading room stays open on Sundays.\n" +
		"The change follows a survey of two thousand residents last spring, most of whom wanted later hours.\n" +
		"The library will hire four more staff members, paid for by a grant from the regional cultural fund.\n" +
		"Officials expect the first evening sessions to begin in March, once the new lighting is installed."
	type note struct{ Body string }
	for i, body := range []string{text, "Reprinted from the City News.\n" + text} {
		dec, err := w.IndexDecision(fmt.Sprint("n", i), note{body})
		if err != nil {
			t.Fatal(err)
		}
		if dec.Duplicate != (i == 1) {
			t.Fatalf("n%d: duplicate %v, want %v", i, dec.Duplicate, i == 1)
		}
	}
	if n, _ := w.DocCount(); n != 1 {
		t.Errorf("DocCount = %d, want 1: the copy suppressed", n)
	}
	if err := w.Delete("n0"); err != nil {
		t.Fatal(err)
	}
	if d, err := w.Document("n1"); err != nil || d == nil {
		t.Errorf("after deleting the original, its copy is not in the index (%v)", err)
	}
	if _, err := w.Filter().Meta("n0"); !errors.Is(err, dedupfilter.ErrNotFound) {
		t.Errorf("the deleted original is still in the filter (%v)", err)
	}
}

// TestWrapOptions: options Wrap cannot work with are refused.
func TestWrapOptions(t *testing.T) {
	dir := t.TempDir()
	idx, err := bleve.New(filepath.Join(dir, "idx"), bleve.NewIndexMapping())
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	for _, tt := range []struct {
		name string
		o    indexer.Options
	}{
		{"no store", indexer.Options{TextFields: []string{"Body"}}},
		{"no text", indexer.Options{Store: filepath.Join(dir, "s")}},
		{"store inside the index", indexer.Options{Store: filepath.Join(dir, "idx", "dedup"), TextFields: []string{"Body"}}},
		{"shared store without a local dir", indexer.Options{Store: "redis://127.0.0.1:1/x", TextFields: []string{"Body"}}},
	} {
		if _, err := indexer.Wrap(idx, tt.o); !errors.Is(err, indexer.ErrInvalidOptions) {
			t.Errorf("%s: %v, want ErrInvalidOptions", tt.name, err)
		}
	}
}

// TestAdopt: a plain bleve index of the test pages (bleve's default
// mapping) adopted ends in the clusters of indexing them fresh, keeps
// every document under mark, still opens with plain bleve, and a second
// Adopt finds nothing to do.
func TestAdopt(t *testing.T) {
	pages := testPages(t)
	want := clustersOfFilter(t, testindex.Pages(t, "", dedupfilter.Mark).Filter())
	w, path := adoptable(t, pages)
	st, err := w.Adopt(context.Background(), indexer.AdoptOptions{BatchSize: 5})
	if err != nil || st.Unseen != len(pages) || st.Adopted != len(pages) || st.Missing != 0 {
		t.Fatalf("Adopt = %+v, %v; want all %d pages adopted", st, err, len(pages))
	}
	if got := clustersOfFilter(t, w.Filter()); !slices.Equal(got, want) {
		t.Errorf("clusters adopted:\n%s\nindexed fresh:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if st, err := w.Adopt(context.Background(), indexer.AdoptOptions{}); err != nil || st.Unseen != 0 {
		t.Errorf("second Adopt = %+v, %v; want nothing to do", st, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := bleve.Open(path)
	if err != nil {
		t.Fatalf("plain bleve no longer opens the adopted index: %v", err)
	}
	defer again.Close()
	if n, _ := again.DocCount(); int(n) != len(pages) {
		t.Errorf("the adopted index holds %d documents, want %d", n, len(pages))
	}
}

// TestAdoptRefusesUnstored: a mapping that indexes a field without
// storing it cannot have its documents rewritten from what it stores.
func TestAdoptRefusesUnstored(t *testing.T) {
	m := bleve.NewIndexMapping()
	body := bleve.NewTextFieldMapping()
	body.Store = false
	m.DefaultMapping.AddFieldMappingsAt("Body", body)
	idx, err := bleve.New(filepath.Join(t.TempDir(), "idx"), m)
	if err != nil {
		t.Fatal(err)
	}
	w, err := indexer.Wrap(idx, indexer.Options{Store: filepath.Join(t.TempDir(), "dedup"), TextFields: []string{"Body"}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Adopt(context.Background(), indexer.AdoptOptions{}); !errors.Is(err, indexer.ErrNotStored) || !strings.Contains(err.Error(), "Body") {
		t.Errorf("Adopt over an unstored Body: %v, want ErrNotStored naming Body", err)
	}
}

// TestWrapShards: two shards, each written through its own Wrap, share
// one store on the Redis Cluster; a Wrap over their alias searches them
// as one, and collapsed paging shows every cluster exactly once, as one
// index does.
func TestWrapShards(t *testing.T) {
	addrs := storetest.RedisAddrs(t)
	store := fmt.Sprintf("redis://%s/wraptest-%x", addrs, rand.Uint64())
	pages := testPages(t)
	want := clustersOfFilter(t, testindex.Pages(t, "", dedupfilter.Mark).Filter())
	dir := t.TempDir()
	var raws []bleve.Index
	for i := range 2 {
		idx, err := bleve.New(filepath.Join(dir, fmt.Sprint("shard", i)), bleve.NewIndexMapping())
		if err != nil {
			t.Fatal(err)
		}
		o := pageFields
		o.Store, o.LocalDir, o.Policy = store, filepath.Join(dir, fmt.Sprint("local", i)), dedupfilter.Mark
		w, err := indexer.Wrap(idx, o)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		b := w.NewBatch()
		for j, p := range pages {
			if j%2 == i {
				if err := b.Index(p.ID, webPage{URL: p.URL, Title: p.Title, HTML: p.HTML}); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := w.Batch(b); err != nil {
			t.Fatal(err)
		}
		// The alias reads the shards directly: a read through the
		// Index waits for the batch's bleve write first.
		if _, err := w.DocCount(); err != nil {
			t.Fatal(err)
		}
		raws = append(raws, w.Unwrap())
	}
	o := pageFields
	o.Store, o.LocalDir, o.Policy = store, filepath.Join(dir, "search"), dedupfilter.Mark
	all, err := indexer.Wrap(bleve.NewIndexAlias(raws...), o)
	if err != nil {
		t.Fatal(err)
	}
	if got := clustersOfFilter(t, all.Filter()); !slices.Equal(got, want) {
		t.Errorf("the shards' clusters:\n%s\none index's:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	seen := map[string]int{}
	for from := 0; ; from += 3 {
		res, err := all.Search(bleve.NewSearchRequestOptions(bleve.NewMatchAllQuery(), 3, from, false))
		if err != nil {
			t.Fatal(err)
		}
		if int(res.Total) != len(want) {
			t.Errorf("page at %d: total %d, want %d clusters", from, res.Total, len(want))
		}
		if len(res.Hits) == 0 {
			break
		}
		for _, h := range res.Hits {
			seen[h.Fields[indexer.FieldCluster].(string)]++
		}
	}
	for c, n := range seen {
		if n != 1 {
			t.Errorf("cluster %s on %d pages, want 1", c, n)
		}
	}
	if len(seen) != len(want) {
		t.Errorf("%d clusters paged through, want %d", len(seen), len(want))
	}
	if err := all.Index("x", webPage{}); !errors.Is(err, indexer.ErrInvalidOptions) {
		t.Errorf("a write through the alias: %v, want ErrInvalidOptions", err)
	}
}

// wrapPages makes a bleve index with mapping m in dir and wraps it,
// reading webPage's fields, policy Mark, its store in dir too.
func wrapPages(t *testing.T, dir string, m *mapping.IndexMappingImpl) *indexer.Index {
	t.Helper()
	idx, err := bleve.New(filepath.Join(dir, "idx"), m)
	if err != nil {
		t.Fatal(err)
	}
	o := pageFields
	o.Store, o.Policy = filepath.Join(dir, "dedup"), dedupfilter.Mark
	w, err := indexer.Wrap(idx, o)
	if err != nil {
		t.Fatal(errors.Join(err, idx.Close()))
	}
	return w
}

// batchPages writes pages to w as webPages in one batch and returns the
// decisions.
func batchPages(t *testing.T, w *indexer.Index, pages []page.Page) []dedupfilter.Decision {
	t.Helper()
	b := w.NewBatch()
	for _, p := range pages {
		if err := b.Index(p.ID, webPage{URL: p.URL, Title: p.Title, HTML: p.HTML}); err != nil {
			t.Fatal(err)
		}
	}
	decs, err := w.BatchDecisions(b)
	if err != nil {
		t.Fatal(err)
	}
	return decs
}

// TestWrapSearchesMainText: with an HTMLField, bleve searches the page's
// main text, not its raw HTML: a word of the site's template (an
// advertisement) matches nothing, highlights show no markup; with
// AddFilterFields and the cjk analyzer by default, a Chinese query finds
// what the command's own index finds.
func TestWrapSearchesMainText(t *testing.T) {
	pages := testPages(t)
	write := func(t *testing.T, m *mapping.IndexMappingImpl) *indexer.Index {
		w := wrapPages(t, t.TempDir(), m)
		t.Cleanup(func() { w.Close() })
		batchPages(t, w, pages)
		return w
	}
	search := func(t *testing.T, ix bleve.Index, q string) *bleve.SearchResult {
		req := bleve.NewSearchRequestOptions(bleve.NewQueryStringQuery(q), 100, 0, false)
		req.Highlight = bleve.NewHighlight()
		res, err := ix.SearchInContext(indexer.Uncollapsed(context.Background()), req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	w := write(t, bleve.NewIndexMapping()) // bleve's default mapping, as it comes
	template := 0
	for _, p := range pages {
		if strings.Contains(p.HTML, "Bayside Credit Union") {
			template++
		}
	}
	if res := search(t, w, "Bayside"); template == 0 || res.Total != 0 {
		t.Errorf("a word of %d pages' advertisement matches %d documents, want 0", template, res.Total)
	}
	res := search(t, w, "bicycles")
	if res.Total == 0 {
		t.Fatal("a word of an article matches nothing")
	}
	for _, h := range res.Hits {
		for field, frags := range h.Fragments {
			for _, f := range frags {
				if field == "HTML" || strings.Contains(f, "&lt;") || strings.Contains(f, "<a") {
					t.Errorf("%s: a highlight of %s shows markup: %q", h.ID, field, f)
				}
			}
		}
	}

	m := bleve.NewIndexMapping()
	indexer.AddFilterFields(m)
	m.DefaultAnalyzer = cjk.AnalyzerName
	w = write(t, m)
	own := testindex.Pages(t, "", dedupfilter.Mark)
	// The same words in the title and main text of each.
	count := func(ix *indexer.Index, q string) uint64 {
		var qs []query.Query
		for _, f := range ix.SearchFields() {
			mq := bleve.NewMatchQuery(q)
			mq.SetField(f)
			qs = append(qs, mq)
		}
		res, err := ix.SearchInContext(indexer.Uncollapsed(context.Background()), bleve.NewSearchRequest(bleve.NewDisjunctionQuery(qs...)))
		if err != nil {
			t.Fatal(err)
		}
		return res.Total
	}
	for _, q := range []string{"图书馆", "自行车", "夜间开放", "library", "bicycles"} {
		if got, want := count(w, q), count(own, q); got != want || want == 0 {
			t.Errorf("%q: %d documents through Wrap, %d in the command's own index", q, got, want)
		}
	}
}
