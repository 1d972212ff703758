package indexer

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/page"
)

// TestFeed: pages added from many goroutines at once, some extracted by
// their caller, each get their decision, and the clusters are those of a
// bulk run of the same pages; a page added again unchanged gets
// ErrUnchanged, and Adds after Close fail.
func TestFeed(t *testing.T) {
	var pages []page.Page
	for p, err := range page.Read([]string{"../testdata/pages"}, page.DefaultOptions()) {
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, p)
	}
	bulk, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer bulk.Close()
	if _, err := bulk.IndexPages(context.Background(), func(yield func(page.Page, error) bool) {
		for _, p := range pages {
			if !yield(p, nil) {
				return
			}
		}
	}, DefaultRunOptions()); err != nil {
		t.Fatal(err)
	}

	ix, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	f, err := ix.Feed(context.Background(), DefaultRunOptions())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	var mu sync.Mutex
	decided := map[string]bool{}
	for i, p := range pages {
		wg.Go(func() {
			var doc *Document
			if i%2 == 0 { // extracted by the caller, as a crawler does
				d, err := FromPage(p)
				if err != nil {
					t.Error(err)
					return
				}
				doc = &d
			}
			dec, err := f.Add(ctx, p, doc)
			if err != nil || dec.ID != p.ID || dec.Cluster == "" {
				t.Errorf("Add(%s) = %+v, %v; want its decision", p.ID, dec, err)
			}
			mu.Lock()
			decided[p.ID] = true
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(decided) != len(pages) {
		t.Fatalf("%d of %d pages decided", len(decided), len(pages))
	}
	if _, err := f.Add(ctx, pages[0], nil); !errors.Is(err, ErrUnchanged) {
		t.Errorf("a page added again: %v, want ErrUnchanged", err)
	}
	st, err := f.Close()
	if err != nil || st.Read != len(pages)+1 || st.Unchanged != 1 {
		t.Errorf("Close = %+v, %v; want %d read, 1 unchanged", st, err, len(pages)+1)
	}
	if _, err := f.Add(ctx, pages[1], nil); err == nil {
		t.Error("Add after Close succeeded")
	}
	if got, want := partition(t, ix), partition(t, bulk); !slices.Equal(got, want) {
		t.Errorf("clusters through the feed:\n%v\nin a bulk run:\n%v", got, want)
	}
}
