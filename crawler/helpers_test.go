package crawler

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testweb"
	"github.com/bleve-dedup/bleve-dedup/relevance"
)

// tinyDocs is a synthetic web for unit tests: "fish" pages and others.
func tinyDocs() []testweb.Doc {
	fish := []string{"Salmon", "Trout", "Carp", "Tuna", "Eel", "Cod"}
	other := []string{"Railway", "Football", "Chemistry", "Opera", "Poetry", "Painting", "Tennis", "Bridges", "Volcano", "Tea"}
	var docs []testweb.Doc
	for _, f := range fish {
		docs = append(docs, testweb.Doc{ID: strings.ToLower(f), Title: f + " fish",
			Body:  f + " is a fish that swims in rivers and seas.\nThe " + strings.ToLower(f) + " fish has fins and scales.",
			Topic: "fish", Lang: "en"})
	}
	for _, o := range other {
		docs = append(docs, testweb.Doc{ID: strings.ToLower(o), Title: o,
			Body: o + " is a subject of this page.\nIt has nothing to do with water animals.", Lang: "en"})
	}
	return docs
}

func fishProfile(tb testing.TB) *relevance.Profile {
	tb.Helper()
	p, err := relevance.NewProfile("fish", map[string]float64{"fish": 1, "fins": 0.5, "scales": 0.5, "swims": 0.5}, relevance.DefaultOptions())
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// serve starts a web on loopback and returns it with its base URL.
func serve(tb testing.TB, docs []testweb.Doc, o testweb.Options) (*testweb.Web, string) {
	tb.Helper()
	w := testweb.Build(docs, o)
	srv := httptest.NewServer(w.Handler())
	tb.Cleanup(srv.Close)
	return w, srv.URL
}

// testOptions are fast options for crawling a loopback web.
func testOptions(tb testing.TB, seed string, p *relevance.Profile) Options {
	o := DefaultOptions(tb.TempDir())
	o.Seeds = []string{seed}
	o.Profile = p
	o.Delay = 0
	o.ConnectTimeout = 2e9
	o.ReadTimeout = 2e9
	return o
}
