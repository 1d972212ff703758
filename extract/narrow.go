package extract

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/text/unicode/norm"
)

// Title-anchored narrowing.
//
// go-trafilatura keeps every post of a page that holds several (a blog
// page, a forum thread, a portal column), so an article reprinted as one
// post comes out buried in the site's other posts. The page title usually
// names the article, and a heading carrying the same name starts it; the
// article is what follows that heading in its container.

// titleSeparators split a page title into the article name and the site
// name ("Noctis - zh.wikipedia.org", "标题_新闻中心_新浪网").
var titleSeparators = []string{" - ", " – ", " — ", " | ", " _ ", " · ", " :: ", " » ", "_", "|", "｜", "－", "——"}

// minKeyRunes: a one-character title part matches headings by chance.
const minKeyRunes = 2

// minHeadingSimilarity is the rune-bigram Dice coefficient above which a
// heading counts as naming the title when it is not equal to it (a changed
// word, an added "(album)").
const minHeadingSimilarity = 0.8

// maxAnchors bounds the headings tried per page, and so the cost on a page
// that repeats its title in many headings (a list of links to itself).
const maxAnchors = 4

// minSectionTokens is how much text (words, Han characters) must follow
// the heading in its container before that container is taken for the
// article: a container with less is the heading's own box (a date, a
// byline, a standfirst or a picture caption), so the search climbs on.
// Measured: at 100 runes, 25-word standfirsts and captions under English
// headings were taken for the article.
const minSectionTokens = 50

// Thresholds for using the section instead of go-trafilatura's result.
const (
	// maxSectionShare: the section replaces a result that holds it only
	// when it is less than this share of the result (in runes); a section
	// about as long as the result is the same article, and keeping
	// go-trafilatura's paragraphs keeps what it found outside the heading's
	// container. Near-duplicate corpus F1 0.950 at 0.6, 0.953 at 0.75,
	// 0.956 at 0.9, where an English page lost list items of its article.
	maxSectionShare = 0.75
	// minContained: share of the section's shingles that must be in
	// go-trafilatura's result for the result to count as holding it.
	minContained = 0.8
	// maxLeadShare: the section must start the result: at most this share
	// of the result may come before it. A heading further down that
	// repeats the title (a recipe card, a summary box) sums the article up,
	// it does not start it.
	maxLeadShare = 0.25
)

// sectionSkip are the elements inside a section that never hold article
// text. Lists stay: inside a post they are content.
var sectionSkip = map[atom.Atom]bool{
	atom.Nav: true, atom.Aside: true, atom.Footer: true, atom.Form: true,
	atom.Select: true, atom.Button: true, atom.Noscript: true, atom.Iframe: true,
	atom.Menu: true, atom.Textarea: true,
}

// narrow returns the paragraphs of the article the page title names when
// they should replace extracted, go-trafilatura's paragraphs: when
// extracted holds them, starts with them and is much longer (the other
// posts of a multi-post page, a template's boxes). It returns extracted
// otherwise, in particular when no heading names the title. Headings that
// name the title are tried best first (see anchors); the first whose
// section passes wins, so a title repeated in a side box does not hide
// the article's own heading.
//
// It never uses a section that extracted does not hold: measured, taking
// the section when go-trafilatura found other text made a few good
// extractions empty or wrong (a picture caption under the heading, a
// heading repeated in a side box) for a small gain on broken ones.
func narrow(root *html.Node, title string, extracted []string) []string {
	ext := strings.Join(extracted, "\n")
	extRunes := float64(utf8.RuneCountInString(ext))
	var extShingles map[string]bool // computed when first needed
	hs := anchors(root, titleKeys(title))
	for _, h := range hs[:min(len(hs), maxAnchors)] {
		ps := section(h)
		sec := strings.Join(ps, "\n")
		if tokenCount(ps) < minSectionTokens || float64(utf8.RuneCountInString(sec)) >= maxSectionShare*extRunes {
			continue
		}
		if extShingles == nil {
			extShingles = shingleSet(ext)
		}
		secShingles := shingleSet(sec)
		if containment(secShingles, extShingles) < minContained ||
			float64(lead(extracted, secShingles)) > maxLeadShare*extRunes {
			continue
		}
		// Keep go-trafilatura's copy of the heading, if it kept one.
		key := normKey(textOf(h))
		for _, p := range extracted {
			if normKey(p) == key {
				return append([]string{p}, ps...)
			}
		}
		return ps
	}
	return extracted
}

// titleKeys returns the normalised title and its parts between separators,
// each once, the whole title first.
func titleKeys(title string) []string {
	parts := []string{title}
	for _, sep := range titleSeparators {
		var next []string
		for _, p := range parts {
			next = append(next, strings.Split(p, sep)...)
		}
		parts = next
	}
	var keys []string
	for _, p := range append([]string{title}, parts...) {
		if k := normKey(p); utf8.RuneCountInString(k) >= minKeyRunes && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

// normKey folds s for comparing headings with titles: NFKC (full-width
// forms become ASCII), lower case, letters and digits only.
func normKey(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, norm.NFKC.String(s))
}

// anchors returns the h1-h6 elements of the page that name one of keys,
// best first: exact matches before similar ones, then by the key's rank,
// then in document order.
func anchors(root *html.Node, keys []string) []*html.Node {
	if len(keys) == 0 {
		return nil
	}
	type candidate struct {
		n       *html.Node
		similar bool // not equal, only similar
		key     int
	}
	var cs []candidate
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if headingLevel(n) > 0 {
			text := normKey(textOf(n))
			for i, k := range keys {
				if text == k {
					cs = append(cs, candidate{n, false, i})
					return
				}
			}
			for i, k := range keys {
				if dice(text, k) >= minHeadingSimilarity {
					cs = append(cs, candidate{n, true, i})
					return
				}
			}
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	slices.SortStableFunc(cs, func(a, b candidate) int {
		if a.similar != b.similar {
			if a.similar {
				return 1
			}
			return -1
		}
		return a.key - b.key
	})
	out := make([]*html.Node, len(cs))
	for i, c := range cs {
		out[i] = c.n
	}
	return out
}

// section returns the paragraphs (boilerplate dropped) that follow heading
// h in its nearest ancestor where at least minSectionTokens of them follow
// it, up to the heading that starts the next item (see nextItem). The
// search starts above the <header> or <hgroup> that holds h, if any: those
// hold the heading's own standfirst, byline and picture, not the article.
func section(h *html.Node) []string {
	start := h.Parent
	for a := h.Parent; a != nil; a = a.Parent {
		if a.DataAtom == atom.Header || a.DataAtom == atom.Hgroup {
			start = a.Parent
		}
	}
	stop := nextItem(h)
	var ps []string
	for a := start; a != nil; a = a.Parent {
		bs := blocksBetween(a, sectionSkip, h, stop)
		if runesOf(bs) < minSectionTokens && a.DataAtom != atom.Body {
			continue // too short even before filtering (a token has a rune at least)
		}
		ps = paragraphs(bs)
		if tokenCount(ps) >= minSectionTokens || a.DataAtom == atom.Body {
			break
		}
	}
	return ps
}

// nextItem returns a test for the heading that ends the section of h: one
// of the same or a higher rank that is no deeper in the tree than h, such
// as the title of the next post. Deeper ones are the article's own
// subheadings, nested in its body.
func nextItem(h *html.Node) func(*html.Node) bool {
	level, depth := headingLevel(h), depthOf(h)
	return func(n *html.Node) bool {
		l := headingLevel(n)
		return l > 0 && l <= level && depthOf(n) <= depth
	}
}

// depthOf returns the number of ancestors of n.
func depthOf(n *html.Node) int {
	d := 0
	for p := n.Parent; p != nil; p = p.Parent {
		d++
	}
	return d
}

// headingLevel returns n for an <hn> element, 0 for any other node.
func headingLevel(n *html.Node) int {
	if n.Type != html.ElementNode {
		return 0
	}
	switch n.DataAtom {
	case atom.H1:
		return 1
	case atom.H2:
		return 2
	case atom.H3:
		return 3
	case atom.H4:
		return 4
	case atom.H5:
		return 5
	case atom.H6:
		return 6
	}
	return 0
}

// textOf returns the text under n, outside script and style.
func textOf(n *html.Node) string {
	var sb strings.Builder
	for _, b := range blocks(n, nil) {
		sb.WriteString(b.text)
		sb.WriteByte(' ')
	}
	return sb.String()
}

// dice returns the Dice coefficient of the rune bigrams of a and b.
func dice(a, b string) float64 {
	ba, bb := bigrams(a), bigrams(b)
	if len(ba) == 0 || len(bb) == 0 {
		return 0
	}
	common := 0
	for g, n := range ba {
		common += min(n, bb[g])
	}
	return 2 * float64(common) / float64(sumCounts(ba)+sumCounts(bb))
}

func bigrams(s string) map[[2]rune]int {
	rs := []rune(s)
	m := map[[2]rune]int{}
	for i := 0; i+1 < len(rs); i++ {
		m[[2]rune{rs[i], rs[i+1]}]++
	}
	return m
}

func sumCounts[K comparable](m map[K]int) int {
	n := 0
	for _, c := range m {
		n += c
	}
	return n
}

// runesOf returns the number of runes in bs.
func runesOf(bs []block) int {
	n := 0
	for _, b := range bs {
		n += b.runes
	}
	return n
}

// tokenCount returns the number of tokens in ps.
func tokenCount(ps []string) int {
	n := 0
	for _, p := range ps {
		n += len(tokens(p))
	}
	return n
}

// lead returns the runes of the paragraphs of ps before the first one that
// is mostly in the shingle set sec.
func lead(ps []string, sec map[string]bool) int {
	n := 0
	for _, p := range ps {
		if containment(shingleSet(p), sec) >= 0.5 {
			break
		}
		n += utf8.RuneCountInString(p)
	}
	return n
}

// tokens splits s into comparison tokens: each Han character is a token
// (Chinese has no spaces), other runs of letters and digits are lowercased
// word tokens, everything else separates.
func tokens(s string) []string {
	var out []string
	var word strings.Builder
	flush := func() {
		if word.Len() > 0 {
			out = append(out, word.String())
			word.Reset()
		}
	}
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.Is(unicode.Han, r):
			flush()
			out = append(out, string(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_':
			word.WriteRune(r)
		default:
			flush()
		}
	}
	flush()
	return out
}

// shingleLen is the number of tokens in a shingle.
const shingleLen = 4

// shingles counts the shingles of s; a text shorter than shingleLen tokens
// is one shingle.
func shingles(s string) map[string]int {
	t := tokens(s)
	m := map[string]int{}
	if len(t) > 0 && len(t) < shingleLen {
		m[strings.Join(t, " ")]++
	}
	for i := 0; i+shingleLen <= len(t); i++ {
		m[strings.Join(t[i:i+shingleLen], " ")]++
	}
	return m
}

// shingleSet is shingles without the counts.
func shingleSet(s string) map[string]bool {
	set := map[string]bool{}
	for k := range shingles(s) {
		set[k] = true
	}
	return set
}

// containment returns the share of a's shingles that are in b.
func containment(a, b map[string]bool) float64 {
	if len(a) == 0 {
		return 0
	}
	n := 0
	for k := range a {
		if b[k] {
			n++
		}
	}
	return float64(n) / float64(len(a))
}
