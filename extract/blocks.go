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
}

// block is one paragraph of text and how much of it is link text.
type block struct {
	text      string // white space collapsed
	runes     int    // runes in text
	linkRunes int    // runes inside <a> (or go-trafilatura's <ref>)
}

// linkDensity is the share of the block's text that is link text.
func (b block) linkDensity() float64 {
	if b.runes == 0 {
		return 0
	}
	return float64(b.linkRunes) / float64(b.runes)
}

// blocks returns the block-level runs of text under n in document order,
// skipping script, style and subtrees whose element is in skip.
func blocks(n *html.Node, skip map[atom.Atom]bool) []block {
	return blocksBetween(n, skip, nil, nil)
}

// blocksBetween is blocks restricted to the text that follows the subtree
// of after (nil: from the start) and precedes the first node for which stop
// reports true (nil: to the end).
func blocksBetween(n *html.Node, skip map[atom.Atom]bool, after *html.Node, stop func(*html.Node) bool) []block {
	var out []block
	var cur strings.Builder
	linkRunes := 0
	started, done := after == nil, false
	flush := func() {
		if s := collapse(cur.String()); s != "" && started {
			out = append(out, block{text: s, runes: utf8.RuneCountInString(s), linkRunes: linkRunes})
		}
		cur.Reset()
		linkRunes = 0
	}
	var walk func(n *html.Node, inLink bool)
	walk = func(n *html.Node, inLink bool) {
		if done {
			return
		}
		if n == after {
			flush() // drops the text before after, which is outside the range
			started = true
			return
		}
		if started && stop != nil && stop(n) {
			flush()
			done = true
			return
		}
		switch n.Type {
		case html.TextNode:
			cur.WriteString(n.Data)
			if inLink {
				linkRunes += utf8.RuneCountInString(collapse(n.Data))
			}
			return
		case html.ElementNode:
			if skip[n.DataAtom] || n.DataAtom == atom.Script || n.DataAtom == atom.Style {
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

// newPageLinks indexes the blocks under root. A text found more than once
// keeps its fewest link runes: prose that is also a link elsewhere on the
// page (a headline repeated in a menu) stays prose.
func newPageLinks(root *html.Node) pageLinks {
	m := pageLinks{}
	for _, b := range blocks(root, nil) {
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

// titleOf returns the text of the document's <title>.
func titleOf(root *html.Node) string {
	var find func(*html.Node) string
	find = func(n *html.Node) string {
		if n.Type == html.ElementNode && n.DataAtom == atom.Title {
			if n.FirstChild != nil {
				return collapse(n.FirstChild.Data)
			}
			return ""
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if t := find(c); t != "" {
				return t
			}
		}
		return ""
	}
	return find(root)
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
