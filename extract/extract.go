package extract

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/bleve-dedup/bleve-dedup/page"
	"github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"
)

// ErrNoContent is returned with a Content that has no paragraphs: neither
// go-trafilatura nor the fallback found main text. Content.Title may still be set.
var ErrNoContent = errors.New("no main content")

// Content is the main content of a page.
type Content struct {
	Title      string
	Paragraphs []string // main-text paragraphs in page order, white space collapsed
}

// Text returns the paragraphs joined with "\n".
func (c Content) Text() string {
	return strings.Join(c.Paragraphs, "\n")
}

// HTML extracts the main content of an HTML page with DefaultOptions.
// pageURL may be empty; it only helps go-trafilatura resolve relative links
// and site-specific rules.
func HTML(doc, pageURL string) (Content, error) {
	return DefaultOptions().HTML(doc, pageURL)
}

// HTML extracts the main content of an HTML page: go-trafilatura first, and
// when it finds nothing, the paragraphs of the page outside boilerplate
// elements (see fallback). It is safe for concurrent use.
func (o Options) HTML(doc, pageURL string) (Content, error) {
	root, err := html.Parse(strings.NewReader(doc))
	if err != nil {
		return Content{}, fmt.Errorf("extract: parse html: %w", err)
	}
	topts := trafilatura.Options{
		EnableFallback:  o.Fallback,
		Focus:           o.Focus,
		ExcludeComments: true,
		IncludeLinks:    true,                 // kept to measure link density of paragraphs
		HtmlDateMode:    trafilatura.Disabled, // dates are not needed, and the date scan is slow
		Config:          o.trafilaturaConfig(),
	}
	if u, err := url.Parse(pageURL); err == nil && u.Host != "" {
		topts.OriginalURL = u
	}
	var c Content
	res, err := trafilatura.ExtractDocument(root, topts)
	if err == nil {
		c.Title = collapse(res.Metadata.Title)
		bs := blocks(res.ContentNode, nil)
		newPageLinks(root).mark(bs)
		c.Paragraphs = paragraphs(bs)
	}
	pageTitle := titleOf(root)
	if c.Title == "" {
		c.Title = pageTitle
	}
	if o.TitleAnchor {
		// Only the <title>: go-trafilatura's title may be the page's one
		// <h1>, which would anchor any page on its own heading.
		c.Paragraphs = narrow(root, pageTitle, c.Paragraphs)
	}
	if len(c.Paragraphs) == 0 {
		c.Paragraphs = fallback(root)
	}
	if len(c.Paragraphs) == 0 || (len(c.Paragraphs) == 1 && c.Paragraphs[0] == c.Title) {
		// go-trafilatura's last resort returns the title of an empty page.
		return Content{Title: c.Title}, ErrNoContent
	}
	return c, nil
}

// Text splits plain text into paragraphs: on blank lines when the text has
// any (hard-wrapped lines of one paragraph are joined), else on every line.
func Text(text string) Content {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	sep := "\n"
	if strings.Contains(text, "\n\n") {
		sep = "\n\n"
	}
	var c Content
	for part := range strings.SplitSeq(text, sep) {
		if p := collapse(part); p != "" {
			c.Paragraphs = append(c.Paragraphs, p)
		}
	}
	return c
}

// FromPage extracts the content of p: HTML when it has HTML, otherwise its
// text. The page's own title (from the input record) wins over the one found
// in the markup.
func FromPage(p page.Page) (Content, error) {
	var c Content
	var err error
	if p.HTML != "" {
		c, err = HTML(p.HTML, p.URL)
	} else {
		c = Text(p.Text)
		if len(c.Paragraphs) == 0 {
			err = ErrNoContent
		}
	}
	if t := collapse(p.Title); t != "" {
		c.Title = t
	}
	return c, err
}

// collapse trims s and replaces each run of white space with one space.
func collapse(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
