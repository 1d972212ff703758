package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/golden"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testindex"
)

// fixtureIndex indexes testdata/pages under the mark policy into a
// fresh directory and returns it, closed.
func fixtureIndex(tb testing.TB) string {
	tb.Helper()
	dir := tb.TempDir()
	if err := testindex.Pages(tb, dir, dedupfilter.Mark).Close(); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// runCmd runs the CLI with args and returns what it printed.
func runCmd(tb testing.TB, args ...string) (string, error) {
	tb.Helper()
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return out.String(), err
}

func TestSearchCmd(t *testing.T) {
	dir := fixtureIndex(t)
	tests := []struct {
		name   string
		args   []string
		golden string
	}{
		{"collapsed table", []string{"bees OR tide"}, "search-collapsed.golden"},
		{"plain table", []string{"--collapse=false", "bees OR tide"}, "search-plain.golden"},
		{"jsonl", []string{"--format", "jsonl", "bees OR tide"}, "search-jsonl.golden"},
		{"second page", []string{"--size", "2", "--from", "2", "bees OR tide"}, "search-page2.golden"},
		{"querystring", []string{"--syntax", "querystring", "+bees -rooftop"}, "search-querystring.golden"},
		{"chinese", []string{"图书馆 OR 绿道"}, "search-chinese.golden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runCmd(t, append([]string{"search", "--index", dir}, tt.args...)...)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			golden.Check(t, tt.golden, out)
		})
	}
}

// TestSearchCmdCollapseField folds the hits by url: two pages of one
// URL are one group of two.
func TestSearchCmdCollapseField(t *testing.T) {
	dir := t.TempDir()
	ix, err := indexer.Open(dir, indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	testindex.Documents(t, ix,
		indexer.Document{ID: "a1", URL: "https://a.example/", Paragraphs: []string{"Bees on the library roof made their first honey this summer."}},
		indexer.Document{ID: "a2", URL: "https://a.example/", Paragraphs: []string{"The ferry to the islands runs again, and bees ride it to the orchards."}},
		indexer.Document{ID: "b", URL: "https://b.example/", Paragraphs: []string{"A beekeeper explains why city bees prefer lime trees to lawns."}},
	)
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"by url", []string{"--collapse-field", "url", "bees"}, []string{"GROUP", "https://a.example/  2", "https://b.example/  1", "(2 of 2 groups, 3 documents)"}},
		{"copies folded", []string{"--collapse-field", "url", "--fold-copies", "bees"}, []string{"(2 of 2 groups, 3 documents)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runCmd(t, append([]string{"search", "--index", dir}, tt.args...)...)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestSearchCmdErrors(t *testing.T) {
	dir := fixtureIndex(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"syntax error", []string{"--index", dir, "(bees OR"}, "at 8: expected"},
		{"bad syntax flag", []string{"--index", dir, "--syntax", "sql", "x"}, "--syntax"},
		{"bad format", []string{"--index", dir, "--format", "xml", "x"}, "--format"},
		{"bad paging", []string{"--index", dir, "--from", "-1", "x"}, "invalid search request"},
		{"no index", []string{"--index", t.TempDir(), "x"}, "no index there"},
		{"a query over 1 KiB", []string{"--index", dir, strings.Repeat("bees OR ", 128) + "bees"}, "query of 1028 bytes, longer than 1024"},
		{"a query opening every term", []string{"--index", dir, "--syntax", "querystring", "/.*/"}, "TooManyTermSearchers"},
		{"a collapse field without collapsing", []string{"--index", dir, "--collapse=false", "--collapse-field", "url", "x"}, "invalid search request"},
		{"a collapse field through a server", []string{"--server", "http://127.0.0.1:1", "--collapse-field", "url", "x"}, "--collapse-field and --server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runCmd(t, append([]string{"search"}, tt.args...)...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got error %v, want one containing %q", err, tt.want)
			}
		})
	}
}
