package extract

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/bleve-dedup/bleve-dedup/page"
	"github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"
)

// Content is the main content of a page.
type Content struct {
	// Title is go-trafilatura's title with the Trafilatura engine; with
	// Native, the heading that names the page's <title> (the title without
	// the site's name), else the <title>.
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

// HTML is HTMLContext without a context.
func (o Options) HTML(doc, pageURL string) (Content, error) {
	return o.HTMLContext(context.Background(), doc, pageURL)
}

// HTMLContext extracts the main content of an HTML page with o's engine,
// narrows it to the article the title names (TitleAnchor), and when
// nothing is left takes the long text blocks of the page outside
// boilerplate elements (see fallback). Its cost is linear in the page
// whatever its shape. It stops with an error wrapping ctx.Err() soon after
// ctx is done (it looks at ctx every 1,024 tokens, blocks or runes), so a
// per-page time limit is a context deadline. Invalid options fail with
// ErrInvalidOptions. It is safe for concurrent use.
func (o Options) HTMLContext(ctx context.Context, doc, pageURL string) (Content, error) {
	if err := o.validate(); err != nil {
		return Content{}, err
	}
	t, err := buildTree(ctx, doc)
	if err != nil {
		return Content{}, err
	}
	var c Content
	used := false // go-trafilatura read the page
	if o.Engine == Trafilatura && len(t.els) <= o.MaxTrafilaturaElements && t.runes() <= o.MaxTrafilaturaRunes {
		if c, used, err = o.trafilatura(ctx, t, doc, pageURL); err != nil {
			return Content{}, err
		}
	}
	if !used {
		c.Paragraphs = paragraphs(t.ck, t.mainBlocks())
	}
	if c.Title == "" {
		c.Title = t.headline()
	}
	if o.TitleAnchor {
		// Only the <title>: go-trafilatura's title may be the page's one
		// <h1>, which would anchor any page on its own heading.
		c.Paragraphs = narrow(t, c.Paragraphs)
	}
	if len(c.Paragraphs) == 0 {
		c.Paragraphs = t.fallback()
	}
	if err := t.ck.err(); err != nil {
		return Content{}, err // the stages above gave up part way
	}
	if len(c.Paragraphs) == 0 || (len(c.Paragraphs) == 1 && c.Paragraphs[0] == c.Title) {
		// go-trafilatura's last resort returns the title of an empty page.
		return Content{Title: c.Title}, ErrNoContent
	}
	return c, nil
}

// trafilatura extracts the main content with go-trafilatura. Link
// density is read from the page as well as from go-trafilatura's output
// (see pageLinks). It reports false when html.Parse cannot read the page
// (more than 512 open elements), which is then left to the native engine.
// go-trafilatura cannot be interrupted: when ctx is done first, it is left
// to finish on its own (the size limits of Options bound that to a
// fraction of a second) and trafilatura returns ctx's error.
func (o Options) trafilatura(ctx context.Context, t *tree, doc, pageURL string) (Content, bool, error) {
	root, err := html.Parse(strings.NewReader(doc))
	if err != nil {
		return Content{}, false, nil
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
	type result struct {
		res *trafilatura.ExtractResult
		err error
	}
	out := make(chan result, 1)
	extract := func() {
		res, err := trafilatura.ExtractDocument(root, topts)
		out <- result{res, err}
	}
	if ctx.Done() == nil {
		extract() // nothing can cancel it: no goroutine needed
	} else {
		go extract()
	}
	var r result
	select {
	case r = <-out:
	case <-ctx.Done():
		return Content{}, true, fmt.Errorf("extract: stopped: %w", ctx.Err())
	}
	var c Content
	if r.err == nil {
		c.Title = collapse(r.res.Metadata.Title)
		bs := blocks(r.res.ContentNode)
		t.links().mark(bs)
		c.Paragraphs = paragraphs(t.ck, bs)
	}
	return c, true, nil
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

// FromPage is FromPageContext without a context.
func FromPage(p page.Page) (Content, error) {
	return FromPageContext(context.Background(), p)
}

// FromPageContext extracts the content of p with DefaultOptions: HTML when
// it has HTML, otherwise its text. The page's own title (from the input
// record) wins over the one found in the markup.
func FromPageContext(ctx context.Context, p page.Page) (Content, error) {
	return DefaultOptions().FromPageContext(ctx, p)
}

// FromPageContext is the package's FromPageContext with o.
func (o Options) FromPageContext(ctx context.Context, p page.Page) (Content, error) {
	var c Content
	var err error
	if p.HTML != "" {
		c, err = o.HTMLContext(ctx, p.HTML, p.URL)
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
