package indexer

import (
	"testing"

	"github.com/bleve-dedup/bleve-dedup/boolquery"
	"github.com/blevesearch/bleve/v2"
)

// TestMappingSearches checks what the lean default mapping must still
// answer: phrases in the text (term positions), unqualified terms over
// title and text in both query syntaxes, and the stored title.
func TestMappingSearches(t *testing.T) {
	ix, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	docs := []Document{
		{ID: "a", Title: "Rooftop bees", Paragraphs: []string{"The quick brown fox jumps over the hive."}},
		{ID: "b", Title: "City rules", Paragraphs: []string{"Backyard hives need a permit; the fox brown is a rare colour.", "城市养蜂的新规定。"}},
	}
	if _, err := batchDocs(ix, docs); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		q    string
		syn  boolquery.Syntax
		want []string
	}{
		{`"brown fox"`, boolquery.Boolean, []string{"a"}},
		{`"fox brown"`, boolquery.Boolean, []string{"b"}},
		{`"brown fox"`, boolquery.QueryString, []string{"a"}},
		{"rooftop", boolquery.Boolean, []string{"a"}},
		{"+fox -rooftop", boolquery.QueryString, []string{"b"}},
		{"养蜂", boolquery.Boolean, []string{"b"}},
		{"title:rules", boolquery.QueryString, []string{"b"}},
	}
	for _, tt := range tests {
		q, err := boolquery.Query(tt.q, boolquery.Options{Fields: ix.SearchFields(), Syntax: tt.syn})
		if err != nil {
			t.Fatalf("Query(%q): %v", tt.q, err)
		}
		req := bleve.NewSearchRequest(q)
		req.Fields = []string{FieldTitle}
		res, err := ix.Search(req)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range res.Hits {
			got = append(got, h.ID)
			if h.Fields[FieldTitle] == nil {
				t.Errorf("%q: hit %s has no stored title", tt.q, h.ID)
			}
		}
		if len(got) != len(tt.want) || (len(got) > 0 && got[0] != tt.want[0]) {
			t.Errorf("%v %q: hits %v, want %v", tt.syn, tt.q, got, tt.want)
		}
	}
}
