package indexer_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/bleve-dedup/bleve-dedup/boolquery"
	"github.com/bleve-dedup/bleve-dedup/collapse"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/page"
)

func ExampleIndex_Index() {
	dir, err := os.MkdirTemp("", "example-index-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ix, err := indexer.Open(dir, indexer.Options{})
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
		dec, err := ix.IndexDecision(d.ID, d)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: duplicate=%v of=%q indexed=%v\n", d.ID, dec.Duplicate, dec.Of, dec.Action.String() == "index")
	}
	// Output:
	// gazette/bees: duplicate=false of="" indexed=true
	// reader/bees: duplicate=true of="gazette/bees" indexed=false
}

// ExampleIndex_IndexPages indexes pages from their HTML, as a crawl
// brings them: an article, its reprint on another site (in that site's
// template, under another title), and another article; then searches one
// hit per cluster.
func ExampleIndex_IndexPages() {
	dir, err := os.MkdirTemp("", "example-pages-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ix, err := indexer.Open(dir, indexer.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer ix.Close()

	article := `<p>The city library opened its rooftop to six beehives this spring, and the first honey was sold at the summer fair.</p>
<p>Volunteers check the hives every week. They say the bees ignore the readers below, who mostly ignore the bees.</p>
<p>The library plans a beekeeping course for children next year, funded by the sale of the honey.</p>`
	pages := []page.Page{
		{ID: "gazette/bees", URL: "https://gazette.example/bees",
			HTML: `<html><head><title>Bees on the library roof</title></head><body><nav><a href="/">Home</a> <a href="/city">City</a></nav>
<article><h1>Bees on the library roof</h1>` + article + `</article><footer>© Harbor Gazette</footer></body></html>`},
		{ID: "reader/rooftop", URL: "https://reader.example/2026/rooftop-hives",
			HTML: `<html><head><title>Rooftop hives | Daily Reader</title></head><body><div class="menu">News Sports Weather</div>
<div class="post"><h2>Rooftop hives</h2><p>Originally published by the Harbor Gazette.</p>` + article + `</div><div class="footer">Daily Reader</div></body></html>`},
		{ID: "gazette/ferry", URL: "https://gazette.example/ferry",
			HTML: `<html><head><title>Night ferry returns</title></head><body><article><h1>Night ferry returns</h1>
<p>The night ferry to the islands runs again from Friday, after two years of repairs to the old pier.</p>
<p>Tickets cost the same as before, and bicycles travel free on the late crossings.</p></article></body></html>`},
	}
	st, err := ix.IndexPages(context.Background(), func(yield func(page.Page, error) bool) {
		for _, p := range pages {
			if !yield(p, nil) {
				return
			}
		}
	}, indexer.DefaultRunOptions())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("read %d, indexed %d, duplicates %d\n", st.Read, st.Indexed, st.Duplicates)

	q, err := boolquery.Query("library OR ferry", boolquery.Options{Fields: ix.SearchFields()})
	if err != nil {
		log.Fatal(err)
	}
	res, err := collapse.New(ix.Unwrap(), ix.Filter()).Search(context.Background(), collapse.Request{Query: q, Collapse: true})
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range res.Hits {
		fmt.Printf("%s (%s), %d copy folded\n", h.ID, h.Title, h.Folded)
	}
	// Unordered output:
	// read 3, indexed 2, duplicates 1
	// gazette/bees (Bees on the library roof), 1 copy folded
	// gazette/ferry (Night ferry returns), 0 copy folded
}
