package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testindex"
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
	o, err := indexer.SavedOptions(dir)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := indexer.Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	srv, err := server.New(ix, server.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
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

// TestIndexThroughServer sends pages to a serving index with index
// --server: the clusters are those of index --index, a second run finds
// every page unchanged, and a missing input fails the command before
// anything is sent, as with --index.
func TestIndexThroughServer(t *testing.T) {
	pages := testindex.PagesDir(t)
	local := t.TempDir()
	if _, err := runCmd(t, "index", "--index", local, pages); err != nil {
		t.Fatal(err)
	}
	want, err := runCmd(t, "dups", "--format", "jsonl", "--index", local)
	if err != nil {
		t.Fatal(err)
	}
	_, srv := testindex.IngestServer(t, nil)
	ts := httptest.NewServer(srv)
	defer ts.Close()

	defer func(d time.Duration) { logEvery = d }(logEvery)
	logEvery = 0 // a progress line for every page sent
	out, err := runCmd(t, "index", "--server", ts.URL, pages)
	if err != nil || !strings.Contains(out, "\nread 15 = indexed 9 + duplicates 6 + unchanged 0 + errors 0") ||
		!strings.Contains(out, "bleve-dedup: sending: ") || !strings.Contains(out, "(100%), ETA 0s; pages sent 15;") {
		t.Fatalf("index --server: %v\n%s\nwant progress lines up to 15 pages sent, then the server's counts", err, out)
	}
	if got, err := runCmd(t, "dups", "--format", "jsonl", "--server", ts.URL); err != nil || got != want {
		t.Errorf("dups after index --server: %v\n%s\nwant (as after index --index):\n%s", err, got, want)
	}
	missing := filepath.Join(t.TempDir(), "missing.jsonl")
	out, err = runCmd(t, "index", "--server", ts.URL, pages, missing)
	if err == nil || err.Error() != "input "+missing+": no such file or directory (nothing was read)" || out != "" {
		t.Errorf("index --server again with a missing input: %v\n%s", err, out)
	}
}

// TestIndexThroughServerInParts: an input larger than the server takes
// in one request goes as several, summed as one run, with the token the
// environment gives; without it the server refuses the pages.
func TestIndexThroughServerInParts(t *testing.T) {
	const token = "0123456789abcdef0123456789abcdef"
	pages := testindex.PagesDir(t)
	ix, srv := testindex.IngestServer(t, func(in *server.Ingest) { in.MaxBytes, in.Token = 16<<10, token })
	var posts atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			posts.Add(1)
		}
		srv.ServeHTTP(w, r)
	}))
	defer ts.Close()

	t.Setenv("BLEVE_DEDUP_TOKEN", "")
	if _, err := runCmd(t, "index", "--server", ts.URL, pages); err == nil || !strings.Contains(err.Error(), "missing or wrong token") {
		t.Errorf("without the token: %v, want the server's refusal", err)
	}
	if n, _ := ix.Unwrap().DocCount(); n != 0 {
		t.Fatalf("%d documents indexed without the token", n)
	}
	file := filepath.Join(t.TempDir(), "token")
	os.WriteFile(file, []byte(token+"\n"), 0o600)
	t.Setenv("BLEVE_DEDUP_TOKEN_FILE", file)
	posts.Store(0)
	out, err := runCmd(t, "index", "--server", ts.URL, pages)
	if err != nil || !strings.HasPrefix(out, "read 15 = indexed 9 + duplicates 6 + unchanged 0 + errors 0") {
		t.Fatalf("index --server with the token: %v\n%s", err, out)
	}
	if n := posts.Load(); n < 3 {
		t.Errorf("%d requests, want the pages cut into several under 16 KiB each", n)
	}
}
