package trafilatura_test

import (
	"fmt"

	"github.com/bleve-dedup/bleve-dedup/extract"
)

// A program that imports this package (here, its test) can select the
// Trafilatura engine in extract.Options.
func Example() {
	doc := `<html><head><title>Ferry timetable - Island News</title></head><body>
<nav><a href="/">Home</a> <a href="/travel">Travel</a></nav>
<article><h1>Ferry timetable</h1>
<p>The island ferry will run every half hour from the first of May, the harbour office said on Monday.</p>
<p>Tickets bought before then stay valid on the new crossings, and season passes are extended by a month.</p></article>
<footer>Copyright © 2024 Island News</footer></body></html>`
	o := extract.DefaultOptions()
	o.Engine = extract.Trafilatura
	c, err := o.HTML(doc, "https://example.com/ferry")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Title)
	for _, p := range c.Paragraphs {
		fmt.Println("-", p)
	}
	// Output:
	// Ferry timetable
	// - Ferry timetable
	// - The island ferry will run every half hour from the first of May, the harbour office said on Monday.
	// - Tickets bought before then stay valid on the new crossings, and season passes are extended by a month.
}
