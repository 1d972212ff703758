package crawler

import (
	"context"
	"errors"
	"io"
	"maps"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nlnwa/gowarc/v3"

	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testweb"
	"github.com/bleve-dedup/bleve-dedup/page"
	"github.com/bleve-dedup/bleve-dedup/warcout"
)

// failingRecorder archives the first left exchanges, then fails.
type failingRecorder struct {
	mu       sync.Mutex
	left     int
	archived map[string]bool
	err      error
}

var errDiskFull = errors.New("disk full")

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func (f *failingRecorder) Transport(next http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := next.RoundTrip(req)
		f.mu.Lock()
		defer f.mu.Unlock()
		switch {
		case f.left > 0:
			f.left--
			f.archived[req.URL.String()] = true
		case f.err == nil:
			f.err = errDiskFull
		}
		return resp, err
	})
}

func (f *failingRecorder) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// TestRecorderFailure checks that a crawl whose archive fails stops with
// the error, having taken as done only pages that are in the archive, and
// that the next run fetches the rest: none is lost from the archive.
func TestRecorderFailure(t *testing.T) {
	_, base := serve(t, tinyDocs(), testweb.Options{Seed: 5, OutLinks: 4, Duplicates: 3})
	full, _ := crawlRecords(t, testOptions(t, base+"/", fishProfile(t)))

	o := testOptions(t, base+"/", fishProfile(t))
	o.Workers = 3
	rec := &failingRecorder{left: 8, archived: map[string]bool{}}
	o.Recorder = rec
	var first []Record
	o.OnPage = func(r Record) { first = append(first, r) }
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Run(context.Background()); !errors.Is(err, errDiskFull) {
		t.Fatalf("Run: %v, want the recorder's error", err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if len(first) == 0 || len(first) >= len(full) {
		t.Fatalf("first run took %d pages as done, want some of %d", len(first), len(full))
	}
	for _, r := range first {
		if !rec.archived[r.URL] {
			t.Errorf("%s taken as done but not archived", r.URL)
		}
	}

	o.Recorder = &failingRecorder{left: 1 << 30, archived: map[string]bool{}}
	var second []Record
	o.OnPage = func(r Record) { second = append(second, r) }
	c, err = New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := urlsOf(t, append(slices.Clone(first), second...))
	if want := urlsOf(t, full); !maps.Equal(got, want) {
		t.Errorf("failed+resumed crawl took %d pages as done, uninterrupted %d; want the same set", len(got), len(want))
	}
}

// TestHostileSiteArchived crawls the hostile web through a warcout
// recorder and reads the archive back: every response the crawler did
// not read whole is marked WARC-Truncated with the reason, and what our
// reader makes of each record agrees with what the crawl made of the
// page.
func TestHostileSiteArchived(t *testing.T) {
	_, base := serve(t, tinyDocs(), testweb.Options{Seed: 6, OutLinks: 3, Duplicates: 1, Hostile: true, SlowDelay: 5 * time.Second})
	o := testOptions(t, base+"/", fishProfile(t))
	o.ReadTimeout = 300 * time.Millisecond
	o.MaxLinks, o.MaxDepth, o.MaxPages = 100, 3, 200
	name := filepath.Join(t.TempDir(), "hostile.warc.gz")
	rec, err := warcout.Open(name, warcout.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	o.Recorder = rec
	recs, _ := crawlRecords(t, o)
	if err := errors.Join(rec.Close(), rec.Err()); err != nil {
		t.Fatal(err)
	}

	truncated := map[string]string{} // WARC-Truncated by target path
	rd, err := gowarc.NewWarcFileReader(name, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	for {
		r, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h := r.WarcRecord.WarcHeader(); r.WarcRecord.Type() == gowarc.Response {
			truncated[strings.TrimPrefix(h.Get(gowarc.WarcTargetURI), base)] = h.Get(gowarc.WarcTruncated)
		}
		r.Close()
	}
	for path, want := range map[string]string{
		"/robots.txt": "", "/hostile/loop/a": "", "/hostile/error": "length",
		"/hostile/big": "length", "/hostile/image.png": "length", "/hostile/slow": "time",
	} {
		if got, ok := truncated[path]; !ok || got != want {
			t.Errorf("%s: archived %v, WARC-Truncated %q; want %q", path, ok, got, want)
		}
	}

	pageErr := map[string]error{}
	for p, err := range page.Read([]string{name}, page.DefaultOptions()) {
		var pe *page.Error
		if errors.As(err, &pe) {
			pageErr[strings.TrimPrefix(pe.ID, base)] = err
		} else if err == nil {
			pageErr[strings.TrimPrefix(p.ID, base)] = nil
		}
	}
	for _, r := range recs {
		path := strings.TrimPrefix(r.URL, base)
		err, ok := pageErr[path]
		switch {
		case r.Err == nil && r.Status == 200 && (!ok || err != nil):
			t.Errorf("%s: crawled, but from the archive: %v", path, err)
		case errors.Is(r.Err, ErrTooLarge) && !errors.Is(err, page.ErrTruncated):
			t.Errorf("%s: too large for the crawl, from the archive: %v", path, err)
		case errors.Is(r.Err, ErrNotHTML) && !errors.Is(err, page.ErrNotHTML):
			t.Errorf("%s: not HTML for the crawl, from the archive: %v", path, err)
		}
	}
}
