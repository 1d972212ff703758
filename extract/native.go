package extract

import (
	"bytes"

	"golang.org/x/net/html/atom"
)

// The native engine picks the element of the page whose text weighs most
// (see weight and scores): article paragraphs weigh for it, menus, link
// lists and short lines against it, so the best element is the one that
// holds the article and as little else as possible. Its blocks, without
// the template boxes inside it, are the main content, which the filters of
// paragraphs then clean.

// Weights and thresholds, in runes. Measured on the extraction benchmarks
// (F1 English/Chinese) and the reprints of the near-duplicate corpus
// (precision/recall), each alternative against the chosen values, which
// give 0.975/0.956 and 0.956/0.964 (TestF1, TestNeardup).
const (
	// blockCost is charged for every block: short lines (menu items,
	// dates, buttons) weigh against the element that holds them. 20:
	// 0.971/0.957, 0.956/0.962.
	blockCost = 10
	// cellCost replaces blockCost in a table cell: a data table's cells
	// are short by nature. 0: 0.975/0.956, 0.955/0.964; 10: 0.975/0.938,
	// 0.955/0.962.
	cellCost = 5
	// linkCost is charged for each rune of link text, besides not
	// counting it as text. 0: 0.972/0.939, 0.948/0.964; 1: 0.975/0.956,
	// 0.955/0.964; 3: 0.974/0.960, 0.956/0.964.
	linkCost = 2
	// minChildScore bounds what a child subtree can take from its
	// parent's score: a link box inside the article's container (related
	// stories, a tag cloud) is evidence against the container, not a
	// reason to give it up, and the filters drop it from the result.
	// Unbounded: 0.968/0.931, 0.955/0.961 (the article paragraphs of a
	// portal page lost to the link tables in their cell); 0: 0.970/0.949,
	// 0.950/0.964; -50: as -100.
	minChildScore = -100
	// tighten: the result descends into a child that keeps this share of
	// the score, so that stray prose beside the article (a cookie notice,
	// a caption) does not pull it up to the page's outer elements. 0.8:
	// 0.973/0.951, 0.952/0.956; 0.9: 0.971/0.956, 0.953/0.965.
	tighten = 0.85
)

// weights are the constants above as one value, so that a test can
// measure other values (held-out and by-site tuning, heldout_test.go)
// without a second copy of the engine; pages use defaultWeights.
type weights struct {
	blockCost, cellCost, linkCost, minChildScore int
	tighten                                      float64
}

var defaultWeights = weights{blockCost: blockCost, cellCost: cellCost, linkCost: linkCost, minChildScore: minChildScore, tighten: tighten}

// weight is how much b counts for an element that holds it. Text in
// template boxes counts for nothing: it is left out of the result anyway.
func (w *weights) weight(b *block) int {
	cost := w.blockCost
	switch {
	case b.flags&fNoise != 0:
		return 0
	case b.flags&fCell != 0:
		cost = w.cellCost
	}
	return b.runes - (1+w.linkCost)*b.linkRunes - cost
}

// plainWeight is the text outside links of b, or 0 in a template box by
// tag or role.
func plainWeight(b *block) int {
	if b.flags&fNoise != 0 {
		return 0
	}
	return b.runes - b.linkRunes
}

// mainBlocks returns the blocks of the page's main content: those of the
// element with the highest score (see best), without the template boxes
// and the hidden or navigation elements inside it, and the range of the
// page's blocks that element holds, blocks[first:end].
func (t *tree) mainBlocks() (bs []block, first, end int32) {
	box := t.boxes()
	e := &t.els[t.best(box)]
	bs = make([]block, 0, e.end-e.first)
	for _, b := range t.blocks[e.first:e.end] {
		if b.flags&fNoise == 0 && box[b.el] < 0 {
			bs = append(bs, b)
		}
	}
	t.markDataCells(bs)
	return bs, e.first, e.end
}

// list reports whether element i is a list or a data table, which the
// result does not descend into from the element around it: that holds
// the list's introduction. A table one of whose cells holds half of its
// score is a layout table (the article in a cell), not data.
func (t *tree) list(i int, score []int) bool {
	e := &t.els[i]
	switch e.tag {
	case atom.Ul, atom.Ol, atom.Dl:
		return true
	case atom.Table, atom.Tbody:
		// The cells of its rows, not of nested tables: each element is
		// looked at for one table only.
		layout := false
		var rows func(int)
		rows = func(c int) {
			switch t.els[c].tag {
			case atom.Thead, atom.Tbody, atom.Tfoot:
				t.children(c, rows)
			case atom.Tr:
				t.children(c, func(cell int) {
					layout = layout || 2*score[cell] >= score[i]
				})
			}
		}
		t.children(i, rows)
		return !layout
	}
	return false
}

// children calls f with each child of element i.
func (t *tree) children(i int, f func(int)) {
	for c := i + 1; c <= int(t.els[i].last); c = int(t.els[c].last) + 1 {
		f(c)
	}
}

// A row of a data table holds a cell of prose of at least minRowProse
// runes (a film's description beside its linked title) and at most
// maxRowBlocks blocks: a row of a layout table holds columns of them (an
// article beside a column of links).
const (
	minRowProse  = 40
	maxRowBlocks = 10
)

// markDataCells flags (fDataCell) the link-heavy blocks of bs in the rows
// of data tables (see minRowProse): the linked names of a table of films
// or products are its data, which the link-density filter would drop.
func (t *tree) markDataCells(bs []block) {
	var prose map[int32]bool // by row, computed once per row
	for i := range bs {
		b := &bs[i]
		if b.flags&fCell == 0 || b.linkDensity() <= maxLinkDensity {
			continue
		}
		row := b.el
		for row > 0 && t.els[row].tag != atom.Tr {
			row = t.els[row].parent
		}
		if row <= 0 {
			continue
		}
		if prose == nil {
			prose = map[int32]bool{}
		}
		has, ok := prose[row]
		if !ok {
			r := &t.els[row]
			for _, c := range t.blocks[r.first:min(r.end, r.first+maxRowBlocks+1)] {
				if c.runes >= minRowProse && c.linkDensity() <= maxLinkDensity {
					has = true
				}
			}
			has = has && r.end-r.first <= maxRowBlocks
			prose[row] = has
		}
		if has {
			b.flags |= fDataCell
		}
	}
}

// best returns the index of the element with the highest score (see
// scores), descending from it while a child keeps tighten of it. Elements
// in or of a template box, hidden, navigation and textless elements are
// not candidates.
func (t *tree) best(box []int32) int {
	score := t.scores(box, t.w.weight)
	best := t.argmax(box, score)
	if score[best] <= 0 {
		// No element holds prose that outweighs its costs: every line is
		// short or link-dense. The article is then what holds most of
		// the text outside links.
		score = t.scores(box, plainWeight)
		best = t.argmax(box, score)
	}
	for descended := true; descended; {
		descended = false
		for c := best + 1; c <= int(t.els[best].last); c = int(t.els[c].last) + 1 {
			if t.candidate(c, box) && float64(score[c]) >= t.w.tighten*float64(score[best]) && !t.list(c, score) {
				best, descended = c, true
				break
			}
		}
	}
	return best
}

// argmax returns the candidate with the highest score, the last of
// equals, or 0 when there is none.
func (t *tree) argmax(box []int32, score []int) int {
	best := 0
	for i := 1; i < len(t.els); i++ {
		if t.candidate(i, box) && score[i] >= score[best] {
			best = i
		}
	}
	return best
}

// candidate reports whether element i may hold the main content: it has
// text, outside boxes.
func (t *tree) candidate(i int, box []int32) bool {
	e := &t.els[i]
	return e.flags&(fNoise|fNoText) == 0 && e.end > e.first && box[i] < 0
}

// scores returns the score of each element: the weights of its own
// blocks plus the scores of its children, each counted as at least
// minChildScore; a template box adds nothing to its parent.
func (t *tree) scores(box []int32, weight func(*block) int) []int {
	score := make([]int, len(t.els))
	for i := range t.blocks {
		b := &t.blocks[i]
		score[b.el] += weight(b)
	}
	for i := len(t.els) - 1; i > 0; i-- {
		if box[i] != t.els[i].depth {
			score[t.els[i].parent] += max(score[i], t.w.minChildScore)
		}
	}
	return score
}

// boxes returns, for each element, the depth of the innermost template
// box it is in or is (-1: none). An element named as a box (fBox) that
// holds more than half of the page's prose (blocks of positive weight) is
// not taken for one: themes name wrappers after the boxes in them
// ("penci_sidebar", "theiaStickySidebar"). Elements that start with the
// label of a box ("Related articles", "Kommentare") are boxes too (see
// labelBoxes). A comment section or a gallery
// (fWholeBox) can hold more prose than the article (a thread, fifty
// captioned slides), so it stays a box whatever its size; so does an
// element whose id is "sidebar" (see soleSidebar): beside a short post,
// the sidebar's profile and blurbs hold more prose than the post.
func (t *tree) boxes() []int32 {
	t.labelBoxes()
	prose := make([]int, len(t.blocks)+1)
	for i := range t.blocks {
		prose[i+1] = prose[i] + max(0, t.w.weight(&t.blocks[i]))
	}
	total := prose[len(t.blocks)]
	out := make([]int32, len(t.els))
	out[0] = -1
	for i := 1; i < len(t.els); i++ {
		e := &t.els[i]
		out[i] = out[e.parent]
		if e.flags&fBox != 0 && (e.flags&fWholeBox != 0 || 2*(prose[e.end]-prose[e.first]) <= total) {
			out[i] = e.depth
		}
	}
	return out
}

// nameHint counts the names in class and id attributes that name article
// bodies (pos) and template boxes (neg), and among the latter comment
// sections (by a comment word or prefix, or by a comment word alone:
// exactComment) and galleries. A compound name with a box word is a box or
// part of one ("post-footer", "sidebar-content", "post-most-popular"); an
// element with names of both kinds ("l-sidebar-fixed l-article-body") is
// taken for neither: themes name the wrappers of an article after the
// boxes beside it.
type nameHint struct{ pos, neg, comment, exactComment, gallery int }

// add counts the names of a class or id value, split at white space, by
// their words (see nextWord). A box word after a negator
// ("non-ad-column", "has-sidebar") does not count. An id of more than
// maxIDWords words is a slug of a heading ("sharing-with-a-single-
// developer", as documentation generators and wikis make them), not a
// template's name, and counts for nothing.
func (h *nameHint) add(v []byte, id bool) {
	var buf [32]byte
	for name := range bytes.FieldsSeq(v) {
		var pos, neg, comment, exactComment, gallery, negated bool
		words := 0
		for i, n := 0, 0; ; {
			if n, i = nextWord(name, i, &buf); n == 0 {
				break
			}
			w := buf[:n]
			words++
			k := wordKinds[string(w)]
			switch {
			case negativeWord(w, k) && !negated:
				neg = true
				comment = comment || commentWord(w, k)
				exactComment = exactComment || k&commentKind != 0
				gallery = gallery || k&galleryKind != 0
			case k&positiveKind != 0:
				pos = true
			}
			negated = k&negatorKind != 0
		}
		switch {
		case id && words > maxIDWords:
		case neg:
			h.neg++
			if comment {
				h.comment++
			}
			if exactComment {
				h.exactComment++
			}
			if gallery {
				h.gallery++
			}
		case pos:
			h.pos++
		}
	}
}

// plus adds the counts of o.
func (h *nameHint) plus(o nameHint) {
	h.pos += o.pos
	h.neg += o.neg
	h.comment += o.comment
	h.exactComment += o.exactComment
	h.gallery += o.gallery
}

// maxIDWords: template ids have a few words ("comments", "sidebar-left",
// "related-posts-widget-area").
const maxIDWords = 4

// box reports whether the names make a template box: box names and no
// body names. A comment section is a box whatever else its names say
// ("post-comments", "comment-body"); the caller tells those by comment.
func (h nameHint) box() bool {
	return h.neg > 0 && h.pos == 0
}

// nextWord writes to buf the first word of a class or id value at or
// after v[i], lower-cased, and returns its length (0: no word left) and
// where the next word can start. Words are runs of ASCII letters and
// digits, also split at a lower-to-upper case change ("articleBody");
// words longer than buf are cut. The caller's buf does not escape, so
// reading the names of every element allocates nothing.
func nextWord(v []byte, i int, buf *[32]byte) (n, next int) {
	for ; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= 'A' && c <= 'Z':
			if n > 0 && v[i-1] >= 'a' && v[i-1] <= 'z' {
				return n, i
			}
			c += 'a' - 'A'
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
		default:
			if n > 0 {
				return n, i + 1
			}
			continue
		}
		if n < len(buf) {
			buf[n] = c
			n++
		}
	}
	return n, i
}

// negativeWords name template boxes; a class word equal to one, or
// starting with one of negativePrefixes, counts against the element.
// Besides English, the words sites in German, Polish, French, Spanish,
// Italian, Dutch, Portuguese, Czech and Chinese (pinyin) use for comments,
// sharing, advertisements, related articles and footers.
var negativeWords = map[string]bool{
	"nav": true, "menu": true, "footer": true, "foot": true, "sidebar": true,
	"breadcrumb": true, "breadcrumbs": true, "crumbs": true, "comment": true,
	"comments": true, "reply": true, "replies": true, "share": true,
	"sharing": true, "social": true, "related": true, "recommend": true,
	"recommended": true, "widget": true, "widgets": true, "ad": true,
	"ads": true, "advert": true, "advertisement": true, "sponsor": true,
	"sponsored": true, "promo": true, "banner": true, "cookie": true,
	"cookies": true, "consent": true, "newsletter": true, "subscribe": true,
	"signup": true, "login": true, "modal": true, "popup": true,
	"pagination": true, "pager": true, "tags": true, "tagcloud": true,
	"copyright": true, "toolbar": true, "byline": true, "noprint": true,
	"outbrain": true, "taboola": true, "masthead": true, "search": true,
	"disqus": true, "popular": true, "trending": true, "skip": true,
	"gallery": true, "slideshow": true, "carousel": true, "slider": true,
	// de
	"teilen": true, "werbung": true, "anzeige": true, "anzeigen": true,
	"verwandte": true, "empfehlungen": true, "seitenleiste": true, "fusszeile": true,
	// pl
	"reklama": true, "reklamy": true, "powiazane": true, "podobne": true,
	"polecane": true, "udostepnij": true, "stopka": true,
	// fr
	"partage": true, "partager": true, "publicite": true,
	"similaires": true,
	// es, pt
	"compartir": true, "compartilhar": true, "publicidad": true,
	"publicidade": true, "relacionados": true, "relacionadas": true,
	"anuncio": true, "anuncios": true,
	// it, nl
	"condividi": true, "pubblicita": true, "correlati": true, "delen": true,
	"advertentie": true, "gerelateerd": true, "reacties": true,
	// cs
	"sdilet": true, "souvisejici": true, "diskuse": true, "diskuze": true,
	"paticka": true,
	// zh (pinyin)
	"pinglun": true, "xiangguan": true, "tuijian": true, "fenxiang": true,
	"guanggao": true,
}

var negativePrefixes = [][]byte{[]byte("navbar"), []byte("navigation"), []byte("sidebar"), []byte("footer"),
	[]byte("comment"), []byte("share"), []byte("related"), []byte("breadcrumb"), []byte("advert"),
	[]byte("kommentar"), []byte("komentar"), []byte("comentar")}

// negativeWord reports whether w, of kind k, names a template box.
func negativeWord(w []byte, k wordKind) bool {
	return k&negativeKind != 0 || hasAnyPrefix(w, negativePrefixes)
}

// commentWord reports whether w, of kind k, names a comment section: a
// comment word or one starting with a comment prefix ("commentlist",
// "kommentare", "komentarze", "comentarios", "commentaires").
func commentWord(w []byte, k wordKind) bool {
	return k&commentKind != 0 || hasAnyPrefix(w, commentPrefixes)
}

func hasAnyPrefix(w []byte, prefixes [][]byte) bool {
	for _, p := range prefixes {
		if bytes.HasPrefix(w, p) {
			return true
		}
	}
	return false
}

// commentWords and commentPrefixes name comment sections; they are
// negative words too.
var (
	commentWords = map[string]bool{
		"comment": true, "comments": true, "reply": true, "replies": true, "disqus": true,
		"reacties": true, "diskuse": true, "diskuze": true, "pinglun": true,
	}
	commentPrefixes = [][]byte{[]byte("comment"), []byte("kommentar"), []byte("komentar"), []byte("comentar")}
)

// galleryWords name picture galleries, whose captions can outweigh the
// article around them.
var galleryWords = map[string]bool{"gallery": true, "slideshow": true, "carousel": true}

// negators turn the next word's meaning around.
var negators = map[string]bool{"non": true, "no": true, "not": true, "has": true, "with": true, "without": true}

// wordKind is what a class or id word is by the word lists: one map
// lookup for each word of every element's names.
type wordKind uint8

const (
	negativeKind wordKind = 1 << iota
	commentKind
	galleryKind
	positiveKind
	negatorKind
)

var wordKinds = func() map[string]wordKind {
	m := map[string]wordKind{}
	for _, l := range []struct {
		words map[string]bool
		kind  wordKind
	}{{negativeWords, negativeKind}, {commentWords, commentKind}, {galleryWords, galleryKind}, {positiveWords, positiveKind}, {negators, negatorKind}} {
		for w := range l.words {
			m[w] |= l.kind
		}
	}
	return m
}()

// positiveWords name article bodies.
var positiveWords = map[string]bool{
	"article": true, "content": true, "entry": true, "post": true,
	"story": true, "body": true, "text": true, "main": true, "detail": true,
	"articlebody": true, "artibody": true, "zw": true,
}
