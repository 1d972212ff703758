package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/golden"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testindex"
	"github.com/bleve-dedup/bleve-dedup/server"
	"github.com/blevesearch/bleve/v2/search"
)

// xssTitle is the title of a document added to the fixture, to check
// that no output runs it.
const xssTitle = `<script>alert("x")</script><img src=x onerror=alert(1)>`

// fixture indexes ../testdata/pages under the mark policy, plus a page
// whose title and URL are hostile, and returns the open index.
func fixture(tb testing.TB) *indexer.Index {
	tb.Helper()
	ix := testindex.Pages(tb, "", dedupfilter.Mark)
	err := ix.Index("xss", indexer.Document{URL: "javascript:alert(2)", Title: xssTitle,
		Paragraphs: []string{"An unusual page about zebras and their stripes, written to test escaping."}})
	if err != nil {
		tb.Fatal(err)
	}
	return ix
}

func newServer(tb testing.TB, ix *indexer.Index, o server.Options) *server.Server {
	tb.Helper()
	s, err := server.New(ix, o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close) // before the index closes
	return s
}

func TestNewInvalidOptions(t *testing.T) {
	for _, change := range []func(*server.Options){
		func(o *server.Options) { o.SearchTimeout = 0 },
		func(o *server.Options) { o.MaxPageSize = 0 },
		func(o *server.Options) { o.MaxQueryBytes = -1 },
		func(o *server.Options) { o.MaxCompareSentences = 0 },
		func(o *server.Options) { o.MaxClusterMembers = 0 },
		func(o *server.Options) { o.MaxHeaderBytes = 2 << 20 },
		func(o *server.Options) { o.MaxQueryLen = 0 },
		func(o *server.Options) { o.MaxQueryTerms = 0 },
		func(o *server.Options) { o.ShutdownTimeout = 0 },
		func(o *server.Options) { o.TrustedOrigins = []string{"evil.example"} },
	} {
		o := server.DefaultOptions()
		change(&o)
		if _, err := server.New(nil, o); !errors.Is(err, server.ErrInvalidOptions) {
			t.Errorf("New(%+v) error = %v, want ErrInvalidOptions", o, err)
		}
	}
}

// localRequest is a request from a program on this machine, as net/http
// would pass it to a handler listening on loopback.
func localRequest(method, target string, body io.Reader) *http.Request {
	r := httptest.NewRequest(method, target, body)
	r.RemoteAddr = "127.0.0.1:40000"
	return r
}

type response struct {
	status int
	header http.Header
	body   string
}

func do(tb testing.TB, h http.Handler, method, target string) response {
	tb.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, localRequest(method, target, nil))
	return response{rec.Code, rec.Header(), rec.Body.String()}
}

func decode(tb testing.TB, body string) map[string]any {
	tb.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		tb.Fatalf("body %q: %v", body, err)
	}
	return v
}

func TestAPIErrors(t *testing.T) {
	h := newServer(t, fixture(t), server.DefaultOptions())
	tests := []struct {
		name, method, target string
		status               int
		want                 string // in the error message
	}{
		{"no query", "GET", "/api/search", 400, "missing parameter q"},
		{"syntax error", "GET", "/api/search?q=%28bees+OR", 400, "at 8: expected"},
		{"bad syntax", "GET", "/api/search?q=x&syntax=sql", 400, "parameter syntax"},
		{"query string error", "GET", "/api/search?q=%2B%2B&syntax=querystring", 400, "query string: syntax error"},
		{"size 0", "GET", "/api/search?q=x&size=0", 400, "parameter size"},
		{"size too big", "GET", "/api/search?q=x&size=101", 400, "parameter size"},
		{"negative from", "GET", "/api/search?q=x&from=-1", 400, "parameter from"},
		{"bad collapse", "GET", "/api/search?q=x&collapse=maybe", 400, "parameter collapse"},
		{"post", "POST", "/api/search?q=x", 405, "not allowed"},
		{"no doc", "GET", "/api/doc?id=nope", 404, "no document"},
		{"doc without id", "GET", "/api/doc", 400, "missing parameter id"},
		{"no cluster", "GET", "/api/cluster?id=ffff", 404, "no such cluster"},
		{"cluster without id", "GET", "/api/cluster", 400, "missing parameter"},
		{"compare one", "GET", "/api/compare?a=xss", 400, "missing parameter b"},
		{"compare unknown", "GET", "/api/compare?a=xss&b=nope", 404, "no document"},
		{"clusters bad min", "GET", "/api/clusters?min=0", 400, "parameter min"},
		{"unknown path", "GET", "/etc/passwd", 404, "not found"},
		{"long query string", "GET", "/api/search?q=" + strings.Repeat("a", 5000), 414, "query string longer"},
		{"long query", "GET", "/api/search?q=" + strings.Repeat("bees+OR+", 128) + "bees", 400, "parameter q: 1028 bytes, longer than 1024"},
		{"a query opening every term", "GET", "/api/search?syntax=querystring&q=%2F.*%2F", 400, "more than 1024 term searchers"},
		{"wildcards opening every term", "GET", "/api/search?syntax=querystring&q=" + strings.Repeat("*e*+", 60), 400, "more than 1024 term searchers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, h, tt.method, tt.target)
			if r.status != tt.status {
				t.Errorf("status %d, want %d (%s)", r.status, tt.status, r.body)
			}
			if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("content type %q, want JSON", ct)
			}
			msg, _ := decode(t, r.body)["error"].(string)
			if !strings.Contains(msg, tt.want) {
				t.Errorf("error %q, want it to contain %q", msg, tt.want)
			}
		})
	}
}

func TestAPISyntaxErrorPosition(t *testing.T) {
	h := newServer(t, fixture(t), server.DefaultOptions())
	r := do(t, h, "GET", "/api/search?q=bees+AND+%28tide")
	v := decode(t, r.body)
	if r.status != 400 || v["pos"] != float64(14) || v["expected"] == "" || v["found"] != "end of input" {
		t.Errorf("got %d %v, want 400 with pos 14, expected, found end of input", r.status, v)
	}
}

func TestAPISearch(t *testing.T) {
	h := newServer(t, fixture(t), server.DefaultOptions())
	tests := []struct {
		target   string
		hits     int
		first    string
		folded   float64
		clusters float64
	}{
		{"/api/search?q=bees+OR+tide", 4, "en/field-notes/tide-tables", 1, 4},
		{"/api/search?q=bees+OR+tide&collapse=false", 7, "en/field-notes/tide-tables", 0, 0},
		{"/api/search?q=bees+OR+tide&size=2&from=2", 2, "en/green-column/plant-a-meadow", 0, 4},
		{"/api/search?q=%2Bbees+-rooftop&syntax=querystring", 2, "en/bee-archive/library-bees", 2, 2},
		{"/api/search?q=%E5%9B%BE%E4%B9%A6%E9%A6%86", 1, "zh/hedong-news/library-night", 2, 1}, // the GBK reprint and the Big5 (traditional) mirror fold
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			r := do(t, h, "GET", tt.target)
			if r.status != 200 {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			v := decode(t, r.body)
			hits := v["hits"].([]any)
			if len(hits) != tt.hits {
				t.Fatalf("%d hits, want %d: %s", len(hits), tt.hits, r.body)
			}
			h0 := hits[0].(map[string]any)
			if h0["id"] != tt.first || h0["folded"] != tt.folded || v["clusters"] != tt.clusters {
				t.Errorf("first hit %v folded %v, clusters %v; want %s folded %v, clusters %v", h0["id"], h0["folded"], v["clusters"], tt.first, tt.folded, tt.clusters)
			}
		})
	}
}

func TestEscaping(t *testing.T) {
	h := newServer(t, fixture(t), server.DefaultOptions())
	for _, target := range []string{"/api/search?q=zebras", "/api/doc?id=xss", "/api/cluster?doc=xss", "/api/compare?a=xss&b=xss"} {
		r := do(t, h, "GET", target)
		if r.status != 200 {
			t.Fatalf("%s: status %d: %s", target, r.status, r.body)
		}
		if strings.Contains(r.body, "<script") || strings.Contains(r.body, "<img") {
			t.Errorf("%s: raw markup in the response: %s", target, r.body)
		}
		if !strings.Contains(r.body, `\u003cscript\u003e`) {
			t.Errorf("%s: escaped title missing: %s", target, r.body)
		}
	}
}

func TestPage(t *testing.T) {
	h := newServer(t, fixture(t), server.DefaultOptions())
	tests := []struct {
		target, contentType, want string
	}{
		{"/", "text/html", `<script src="app.js" defer></script>`},
		{"/app.js", "javascript", "textContent"},
		{"/style.css", "text/css", ".shared"},
	}
	for _, tt := range tests {
		r := do(t, h, "GET", tt.target)
		if r.status != 200 || !strings.Contains(r.header.Get("Content-Type"), tt.contentType) || !strings.Contains(r.body, tt.want) {
			t.Errorf("%s: status %d type %q, want 200 %s containing %q", tt.target, r.status, r.header.Get("Content-Type"), tt.contentType, tt.want)
		}
		if csp := r.header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
			t.Errorf("%s: CSP %q", tt.target, csp)
		}
	}
	// The page script must not write markup from data.
	js := do(t, h, "GET", "/app.js").body
	for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("} {
		if strings.Contains(js, bad) {
			t.Errorf("app.js uses %s", bad)
		}
	}
}

func TestClusters(t *testing.T) {
	fixtureIx := fixture(t)
	h := newServer(t, fixtureIx, server.DefaultOptions())
	tests := []struct {
		target string
		total  float64
		listed int
	}{
		{"/api/clusters", 4, 4},
		{"/api/clusters?min=3", 2, 2}, // articles A and E: three copies each
		{"/api/clusters?size=1&from=1", 4, 1},
		{"/api/clusters?min=1", 10, 10},
	}
	for _, tt := range tests {
		r := do(t, h, "GET", tt.target)
		v := decode(t, r.body)
		if r.status != 200 || v["total"] != tt.total || len(v["clusters"].([]any)) != tt.listed {
			t.Errorf("%s: status %d total %v listed %d, want 200 %v %d", tt.target, r.status, v["total"], len(v["clusters"].([]any)), tt.total, tt.listed)
		}
	}
	r := do(t, h, "GET", "/api/cluster?id=0000000000000001")
	v := decode(t, r.body)
	members := v["members"].([]any)
	if len(members) != 3 || v["size"] != float64(3) || members[0].(map[string]any)["id"] != "en/bee-archive/library-bees" {
		t.Errorf("cluster 1: %s, want 3 members, representative en/bee-archive/library-bees first", r.body)
	}
	o := server.DefaultOptions()
	o.MaxClusterMembers = 2
	r = do(t, newServer(t, fixtureIx, o), "GET", "/api/cluster?id=0000000000000001")
	v = decode(t, r.body)
	if len(v["members"].([]any)) != 2 || v["size"] != float64(3) {
		t.Errorf("capped at 2: %s, want 2 members listed of 3", r.body)
	}
}

func TestCompareGolden(t *testing.T) {
	h := newServer(t, fixture(t), server.DefaultOptions())
	r := do(t, h, "GET", "/api/compare?a=zh/hedong-news/library-night&b=zh/portal/library-night-reprint")
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	golden.Check(t, "compare.golden", r.body)
}

func TestPostToReadEndpoint(t *testing.T) {
	addr, _ := serve(t, newServer(t, fixture(t), server.DefaultOptions()))
	resp, err := http.Post("http://"+addr+"/api/search?q=x", "text/plain", strings.NewReader("body"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 405 {
		t.Errorf("POST: %d %s, want 405", resp.StatusCode, b)
	}
}

func TestCheckQuery(t *testing.T) {
	o := server.DefaultOptions()
	for _, tt := range []struct {
		n       int
		wantErr bool
	}{{1, false}, {o.MaxQueryLen, false}, {o.MaxQueryLen + 1, true}} {
		ctx, err := o.CheckQuery(context.Background(), strings.Repeat("a", tt.n))
		if tt.wantErr {
			if !errors.Is(err, server.ErrQueryTooLong) {
				t.Errorf("%d bytes: error %v, want ErrQueryTooLong", tt.n, err)
			}
			continue
		}
		if err != nil || ctx.Value(search.MaxTermSearchersKey) != o.MaxQueryTerms {
			t.Errorf("%d bytes: error %v, term limit %v; want none and %d", tt.n, err, ctx.Value(search.MaxTermSearchersKey), o.MaxQueryTerms)
		}
	}
	h := newServer(t, fixture(t), o)
	q := strings.Repeat("bees+OR+", 127) + "bees" // 1020 bytes once decoded
	if r := do(t, h, "GET", "/api/search?q="+q); r.status != 200 {
		t.Errorf("a query of 127 ORs: %d %s, want 200", r.status, r.body)
	}
}

// TestCompareThresholds: every score of a verdict carries its measure's
// threshold under the index's options, and Pugh's says it counts terms.
func TestCompareThresholds(t *testing.T) {
	h := newServer(t, fixture(t), server.DefaultOptions())
	r := do(t, h, "GET", "/api/compare?a=en/bee-archive/library-bees&b=en/harbor-gazette/library-bees")
	var c struct {
		Verdict struct {
			Scores []struct {
				Measure   string
				Threshold float64
				Strict    bool
				Unit      string
			}
		}
	}
	if err := json.Unmarshal([]byte(r.body), &c); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range c.Verdict.Scores {
		got[s.Measure] = fmt.Sprint(s.Threshold, " ", s.Strict, " ", s.Unit)
	}
	for m, want := range map[string]string{
		"featurestring": "0.45 false share", "minhash": "0.6 false share", "conrad": "0.8 true share",
		"pugh": "50 true terms", "sameurl": "1 false share",
	} {
		if got[m] != want {
			t.Errorf("%s: threshold, strict, unit %q, want %q", m, got[m], want)
		}
	}
}
