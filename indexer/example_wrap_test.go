package indexer_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/blevesearch/bleve/v2"

	"github.com/bleve-dedup/bleve-dedup/indexer"
)

// ExampleWrap is bleve's own first example (a message indexed and found
// with a query string) with the one line that puts the filter in front of
// the index: a repost of the message is then kept out.
func ExampleWrap() {
	dir, err := os.MkdirTemp("", "example-wrap-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	message := struct {
		Id   string
		From string
		Body string
	}{
		Id:   "example",
		From: "xyz@couchbase.com",
		Body: "bleve indexing is easy",
	}

	mapping := bleve.NewIndexMapping()
	index, err := bleve.New(filepath.Join(dir, "example.bleve"), mapping)
	if err != nil {
		log.Fatal(err)
	}
	// The one line more: near-duplicates of a Body are kept out.
	index, err = indexer.Wrap(index, indexer.Options{Store: filepath.Join(dir, "example.dedup"), TextFields: []string{"Body"}})
	if err != nil {
		log.Fatal(err)
	}
	defer index.Close()
	index.Index(message.Id, message)
	message.From = "abc@example.com" // reposted by someone else
	index.Index("repost", message)

	query := bleve.NewQueryStringQuery("bleve")
	searchRequest := bleve.NewSearchRequest(query)
	searchResult, err := index.Search(searchRequest)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(searchResult.Total, "match:", searchResult.Hits[0].ID)
	n, _ := index.DocCount()
	fmt.Println(n, "document in the index")
	// Output:
	// 1 match: example
	// 1 document in the index
}
