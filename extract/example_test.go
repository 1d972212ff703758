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

// A blog page whose title names its first post: the engine alone keeps
// all posts, narrowing keeps that one (with its heading).
func ExampleOptions_HTML_titleAnchor() {
	post := func(title, body string) string {
		return `<div class="post"><div class="post-title">` + title + `</div><div class="post-body">` + body +
			`</div><div class="post-footer">Posted by Mary @ 2005-03-21 01:20:44</div></div>`
	}
	doc := `<html><head><title>Noctis - blog.example.com</title></head><body><table><tr><td class="main">` +
		post("A day at the gold mine", `<h1>Noctis</h1><p>Noctis is a lunar impact crater that lies in the southern hemisphere of the far side of the Moon. It was named after a minor deity of night.</p>
<p>The floor of the crater is relatively level and marked only by a few small craterlets, and its inner wall is terraced along the northern side where slumping has occurred.</p>`) +
		post("Short hair at last", `<p>My hair had grown very long and I spent so much time every morning washing and combing it that I finally went to the barber.</p>
<p>He did not quite understand me, and half a metre of hair fell to the floor in a few minutes. I still cannot decide whether I like it.</p>`) +
		post("Back from the radio", `<p>Ten years ago there were no newspapers in our language here and no internet, so the weekly radio hour was all we had.</p>
<p>We talked about the history of the lantern festival, the riddles written on the lanterns and the sweet dumplings families eat.</p>`) +
		`</td></tr></table></body></html>`
	for _, anchor := range []bool{false, true} {
		o := extract.DefaultOptions()
		o.TitleAnchor = anchor
		c, err := o.HTML(doc, "")
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("narrowing %v: %d paragraphs, the last %.30q\n", anchor, len(c.Paragraphs), c.Paragraphs[len(c.Paragraphs)-1])
	}
	// Output:
	// narrowing false: 10 paragraphs, the last "We talked about the history of"
	// narrowing true: 3 paragraphs, the last "The floor of the crater is rel"
}
