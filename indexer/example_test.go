package indexer_test

import (
	"fmt"
	"log"
	"os"

	"github.com/bleve-dedup/bleve-dedup/indexer"
)

func ExampleIndex_Index() {
	dir, err := os.MkdirTemp("", "example-index-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ix, err := indexer.Open(dir, indexer.DefaultOptions())
	if err != nil {
		log.Fatal(err)
	}
	defer ix.Close()

	article := []string{
		"The city library opened its rooftop to six beehives this spring, and the first honey was sold at the summer fair.",
		"Volunteers check the hives every week. They say the bees ignore the readers below, who mostly ignore the bees.",
		"The library plans a beekeeping course for children next year, funded by the sale of the honey.",
	}
	reprint := []string{
		"Originally published by the Harbor Gazette.",
		"The city library opened its rooftop to six beehives this spring, and the first honey was sold at the summer fair.",
		"Volunteers check the hives every week.",
		"They say the bees ignore the readers below, who mostly ignore the bees.",
		"The library plans a beekeeping course for children next year, funded by the sale of the honey.",
	}
	for _, d := range []indexer.Document{
		{ID: "gazette/bees", URL: "https://gazette.example/bees", Title: "Bees on the library roof", Paragraphs: article},
		{ID: "reader/bees", URL: "https://reader.example/rooftop-hives", Title: "Rooftop hives", Paragraphs: reprint},
	} {
		dec, err := ix.Index(d)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: duplicate=%v of=%q indexed=%v\n", d.ID, dec.Duplicate, dec.Of, dec.Action.String() == "index")
	}
	// Output:
	// gazette/bees: duplicate=false of="" indexed=true
	// reader/bees: duplicate=true of="gazette/bees" indexed=false
}
