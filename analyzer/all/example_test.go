package all_test

import (
	"fmt"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"

	_ "github.com/bleve-dedup/bleve-dedup/analyzer/all"
)

// A field analysed with "dedup_terms" indexes the boolean-model paper's terms: width-folded,
// lowercased words and Han bigrams.
func Example() {
	body := mapping.NewTextFieldMapping()
	body.Analyzer = "dedup_terms"
	doc := bleve.NewDocumentMapping()
	doc.AddFieldMappingsAt("body", body)
	im := bleve.NewIndexMapping()
	im.DefaultMapping = doc

	idx, err := bleve.NewMemOnly(im)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer idx.Close()
	if err := idx.Index("a", map[string]string{"body": "ＢＬＥＶＥ全文检索"}); err != nil {
		fmt.Println(err)
		return
	}
	q := bleve.NewTermQuery("检索")
	q.SetField("body")
	res, err := idx.Search(bleve.NewSearchRequest(q))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Total)
	// Output:
	// 1
}
