package crawler

import (
	"io"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A found link on a fetched page, before canonicalisation.
type found struct {
	href, anchor string
	block        int // index of the innermost block element holding it
}

// Bounds on what one page may contribute, so hostile pages (endless
// links, megabyte attributes) cost bounded time and memory.
const (
	maxAnchorRunes = 200 // anchor text kept per link
	maxSiblings    = 20  // sibling anchors kept per link
)

// blockAtoms are the elements whose links count as siblings of each other
// (the link-value paper's "兄弟链接": links of the same list, menu or paragraph).
var blockAtoms = map[atom.Atom]bool{
	atom.Ul: true, atom.Ol: true, atom.Dl: true, atom.Nav: true, atom.Table: true,
	atom.Tr: true, atom.P: true, atom.Div: true, atom.Section: true, atom.Aside: true,
	atom.Header: true, atom.Footer: true, atom.Menu: true, atom.Article: true, atom.Body: true,
}

// parseLinks returns up to limit links of an HTML page with their anchor
// texts, and the page's <base href> if any. No token is too long: a
// tokenizer with a buffer cap stops at the first longer token, and real
// pages put inline scripts and data attributes of hundreds of KiB before
// most of their links (a fifth of the English pages of the real-page test
// web did, losing their links). The page is read whole already, at most
// Options.MaxBytes, so a token costs no more than the page.
func parseLinks(r io.Reader, limit int) (links []found, base string) {
	z := html.NewTokenizer(r)
	var (
		stack  []int // open block elements (ids)
		nextID int
		cur    = -1 // index in links of the open <a>, or -1
		text   strings.Builder
	)
	finish := func() {
		if cur >= 0 {
			links[cur].anchor = clip(strings.Join(strings.Fields(text.String()), " "), maxAnchorRunes)
			cur = -1
		}
		text.Reset()
	}
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			finish()
			return links, base
		case html.TextToken:
			if cur >= 0 && text.Len() < 4*maxAnchorRunes {
				text.Write(z.Text())
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			switch {
			case a == atom.A:
				finish()
				href := attr(z, hasAttr, "href")
				if href == "" || len(links) >= limit {
					continue
				}
				blk := -1
				if len(stack) > 0 {
					blk = stack[len(stack)-1]
				}
				links = append(links, found{href: href, block: blk})
				if tt == html.StartTagToken {
					cur = len(links) - 1
				}
			case a == atom.Base && base == "":
				base = attr(z, hasAttr, "href")
			case blockAtoms[a] && tt == html.StartTagToken:
				stack = append(stack, nextID)
				nextID++
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			if a == atom.A {
				finish()
			} else if blockAtoms[a] && len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
}

func attr(z *html.Tokenizer, more bool, want string) string {
	for more {
		var k, v []byte
		k, v, more = z.TagAttr()
		if string(k) == want {
			return strings.TrimSpace(string(v))
		}
	}
	return ""
}

// siblingAnchors returns, for each link, the anchors of the other links in
// its block, at most maxSiblings, nearest first.
func siblingAnchors(links []found) [][]string {
	groups := make(map[int][]int)
	for i, l := range links {
		groups[l.block] = append(groups[l.block], i)
	}
	out := make([][]string, len(links))
	for _, g := range groups {
		for p, i := range g {
			var sib []string
			for d := 1; len(sib) < maxSiblings && (p-d >= 0 || p+d < len(g)); d++ {
				for _, q := range [2]int{p - d, p + d} {
					if q >= 0 && q < len(g) && len(sib) < maxSiblings && links[g[q]].anchor != "" {
						sib = append(sib, links[g[q]].anchor)
					}
				}
			}
			out[i] = sib
		}
	}
	return out
}

// clip cuts s to at most n runes.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for k := range s {
		if i == n {
			return s[:k]
		}
		i++
	}
	return s
}
