// Package testindex builds the index fixture several packages' tests
// share: the pages of the repository's testdata/pages (English and Chinese
// sites with reprints) indexed through package indexer.
package testindex

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/extracttest"
	"github.com/bleve-dedup/bleve-dedup/page"
	"github.com/bleve-dedup/bleve-dedup/server"
)

// PagesDir returns the path of the repository's testdata/pages.
func PagesDir(tb testing.TB) string {
	tb.Helper()
	return filepath.Join(extracttest.ModuleRoot(tb), "testdata", "pages")
}

// Pages indexes testdata/pages under policy into dir (a fresh
// t.TempDir() when dir is empty) and returns the open index, closed when
// the test ends.
func Pages(tb testing.TB, dir string, policy dedupfilter.Policy) *indexer.Index {
	tb.Helper()
	o := indexer.Options{}
	o.Policy = policy
	return PagesWith(tb, dir, o)
}

// PagesWith is Pages with the index's options.
func PagesWith(tb testing.TB, dir string, o indexer.Options) *indexer.Index {
	tb.Helper()
	if dir == "" {
		dir = tb.TempDir()
	}
	ix, err := indexer.Open(dir, o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ix.Close() })
	pages := page.Read([]string{PagesDir(tb)}, page.DefaultOptions())
	if _, err := ix.IndexPages(context.Background(), pages, indexer.DefaultRunOptions()); err != nil {
		tb.Fatal(err)
	}
	return ix
}

// Documents indexes docs in order in one batch (each under its ID) and
// returns their decisions.
func Documents(tb testing.TB, ix *indexer.Index, docs ...indexer.Document) []dedupfilter.Decision {
	tb.Helper()
	b := ix.NewBatch()
	for _, d := range docs {
		if err := b.Index(d.ID, d); err != nil {
			tb.Fatal(err)
		}
	}
	decs, err := ix.BatchDecisions(b)
	if err != nil {
		tb.Fatal(err)
	}
	return decs
}

// IngestServer returns a server over a new empty index that takes pages
// (server.DefaultIngest), with its Ingest changed by change when not nil;
// both close when the test ends, the server first.
func IngestServer(tb testing.TB, change func(*server.Ingest)) (*indexer.Index, *server.Server) {
	tb.Helper()
	ix, err := indexer.Open(tb.TempDir(), indexer.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ix.Close() })
	o := server.DefaultOptions()
	o.Ingest = server.DefaultIngest(ix)
	if change != nil {
		change(o.Ingest)
	}
	srv, err := server.New(ix, o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(srv.Close)
	return ix, srv
}

// Split writes n passages to one bleve index and, split at random, to
// two more (the shards of an alias): passages in clusters of 1 to 4
// sharing their text, each with a title and URL, cut from a source page
// (field source; one in ten without), at a position (pos) on it, from a
// site (site). The indexes close when the test ends.
func Split(t *testing.T, n int) (union, a, b bleve.Index) {
	t.Helper()
	open := func() bleve.Index {
		idx, err := bleve.New(t.TempDir()+"/b", indexer.NewMapping())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { idx.Close() })
		return idx
	}
	union, a, b = open(), open(), open()
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta")
	r := rand.New(rand.NewPCG(17, 3))
	for i, c := 0, 0; i < n; c++ {
		text := words[r.IntN(len(words))] + " " + words[r.IntN(len(words))]
		for range min(1+r.IntN(4), n-i) {
			doc := map[string]any{
				indexer.FieldText:    text,
				indexer.FieldTitle:   fmt.Sprintf("passage %d", i),
				indexer.FieldURL:     fmt.Sprintf("https://example.com/%d", i),
				indexer.FieldCluster: fmt.Sprintf("%016x", c),
				"pos":                fmt.Sprintf("p%03d", r.IntN(50)),
				"site":               fmt.Sprintf("site%d", r.IntN(5)),
			}
			if r.IntN(10) > 0 {
				doc["source"] = fmt.Sprintf("s%03d", r.IntN(n/6))
			}
			shard := a
			if r.IntN(2) == 1 {
				shard = b
			}
			for _, idx := range []bleve.Index{union, shard} {
				if err := idx.Index(fmt.Sprintf("d%04d", i), doc); err != nil {
					t.Fatal(err)
				}
			}
			i++
		}
	}
	return union, a, b
}

// NoFolds is a store that knows no cluster (a collapse.Store): folded
// members come from the store, alike whatever the shards, and tests of
// hits leave them out.
type NoFolds struct{}

// Fold returns no member for any hit.
func (NoFolds) Fold(hits, clusters []string, max int) ([]dedupfilter.Folded, error) {
	return make([]dedupfilter.Folded, len(hits)), nil
}
