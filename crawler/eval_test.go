package crawler

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testweb"
	"github.com/bleve-dedup/bleve-dedup/relevance"
)

// dataDir holds the shared real data (see ../../shared/data/README.md).
const dataDir = "../../shared/data"

// realWeb is the loopback test web built from the shared data.
type realWeb struct {
	web    *testweb.Web
	base   string
	labels []testweb.Labels
	docs   []testweb.Doc
}

// loadRealWeb builds and serves the test web from the CMRC passages and
// the English articles, or skips when the data is absent.
func loadRealWeb(tb testing.TB, o testweb.Options) *realWeb {
	tb.Helper()
	labels, err := testweb.ReadLabels("../relevance/testdata/eval_topics.json")
	if err != nil {
		tb.Fatal(err)
	}
	zh, err := testweb.LoadCMRC(dataDir, labels)
	if os.IsNotExist(err) {
		tb.Skipf("shared data absent: %v", err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	en, err := testweb.LoadArticles(dataDir, labels)
	if os.IsNotExist(err) {
		tb.Skipf("shared data absent: %v", err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	docs := append(zh, en...)
	w := testweb.Build(docs, o)
	srv := httptest.NewServer(w.Handler())
	tb.Cleanup(srv.Close)
	return &realWeb{web: w, base: srv.URL, labels: labels, docs: docs}
}

// topic returns a topic's labels and a profile learnt from its example
// pages (top 30 tf-idf terms against all pages as background), scored
// with title weight alpha.
func (rw *realWeb) topic(tb testing.TB, name string, alpha float64) (testweb.Labels, *relevance.Profile) {
	tb.Helper()
	var lab testweb.Labels
	for _, l := range rw.labels {
		if l.Name == name {
			lab = l
		}
	}
	var examples, background []string
	for _, d := range rw.docs {
		background = append(background, d.Body)
		for _, e := range lab.Examples {
			if d.Title == e || (d.Lang == "en" && len(e) <= len(d.ID) && d.ID[:len(e)] == e) {
				examples = append(examples, d.Title+"\n"+d.Body)
			}
		}
	}
	opts := relevance.DefaultOptions()
	opts.TitleWeight = alpha
	p, err := relevance.Learn(name, examples, background, 30, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return lab, p
}

// examplePaths are the URLs of a topic's example pages: the training
// crawl's seeds.
func (rw *realWeb) examplePaths(lab testweb.Labels) []string {
	var out []string
	for _, p := range rw.web.Pages {
		for _, e := range lab.Examples {
			if p.DupOf == "" && (p.Title == e || p.Path == "/news/"+url.PathEscape(e)) {
				out = append(out, rw.base+p.Path)
			}
		}
	}
	return out
}

// crawlRecords runs one crawl and returns its records in fetch order.
func crawlRecords(tb testing.TB, o Options) ([]Record, *Crawler) {
	tb.Helper()
	var recs []Record
	o.OnPage = func(r Record) { recs = append(recs, r) }
	c, err := New(o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	if _, err := c.Run(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return recs, c
}

// harvestAt returns the share of relevant records among the first n.
func harvestAt(recs []Record, n int) float64 {
	n = min(n, len(recs))
	rel := 0
	for _, r := range recs[:n] {
		if r.Relevant {
			rel++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(rel) / float64(n)
}

// TestServeTestWeb serves the test web on CRAWL_SERVE (host:port) for
// CRAWL_SERVE_FOR (default 2m), to crawl it with the command:
//
//	CRAWL_SERVE=127.0.0.1:8765 go test -run TestServeTestWeb -timeout 0 ./crawler/ &
//	bleve-dedup crawl --config crawl.yaml --index /tmp/ix --log crawl.jsonl
func TestServeTestWeb(t *testing.T) {
	addr := os.Getenv("CRAWL_SERVE")
	if addr == "" {
		t.Skip("set CRAWL_SERVE=host:port to serve the test web")
	}
	d := 2 * time.Minute
	if s := os.Getenv("CRAWL_SERVE_FOR"); s != "" {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			t.Fatal(err)
		}
	}
	rw := loadRealWeb(t, testweb.Options{Seed: harvestWebSeed, Hostile: true})
	srv := &http.Server{Addr: addr, Handler: rw.web.Handler()}
	go func() {
		time.Sleep(d)
		srv.Close()
	}()
	t.Logf("serving %d pages on http://%s/ for %v", len(rw.web.Pages), addr, d)
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		t.Fatal(err)
	}
}
