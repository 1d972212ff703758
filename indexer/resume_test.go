//go:build unix

package indexer_test

import (
	"context"
	"fmt"
	"iter"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testindex"
	"github.com/bleve-dedup/bleve-dedup/page"
)

// clusters renders an index's clusters with their ids and representatives.
func clusters(tb testing.TB, ix *indexer.Index) string {
	tb.Helper()
	var b strings.Builder
	err := ix.Filter().Clusters(func(c dedupfilter.Cluster) error {
		fmt.Fprintf(&b, "%s rep=%s %s\n", c.ID, c.Representative, strings.Join(c.Members, " "))
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return b.String()
}

func pages(tb testing.TB, n int) iter.Seq2[page.Page, error] {
	all := page.Read([]string{testindex.PagesDir(tb)}, page.DefaultOptions())
	return func(yield func(page.Page, error) bool) {
		i := 0
		for p, err := range all {
			if i == n || !yield(p, err) {
				return
			}
			i++
		}
	}
}

func indexPages(tb testing.TB, dir string, n, batch int) indexer.Stats {
	tb.Helper()
	ix, err := indexer.Open(dir, indexer.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer ix.Close()
	o := indexer.DefaultRunOptions()
	o.BatchSize = batch
	st, err := ix.IndexPages(context.Background(), pages(tb, n), o)
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

func clustersOf(tb testing.TB, dir string) string {
	tb.Helper()
	ix, err := indexer.Open(dir, indexer.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer ix.Close()
	return clusters(tb, ix)
}

// TestResumeMatchesUninterrupted: a run stopped after some pages and run
// again on the whole input skips what it did and ends with the clusters,
// cluster ids and representatives of an uninterrupted run, whatever the
// batch size.
func TestResumeMatchesUninterrupted(t *testing.T) {
	full := t.TempDir()
	st := indexPages(t, full, -1, 4)
	want := clustersOf(t, full)
	for _, tt := range []struct{ stop, batch int }{{1, 1}, {5, 3}, {8, 200}, {14, 2}} {
		dir := t.TempDir()
		indexPages(t, dir, tt.stop, tt.batch)
		again := indexPages(t, dir, -1, tt.batch)
		if again.Unchanged != tt.stop || again.Read != st.Read {
			t.Errorf("stop %d: second run read %d, unchanged %d; want %d, %d", tt.stop, again.Read, again.Unchanged, st.Read, tt.stop)
		}
		if got := clustersOf(t, dir); got != want {
			t.Errorf("stop %d, batch %d: clusters\n%s\nwant (uninterrupted)\n%s", tt.stop, tt.batch, got, want)
		}
	}
}

// killAfterEnv makes the test binary act as a child of TestKillResume:
// "DIR:DELAY" indexes the pages into DIR and kills itself after DELAY.
const killAfterEnv = "INDEXER_KILL_AFTER"

// TestKillResume kills a child process indexing the pages at several
// moments with SIGKILL, runs the same indexing again, and expects the
// clusters of an uninterrupted run.
func TestKillResume(t *testing.T) {
	if v := os.Getenv(killAfterEnv); v != "" {
		dir, delay, _ := strings.Cut(v, ":")
		ms, _ := strconv.Atoi(delay)
		time.AfterFunc(time.Duration(ms)*time.Millisecond, func() { syscall.Kill(os.Getpid(), syscall.SIGKILL) })
		indexPages(t, dir, -1, 2)
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	if testing.Short() {
		t.Skip("starts child processes")
	}
	full := t.TempDir()
	start := time.Now()
	indexPages(t, full, -1, 2)
	took := time.Since(start)
	want := clustersOf(t, full)
	for _, frac := range []float64{0.1, 0.3, 0.5, 0.7, 0.9} {
		dir := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^TestKillResume$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s:%d", killAfterEnv, dir, int(frac*float64(took.Milliseconds()))))
		out, _ := cmd.CombinedOutput()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("child was not killed: %s", out)
		}
		indexPages(t, dir, -1, 2)
		if got := clustersOf(t, dir); got != want {
			t.Errorf("killed at %.0f%%: clusters\n%s\nwant (uninterrupted)\n%s", frac*100, got, want)
		}
	}
}

// TestCanonicalURLUpdates: a page whose canonical URL the index holds is a
// new version of that document, whatever its id; an unchanged one is
// skipped.
func TestCanonicalURLUpdates(t *testing.T) {
	// Batches of one: the later versions are staged ahead, before the
	// batch holding the first one is decided.
	// The first id is a name, or the canonical URL (a WARC record's id).
	for _, first := range []string{"a", "https://example.com/news/bees.html"} {
		for _, batch := range []int{1000, 1} {
			t.Run(fmt.Sprint(first, " batch ", batch), func(t *testing.T) { testCanonicalURLUpdates(t, batch, first) })
		}
	}
}

func testCanonicalURLUpdates(t *testing.T, batch int, first string) {
	ix, err := indexer.Open(t.TempDir(), indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	text := func(s string) string {
		return s + " The city library opened its rooftop to six beehives this spring, and the first honey was sold at the fair.\n\n" +
			"Volunteers check the hives every week, and the readers below mostly ignore the bees."
	}
	in := []page.Page{
		{ID: first, URL: "https://example.com/news/bees.html", Text: text("First.")},
		{ID: "b", URL: "https://Example.com/news/bees.html?utm_source=feed#top", Text: text("Corrected.")},
		{ID: "c", URL: "https://example.com:443/news/bees.html", Text: text("Corrected.")},
	}
	seq := func(yield func(page.Page, error) bool) {
		for _, p := range in {
			if !yield(p, nil) {
				return
			}
		}
	}
	o := indexer.DefaultRunOptions()
	o.BatchSize = batch
	st, err := ix.IndexPages(context.Background(), seq, o)
	if err != nil {
		t.Fatal(err)
	}
	if st.Read != 3 || st.Updated != 1 || st.Unchanged != 1 {
		t.Errorf("stats %+v, want 3 read, 1 updated, 1 unchanged", st)
	}
	n, err := ix.Unwrap().DocCount()
	if err != nil || n != 1 {
		t.Errorf("bleve holds %d documents (%v), want 1", n, err)
	}
	e, err := ix.Filter().Doc(first)
	if err != nil || !strings.Contains(string(e.Payload), "Corrected.") {
		t.Errorf("document %s = %s, %v; want the corrected version", first, e.Payload, err)
	}
	// Once deleted, the URL has no owner: a page of it is a new document.
	if err := ix.Delete(first); err != nil {
		t.Fatal(err)
	}
	in = in[:1]
	in[0].ID = "d"
	if st, err = ix.IndexPages(context.Background(), seq, o); err != nil || st.Indexed != 1 || st.Updated != 0 {
		t.Errorf("after the delete: stats %+v, %v; want the page indexed as a new document", st, err)
	}
}
