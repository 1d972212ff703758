package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"

	"github.com/bleve-dedup/bleve-dedup/crawler"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testweb"
)

// warcWeb serves generated articles with mirror copies on loopback, plus
// redirects and a missing page, and returns a crawl config for it under
// which every page is relevant (threshold 0), so that the crawl indexes
// every page a re-index of its archive would. The seeds are fetched in
// order: a redirect to an article not seen yet (indexed under its final
// URL), the home page, a missing page, and a redirect to the home page,
// fetched already (dropped by the crawl; in the archive the home page
// comes twice).
func warcWeb(tb testing.TB, workers int) string {
	tb.Helper()
	w := testweb.Build(testweb.Generated(30, 1), testweb.Options{Seed: 3, Duplicates: 12})
	mux := http.NewServeMux()
	mux.HandleFunc("/moved/", func(rw http.ResponseWriter, r *http.Request) {
		http.Redirect(rw, r, "/news/"+strings.TrimPrefix(r.URL.Path, "/moved/"), http.StatusMovedPermanently)
	})
	mux.HandleFunc("/home", func(rw http.ResponseWriter, r *http.Request) {
		http.Redirect(rw, r, "/", http.StatusFound)
	})
	mux.Handle("/", w.Handler())
	srv := httptest.NewServer(mux)
	tb.Cleanup(srv.Close)
	return writeConfig(tb, `seeds: [`+srv.URL+`/moved/a007, `+srv.URL+`/, `+srv.URL+`/missing, `+srv.URL+`/home]
topic:
  name: everything
  keywords: {kalo: 1}
  threshold: 0
delay: 0s
workers: `+strconv.Itoa(workers)+`
max_pages: 1000
`)
}

// indexState is what a re-index must reproduce: the documents in bleve
// and, for every document the filter decided, its cluster and the
// cluster's representative.
type indexState struct {
	ids          []string
	rep, cluster map[string]string
}

func readIndexState(tb testing.TB, dir string) indexState {
	tb.Helper()
	o := indexer.Options{}
	o.ReadOnly = true
	ix, err := indexer.Open(dir, o)
	if err != nil {
		tb.Fatal(err)
	}
	defer ix.Close()
	req := bleve.NewSearchRequestOptions(bleve.NewMatchAllQuery(), 10000, 0, false)
	res, err := ix.Unwrap().Search(req)
	if err != nil {
		tb.Fatal(err)
	}
	st := indexState{rep: map[string]string{}, cluster: map[string]string{}}
	for _, h := range res.Hits {
		st.ids = append(st.ids, h.ID)
	}
	slices.Sort(st.ids)
	err = ix.Filter().Clusters(func(c dedupfilter.Cluster) error {
		for _, m := range c.Members {
			st.rep[m], st.cluster[m] = c.Representative, c.ID
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

// groups returns the documents of s grouped by cluster, leaving out
// those in skip, in a canonical order.
func (s indexState) groups(skip map[string]string) [][]string {
	by := map[string][]string{}
	for d, c := range s.cluster {
		if _, ok := skip[d]; !ok {
			by[c] = append(by[c], d)
		}
	}
	var out [][]string
	for _, g := range by {
		slices.Sort(g)
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b []string) int { return slices.Compare(a, b) })
	return out
}

// TestCrawlWARCReindex is the point of --warc: a crawl's archive indexed
// again gives the documents and clusters the crawl indexed, whether the
// archive is one file (given by a glob) or several (given in the order
// written). The one difference by design: a page whose extracted text
// equals an earlier page's is dropped by the crawl before the filter, and
// the re-index puts it in its first copy's cluster, suppressed. With
// several workers the archive holds the pages in the order their fetches
// ended, not quite the order the crawl indexed them: the clusters are
// the same sets, their ids and representatives may differ.
func TestCrawlWARCReindex(t *testing.T) {
	for _, tt := range []struct {
		name    string
		workers int
		maxSize string
	}{{"one file", 1, "0"}, {"rotated", 1, "30000"}, {"4 workers", 4, "0"}} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := warcWeb(t, tt.workers)
			dir := t.TempDir()
			crawled, reindexed := filepath.Join(dir, "crawled"), filepath.Join(dir, "reindexed")
			warc, log := filepath.Join(dir, "crawl.warc.gz"), filepath.Join(dir, "crawl.jsonl")
			out, err := runCmd(t, "crawl", "--config", cfg, "--index", crawled, "--log", log, "--warc", warc, "--warc-max-size", tt.maxSize)
			if err != nil {
				t.Fatalf("crawl: %v\n%s", err, out)
			}
			if !strings.Contains(out, "warc: ") || !strings.Contains(out, warc) {
				t.Errorf("crawl summary does not say where the archive went:\n%s", out)
			}
			files, _ := filepath.Glob(filepath.Join(dir, "crawl*.warc.gz"))
			if tt.maxSize != "0" {
				rest, _ := filepath.Glob(filepath.Join(dir, "crawl-*.warc.gz"))
				files = append([]string{warc}, rest...)
				if len(files) < 3 {
					t.Fatalf("%d files, want rotation to several", len(files))
				}
			} else if !slices.Equal(files, []string{warc}) {
				t.Fatalf("files %v, want %s only", files, warc)
			}
			// The home page was fetched twice: indexed once, then
			// unchanged. robots.txt is not HTML; the redirects and the
			// missing page have a bad status. With several workers a
			// link may fetch the redirect's target while the redirect is
			// still being followed: the archive then holds it twice too.
			out, err = runCmd(t, append([]string{"index", "--index", reindexed}, files...)...)
			unchanged := strings.Contains(out, "unchanged 1 +") || tt.workers > 1 && strings.Contains(out, "unchanged 2 +")
			if err != nil || !strings.Contains(out, "errors 0 +") || !unchanged ||
				!strings.Contains(out, "(not HTML 1, HTTP status 3)") {
				t.Errorf("index: %v\n%s\nwant the home page once and unchanged once, robots.txt, two redirects and a 404 skipped", err, out)
			}

			a, b := readIndexState(t, crawled), readIndexState(t, reindexed)
			if len(a.rep) < 35 || len(a.groups(nil)) > len(a.rep)-8 {
				t.Fatalf("crawl decided %d documents in %d clusters: too few duplicates for the comparison to mean much", len(a.rep), len(a.groups(nil)))
			}
			copyOf := map[string]string{} // pages the crawl dropped as exact copies, and their first copy
			for line := range strings.Lines(mustRead(t, log)) {
				var r crawler.Record
				if err := json.Unmarshal([]byte(line), &r); err != nil {
					t.Fatal(err)
				}
				if _, decided := a.rep[r.URL]; r.DuplicateOf != "" && !decided && b.rep[r.URL] != "" {
					copyOf[r.URL] = r.DuplicateOf
				}
			}
			for d := range b.rep {
				if _, ok := a.rep[d]; !ok && copyOf[d] == "" {
					t.Errorf("re-index decided %s, which the crawl neither decided nor dropped as a copy", d)
				}
			}
			for d, first := range copyOf {
				if b.rep[d] != b.rep[first] || b.rep[d] == d {
					t.Errorf("exact copy %s of %s: re-index cluster represented by %s, want %s's", d, first, b.rep[d], first)
				}
			}
			if ga, gb := a.groups(nil), b.groups(copyOf); !slices.EqualFunc(ga, gb, slices.Equal) {
				t.Errorf("clusters differ:\ncrawl:    %v\nre-index: %v", ga, gb)
			}
			if tt.workers > 1 {
				return
			}
			if !slices.Equal(a.ids, b.ids) {
				t.Errorf("documents in bleve differ:\ncrawl:    %v\nre-index: %v", a.ids, b.ids)
			}
			for d, r := range a.rep {
				if b.rep[d] != r || b.cluster[d] != a.cluster[d] {
					t.Errorf("%s: crawl cluster %s represented by %s, re-index %s by %s", d, a.cluster[d], r, b.cluster[d], b.rep[d])
				}
			}
			t.Logf("%d documents, %d in bleve, %d clusters; %d exact copies", len(a.rep), len(a.ids), len(a.groups(nil)), len(copyOf))
		})
	}
}
