package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stopAfter is a test's stand-in for a signal: a context that SIGTERM
// stops after d (0: stopped already).
func stopAfter(tb testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := func() { cancel(stopSignal{syscall.SIGTERM}) }
	if d == 0 {
		stop()
	} else {
		t := time.AfterFunc(d, stop)
		tb.Cleanup(func() { t.Stop() })
	}
	tb.Cleanup(func() { cancel(nil) })
	return ctx
}

// slowInput returns a JSONL input that yields one page and then waits,
// until the test ends, for more: a run reading it is under way when
// stopped.
func slowInput(tb testing.TB) string {
	tb.Helper()
	name := filepath.Join(tb.TempDir(), "slow.jsonl")
	if err := syscall.Mkfifo(name, 0o600); err != nil {
		tb.Skipf("no named pipe: %v", err)
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		// Opening blocks until the command opens the pipe to read.
		f, err := os.OpenFile(name, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		page := `{"id":"a","text":"The first page of a stream that is slow to come, long enough to be indexed."}` + "\n"
		f.WriteString(page)
		select {
		case <-done:
		case <-time.After(time.Second):
			// A reader that stops only between pages gets another.
			f.WriteString(strings.Replace(page, `"a"`, `"b"`, 1))
			<-done
		}
	}()
	tb.Cleanup(func() {
		close(done)
		// Unblock a writer still waiting for a reader.
		if f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		<-finished
	})
	return name
}

// TestExitStatus: each command exits 0 when everything was read, 2 when
// the run finished but some pages had errors, 1 when it failed or a signal
// stopped it (before it started or under way); serve, stopped by a signal,
// exits 0.
func TestExitStatus(t *testing.T) {
	ix := fixtureIndex(t)
	dir := t.TempDir()
	web := crawlWeb(t)
	crawlConfig := func(extra string) string {
		return writeConfig(t, "seeds: ["+web+"/]\ntopic: {name: fish, keywords: {fish: 1, fins: 0.5}}\nworkers: 1\nmax_pages: 4\n"+extra)
	}
	page := func(p string) string { return filepath.Join(pagesDir, p) }
	a, b := page("en/harbor-gazette/library-bees.html"), page("en/daily-reader/rooftop-hives-reprint.html")
	tests := []struct {
		name string
		args []string
		stop time.Duration // a SIGTERM after this long; -1: none, 0: before the command starts
		want int
	}{
		{"index, all read", []string{"index", "--index", filepath.Join(dir, "a"), pagesDir}, -1, 0},
		{"index, pages with errors", []string{"index", "--index", filepath.Join(dir, "b"), badDir}, -1, 2},
		{"index, missing input", []string{"index", "--index", filepath.Join(dir, "c"), "no-such-dir"}, -1, 1},
		{"index, bad flag", []string{"index", "--index", filepath.Join(dir, "d"), "--policy", "drop", pagesDir}, -1, 1},
		{"index, no --index", []string{"index", pagesDir}, -1, 1},
		{"index, stopped before", []string{"index", "--index", filepath.Join(dir, "e"), pagesDir}, 0, 1},
		{"index, stopped under way", []string{"index", "--index", filepath.Join(dir, "f"), slowInput(t)}, 300 * time.Millisecond, 1},

		{"crawl, all fetched", []string{"crawl", "--config", crawlConfig("delay: 0s\n"), "--index", filepath.Join(dir, "g")}, -1, 0},
		{"crawl, bad config", []string{"crawl", "--config", writeConfig(t, "seeds: [x]\n"), "--index", filepath.Join(dir, "h")}, -1, 1},
		{"crawl, stopped under way", []string{"crawl", "--config", crawlConfig("delay: 5s\n"), "--index", filepath.Join(dir, "i")}, 500 * time.Millisecond, 1},

		{"serve, stopped", []string{"serve", "--index", ix, "--addr", "127.0.0.1:0"}, 0, 0},
		{"serve, no index", []string{"serve", "--index", filepath.Join(dir, "none")}, -1, 1},

		{"search, all read", []string{"search", "--index", ix, "bees"}, -1, 0},
		{"search, bad query", []string{"search", "--index", ix, "(bees"}, -1, 1},
		{"search, stopped", []string{"search", "--index", ix, "bees"}, 0, 1},

		{"dups, all read", []string{"dups", "--index", ix}, -1, 0},
		{"dups, no index", []string{"dups", "--index", filepath.Join(dir, "none")}, -1, 1},
		{"dups, stopped", []string{"dups", "--index", ix}, 0, 1},

		{"extract, all read", []string{"extract", "--format", "jsonl", pagesDir}, -1, 0},
		{"extract, pages with errors", []string{"extract", badDir}, -1, 2},
		{"extract, stopped under way", []string{"extract", slowInput(t)}, 300 * time.Millisecond, 1},

		{"compare, all read", []string{"compare", a, b}, -1, 0},
		{"compare, missing page", []string{"compare", a, page("none.html")}, -1, 1},
		{"compare, stopped", []string{"compare", a, b}, 0, 1},

		{"eval, all read", []string{"eval", "--labels", pagesLabel, pagesDir}, -1, 0},
		{"eval, pages with errors", []string{"eval", "--labels", pagesLabel, pagesDir, badDir}, -1, 2},
		{"eval, stopped under way", []string{"eval", "--labels", pagesLabel, "--keep-index", filepath.Join(dir, "j"), slowInput(t)}, 300 * time.Millisecond, 1},

		{"recluster, all read", []string{"recluster", "--index", ix, "--dry-run"}, -1, 0},
		{"recluster, no index", []string{"recluster", "--index", filepath.Join(dir, "none")}, -1, 1},
		{"recluster, stopped", []string{"recluster", "--index", ix}, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if tt.stop >= 0 {
				ctx = stopAfter(t, tt.stop)
			}
			var out bytes.Buffer
			start := time.Now()
			got := run(ctx, tt.args, &out, &out)
			if got != tt.want {
				t.Errorf("exit status %d, want %d\n%s", got, tt.want, out.String())
			}
			if tt.stop > 0 && tt.want == 1 {
				if !strings.Contains(out.String(), "stopped by SIGTERM") {
					t.Errorf("output %q, want it to say the run was stopped by SIGTERM", out.String())
				}
				// The input never ends: a command that did not stop would
				// run on. The bound is loose: a stop waits for the commit
				// under way, seconds on a loaded machine.
				if took := time.Since(start); took > tt.stop+30*time.Second {
					t.Errorf("stopped %v after the signal, want within seconds", took-tt.stop)
				}
			}
		})
	}
	// A stopped eval leaves no index, kept or not; nor an index run
	// stopped before it committed anything. One stopped under way keeps
	// the page it read before the stop.
	for _, d := range []string{"e", "j"} {
		if _, err := os.Stat(filepath.Join(dir, d)); !os.IsNotExist(err) {
			t.Errorf("%s left behind by a stopped run (%v)", d, err)
		}
	}
	if out, err := runCmd(t, "dups", "--all", "--index", filepath.Join(dir, "f")); err != nil || !strings.Contains(out, "(1 clusters)") {
		t.Errorf("index stopped under way holds:\n%s (%v), want the page read before the stop", out, err)
	}
}
