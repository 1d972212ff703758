package indexer

import (
	"math"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/boolquery"
	"github.com/blevesearch/bleve/v2"
)

// TestAnalysedAheadSearchesAsBleve indexes the same documents through the
// indexer, which analyses them before bleve's Batch, and through bleve's
// own Batch.Index: every query must find the same documents with the same
// scores (term frequencies, positions and norms alike).
func TestAnalysedAheadSearchesAsBleve(t *testing.T) {
	docs := []Document{
		{ID: "a", Title: "Rooftop bees", Paragraphs: []string{"The quick brown fox jumps over the hive.", "Bees, bees and more bees on the roof."}},
		{ID: "b", Title: "City rules", Paragraphs: []string{"Backyard hives need a permit; the fox brown is a rare colour.", "城市养蜂的新规定。养蜂人需要登记。"}},
		{ID: "c", Title: "养蜂指南", Paragraphs: []string{"蜂箱应放在阳光充足的地方，远离道路。", "A short note on hives and honey."}},
	}
	ix, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := batchDocs(ix, docs); err != nil {
		t.Fatal(err)
	}
	plain, err := bleve.NewMemOnly(NewMapping())
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	b := plain.NewBatch()
	for _, d := range docs {
		body := map[string]any{FieldTitle: d.Title, FieldText: joinParagraphs(d.Paragraphs), FieldCluster: d.ID}
		if err := b.Index(d.ID, body); err != nil {
			t.Fatal(err)
		}
	}
	if err := plain.Batch(b); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"bees", `"brown fox"`, "fox hive", "养蜂", "蜂箱 阳光", "title:rules", "honey -rooftop"} {
		q, err := boolquery.Query(s, boolquery.Options{Fields: ix.SearchFields(), Syntax: boolquery.QueryString})
		if err != nil {
			t.Fatalf("Query(%q): %v", s, err)
		}
		got, err := ix.Search(bleve.NewSearchRequest(q))
		if err != nil {
			t.Fatal(err)
		}
		want, err := plain.Search(bleve.NewSearchRequest(q))
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Hits) == 0 {
			t.Fatalf("%q: plain bleve finds nothing: a query that cannot tell", s)
		}
		if len(got.Hits) != len(want.Hits) {
			t.Errorf("%q: %d hits, want %d", s, len(got.Hits), len(want.Hits))
			continue
		}
		for i := range want.Hits {
			g, w := got.Hits[i], want.Hits[i]
			if g.ID != w.ID || math.Abs(g.Score-w.Score) > 1e-9 {
				t.Errorf("%q: hit %d is %s (score %g), want %s (score %g)", s, i, g.ID, g.Score, w.ID, w.Score)
			}
		}
	}
}
