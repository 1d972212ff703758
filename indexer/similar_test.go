package indexer_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/store/storetest"
)

// beeDocs are an article, its reprint, the story told again in other
// words with a sentence of the original, and another article.
var beeDocs = []indexer.Document{
	{ID: "gazette/bees", Title: "Bees on the library roof", Paragraphs: []string{
		"The city library opened its rooftop to six beehives this spring, and the first honey was sold at the summer fair.",
		"Volunteers check the hives every week. They say the bees ignore the readers below, who mostly ignore the bees.",
		"The library plans a beekeeping course for children next year, funded by the sale of the honey.",
	}},
	{ID: "reader/bees", Title: "Rooftop hives", Paragraphs: []string{
		"Originally published by the Harbor Gazette.",
		"The city library opened its rooftop to six beehives this spring, and the first honey was sold at the summer fair.",
		"Volunteers check the hives every week.",
		"They say the bees ignore the readers below, who mostly ignore the bees.",
		"The library plans a beekeeping course for children next year, funded by the sale of the honey.",
	}},
	{ID: "weekly/bees", Title: "Honey from the stacks", Paragraphs: []string{
		"Six beehives now stand on the roof of the city library, put there this spring; their first honey went on sale at the summer fair.",
		"Every week volunteers look after the hives. They say the bees ignore the readers below, who mostly ignore the bees.",
		"Next year the sale of the honey will pay for a beekeeping course for children at the library.",
	}},
	{ID: "gazette/ferry", Title: "Night ferry returns", Paragraphs: []string{
		"The night ferry to the islands runs again from Friday, after two years of repairs to the old pier.",
		"Tickets cost the same as before, and bicycles travel free on the late crossings.",
	}},
}

// ExampleIndex_Similar lists the documents most similar to an article:
// its reprint, a copy, and the story retold, with the evidence.
func ExampleIndex_Similar() {
	dir, err := os.MkdirTemp("", "example-similar-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	o := indexer.Options{}
	o.Policy = dedupfilter.Mark
	ix, err := indexer.Open(dir, o)
	if err != nil {
		log.Fatal(err)
	}
	defer ix.Close()
	for _, d := range beeDocs {
		if err := ix.Index(d.ID, d); err != nil {
			log.Fatal(err)
		}
	}
	similar, err := ix.Similar(context.Background(), indexer.SimilarRequest{ID: "gazette/bees"})
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range similar {
		fmt.Printf("%s %s: score %.2f, %d blocks shared, holds %.2f of its terms\n", s.ID, s.Grade, s.Score, s.Lists.Blocks, s.Verdict.InB)
	}
	// Output:
	// reader/bees copy: score 0.90, 7 blocks shared, holds 1.00 of its terms
	// weekly/bees rewritten: score 0.30, 2 blocks shared, holds 0.75 of its terms
}

// openBees opens an index in a fresh directory under o with beeDocs.
func openBees(t *testing.T, o indexer.Options) *indexer.Index {
	t.Helper()
	ix, err := indexer.Open(t.TempDir(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	for _, d := range beeDocs {
		if err := ix.Index(d.ID, d); err != nil {
			t.Fatal(err)
		}
	}
	return ix
}

func grades(found []dedupfilter.Similar) []string {
	var out []string
	for _, s := range found {
		out = append(out, s.ID+" "+string(s.Grade))
	}
	return out
}

func TestSimilar(t *testing.T) {
	o := indexer.Options{}
	o.Policy = dedupfilter.Suppress
	ix := openBees(t, o)
	tests := []struct {
		name string
		r    indexer.SimilarRequest
		want []string
	}{
		{"by id", indexer.SimilarRequest{ID: "gazette/bees"}, []string{"reader/bees copy", "weekly/bees rewritten"}},
		{"k", indexer.SimilarRequest{ID: "gazette/bees", K: 1}, []string{"reader/bees copy"}},
		{"by text", indexer.SimilarRequest{Paragraphs: beeDocs[0].Paragraphs},
			[]string{"gazette/bees copy", "reader/bees copy", "weekly/bees rewritten"}},
		{"nothing shared", indexer.SimilarRequest{ID: "gazette/ferry"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			found, err := ix.Similar(context.Background(), tt.r)
			if err != nil {
				t.Fatalf("Similar: %v", err)
			}
			if got := grades(found); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	// Under suppress the reprint left bleve, and is found all the same.
	found, err := ix.Similar(context.Background(), indexer.SimilarRequest{ID: "gazette/bees", K: 1})
	if err != nil || len(found) != 1 || found[0].Indexed {
		t.Errorf("got %+v, %v, want the reprint, not indexed", found, err)
	}
}

func TestSimilarErrors(t *testing.T) {
	ix := openBees(t, indexer.Options{})
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		r    indexer.SimilarRequest
		want error
	}{
		{"neither", context.Background(), indexer.SimilarRequest{}, indexer.ErrInvalidDocument},
		{"both", context.Background(), indexer.SimilarRequest{ID: "gazette/bees", Paragraphs: []string{"x"}}, indexer.ErrInvalidDocument},
		{"no words", context.Background(), indexer.SimilarRequest{Paragraphs: []string{"。，"}}, indexer.ErrInvalidDocument},
		{"unknown id", context.Background(), indexer.SimilarRequest{ID: "nope"}, dedupfilter.ErrNotFound},
		{"negative k", context.Background(), indexer.SimilarRequest{ID: "gazette/bees", K: -1}, indexer.ErrInvalidOptions},
		{"cancelled", cancelled, indexer.SimilarRequest{ID: "gazette/bees"}, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ix.Similar(tt.ctx, tt.r); !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
	plain := openBees(t, indexer.Options{NoDedup: true})
	if _, err := plain.Similar(context.Background(), indexer.SimilarRequest{ID: "gazette/bees"}); !errors.Is(err, indexer.ErrInvalidOptions) {
		t.Errorf("an index without the filter: got %v, want %v", err, indexer.ErrInvalidOptions)
	}
}

// TestSimilarAlias: over an Alias of shards sharing one store, the
// documents of every shard are found.
func TestSimilarAlias(t *testing.T) {
	store := fmt.Sprintf("redis://%s/similartest-%x", storetest.RedisAddrs(t), rand.Uint64())
	var shards []*indexer.Index
	for i := range 2 {
		o := indexer.Options{Store: store}
		o.Policy = dedupfilter.Mark
		ix, err := indexer.Open(t.TempDir(), o)
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		for j, d := range beeDocs {
			if j%2 == i {
				if err := ix.Index(d.ID, d); err != nil {
					t.Fatal(err)
				}
			}
		}
		shards = append(shards, ix)
	}
	all, err := indexer.Alias(shards...)
	if err != nil {
		t.Fatal(err)
	}
	found, err := all.Similar(context.Background(), indexer.SimilarRequest{ID: "gazette/bees"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := grades(found), []string{"reader/bees copy", "weekly/bees rewritten"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
