package extract

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/bleve-dedup/bleve-dedup/page"
	"golang.org/x/net/html"
)

// EngineFunc is an engine other than Native: it returns the page's title
// (empty when it found none) and the element holding its main content, or
// a nil content when it cannot read the page, which then goes to Native.
// An error means it found no main content (the fallback then runs).
// pageURL is nil when the page's URL is unknown or has no host.
type EngineFunc func(doc string, pageURL *url.URL, o Options) (title string, content *html.Node, err error)

// engines are the registered engines, written by init functions only.
var engines = map[Engine]EngineFunc{}

// RegisterEngine makes fn the Trafilatura engine. Package
// extract/trafilatura calls it from its init, so that only the programs
// importing that package link go-trafilatura (bleve's analysis components
// register the same way). It panics for another engine or a second
// registration, as it runs only in init functions.
func RegisterEngine(e Engine, fn EngineFunc) {
	if e != Trafilatura || engines[e] != nil {
		panic(fmt.Sprintf("extract: RegisterEngine(%v): not a pluggable engine, or registered twice", e))
	}
	engines[e] = fn
}

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
	if o.native != nil {
		t.w = *o.native
	}
	var c Content
	used := false // go-trafilatura read the page
	// The blocks of the page the result comes from: Native's main
	// element, or the whole page.
	first, end := int32(0), int32(len(t.blocks))
	if o.Engine == Trafilatura && len(t.els) <= o.MaxTrafilaturaElements && t.runes() <= o.MaxTrafilaturaRunes {
		if c, used, err = o.runEngine(ctx, t, doc, pageURL); err != nil {
			return Content{}, err
		}
	}
	if !used {
		var bs []block
		bs, first, end = t.mainBlocks()
		c.Paragraphs = paragraphs(t.ck, bs)
	}
	if c.Title == "" {
		c.Title = t.headline()
	}
	if o.TitleAnchor {
		// Only the <title>: go-trafilatura's title may be the page's one
		// <h1>, which would anchor any page on its own heading.
		c.Paragraphs = narrow(t, c.Paragraphs, first, end)
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

// runEngine extracts the main content with o's registered engine. Link
// density is read from the page as well as from the engine's output (see
// pageLinks). It reports false when the engine cannot read the page,
// which is then left to the native engine. go-trafilatura cannot be
// interrupted: when ctx is done first, it is left to finish on its own
// (the size limits of Options bound that to a fraction of a second) and
// runEngine returns ctx's error.
func (o Options) runEngine(ctx context.Context, t *tree, doc, pageURL string) (Content, bool, error) {
	u, err := url.Parse(pageURL)
	if err != nil || u.Host == "" {
		u = nil
	}
	type result struct {
		title   string
		content *html.Node
		err     error
	}
	out := make(chan result, 1)
	run := func() {
		title, content, err := engines[o.Engine](doc, u, o)
		out <- result{title, content, err}
	}
	if ctx.Done() == nil {
		run() // nothing can cancel it: no goroutine needed
	} else {
		go run()
	}
	var r result
	select {
	case r = <-out:
	case <-ctx.Done():
		return Content{}, true, fmt.Errorf("extract: stopped: %w", ctx.Err())
	}
	if r.content == nil && r.err == nil {
		return Content{}, false, nil
	}
	var c Content
	if r.err == nil {
		c.Title = collapse(r.title)
		bs := blocks(r.content)
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
