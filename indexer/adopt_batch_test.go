package indexer_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testindex"
	"github.com/bleve-dedup/bleve-dedup/page"
)

// adoptable writes pages into a new plain bleve index with bleve's
// default mapping and wraps it under mark, its store beside it.
func adoptable(t *testing.T, pages []page.Page) (w *indexer.Index, path string) {
	t.Helper()
	dir := t.TempDir()
	path = filepath.Join(dir, "plain.bleve")
	idx, err := bleve.New(path, bleve.NewIndexMapping())
	if err != nil {
		t.Fatal(err)
	}
	b := idx.NewBatch()
	for _, p := range pages {
		if err := b.Index(p.ID, webPage{URL: p.URL, Title: p.Title, HTML: p.HTML}); err != nil {
			t.Fatal(err)
		}
	}
	if err := idx.Batch(b); err != nil {
		t.Fatal(err)
	}
	o := pageFields
	o.Store, o.Policy = filepath.Join(dir, "plain.dedup"), dedupfilter.Mark
	if w, err = indexer.Wrap(idx, o); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, path
}

// TestAdoptBatches: a batch ends at BatchSize documents or once their
// stored fields reach BatchBytes, whichever comes first, and the clusters
// do not depend on where batches end.
func TestAdoptBatches(t *testing.T) {
	pages := testPages(t)
	want := clustersOfFilter(t, testindex.Pages(t, "", dedupfilter.Mark).Filter())
	n := len(pages)
	// every returns the counts adopted after each batch of size docs.
	every := func(size int) []int {
		var out []int
		for i := size; i < n+size; i += size {
			out = append(out, min(i, n))
		}
		return out
	}
	tests := []struct {
		name string
		o    indexer.AdoptOptions
		want []int // documents adopted after each batch
	}{
		{"by count", indexer.AdoptOptions{BatchSize: 4, BatchBytes: 1 << 30}, every(4)},
		{"by bytes", indexer.AdoptOptions{BatchSize: 1000, BatchBytes: 1}, every(1)},
		{"the defaults", indexer.AdoptOptions{}, every(n)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, _ := adoptable(t, pages)
			var got []int
			tt.o.Progress = func(st indexer.AdoptStats) { got = append(got, st.Adopted) }
			st, err := w.Adopt(context.Background(), tt.o)
			if err != nil || st.Unseen != n || st.Adopted != n {
				t.Fatalf("Adopt = %+v, %v; want all %d pages adopted", st, err, n)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("adopted after each batch: got %v, want %v", got, tt.want)
			}
			if got := clustersOfFilter(t, w.Filter()); !slices.Equal(got, want) {
				t.Errorf("clusters adopted:\n%s\nindexed fresh:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// TestAdoptStopped: an Adopt cancelled after its first batch keeps that
// batch and counts only it; the next goes on with the rest and ends in
// the clusters of an Adopt never stopped.
func TestAdoptStopped(t *testing.T) {
	pages := testPages(t)
	want := clustersOfFilter(t, testindex.Pages(t, "", dedupfilter.Mark).Filter())
	w, _ := adoptable(t, pages)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first, err := w.Adopt(ctx, indexer.AdoptOptions{BatchSize: 4, Progress: func(indexer.AdoptStats) { cancel() }})
	if !errors.Is(err, context.Canceled) || first.Unseen != 4 || first.Adopted != 4 {
		t.Fatalf("stopped Adopt = %+v, %v; want 4 unseen and adopted, context.Canceled", first, err)
	}
	rest, err := w.Adopt(context.Background(), indexer.AdoptOptions{})
	if err != nil || rest.Unseen != len(pages)-4 || rest.Adopted != len(pages)-4 {
		t.Fatalf("next Adopt = %+v, %v; want the other %d pages adopted", rest, err, len(pages)-4)
	}
	if got := clustersOfFilter(t, w.Filter()); !slices.Equal(got, want) {
		t.Errorf("clusters adopted in two runs:\n%s\nindexed fresh:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
