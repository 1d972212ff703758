package indexer

import (
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"slices"
	"strings"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/internal/testkit/synth"
)

// TestBatchDecidesAsOneByOne: a synthetic crawl (site templates that
// grow, reprints across sites) indexed in one batch ends in the clusters
// of the same pages indexed one at a time. Re-decisions in the middle of
// the batch rewrite site tables that later pages of the batch were
// planned against; those pages must be planned again.
func TestBatchDecidesAsOneByOne(t *testing.T) {
	data, err := synth.FindData()
	if err != nil {
		t.Skipf("no shared data for synthetic pages: %v", err)
	}
	model, err := synth.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	pages, err := model.Pages(synth.DefaultOptions(1500))
	if err != nil {
		t.Fatal(err)
	}
	var docs []Document
	for p := range pages {
		docs = append(docs, Document{ID: p.ID, URL: p.URL, Title: p.Title, Paragraphs: strings.Split(p.Text, "\n\n")})
	}
	batched := partition(t, openWith(t, docs, Options{}))
	single := openWith(t, nil, Options{})
	for _, d := range docs {
		if _, err := batchDocs(single, []Document{d}); err != nil {
			t.Fatal(err)
		}
	}
	if one := partition(t, single); !slices.Equal(batched, one) {
		t.Errorf("clusters in one batch differ from one page at a time:\n%d clusters: %v\n%d clusters: %v", len(batched), batched, len(one), one)
	}
}

// batchDocs indexes docs in one batch, each under its ID, and returns
// their decisions.
func batchDocs(ix *Index, docs []Document) ([]dedupfilter.Decision, error) {
	b := ix.NewBatch()
	for _, d := range docs {
		if err := b.Index(d.ID, d); err != nil {
			return nil, err
		}
	}
	return ix.BatchDecisions(b)
}
