// Package extract finds the main content of a web page.
package extract

// Content is the main content of a page.
type Content struct {
	Title      string
	Paragraphs []string
}
