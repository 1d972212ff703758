package sitetext

import (
	"slices"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
)

func TestSite(t *testing.T) {
	tests := []struct{ url, id, want string }{
		{"https://news.example.com:8080/a?b", "x", "news.example.com"},
		{"", "example.org/2024/a.html", "example.org/2024"},
		{"", "a.html", ""},
		{"not a url", "site/page", "site"},
	}
	for _, tt := range tests {
		if got := Site(tt.url, tt.id); got != tt.want {
			t.Errorf("Site(%q, %q) = %q, want %q", tt.url, tt.id, got, tt.want)
		}
	}
}

// para makes a distinct paragraph of n words.
func para(tag string, n int) string {
	return strings.TrimSpace(strings.Repeat(tag+" words ", n))
}

func TestClean(t *testing.T) {
	nav, foot := para("navigation", 10), para("footer", 10)
	tests := []struct {
		name                string
		site, id            string
		paras               []string
		wantKept, wantStale []string
	}{
		{"first page keeps all", "a", "p1", []string{nav, para("one", 30), foot},
			[]string{nav, para("one", 30), foot}, nil},
		{"second page drops the template, first is stale", "a", "p2", []string{nav, para("two", 30), foot},
			[]string{para("two", 30)}, []string{"p1"}},
		{"third page drops the known template", "a", "p3", []string{nav, para("three", 30), foot},
			[]string{para("three", 30)}, nil},
		{"other site keeps its copy whole", "b", "q1", []string{nav, para("two", 30), foot},
			[]string{nav, para("two", 30), foot}, nil},
		{"same-site copy is kept whole", "a", "p2-print", []string{nav, para("two", 30), foot},
			[]string{para("two", 30)}, nil},
		{"single paragraph is never cleaned", "a", "p4", []string{nav},
			[]string{nav}, nil},
		{"page of template only is kept whole", "a", "p5", []string{nav, foot},
			[]string{nav, foot}, nil},
	}
	db, err := badger.Open(badger.DefaultOptions("").WithInMemory(true).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tab := New(db)
	for _, tt := range tests {
		kept, stale, err := tab.Clean(tt.site, tt.id, tt.paras)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !slices.Equal(kept, tt.wantKept) || !slices.Equal(stale, tt.wantStale) {
			t.Errorf("%s: Clean = %q, stale %q; want %q, stale %q", tt.name, kept, stale, tt.wantKept, tt.wantStale)
		}
	}
}

func TestCleanNil(t *testing.T) {
	var tab *Table
	paras := []string{"a", "b"}
	kept, stale, err := tab.Clean("site", "id", paras)
	if err != nil || !slices.Equal(kept, paras) || stale != nil {
		t.Errorf("nil Table: Clean = %q, %q, %v; want the paragraphs unchanged", kept, stale, err)
	}
}
