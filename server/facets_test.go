package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"

	"github.com/bleve-dedup/bleve-dedup/boolquery"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/server"
)

type facetValue struct {
	Value     string `json:"value"`
	Clusters  int    `json:"clusters"`
	Documents int    `json:"documents"`
}

type facetResponse struct {
	Total    int `json:"total"`
	Clusters int `json:"clusters"`
	Hits     []struct {
		ID   string `json:"id"`
		Lang string `json:"lang"`
	} `json:"hits"`
	Facets map[string]struct {
		Values []facetValue `json:"values"`
		Total  int          `json:"total"`
	} `json:"facets"`
}

func searchFacets(t *testing.T, h *server.Server, params string) facetResponse {
	t.Helper()
	r := do(t, h, "GET", "/api/search?facets=true&size=100&"+params)
	if r.status != 200 {
		t.Fatalf("%s: status %d: %s", params, r.status, r.body)
	}
	var res facetResponse
	if err := json.Unmarshal([]byte(r.body), &res); err != nil {
		t.Fatal(err)
	}
	return res
}

// bruteFacets counts the matches of q by facet, from a plain bleve search
// of every match and the store's clusters: per value, the documents and
// their distinct clusters.
func bruteFacets(t *testing.T, ix *indexer.Index, qs string) map[string]map[string]facetValue {
	t.Helper()
	q, err := boolquery.Query(qs, boolquery.Options{Fields: ix.SearchFields()})
	if err != nil {
		t.Fatal(err)
	}
	req := bleve.NewSearchRequestOptions(q, 10000, 0, false)
	res, err := ix.Unwrap().Search(req)
	if err != nil {
		t.Fatal(err)
	}
	sizes := map[string]int{}
	ix.Filter().Clusters(func(c dedupfilter.Cluster) error { sizes[c.ID] = len(c.Members); return nil })
	type key struct{ facet, value string }
	docs := map[key]int{}
	clusters := map[key]map[string]bool{}
	for _, h := range res.Hits {
		e, err := ix.Doc(h.ID)
		if err != nil {
			t.Fatal(err)
		}
		var body struct{ Text string }
		json.Unmarshal(e.Payload, &body)
		if len(body.Text) > 4096 {
			body.Text = strings.ToValidUTF8(body.Text[:4096], "")
		}
		for _, k := range []key{
			{"site", server.Site(e.URL)},
			{"lang", server.Language(e.Title + "\n" + body.Text)},
			{"cluster_size", server.SizeBucket(sizes[e.Cluster])},
			{"date", e.Time.UTC().Format("2006-01")},
		} {
			docs[k]++
			if clusters[k] == nil {
				clusters[k] = map[string]bool{}
			}
			clusters[k][e.Cluster] = true
		}
	}
	out := map[string]map[string]facetValue{}
	for k, n := range docs {
		if out[k.facet] == nil {
			out[k.facet] = map[string]facetValue{}
		}
		out[k.facet][k.value] = facetValue{Value: k.value, Documents: n, Clusters: len(clusters[k])}
	}
	return out
}

// TestFacetsBruteForce: the facet counts of collapsed searches equal a
// count over every match, and narrowing to a value finds exactly the
// documents and clusters counted for it.
func TestFacetsBruteForce(t *testing.T) {
	checkFacets(t, fixture(t), []string{"bees", "library OR 图书馆", "bees OR tide OR 绿道", "NOT qqqq", "图书馆"})
}

// TestFacetsBruteForceDevSet is TestFacetsBruteForce on the development
// pages: hundreds of clusters, sites and matches a query.
func TestFacetsBruteForceDevSet(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes the development pages")
	}
	checkFacets(t, devIndex(t), []string{"China", "music OR film", "university OR college", "中国", "(经济 OR 公司) NOT 北京"})
}

func checkFacets(t *testing.T, ix *indexer.Index, queries []string) {
	t.Helper()
	h := newServer(t, ix, server.DefaultOptions())
	for _, q := range queries {
		res := searchFacets(t, h, "q="+url.QueryEscape(q))
		want := bruteFacets(t, ix, q)
		for name, f := range res.Facets {
			// The response lists the values with most clusters, up to 20.
			got, listed, fewest := map[string]facetValue{}, map[string]facetValue{}, math.MaxInt
			for _, v := range f.Values {
				got[v.Value], listed[v.Value] = v, want[name][v.Value]
				fewest = min(fewest, v.Clusters)
			}
			if fmt.Sprint(got) != fmt.Sprint(listed) || f.Total != len(want[name]) {
				t.Errorf("%q facet %s: %d values in all\n got %v\nwant %d values: %v", q, name, f.Total, got, len(want[name]), want[name])
			}
			for v, n := range want[name] {
				if _, ok := got[v]; !ok && n.Clusters > fewest {
					t.Errorf("%q facet %s: %q of %d clusters left out, %d listed", q, name, v, n.Clusters, fewest)
				}
			}
			for _, v := range f.Values {
				narrowed := searchFacets(t, h, "q="+url.QueryEscape(q)+"&"+name+"="+url.QueryEscape(v.Value))
				if narrowed.Total != v.Documents || narrowed.Clusters != v.Clusters {
					t.Errorf("%q narrowed to %s=%q: %d documents in %d clusters, want %d in %d",
						q, name, v.Value, narrowed.Total, narrowed.Clusters, v.Documents, v.Clusters)
				}
			}
		}
		if len(res.Facets) != 4 {
			t.Errorf("%q: facets %v, want site, lang, cluster_size and date", q, res.Facets)
		}
	}
}

// TestSearchSortAndNarrow: narrowing keeps only the documents with the
// value, collapsed or not; sorting by date orders the hits by it.
func TestSearchSortAndNarrow(t *testing.T) {
	h := newServer(t, fixture(t), server.DefaultOptions())
	for _, fold := range []string{"true", "false"} {
		res := searchFacets(t, h, "q="+url.QueryEscape("library OR 图书馆")+"&lang=zh&collapse="+fold)
		if len(res.Hits) == 0 {
			t.Fatalf("collapse %s: no hits", fold)
		}
		for _, hit := range res.Hits {
			if hit.Lang != "zh" || !strings.HasPrefix(hit.ID, "zh/") {
				t.Errorf("collapse %s: hit %s lang %q, want zh only", fold, hit.ID, hit.Lang)
			}
		}
	}
	var newest, oldest struct {
		Hits []struct {
			ID   string `json:"id"`
			Date string `json:"date"`
		} `json:"hits"`
	}
	json.Unmarshal([]byte(do(t, h, "GET", "/api/search?collapse=false&size=100&sort=newest&q="+url.QueryEscape("NOT qqqq")).body), &newest)
	json.Unmarshal([]byte(do(t, h, "GET", "/api/search?collapse=false&size=100&sort=oldest&q="+url.QueryEscape("NOT qqqq")).body), &oldest)
	dates := func(hs []struct {
		ID   string `json:"id"`
		Date string `json:"date"`
	}) []string {
		var d []string
		for _, h := range hs {
			d = append(d, h.Date)
		}
		return d
	}
	n, o := dates(newest.Hits), dates(oldest.Hits)
	if len(n) < 10 || !slices.IsSorted(o) || !slices.IsSortedFunc(n, func(a, b string) int { return strings.Compare(b, a) }) {
		t.Errorf("newest %v, oldest %v: want %d dates descending and ascending", n, o, len(n))
	}
	if r := do(t, h, "GET", "/api/search?q=bees&sort=size"); r.status != 400 {
		t.Errorf("sort=size: status %d, want 400", r.status)
	}
}

// TestSyntaxExamples: every query the start page offers finds pages of
// the shipped testdata.
func TestSyntaxExamples(t *testing.T) {
	h := newServer(t, fixture(t), server.DefaultOptions())
	queries, syntaxes := server.SyntaxExamples()
	for i, q := range queries {
		syntax := syntaxes[i]
		r := do(t, h, "GET", "/api/search?q="+url.QueryEscape(q)+"&syntax="+syntax)
		var res struct{ Total int }
		json.Unmarshal([]byte(r.body), &res)
		if r.status != 200 || res.Total == 0 {
			t.Errorf("example %q (%s): status %d, %d hits; want some", q, syntax, r.status, res.Total)
		}
	}
}

// TestOperations: /healthz, /readyz (and 503 once the index is closed),
// the metrics named, and a JSON log line a request carrying its id.
func TestOperations(t *testing.T) {
	ix := fixture(t)
	var logs bytes.Buffer
	o := server.DefaultOptions()
	o.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	h := newServer(t, ix, o)
	// Until the first walk of the store's clusters has ended, the counts
	// are unknown: absent from /metrics, and the server not ready.
	if r := do(t, h, "GET", "/readyz"); r.status != 503 {
		t.Errorf("/readyz before the first catalog walk: %d %s, want 503", r.status, r.body)
	}
	if r := do(t, newServer(t, ix, o), "GET", "/metrics"); strings.Contains(r.body, "bleve_dedup_clusters ") {
		t.Errorf("/metrics before the first catalog walk counts clusters:\n%s", r.body)
	}
	do(t, h, "GET", "/api/overview") // waits for the catalog the metrics count from
	if r := do(t, h, "GET", "/healthz"); r.status != 200 || !strings.Contains(r.body, `"ok"`) {
		t.Errorf("/healthz: %d %s", r.status, r.body)
	}
	if r := do(t, h, "GET", "/readyz"); r.status != 200 || !strings.Contains(r.body, `"documents":16`) {
		t.Errorf("/readyz: %d %s, want ready with 16 documents", r.status, r.body)
	}
	req := localRequest("GET", "/api/search?q=bees", nil)
	req.Header.Set("X-Request-Id", "trace-42")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if got := rec.Header().Get("X-Request-Id"); got != "trace-42" {
		t.Errorf("X-Request-Id %q, want the client's trace-42", got)
	}
	bad := do(t, h, "GET", "/api/search")
	if id := bad.header.Get("X-Request-Id"); !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(id) {
		t.Errorf("generated request id %q, want 16 hex digits", id)
	}
	m := do(t, h, "GET", "/metrics")
	for _, want := range []string{
		`bleve_dedup_http_requests_total{code="200",endpoint="/api/search"} 1`,
		`bleve_dedup_http_requests_total{code="400",endpoint="/api/search"} 1`,
		`bleve_dedup_http_request_duration_seconds_bucket{endpoint="/api/search",le=`,
		"bleve_dedup_documents_indexed 16", "bleve_dedup_clusters 10", "bleve_dedup_ingest_queue_pages 0",
		"go_goroutines", "process_resident_memory_bytes",
	} {
		if !strings.Contains(m.body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		lines = append(lines, v)
	}
	if len(lines) < 8 || lines[5]["id"] != "trace-42" || lines[5]["q"] != "bees" || lines[5]["status"] != float64(200) ||
		lines[6]["level"] != "WARN" || lines[6]["error"] != "missing parameter q" {
		t.Errorf("log lines %v, want one a request, the search's with its id and query, the bad one's WARN with its error", lines)
	}
	ix.Close()
	if r := do(t, h, "GET", "/readyz"); r.status != 503 {
		t.Errorf("/readyz with the index closed: %d %s, want 503", r.status, r.body)
	}
}

// TestOverviewCopyTitle: a large cluster whose representative has no
// title is named on the start page by a member's title.
func TestOverviewCopyTitle(t *testing.T) {
	ix, err := indexer.Open(t.TempDir(), indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	text := []string{articleText("harbour"), articleText("ferry"), articleText("storm")}
	for _, d := range []indexer.Document{{ID: "a", Paragraphs: text}, {ID: "b", Title: "Ferries stop in the storm", Paragraphs: text}} {
		if err := ix.Index(d.ID, d); err != nil {
			t.Fatal(err)
		}
	}
	r := do(t, newServer(t, ix, server.DefaultOptions()), "GET", "/api/overview")
	var o struct {
		Largest []struct {
			Representative, Title string
			CopyTitle             string `json:"copy_title"`
		}
	}
	if err := json.Unmarshal([]byte(r.body), &o); err != nil {
		t.Fatal(err)
	}
	if len(o.Largest) != 1 || o.Largest[0].Representative != "a" || o.Largest[0].Title != "" || o.Largest[0].CopyTitle != "Ferries stop in the storm" {
		t.Errorf("largest clusters %+v, want a's cluster with b's title as copy_title", o.Largest)
	}
}

// TestOverviewExamples: the start page's examples are made of the words
// of the index they are offered on: each finds pages there, none is a
// word of the repository's test pages on an index of other pages, and
// together they show AND, a phrase and field:term. An index without
// duplicates lists no largest clusters as [], not null.
func TestOverviewExamples(t *testing.T) {
	type example struct{ Query, Syntax, Says string }
	for _, tc := range []struct {
		name    string
		ix      *indexer.Index
		foreign *regexp.Regexp
	}{
		{"test pages", fixture(t), nil},
		{"other pages", otherIndex(t), regexp.MustCompile(`bee|librar|harbo|tide|meadow|图书馆|绿道`)},
	} {
		h := newServer(t, tc.ix, server.DefaultOptions())
		r := do(t, h, "GET", "/api/overview")
		var o struct {
			Examples []example
			Largest  json.RawMessage
		}
		if err := json.Unmarshal([]byte(r.body), &o); err != nil {
			t.Fatal(err)
		}
		var queries []string
		for _, e := range o.Examples {
			queries = append(queries, e.Query)
			var res struct{ Total int }
			rr := do(t, h, "GET", "/api/search?q="+url.QueryEscape(e.Query)+"&syntax="+e.Syntax)
			json.Unmarshal([]byte(rr.body), &res)
			if rr.status != 200 || res.Total == 0 {
				t.Errorf("%s: example %q (%s): status %d, %d hits; want some", tc.name, e.Query, e.Syntax, rr.status, res.Total)
			}
			if tc.foreign != nil && tc.foreign.MatchString(strings.ToLower(e.Query)) {
				t.Errorf("%s: example %q has a word of the test pages", tc.name, e.Query)
			}
		}
		all := strings.Join(queries, "\n")
		if !strings.Contains(all, " AND ") || !strings.Contains(all, `"`) || !strings.Contains(all, "title:") {
			t.Errorf("%s: examples %q, want AND, a phrase and title:word among them", tc.name, queries)
		}
		if string(o.Largest) == "null" {
			t.Errorf("%s: largest is null, want a list", tc.name)
		}
	}
}

// TestSearchParsedQuery: a boolean search answers with its query as
// parsed, every group in parentheses; a query string search without.
func TestSearchParsedQuery(t *testing.T) {
	h := newServer(t, fixture(t), server.DefaultOptions())
	for q, want := range map[string]string{
		"bees and qqqq":               "bees AND and AND qqqq",
		"bees OR tide harbor":         "bees OR (tide AND harbor)",
		"-bees OR NOT (tide title:x)": "NOT bees OR NOT (tide AND title:x)",
		`"harbour office"`:            `"harbour office"`,
	} {
		var res struct{ Parsed string }
		json.Unmarshal([]byte(do(t, h, "GET", "/api/search?q="+url.QueryEscape(q)).body), &res)
		if res.Parsed != want {
			t.Errorf("%q: parsed %q, want %q", q, res.Parsed, want)
		}
	}
	if r := do(t, h, "GET", "/api/search?syntax=querystring&q=bees"); strings.Contains(r.body, `"parsed"`) {
		t.Errorf("query string search: %s, want no parsed", r.body)
	}
}

// TestFacetOrderAndExpand: the cluster-size facet lists its buckets in
// order of size; expand=FACET lists more than facetValues values, and an
// unknown facet is refused.
func TestFacetOrderAndExpand(t *testing.T) {
	h := newServer(t, facetIndex(t), server.DefaultOptions())
	res := searchFacets(t, h, "q=notice")
	var sizes []string
	for _, v := range res.Facets["cluster_size"].Values {
		sizes = append(sizes, v.Value)
	}
	if !slices.Equal(sizes, []string{"1", "2", "3-5"}) {
		t.Errorf("cluster_size values %v, want [1 2 3-5]", sizes)
	}
	if n, total := len(res.Facets["site"].Values), res.Facets["site"].Total; n != 20 || total != 33 {
		t.Errorf("site: %d values of %d, want 20 of 33", n, total)
	}
	res = searchFacets(t, h, "q=notice&expand=site")
	if n := len(res.Facets["site"].Values); n != 33 || len(res.Facets["date"].Values) > 20 {
		t.Errorf("expand=site: %d site values, want 33", n)
	}
	if r := do(t, h, "GET", "/api/search?q=notice&facets=true&expand=colour"); r.status != 400 {
		t.Errorf("expand=colour: status %d, want 400", r.status)
	}
}
