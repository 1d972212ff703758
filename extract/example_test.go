package extract_test

import (
	"fmt"

	"github.com/bleve-dedup/bleve-dedup/extract"
)

func ExampleText() {
	c := extract.Text("First paragraph,\nhard-wrapped.\n\nSecond paragraph.")
	fmt.Println(len(c.Paragraphs))
	fmt.Println(c.Text())
	// Output:
	// 2
	// First paragraph, hard-wrapped.
	// Second paragraph.
}

func ExampleHTML() {
	doc := `<html><head><title>Library hours</title></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a></nav>
<article><p>The central library will stay open until nine in the evening from next month, the council said.</p>
<p>The change is paid for by running the mobile library on three days a week instead of five.</p>
<p>Source: council press office</p></article>
<footer>Copyright © 2019 Town Gazette</footer></body></html>`
	c, err := extract.HTML(doc, "https://example.com/library")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Title)
	for _, p := range c.Paragraphs {
		fmt.Println("-", p)
	}
	// Output:
	// Library hours
	// - The central library will stay open until nine in the evening from next month, the council said.
	// - The change is paid for by running the mobile library on three days a week instead of five.
}
