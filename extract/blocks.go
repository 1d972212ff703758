package extract

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// inline elements continue the current paragraph; every other element
// (and <br>) ends it. go-trafilatura's output uses a few non-HTML names
// (hi, ref), which are inline too.
var inline = map[string]bool{
	"a": true, "abbr": true, "b": true, "big": true, "cite": true, "code": true,
	"em": true, "font": true, "i": true, "kbd": true, "mark": true, "q": true,
	"s": true, "small": true, "span": true, "strike": true, "strong": true,
	"sub": true, "sup": true, "time": true, "tt": true, "u": true, "var": true,
	"hi": true, "ref": true, "del": true, "ins": true, "label": true, "nobr": true,
	"img": true, "wbr": true,
}

// block is one paragraph of text and how much of it is link text.
type block struct {
	text      string // white space collapsed
	runes     int    // runes in text
	linkRunes int    // runes inside <a> (or go-trafilatura's <ref>)
	// Where a page block is (see tree): its innermost element, the
	// inherited flags of that element, and the depth of its deepest
	// ancestor that narrowing skips (-1: none).
	el        int32
	flags     elemFlags
	skipDepth int32
}

// linkDensity is the share of the block's text that is link text.
func (b block) linkDensity() float64 {
	if b.runes == 0 {
		return 0
	}
	return float64(b.linkRunes) / float64(b.runes)
}

// blocks returns the block-level runs of text under n in document order,
// skipping script and style. It reads go-trafilatura's output; pages are
// read by buildTree.
func blocks(n *html.Node) []block {
	var out []block
	var cur strings.Builder
	linkRunes := 0
	flush := func() {
		if s := collapse(cur.String()); s != "" {
			out = append(out, block{text: s, runes: utf8.RuneCountInString(s), linkRunes: linkRunes})
		}
		cur.Reset()
		linkRunes = 0
	}
	var walk func(n *html.Node, inLink bool)
	walk = func(n *html.Node, inLink bool) {
		switch n.Type {
		case html.TextNode:
			cur.WriteString(n.Data)
			if inLink {
				linkRunes += utf8.RuneCountInString(collapse(n.Data))
			}
			return
		case html.ElementNode:
			if n.DataAtom == atom.Script || n.DataAtom == atom.Style {
				return
			}
			inLink = inLink || isLink(n)
		}
		isBlock := n.Type == html.ElementNode && !inline[n.Data]
		if isBlock {
			flush()
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inLink)
		}
		if isBlock {
			flush()
		}
	}
	if n != nil {
		walk(n, false)
	}
	flush()
	return out
}

// pageLinks maps the text of each block of a page to its link runes, so
// that link density can be read from the page itself: go-trafilatura drops
// some <a> elements from its output (one wrapping a heading, as in
// related-article cards), which would let such boxes pass as prose.
type pageLinks map[string]int

// links indexes the blocks of the page. A text found more than once keeps
// its fewest link runes: prose that is also a link elsewhere on the page
// (a headline repeated in a menu) stays prose.
func (t *tree) links() pageLinks {
	m := make(pageLinks, len(t.blocks))
	for _, b := range t.blocks {
		if n, ok := m[b.text]; !ok || b.linkRunes < n {
			m[b.text] = b.linkRunes
		}
	}
	return m
}

// mark raises the link runes of each block of bs to those of the page
// block with the same text. Blocks not found as such (go-trafilatura
// merged or split them) keep their own count.
func (m pageLinks) mark(bs []block) {
	for i := range bs {
		if n, ok := m[bs[i].text]; ok && n > bs[i].linkRunes {
			bs[i].linkRunes = n
		}
	}
}

// isLink reports whether n is a hyperlink: an <a> with an href (without
// one it is a placeholder, such as a named anchor left open over a whole
// post) or go-trafilatura's <ref>.
func isLink(n *html.Node) bool {
	if n.Data == "ref" {
		return true
	}
	if n.DataAtom != atom.A {
		return false
	}
	for _, a := range n.Attr {
		if a.Key == "href" && a.Namespace == "" {
			return true
		}
	}
	return false
}
