package crawler_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/bleve-dedup/bleve-dedup/crawler"
	"github.com/bleve-dedup/bleve-dedup/relevance"
)

func Example() {
	// A three-page site on loopback: the home page links to a page about
	// fish and one about tea.
	pages := map[string]string{
		"/":       `<title>Home</title><p>Welcome to the site.</p><ul><li><a href="/salmon">Salmon fish</a><li><a href="/tea#top">Tea</a></ul>`,
		"/salmon": `<title>Salmon, a fish</title><p>The salmon is a fish; the fish swims upstream with strong fins.</p>`,
		"/tea":    `<title>Tea</title><p>Tea is a drink made from leaves.</p>`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, ok := pages[r.URL.Path]; ok {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, p)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()

	dir, _ := os.MkdirTemp("", "crawl")
	defer os.RemoveAll(dir)
	profile, _ := relevance.NewProfile("fish", map[string]float64{"fish": 1, "fins": 0.5}, relevance.DefaultOptions())
	o := crawler.DefaultOptions(dir)
	o.Seeds = []string{srv.URL + "/"}
	o.Profile = profile
	o.Delay = 0 // our own server; keep the default 1 s for others'
	o.Workers = 1
	o.OnPage = func(r crawler.Record) {
		fmt.Printf("%-8s status %d relevant %v\n", r.URL[len(srv.URL):], r.Status, r.Relevant)
	}
	c, err := crawler.New(o)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	sum, err := c.Run(context.Background())
	fmt.Printf("fetched %d, relevant %d, harvest rate %.2f, err %v\n", sum.Fetched, sum.Relevant, sum.HarvestRate(), err)
	// Output:
	// /        status 200 relevant false
	// /salmon  status 200 relevant true
	// /tea     status 200 relevant false
	// fetched 3, relevant 1, harvest rate 0.33, err <nil>
}
