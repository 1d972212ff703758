package indexer

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testtext"
	"github.com/bleve-dedup/bleve-dedup/page"
	"github.com/blevesearch/bleve/v2"
)

// partition returns the store's clusters as sorted member lists, sorted.
func partition(tb testing.TB, ix *Index) []string {
	tb.Helper()
	var got []string
	err := ix.Filter().Clusters(func(c dedupfilter.Cluster) error {
		m := append([]string(nil), c.Members...)
		sort.Strings(m)
		got = append(got, strings.Join(m, ","))
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	sort.Strings(got)
	return got
}

// TestConcurrentIndex indexes articles and their copies from many
// goroutines at once and expects the clusters of a serial run: the filter
// decision and its bleve write are one critical section, so two copies
// can never both be admitted as originals.
func TestConcurrentIndex(t *testing.T) {
	var docs []Document
	for a := range 12 {
		body := testtext.Article(fmt.Sprintf("topic %d", a), 3)
		for c := range 3 {
			ps := append([]string(nil), body...)
			ps[c%3] += fmt.Sprintf(" Copy %d.", c)
			docs = append(docs, Document{ID: fmt.Sprintf("art%02d-copy%d", a, c), Paragraphs: ps})
		}
	}
	serial := openWith(t, docs, Options{})
	want := partition(t, serial)
	if len(want) != 12 {
		t.Fatalf("serial run found %d clusters, want 12: %v", len(want), want)
	}

	ix, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var wg sync.WaitGroup
	for i := range docs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := docs[len(docs)-1-i]
			if err := ix.Index(d.ID, d); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got := partition(t, ix); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("concurrent clusters:\n%v\nwant (serial):\n%v", got, want)
	}
}

// TestBatchStoreFailure closes the store under a batch's feet: Batch must
// return the store's error and stop its analysis workers (the race
// detector and the test's end would catch one still writing).
func TestBatchStoreFailure(t *testing.T) {
	ix, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var docs []Document
	for a := range 40 {
		docs = append(docs, Document{ID: fmt.Sprintf("art%02d", a), Paragraphs: testtext.Article(fmt.Sprintf("topic %d", a), 3)})
	}
	if err := ix.Filter().Close(); err != nil {
		t.Fatal(err)
	}
	decs, err := batchDocs(ix, docs)
	if !errors.Is(err, dedupfilter.ErrClosed) || len(decs) != 0 {
		t.Errorf("Batch on a closed store = %d decisions, %v; want none and ErrClosed", len(decs), err)
	}
}

// TestFlushAfter feeds pages slowly, as a crawler posting to a server
// would: with FlushAfter each page becomes searchable while the input is
// still open, without it only when the batch fills or the input ends.
func TestFlushAfter(t *testing.T) {
	tests := []struct {
		name       string
		flushAfter time.Duration
		wantSeen   bool
	}{
		{"flush after 100ms", 100 * time.Millisecond, true},
		{"full batches only", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix, err := Open(t.TempDir(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			feed := make(chan page.Page)
			pages := func(yield func(page.Page, error) bool) {
				for p := range feed {
					if !yield(p, nil) {
						return
					}
				}
			}
			o := DefaultRunOptions()
			o.FlushAfter = tt.flushAfter
			done := make(chan error, 1)
			go func() {
				_, err := ix.IndexPages(context.Background(), pages, o)
				done <- err
			}()
			for i := range 3 {
				feed <- page.Page{ID: fmt.Sprint("p", i), Text: strings.Join(testtext.Article(fmt.Sprint("slow feed ", i), 3), "\n\n")}
				seen := searchable(t, ix, fmt.Sprint("p", i), time.Second)
				if seen != tt.wantSeen {
					t.Errorf("page %d searchable with the input open: got %v, want %v", i, seen, tt.wantSeen)
				}
			}
			close(feed)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if n, _ := ix.Unwrap().DocCount(); n != 3 {
				t.Errorf("after the input ended: got %d documents, want 3", n)
			}
		})
	}
}

// searchable reports whether id is in ix's search index within wait
// (looked at once at least).
func searchable(tb testing.TB, ix *Index, id string, wait time.Duration) bool {
	tb.Helper()
	end := time.Now().Add(wait)
	for {
		res, err := ix.Search(bleve.NewSearchRequest(bleve.NewDocIDQuery([]string{id})))
		if err != nil {
			tb.Fatal(err)
		}
		if res.Total == 1 {
			return true
		}
		if time.Now().After(end) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestBatchBytes checks that a batch ends at BatchBytes of text as well as
// at BatchSize documents.
func TestBatchBytes(t *testing.T) {
	tests := []struct {
		name             string
		size, bytes      int
		wantBatches      int
		wantLastProgress int
	}{
		{"by count", 4, 0, 3, 10},
		{"by bytes", 1000, 2500, 4, 10}, // each page ~1 KB: 3, 3, 3, 1
		{"both", 2, 2500, 6, 10},        // five full batches and the final, empty flush
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix, err := Open(t.TempDir(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			pages := func(yield func(page.Page, error) bool) {
				for i := range 10 {
					text := strings.Repeat(fmt.Sprintf("page %d word ", i), 80) // ~1 KB, distinct
					if !yield(page.Page{ID: fmt.Sprint("p", i), Text: text}, nil) {
						return
					}
				}
			}
			o := DefaultRunOptions()
			o.BatchSize, o.BatchBytes = tt.size, tt.bytes
			batches, last := 0, 0
			o.Progress = func(st Stats) { batches++; last = st.Read }
			if _, err := ix.IndexPages(context.Background(), pages, o); err != nil {
				t.Fatal(err)
			}
			if batches != tt.wantBatches || last != tt.wantLastProgress {
				t.Errorf("BatchSize %d, BatchBytes %d: %d batches, last at %d pages read; want %d, %d", tt.size, tt.bytes, batches, last, tt.wantBatches, tt.wantLastProgress)
			}
		})
	}
}
