// Package shapes makes pathological HTML pages: shapes whose cost would
// blow up in a stage that is not linear in the page (extraction, analysis,
// indexing), for the tests and benchmarks of those stages.
package shapes

import "strings"

// Shape is a kind of page.
type Shape struct {
	Name string
	// Page returns a page of about size bytes. Every page has a title and
	// a heading that names it, so title-anchored narrowing runs too.
	Page func(size int) string
}

// All are the pathological shapes the extraction and indexing benchmarks run.
var All = []Shape{
	// Long paragraphs of lower-case words without end punctuation: every
	// paragraph continues the one before (see extract's joinBroken).
	{"lowercase", func(size int) string {
		para := "<p>" + strings.TrimSpace(strings.Repeat("lorem ipsum dolor sit amet consectetur adipiscing elit ", 18)) + "</p>\n"
		return page(size, para)
	}},
	// One table of short cells.
	{"table", func(size int) string {
		row := "<tr><td>cell one</td><td>2019</td><td><a href=/x>link</a></td><td>some longer text in a cell</td></tr>\n"
		return strings.Replace(page(size, row), "<body>", "<body><table>", 1)
	}},
	// Elements nested inside each other, none closed.
	{"nested", func(size int) string {
		return page(size, `<div class="c">word word word `)
	}},
	// Links, a hundred thousand in 8 MB.
	{"links", func(size int) string {
		return page(size, `<a href="/section/page-12345.html">a link to another page</a> `)
	}},
	// One line of Chinese without a delimiter.
	{"han", func(size int) string {
		return page(size, "中文文本没有任何标点符号的一行")
	}},
}

// page returns a page of about size bytes: a title, a heading naming it,
// and unit repeated.
func page(size int, unit string) string {
	head := "<html><head><title>Shape test page - example.com</title></head><body><h1>Shape test page</h1>"
	return head + strings.Repeat(unit, max(1, (size-len(head))/len(unit))) + "</body></html>"
}
