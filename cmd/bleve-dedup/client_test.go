package main

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/server"
)

// TestServerClient: search and dups through a running server print what
// they print on the index itself, and the index the server holds cannot
// be opened with --index, with a message saying how to reach it.
func TestServerClient(t *testing.T) {
	dir := fixtureIndex(t)
	commands := [][]string{
		{"search", "--format", "jsonl", "library"},
		{"search", "library OR 图书馆"},
		{"search", "--collapse=false", "--size", "3", "--from", "1", "library"},
		{"search", "--syntax", "querystring", "+library -bees"},
		{"dups", "--format", "jsonl"},
		{"dups"},
	}
	var want []string
	for _, c := range commands {
		out, err := runCmd(t, append([]string{c[0], "--index", dir}, c[1:]...)...)
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		want = append(want, out)
	}
	ix, err := indexer.Open(dir, indexer.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	srv, err := server.New(ix, server.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	for i, c := range commands {
		got, err := runCmd(t, append([]string{c[0], "--server", ts.URL}, c[1:]...)...)
		if err != nil {
			t.Fatalf("%v --server: %v", c, err)
		}
		if got != want[i] {
			t.Errorf("%v --server:\n%s\nwant (as with --index):\n%s", c, got, want[i])
		}
	}
	_, err = runCmd(t, "search", "--index", dir, "library")
	if err == nil || !strings.Contains(err.Error(), "--server URL") {
		t.Errorf("search --index on a held index: %v, want a message pointing to --server", err)
	}
}
