package server_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/bleve-dedup/bleve-dedup/boolquery"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/extract"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testindex"
	"github.com/bleve-dedup/bleve-dedup/page"
	"github.com/bleve-dedup/bleve-dedup/server"
)

// chunkPages is how many development pages the chunked corpus cuts into
// passages: enough for reprints across sites, few enough for a test.
const chunkPages = 400

// chunkIndex indexes a chunked corpus, as a retrieval (RAG) index holds
// one: the development pages of ../shared/data/neardup (else, when they
// are absent, the repository's testdata/pages) cut into passages of two
// main-text paragraphs, each with the keyword fields source (the page it
// was cut from) and host (the page's site), copies marked, not kept out.
// It returns the index and queries drawn from the passages' words.
func chunkIndex(t *testing.T) (*indexer.Index, []string) {
	t.Helper()
	src := filepath.Join("..", "..", "shared", "data", "neardup", "dev-corpus.jsonl.gz")
	if _, err := os.Stat(src); err != nil {
		t.Logf("development pages absent (%v): cutting testdata/pages instead", err)
		src = testindex.PagesDir(t)
	}
	m := bleve.NewIndexMapping()
	kw := bleve.NewKeywordFieldMapping()
	kw.Analyzer = keyword.Name
	title := bleve.NewTextFieldMapping()
	title.Analyzer = cjk.AnalyzerName
	m.DefaultMapping.AddFieldMappingsAt("source", kw)
	m.DefaultMapping.AddFieldMappingsAt("host", kw)
	m.DefaultMapping.AddFieldMappingsAt(indexer.FieldURL, kw)
	m.DefaultMapping.AddFieldMappingsAt(indexer.FieldTitle, title)
	indexer.AddFilterFields(m)
	dir := t.TempDir()
	idx, err := bleve.New(filepath.Join(dir, "bleve"), m)
	if err != nil {
		t.Fatal(err)
	}
	o := indexer.Options{Store: filepath.Join(dir, "store"), TextFields: []string{indexer.FieldText},
		TitleField: indexer.FieldTitle, URLField: indexer.FieldURL}
	o.Policy = dedupfilter.Mark
	ix, err := indexer.Wrap(idx, o)
	if err != nil {
		idx.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	b := ix.NewBatch()
	var texts []string
	pages := 0
	for p, err := range page.Read([]string{src}, page.DefaultOptions()) {
		if err != nil {
			continue
		}
		c, err := extract.FromPage(p)
		if err != nil {
			continue
		}
		host := "" // as the catalog's site facet has it
		if u, err := url.Parse(p.URL); err == nil {
			host = strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
		}
		for i := 0; i+1 < len(c.Paragraphs) && i < 12; i += 2 {
			text := c.Paragraphs[i] + "\n" + c.Paragraphs[i+1]
			doc := map[string]any{indexer.FieldText: text, indexer.FieldTitle: c.Title, indexer.FieldURL: p.URL, "source": p.ID, "host": host}
			if err := b.Index(fmt.Sprintf("%s#%d", p.ID, i/2), doc); err != nil {
				t.Fatal(err)
			}
			texts = append(texts, text)
		}
		if pages++; pages == chunkPages {
			break
		}
	}
	if err := ix.Batch(b); err != nil {
		t.Fatal(err)
	}
	// The batch's bleve write goes on in the background; the Index's
	// reads wait for it, Unwrap's (the brute force's) do not.
	if n, err := ix.DocCount(); err != nil || n != uint64(len(texts)) {
		t.Fatalf("index holds %d passages (%v), want %d", n, err, len(texts))
	}
	return ix, queryWords(texts, 10)
}

// queryWords draws n queries from texts, evenly spaced: a word of six
// letters or more, or two Han characters.
func queryWords(texts []string, n int) []string {
	var qs []string
	for i := 0; i < len(texts) && len(qs) < n; i += max(1, len(texts)/n) {
		for w := range strings.FieldsFuncSeq(texts[i], func(r rune) bool { return !unicode.IsLetter(r) }) {
			rs := []rune(w)
			if unicode.Is(unicode.Han, rs[0]) && len(rs) >= 2 {
				qs = append(qs, string(rs[:2]))
				break
			}
			if len(rs) >= 6 && unicode.IsLower(rs[0]) {
				qs = append(qs, strings.ToLower(w))
				break
			}
		}
	}
	return qs
}

// passageMatch is a matching passage as the brute force sees it.
type passageMatch struct {
	id, cluster, source, site string
	score                     float64
}

// bruteGroup is a group as the brute force makes it: its passages in
// rank order.
type bruteGroup struct {
	value string
	docs  []passageMatch
}

// bruteGroups reads every match of q, best first (ties by id), and
// groups them by field ("" for the cluster), folding copies first when
// fold is set (the first match of each cluster kept), the groups in the
// order of their first passages.
func bruteGroups(t *testing.T, ix *indexer.Index, q query.Query, field string, fold bool) (total int, groups []bruteGroup) {
	t.Helper()
	req := bleve.NewSearchRequestOptions(q, 1<<20, 0, false)
	req.SortBy([]string{"-_score", "_id"})
	req.Fields = []string{indexer.FieldCluster, "source", "host"}
	res, err := ix.Unwrap().Search(req)
	if err != nil {
		t.Fatal(err)
	}
	folded := map[string]bool{}
	at := map[string]int{}
	for _, h := range res.Hits {
		s := func(f string) string { v, _ := h.Fields[f].(string); return v }
		m := passageMatch{id: h.ID, cluster: s(indexer.FieldCluster), source: s("source"), site: s("host"), score: h.Score}
		if fold {
			if folded[m.cluster] {
				continue
			}
			folded[m.cluster] = true
		}
		v := m.cluster
		if field != "" {
			v = m.source
		}
		i, ok := at[v]
		if !ok {
			i = len(groups)
			at[v] = i
			groups = append(groups, bruteGroup{value: v})
		}
		groups[i].docs = append(groups[i].docs, m)
	}
	return len(res.Hits), groups
}

// siteCount is a site facet value's count, as the brute force, the Go API
// and the JSON API give it.
type siteCount struct {
	Value     string
	Documents int
	Groups    int
}

// bruteSites counts the groups' passages by site.
func bruteSites(groups []bruteGroup) map[string]siteCount {
	out := map[string]siteCount{}
	for _, g := range groups {
		counted := map[string]bool{}
		for _, d := range g.docs {
			c := out[d.site]
			c.Value = d.site
			c.Documents++
			if !counted[d.site] {
				counted[d.site] = true
				c.Groups++
			}
			out[d.site] = c
		}
	}
	return out
}

// groupsResponse is what the test reads of /api/search.
type groupsResponse struct {
	Total    uint64 `json:"total"`
	Clusters int    `json:"clusters"`
	Groups   int    `json:"groups"`
	Hits     []struct {
		ID        string `json:"id"`
		Cluster   string `json:"cluster"`
		Group     string `json:"group"`
		GroupSize int    `json:"group_size"`
		Inner     []struct {
			ID string `json:"id"`
		} `json:"inner_hits"`
	} `json:"hits"`
	Facets map[string]struct {
		Values []struct {
			Value     string `json:"value"`
			Clusters  int    `json:"clusters"`
			Groups    int    `json:"groups"`
			Documents int    `json:"documents"`
		} `json:"values"`
		Total int `json:"total"`
	} `json:"facets"`
}

// TestGroupsMatchBruteForce searches a chunked corpus grouped by cluster,
// by source, and by source with copies folded, page by page, through the
// Go API (indexer.Index.SearchGroups) and /api/search, on queries drawn
// from the corpus, and checks both against a brute force over every
// match: group totals, every page's hits and group sizes, inner hits, and
// the documents and groups of each host, counted by the host field's facet
// and by the server's site facet (from its catalog).
func TestGroupsMatchBruteForce(t *testing.T) {
	ix, queries := chunkIndex(t)
	if len(queries) < 5 {
		t.Fatalf("queries drawn from the corpus: %q, want 5 or more", queries)
	}
	s := newServer(t, ix, server.DefaultOptions())
	modes := []struct {
		name, field string
		fold        bool
	}{
		{"by cluster", "", false},
		{"by source", "source", false},
		{"by source, copies folded", "source", true},
	}
	const size, innerSize = 10, 2
	folds := 0 // searches where folding copies changed the groups
	for _, qs := range queries {
		q, err := boolquery.Query(qs, boolquery.Options{Fields: ix.SearchFields()})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range modes {
			t.Run(qs+"/"+m.name, func(t *testing.T) {
				total, want := bruteGroups(t, ix, q, m.field, m.fold)
				if len(want) == 0 {
					t.Fatalf("%q matches nothing", qs)
				}
				if m.fold {
					if _, unfolded := bruteGroups(t, ix, q, m.field, false); !slices.EqualFunc(want, unfolded, func(a, b bruteGroup) bool { return len(a.docs) == len(b.docs) }) {
						folds++
					}
				}
				wantSites := bruteSites(want)
				for from := 0; from < len(want); from += size {
					req := bleve.NewSearchRequestOptions(q, size, from, false)
					req.AddFacet("host", bleve.NewFacetRequest("host", 1000))
					got, err := ix.SearchGroups(context.Background(), indexer.GroupRequest{SearchRequest: req, Field: m.field, FoldCopies: m.fold, InnerSize: innerSize})
					if err != nil {
						t.Fatal(err)
					}
					if got.Total != uint64(len(want)) || got.Documents != uint64(total) {
						t.Errorf("from %d: Go API: %d groups of %d passages, want %d of %d", from, got.Total, got.Documents, len(want), total)
					}
					params := url.Values{"q": {qs}, "from": {fmt.Sprint(from)}, "size": {fmt.Sprint(size)}, "collapse_field": {m.field},
						"fold_copies": {fmt.Sprint(m.fold)}, "inner_size": {fmt.Sprint(innerSize)}, "facet_field": {"host"}, "facets": {"true"}, "expand": {"host", "site"}}
					r := do(t, s, "GET", "/api/search?"+params.Encode())
					if r.status != 200 {
						t.Fatalf("from %d: /api/search: status %d: %s", from, r.status, r.body)
					}
					var js groupsResponse
					if err := json.Unmarshal([]byte(r.body), &js); err != nil {
						t.Fatal(err)
					}
					jsGroups := js.Groups
					if m.field == "" {
						jsGroups = js.Clusters
					}
					if jsGroups != len(want) || js.Total != uint64(total) {
						t.Errorf("from %d: /api/search: %d groups of %d passages, want %d of %d", from, jsGroups, js.Total, len(want), total)
					}
					page := want[from:min(from+size, len(want))]
					if len(got.Hits) != len(page) || len(js.Hits) != len(page) {
						t.Fatalf("from %d: hits: Go API %d, /api/search %d, want %d", from, len(got.Hits), len(js.Hits), len(page))
					}
					for i, w := range page {
						var wantInner []string
						for _, d := range w.docs[:min(innerSize, len(w.docs))] {
							wantInner = append(wantInner, d.id)
						}
						h, g, jh := got.Hits[i], got.Groups[i], js.Hits[i]
						var goInner, jsInner []string
						for _, in := range g.Inner {
							goInner = append(goInner, in.ID)
						}
						for _, in := range jh.Inner {
							jsInner = append(jsInner, in.ID)
						}
						if h.ID != w.docs[0].id || g.Value != w.value || g.Size != len(w.docs) {
							t.Errorf("from %d hit %d: Go API %s of %q (%d), want %s of %q (%d)", from, i, h.ID, g.Value, g.Size, w.docs[0].id, w.value, len(w.docs))
						}
						jsValue := cmp.Or(jh.Group, jh.Cluster)
						if jh.ID != w.docs[0].id || jsValue != w.value || jh.GroupSize != len(w.docs) {
							t.Errorf("from %d hit %d: /api/search %s of %q (%d), want %s of %q (%d)", from, i, jh.ID, jsValue, jh.GroupSize, w.docs[0].id, w.value, len(w.docs))
						}
						if !slices.Equal(goInner, wantInner) || !slices.Equal(jsInner, wantInner) {
							t.Errorf("from %d hit %s: inner hits: Go API %v, /api/search %v, want %v", from, h.ID, goInner, jsInner, wantInner)
						}
					}
					goSites := map[string]siteCount{}
					for _, c := range got.Terms["host"] {
						goSites[c.Term] = siteCount{c.Term, c.Documents, c.Groups}
					}
					jsSites := func(facet string) map[string]siteCount {
						out := map[string]siteCount{}
						for _, v := range js.Facets[facet].Values {
							out[v.Value] = siteCount{v.Value, v.Documents, cmp.Or(v.Groups, v.Clusters)}
						}
						return out
					}
					delete(wantSites, "") // a passage without a site: bleve's missing, not a term
					for name, sites := range map[string]map[string]siteCount{"Go API": goSites, "/api/search host": jsSites("host"),
						"/api/search site (the catalog's)": jsSites("site")} {
						for v, w := range wantSites {
							if sites[v] != w {
								t.Errorf("from %d: %s: site %q: got %+v, want %+v", from, name, v, sites[v], w)
							}
						}
						if len(sites) != len(wantSites) {
							t.Errorf("from %d: %s: %d sites, want %d", from, name, len(sites), len(wantSites))
						}
					}
				}
			})
		}
	}
	t.Logf("queries %q; folding copies changed the groups of %d of them", queries, folds)
	if folds == 0 {
		t.Errorf("folding copies changed no query's groups: the corpus tests nothing of it")
	}
}

func TestSearchGroupParamErrors(t *testing.T) {
	s := newServer(t, fixture(t), server.DefaultOptions())
	tests := []struct {
		name, params, want string
	}{
		{"a collapse field without collapsing", "collapse=false&collapse_field=url", "need collapse=true"},
		{"inner hits without collapsing", "collapse=false&inner_size=2", "need collapse=true"},
		{"too many inner hits", "inner_size=101", "parameter inner_size"},
		{"a field facet named as the catalog's", "facet_field=site", "parameter facet_field"},
		{"expanding a facet not asked for", "expand=host", "parameter expand"},
		{"fold copies not a boolean", "collapse_field=url&fold_copies=maybe", "parameter fold_copies"},
	}
	for _, tt := range tests {
		r := do(t, s, "GET", "/api/search?q=bees&"+tt.params)
		if r.status != 400 || !strings.Contains(r.body, tt.want) {
			t.Errorf("%s: got %d %s, want 400 with %q", tt.name, r.status, r.body, tt.want)
		}
	}
}
