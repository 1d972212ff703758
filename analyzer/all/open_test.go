package all_test

import (
	"path/filepath"
	"testing"

	"github.com/blevesearch/bleve/v2"

	_ "github.com/bleve-dedup/bleve-dedup/analyzer/all"
	"github.com/bleve-dedup/bleve-dedup/indexer"
)

// TestPlainBleveOpens: with this package imported, plain bleve opens an
// index of bleve-dedup (DIR/bleve) and searches it.
func TestPlainBleveOpens(t *testing.T) {
	dir := t.TempDir()
	ix, err := indexer.Open(dir, indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Index("a", indexer.Document{Title: "图书馆的蜜蜂", Paragraphs: []string{"The library keeps bees on its roof."}}); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := bleve.Open(filepath.Join(dir, "bleve"))
	if err != nil {
		t.Fatalf("bleve.Open: %v", err)
	}
	defer b.Close()
	q := bleve.NewMatchQuery("蜜蜂")
	q.SetField(indexer.FieldTitle)
	res, err := b.Search(bleve.NewSearchRequest(q))
	if err != nil || res.Total != 1 {
		t.Errorf("a search of the title through plain bleve: %v, %v; want 1 hit", res, err)
	}
}
