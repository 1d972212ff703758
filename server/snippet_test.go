package server_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testindex"
	"github.com/bleve-dedup/bleve-dedup/server"
	"github.com/bleve-dedup/bleve-dedup/snippet"
)

type snippetHit struct {
	ID      string            `json:"id"`
	Snippet []snippet.Segment `json:"snippet"`
}

func searchHits(t *testing.T, o server.Options, q string) []snippetHit {
	t.Helper()
	return searchHitsIn(t, fixture(t), o, q)
}

func searchHitsIn(t *testing.T, ix *indexer.Index, o server.Options, q string) []snippetHit {
	t.Helper()
	r := do(t, newServer(t, ix, o), "GET", "/api/search?q="+url.QueryEscape(q))
	if r.status != 200 {
		t.Fatalf("%q: status %d: %s", q, r.status, r.body)
	}
	var body struct{ Hits []snippetHit }
	if err := json.Unmarshal([]byte(r.body), &body); err != nil {
		t.Fatal(err)
	}
	return body.Hits
}

// TestSnippets: every hit has a passage of its text with the query's
// terms marked, in English and in Chinese (bigrams merged into one mark),
// and not the terms of a NOT; the same when the search index stores
// neither the text nor its term vectors (the snippets come from the
// filter's store).
func TestSnippets(t *testing.T) {
	t.Run("stored", func(t *testing.T) { testSnippets(t, fixture(t)) })
	t.Run("unstored", func(t *testing.T) { testSnippets(t, unstoredFixture(t)) })
}

// unstoredFixture is the test pages in an index whose text field is
// neither stored nor given term vectors.
func unstoredFixture(tb testing.TB) *indexer.Index {
	tb.Helper()
	o := indexer.Options{}
	o.Policy = dedupfilter.Mark
	m := indexer.NewMapping()
	for _, f := range m.DefaultMapping.Properties[indexer.FieldText].Fields {
		f.Store, f.IncludeTermVectors = false, false
	}
	o.Mapping = m
	return testindex.PagesWith(tb, "", o)
}

func testSnippets(t *testing.T, ix *indexer.Index) {
	tests := []struct {
		query string
		marks []string // lower-cased marked texts every hit's snippet must hold one of
		not   string   // never marked
	}{
		{"bees", []string{"bees"}, ""},
		{"library AND bees", []string{"library", "bees"}, ""},
		{"图书馆", []string{"图书馆", "圖書館"}, ""},
		{"bees NOT tide", []string{"bees"}, "tide"},
	}
	for _, tt := range tests {
		hits := searchHitsIn(t, ix, server.DefaultOptions(), tt.query)
		if len(hits) == 0 {
			t.Errorf("%q: no hits", tt.query)
		}
		for _, h := range hits {
			var marked []string
			var text strings.Builder
			for _, s := range h.Snippet {
				text.WriteString(s.Text)
				if s.Mark {
					marked = append(marked, strings.ToLower(s.Text))
				}
			}
			found := false
			for _, m := range marked {
				for _, want := range tt.marks {
					found = found || strings.Contains(m, want)
				}
				if tt.not != "" && strings.Contains(m, tt.not) {
					t.Errorf("%q: %s: %q is marked", tt.query, h.ID, m)
				}
			}
			if !found {
				t.Errorf("%q: %s: snippet %q marks %q, want one of %q", tt.query, h.ID, text.String(), marked, tt.marks)
			}
			if n := utf8.RuneCountInString(text.String()); n == 0 || n > 150 {
				t.Errorf("%q: %s: snippet of %d characters", tt.query, h.ID, n)
			}
		}
	}
}

func TestSnippetsOff(t *testing.T) {
	o := server.DefaultOptions()
	o.Snippets = false
	for _, h := range searchHits(t, o, "bees") {
		if h.Snippet != nil {
			t.Errorf("%s: snippet %v with Snippets off", h.ID, h.Snippet)
		}
	}
}

// BenchmarkSnippets is a search page's cost with and without snippets
// (each hit's text read from the store and its terms found in it).
func BenchmarkSnippets(b *testing.B) {
	ix := fixture(b)
	for _, name := range []string{"off", "on"} {
		o := server.DefaultOptions()
		o.Snippets = name == "on"
		h := newServer(b, ix, o)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if r := do(b, h, "GET", "/api/search?q=library+OR+bees+OR+%E5%9B%BE%E4%B9%A6%E9%A6%86"); r.status != 200 {
					b.Fatal(r.body)
				}
			}
		})
	}
}
