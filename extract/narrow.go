package extract

import (
	"iter"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

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
// they should replace extracted, the engine's paragraphs: when extracted
// holds them, starts with them and is much longer (the other posts of a
// multi-post page, a template's boxes). It returns extracted otherwise, in
// particular when no heading names the title. Headings that name the
// title are tried best first (see anchors); the first whose section
// passes wins, so a title repeated in a side box does not hide the
// article's own heading.
//
// It never uses a section that extracted does not hold: measured, taking
// the section when go-trafilatura found other text made a few good
// extractions empty or wrong (a picture caption under the heading, a
// heading repeated in a side box) for a small gain on broken ones. Nor
// one outside blocks[first:end], the part of the page the engine took its
// result from: a teaser of the article elsewhere on the page (its heading
// and first sentences) is held by the result too.
func narrow(t *tree, extracted []string, first, end int32) []string {
	ext := strings.Join(extracted, "\n")
	extRunes := float64(utf8.RuneCountInString(ext))
	var extShingles shingleSet // computed when first needed
	hs := t.titleAnchors()
	for _, h := range hs[:min(len(hs), maxAnchors)] {
		ps, secEnd := t.section(h)
		sec := strings.Join(ps, "\n")
		if !hasTokens(t.ck, ps, minSectionTokens) || float64(utf8.RuneCountInString(sec)) >= maxSectionShare*extRunes ||
			secEnd <= first || t.els[h].end >= end {
			continue
		}
		if extShingles == nil {
			extShingles = shinglesOf(t.ck, ext)
		}
		secShingles := shinglesOf(t.ck, sec)
		if containment(secShingles, extShingles) < minContained ||
			float64(lead(t.ck, extracted, secShingles)) > maxLeadShare*extRunes {
			continue
		}
		// Keep the engine's copy of the heading, if it kept one.
		key := normKey(t.text(h))
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

// titleAnchors returns the headings that name the page's title (see
// anchors), computed once.
func (t *tree) titleAnchors() []int32 {
	if !t.anchorsFound {
		t.anchorList, t.anchorsFound = t.anchors(titleKeys(t.title)), true
	}
	return t.anchorList
}

// headline returns the text of the heading that best names the page's
// title, without the site's name the title adds ("Tide tables" for "Tide
// tables · Field Notes"), or the title when no heading names it.
func (t *tree) headline() string {
	if hs := t.titleAnchors(); len(hs) > 0 {
		return t.text(hs[0])
	}
	return t.title
}

// anchors returns the h1-h6 elements of the page that name one of keys,
// best first: exact matches before similar ones, then by the key's rank,
// then in document order. Headings inside a heading are not tried.
func (t *tree) anchors(keys []string) []int32 {
	if len(keys) == 0 {
		return nil
	}
	type candidate struct {
		el      int32
		similar bool // not equal, only similar
		key     int
	}
	maxKey := 0
	keyBigrams := make([]bigramSet, len(keys))
	for i, k := range keys {
		maxKey = max(maxKey, utf8.RuneCountInString(k))
		keyBigrams[i] = appendBigrams(nil, k)
	}
	var tb bigramSet
	var cs []candidate
	for i := int32(1); i < int32(len(t.els)) && !t.ck.stop(); i++ {
		e := &t.els[i]
		if e.flags&fHeading == 0 {
			continue
		}
		h := i
		i = e.last // headings inside this one are skipped
		text := normKey(t.text(h))
		if j := slices.Index(keys, text); j >= 0 {
			cs = append(cs, candidate{h, false, j})
			continue
		}
		if utf8.RuneCountInString(text) > 2*maxKey {
			continue // too long to be similar to a key
		}
		tb = appendBigrams(tb[:0], text)
		for j := range keys {
			if dice(tb, keyBigrams[j]) >= minHeadingSimilarity {
				cs = append(cs, candidate{h, true, j})
				break
			}
		}
	}
	slices.SortStableFunc(cs, func(a, b candidate) int {
		if a.similar != b.similar {
			if a.similar {
				return 1
			}
			return -1
		}
		return a.key - b.key
	})
	out := make([]int32, len(cs))
	for i, c := range cs {
		out[i] = c.el
	}
	return out
}

// section returns the paragraphs (boilerplate dropped) that follow heading
// h in its nearest ancestor where at least minSectionTokens of them follow
// it, up to the heading that starts the next item (see nextItem). The
// search starts above the <header> or <hgroup> that holds h, if any: those
// hold the heading's own standfirst, byline and picture, not the article;
// and no lower than the <article> that holds h: pages cut an article into
// parts (Medium's sections, a standfirst box), and the <article> is the
// whole of it.
// Text in a sectionSkip element inside the ancestor is left out. The climb
// gives up after a work budget linear in the page, which only deep,
// pathological pages reach. It returns the end of the section too: the
// block after its last.
func (t *tree) section(h int32) ([]string, int32) {
	he := &t.els[h]
	start, article := he.parent, int32(-1)
	for a := he.parent; a > 0; a = t.els[a].parent {
		switch tag := t.els[a].tag; {
		case tag == atom.Header || tag == atom.Hgroup:
			start = t.els[a].parent
		case tag == atom.Article && article < 0:
			article = a
		}
	}
	if article >= 0 && t.els[start].depth > t.els[article].depth {
		start = article
	}
	stop := t.nextItem(h)
	budget := 16*len(t.blocks) + 1<<16
	var ps []string
	end := he.end
	for a := start; a >= 0; a = t.els[a].parent {
		ae := &t.els[a]
		top := a == 0 || ae.tag == atom.Body
		lo, hi := he.end, max(he.end, min(ae.end, stop))
		if budget -= int(hi - lo); budget < 0 {
			return nil, he.end
		}
		var bs []block
		runes := 0
		for _, b := range t.blocks[lo:hi] {
			if t.ck.stop() {
				return nil, he.end
			}
			if b.skipDepth < ae.depth {
				bs = append(bs, b)
				runes += b.runes
			}
		}
		if runes < minSectionTokens && !top {
			continue // too short even before filtering (a token has a rune at least)
		}
		ps, end = paragraphs(t.ck, bs), hi
		if hasTokens(t.ck, ps, minSectionTokens) || top {
			break
		}
	}
	return ps, end
}

// nextItem returns the first block of the heading that ends the section
// of h: one of the same or a higher rank that is no deeper in the tree
// than h, such as the title of the next post. Deeper ones are the
// article's own subheadings, nested in its body; so are those of the same
// rank beside h under its parent (an <h2> title followed by <h2>
// subheadings in one post element), where the next post's title is in
// the next post's element. On the Dragnet set this kept four articles
// whole that ended at their first subheading, and changed no other page
// of the extraction and near-duplicate sets.
func (t *tree) nextItem(h int32) int32 {
	he := &t.els[h]
	level := headingLevelOf(he.tag)
	for i := he.last + 1; i < int32(len(t.els)); i++ {
		e := &t.els[i]
		if l := headingLevelOf(e.tag); l > 0 && l <= level && e.depth <= he.depth && (l < level || e.parent != he.parent) {
			return e.first
		}
	}
	return int32(len(t.blocks))
}

// dice returns the Dice coefficient of two bigram multisets.
func dice(a, b bigramSet) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	common := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			common, i, j = common+1, i+1, j+1
		}
	}
	return 2 * float64(common) / float64(len(a)+len(b))
}

// bigramSet is a sorted multiset of rune bigrams, each two runes in a
// uint64: a merge compares two of them, where maps cost a lookup a
// bigram and an allocation a heading.
type bigramSet []uint64

// appendBigrams appends the rune bigrams of s to dst and sorts them.
func appendBigrams(dst bigramSet, s string) bigramSet {
	prev := rune(-1)
	for _, r := range s {
		if prev >= 0 {
			dst = append(dst, uint64(prev)<<32|uint64(r))
		}
		prev = r
	}
	slices.Sort(dst)
	return dst
}

// hasTokens reports whether ps hold at least n tokens (see tokenHashes),
// reading only as far as it needs to.
func hasTokens(ck *check, ps []string, n int) bool {
	for _, p := range ps {
		for range tokenHashes(ck, p) {
			if n--; n <= 0 {
				return true
			}
		}
	}
	return n <= 0
}

// lead returns the runes of the paragraphs of ps before the first one that
// is mostly in the shingle set sec.
func lead(ck *check, ps []string, sec shingleSet) int {
	n := 0
	for _, p := range ps {
		if containment(shinglesOf(ck, p), sec) >= 0.5 {
			break
		}
		n += utf8.RuneCountInString(p)
	}
	return n
}

// tokenHashes yields a hash of each comparison token of s: each Han character
// is a token (Chinese has no spaces), other runs of letters, digits and
// '_' are lower-cased word tokens, everything else separates. It gives up
// when ck stops.
func tokenHashes(ck *check, s string) iter.Seq[uint64] {
	const (
		offset = 14695981039346656037 // FNV-1a
		prime  = 1099511628211
	)
	return func(yield func(uint64) bool) {
		h, inWord := uint64(offset), false
		for _, r := range s {
			if ck.stop() {
				return
			}
			word := false
			switch {
			case r < utf8.RuneSelf:
				if 'A' <= r && r <= 'Z' {
					r += 'a' - 'A'
				}
				word = 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '_'
			case unicode.Is(unicode.Han, r):
				if inWord && !yield(h) {
					return
				}
				h, inWord = offset, false
				if !yield((offset ^ uint64(r)) * prime) {
					return
				}
				continue
			default:
				word = unicode.IsLetter(r) || unicode.IsDigit(r)
				r = unicode.ToLower(r)
			}
			switch {
			case word:
				h, inWord = (h^uint64(r))*prime, true
			case inWord:
				if !yield(h) {
					return
				}
				h, inWord = offset, false
			}
		}
		if inWord {
			yield(h)
		}
	}
}

// shingleLen is the number of tokens in a shingle.
const shingleLen = 4

// shingleSet is a sorted set of shingle hashes.
type shingleSet []uint64

// shinglesOf returns the set of shingles (runs of shingleLen tokens) of
// s; a text shorter than shingleLen tokens is one shingle.
func shinglesOf(ck *check, s string) shingleSet {
	var toks []uint64
	for h := range tokenHashes(ck, s) {
		toks = append(toks, h)
	}
	var set shingleSet
	if len(toks) > 0 && len(toks) < shingleLen {
		set = append(set, mix(toks))
	}
	for i := 0; i+shingleLen <= len(toks); i++ {
		set = append(set, mix(toks[i:i+shingleLen]))
	}
	slices.Sort(set)
	return slices.Compact(set)
}

// mix combines token hashes into a shingle hash.
func mix(toks []uint64) uint64 {
	h := uint64(len(toks))
	for _, t := range toks {
		h = (h^t)*0x9E3779B97F4A7C15 + (h >> 29)
	}
	return h
}

// containment returns the share of a's shingles that are in b.
func containment(a, b shingleSet) float64 {
	if len(a) == 0 {
		return 0
	}
	n, j := 0, 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j < len(b) && b[j] == x {
			n++
		}
	}
	return float64(n) / float64(len(a))
}
