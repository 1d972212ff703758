package extract

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tdewolff/parse/v2"
	lex "github.com/tdewolff/parse/v2/html"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// tree is what extraction needs of a page, built in one pass of an HTML
// lexer (tdewolff/parse's, which returns slices of the page held in
// memory): the element hierarchy (tag, depth, a few flags) and the page's
// text cut into blocks, each element holding a contiguous range of them.
// It stands in for a DOM: html.Parse costs about 2.5 times
// golang.org/x/net/html's tokenizer on the development pages and fails on
// pages with more than 512 open elements, and ranges turn "the text under
// this element" into a slice.
//
// Tree building follows the HTML rules that change where text belongs
// (implied ends of p, li, dd/dt, tr, td/th, option and headings, a new <a>
// closing an open one, end tags matched within their scope, head closed by
// body content) and leaves out the rest (the adoption agency, foster
// parenting, reconstruction of formatting elements), which move inline
// markup but not text between blocks. Every step is O(1) amortised, so the
// cost is linear in the page size whatever its shape.
type tree struct {
	title  string // the first <title>, white space collapsed
	els    []element
	blocks []block
	ck     *check  // for the stages after building
	w      weights // the native engine's, defaultWeights but in tests

	anchorList   []int32 // see titleAnchors
	anchorsFound bool
}

// check lets long loops give up soon after the context is done: stop
// reports, every checkEvery calls, whether it is. A loop that gives up
// returns a partial result, which HTMLContext discards for ctx.Err(). A
// nil check never stops.
type check struct {
	ctx  context.Context
	n    int
	done bool
}

func (c *check) stop() bool {
	if c == nil {
		return false
	}
	if c.n++; c.n%checkEvery == 0 {
		return c.poll()
	}
	return c.done
}

// poll looks at the context now, for loops whose steps are long.
func (c *check) poll() bool {
	if c != nil && !c.done {
		c.done = c.ctx.Err() != nil
	}
	return c.done
}

// err returns the context's error, wrapped.
func (c *check) err() error {
	if err := c.ctx.Err(); err != nil {
		return fmt.Errorf("extract: stopped: %w", err)
	}
	return nil
}

// element is one element of the page. els[0] is the document itself.
type element struct {
	tag    atom.Atom // 0 for a tag that has no atom
	parent int32     // -1 for the document
	depth  int32     // the document is 0
	// blocks[first:end] is the text under the element; els[i+1:last+1]
	// are its descendants.
	first, end, last int32
	flags            elemFlags
}

// elemFlags are facts about an element; the inherited ones hold for its
// descendants too.
type elemFlags uint16

const (
	// Inherited.
	fNoText      elemFlags = 1 << iota // head, script, svg...: its text is not page text
	fLink                              // inside a hyperlink
	fBoilerplate                       // inside a boilerplate element (see fallback)
	fNoise                             // inside a template box by tag or role, or hidden
	fCell                              // inside a table cell
	// Own.
	fBreak    // starts and ends a block (not inline)
	fHeading  // h1-h6
	fBox      // a template box by class or id (see nameHint)
	fWholeBox // a box whatever its size: comments, galleries, id "sidebar" (see boxes)
	// Of blocks only.
	fDataCell // a link in a table row that holds prose (see markDataCells)
)

const inherited = fNoText | fLink | fBoilerplate | fNoise | fCell

// maxDepth bounds the open elements: deeper ones are not recorded (their
// text goes to the deepest recorded one), which bounds the memory and the
// walks up the tree on pathological pages.
const maxDepth = 512

// checkEvery is how many tokens (or blocks or runes, in later stages)
// pass between two looks at the context: a few microseconds of work.
const checkEvery = 1024

// pollBytes is how much text the tree building reads between two looks
// at the context inside one text token.
const pollBytes = 64 << 10

// noTextTags hold no page text.
var noTextTags = map[atom.Atom]bool{
	atom.Head: true, atom.Script: true, atom.Style: true, atom.Noscript: true,
	atom.Template: true, atom.Svg: true, atom.Math: true, atom.Textarea: true,
	atom.Select: true, atom.Iframe: true, atom.Object: true, atom.Noembed: true,
	atom.Noframes: true, atom.Canvas: true, atom.Audio: true, atom.Video: true,
	atom.Title: true,
}

// silentTags neither hold text nor end the block around them: a script,
// a formula or an icon inside a paragraph does not split it (a split
// inside a hidden inline element, as Wikipedia wraps its MathML, would
// leave the words before it in that element).
var silentTags = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Math: true, atom.Svg: true,
}

// noiseTags are template boxes whatever their class (see nameHint for the
// ones told by class and id). Figures hold pictures, their captions and
// credits, which the articles of both extraction benchmarks leave out:
// English F1 0.971 with them, 0.975 without.
var noiseTags = map[atom.Atom]bool{
	atom.Nav: true, atom.Footer: true, atom.Aside: true, atom.Button: true,
	atom.Menu: true, atom.Dialog: true, atom.Label: true, atom.Fieldset: true,
	atom.Figure: true, atom.Figcaption: true,
}

// neverBox are the elements a class or id cannot make template boxes,
// but an <article> named as a comment: themes put words like
// "has-sidebar" on the page's outer elements.
var neverBox = map[atom.Atom]bool{
	atom.Html: true, atom.Body: true, atom.Main: true, atom.Article: true,
}

// closesP are the start tags that close an open <p>.
var closesP = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true,
	atom.Center: true, atom.Details: true, atom.Dialog: true, atom.Dir: true,
	atom.Div: true, atom.Dl: true, atom.Fieldset: true, atom.Figcaption: true,
	atom.Figure: true, atom.Footer: true, atom.Header: true, atom.Hgroup: true,
	atom.Main: true, atom.Menu: true, atom.Nav: true, atom.Ol: true, atom.P: true,
	atom.Section: true, atom.Summary: true, atom.Ul: true, atom.H1: true,
	atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	atom.Pre: true, atom.Listing: true, atom.Form: true, atom.Table: true,
	atom.Hr: true, atom.Xmp: true, atom.Li: true, atom.Dd: true, atom.Dt: true,
	atom.Plaintext: true,
}

// scopeTags bound the search for an open element an end tag closes: a
// </div> inside a table cell does not close a <div> around the table.
var scopeTags = map[atom.Atom]bool{
	atom.Html: true, atom.Table: true, atom.Td: true, atom.Th: true,
	atom.Caption: true, atom.Template: true, atom.Object: true,
	atom.Marquee: true, atom.Applet: true, atom.Button: true,
}

// tableTags are the parts of a table, closed by an end tag inside the
// innermost open table whatever is open above them.
var tableTags = map[atom.Atom]bool{
	atom.Tbody: true, atom.Thead: true, atom.Tfoot: true, atom.Tr: true,
	atom.Td: true, atom.Th: true, atom.Caption: true,
}

// voidTags have no content and no end tag.
var voidTags = map[atom.Atom]bool{
	atom.Area: true, atom.Base: true, atom.Br: true, atom.Col: true,
	atom.Embed: true, atom.Hr: true, atom.Img: true, atom.Input: true,
	atom.Link: true, atom.Meta: true, atom.Source: true, atom.Track: true,
	atom.Wbr: true, atom.Param: true, atom.Keygen: true,
}

// headTags may appear in <head>; any other start tag ends it.
var headTags = map[atom.Atom]bool{
	atom.Meta: true, atom.Link: true, atom.Title: true, atom.Style: true,
	atom.Script: true, atom.Base: true, atom.Noscript: true, atom.Template: true,
}

// tagInfo is what the tag sets above and the inline, boilerplate and
// sectionSkip sets say of a tag: one lookup a tag instead of one a set.
type tagInfo uint16

const (
	tiHead tagInfo = 1 << iota
	tiClosesP
	tiSilent
	tiInline
	tiVoid
	tiNoText
	tiBoilerplate
	tiNoise
	tiScope
	tiSectionSkip
	tiTable
)

var tagInfos = func() map[atom.Atom]tagInfo {
	m := map[atom.Atom]tagInfo{}
	for _, set := range []struct {
		tags map[atom.Atom]bool
		info tagInfo
	}{
		{headTags, tiHead}, {closesP, tiClosesP}, {silentTags, tiSilent}, {voidTags, tiVoid},
		{noTextTags, tiNoText}, {boilerplate, tiBoilerplate}, {noiseTags, tiNoise},
		{scopeTags, tiScope}, {sectionSkip, tiSectionSkip}, {tableTags, tiTable},
	} {
		for a := range set.tags {
			m[a] |= set.info
		}
	}
	for name := range inline {
		if a := atom.Lookup([]byte(name)); a != 0 {
			m[a] |= tiInline
		}
	}
	return m
}()

// isInline reports whether the tag named name, of atom a and info ti, is
// inline (see inline: go-trafilatura's names have no atom).
func isInline(a atom.Atom, ti tagInfo, name []byte) bool {
	if a == 0 {
		return inline[string(name)]
	}
	return ti&tiInline != 0
}

// openElem is an entry of the stack of open elements.
type openElem struct {
	el       int32 // index in tree.els
	key      tagKey
	prevSame int32 // stack position of the next open element with the same key below, -1
	scope    int32 // stack position of the nearest scope element at or below
	block    int32 // stack position of the nearest block-level element at or below
	// skip is the depth of the deepest open element that narrowing skips
	// (sectionSkip), -1 for none.
	skip int32
}

// tagKey names a tag: its atom, or for other tags (custom elements) the
// name.
type tagKey struct {
	a    atom.Atom
	name string
}

// builder builds a tree from tokens.
type builder struct {
	t     *tree
	stack []openElem
	// topAtom and topName hold the stack position of the topmost open
	// element of each tag, by atom or, for other tags, by name.
	topAtom   map[atom.Atom]int32
	topName   map[string]int32
	buf       []byte // the current block's text, white space collapsed
	runes     int    // runes in buf
	links     int    // runes of buf inside links
	bufEl     int32  // the innermost open element when buf's first rune was written
	space     bool   // white space seen since the last rune written
	lastLink  bool   // the last rune written is link text
	inTitle   bool
	titleBuf  []byte
	titleSeen bool // the first <title> was read
	dec       []byte
	// classHints are the counts of each class value read (see nameHint).
	classHints map[string]nameHint
}

// buildTree reads doc into a tree. It fails only when ctx is done.
//
// The lexer leaves to its caller what golang.org/x/net/html's tokenizer
// does itself: it does not decode character references (the text kept
// and the attributes read are decoded here), reads noscript, noembed and
// noframes as markup (skipped here up to their end tag: the tokenizer
// reads them as raw text) and CDATA outside SVG as text (a comment in
// HTML), and reads a whole svg or math element as one token. Like
// browsers, and unlike the tokenizer, it reads the content of a
// "<script/>" or "<title/>" as raw text. The extracted text of the
// extraction and near-duplicate sets is the same as with the tokenizer.
func buildTree(ctx context.Context, doc string) (*tree, error) {
	// A page has at most one element and one block per "<": measured on
	// the extraction benchmarks, elements are 0.45 of them (0.49 at the
	// 90th percentile), blocks 0.12 (0.19).
	n := strings.Count(doc, "<")
	t := &tree{els: make([]element, 1, 64+n/2), blocks: make([]block, 0, 16+n/8), ck: &check{ctx: ctx}, w: defaultWeights}
	t.els[0] = element{parent: -1, flags: fBreak}
	b := &builder{t: t, topAtom: make(map[atom.Atom]int32, 32), topName: map[string]int32{}, classHints: make(map[string]nameHint, 64), stack: make([]openElem, 1, 64)}
	b.stack[0] = openElem{el: 0, prevSame: -1, scope: 0, block: 0, skip: -1}
	// The lexer lower-cases tag and attribute names in place: it reads a
	// copy of the page, with room for the NUL it puts after the end.
	buf := make([]byte, len(doc), len(doc)+1)
	copy(buf, doc)
	in := parse.NewInputBytes(buf)
	l := lex.NewLexer(in)
	var (
		tag     []byte // the start tag whose attributes are being read
		attrs   = make([]attr, 0, 8)
		skipEnd []byte // skip tokens up to this end tag (see rawTags)
	)
	for {
		if t.ck.stop() {
			return nil, t.ck.err()
		}
		tt, data := l.Next()
		switch tt {
		case lex.ErrorToken:
			if in.Err() == nil {
				tag = nil
				continue // a NUL inside SVG or MathML: the lexer goes on after it
			}
			b.flush()
			b.popTo(0)
			t.els[0].end = int32(len(t.blocks))
			t.els[0].last = int32(len(t.els) - 1)
			return t, nil
		case lex.TextToken:
			if skipEnd != nil || bytes.HasPrefix(data, []byte("<![CDATA[")) {
				continue // CDATA is a comment in HTML content
			}
			b.text(l.Text())
		case lex.StartTagToken:
			tag, attrs = tagName(l.Text()), attrs[:0]
		case lex.AttributeToken:
			if tag != nil {
				attrs = append(attrs, attr{key: l.AttrKey(), val: l.AttrVal()})
			}
		case lex.StartTagCloseToken, lex.StartTagVoidToken:
			if tag == nil || skipEnd != nil {
				tag = nil
				continue
			}
			b.start(tag, attrs)
			if tt == lex.StartTagCloseToken && rawTags[string(tag)] {
				skipEnd = tag
			}
			tag = nil
		case lex.EndTagToken:
			name := tagName(l.Text())
			if skipEnd != nil {
				if !bytes.Equal(name, skipEnd) {
					continue
				}
				skipEnd = nil
			}
			b.end(name)
		case lex.SVGToken, lex.MathToken:
			// The lexer reads a whole SVG or MathML element as one token:
			// it holds no page text.
			if skipEnd == nil {
				name := svgName
				if tt == lex.MathToken {
					name = mathName
				}
				b.start(name, nil)
				b.end(name)
			}
		}
	}
}

// attr is an attribute of a start tag as the lexer reads it: the value
// still quoted and escaped.
type attr struct{ key, val []byte }

// value returns the attribute's value, unquoted and unescaped.
func (a attr) value() []byte {
	v := a.val
	if len(v) > 0 && (v[0] == '"' || v[0] == '\'') {
		q := v[0]
		v = v[1:]
		if len(v) > 0 && v[len(v)-1] == q {
			v = v[:len(v)-1]
		}
	}
	if bytes.IndexByte(v, '&') >= 0 {
		return []byte(html.UnescapeString(string(v)))
	}
	return v
}

var svgName, mathName = []byte("svg"), []byte("math")

// rawTags hold text, not markup, in HTML (the HTML tokenizer reads their
// content as raw text), and the lexer reads them as markup.
var rawTags = map[string]bool{"noscript": true, "noembed": true, "noframes": true}

// tagName returns the name at the start of a tag's text: HTML ends it at
// white space or "/".
func tagName(s []byte) []byte {
	for i, c := range s {
		switch c {
		case ' ', '\n', '\t', '\r', '\f', '/', '>':
			return s[:i]
		}
	}
	return s
}

// cur returns the innermost open element.
func (b *builder) cur() *element {
	return &b.t.els[b.stack[len(b.stack)-1].el]
}

// text adds a text token, still escaped, to the current block, or to the
// title.
func (b *builder) text(s []byte) {
	if b.inTitle {
		b.titleBuf = append(b.titleBuf, b.unescape(s)...)
		return
	}
	e := b.cur()
	if e.tag == atom.Head && !isBlank(s) {
		b.popAbove(atom.Head) // text ends an unclosed head
		e = b.cur()
	}
	if e.flags&fNoText != 0 {
		return
	}
	s = b.unescape(s)
	inLink := e.flags&fLink != 0
	for i, poll := 0, pollBytes; i < len(s); {
		if i >= poll {
			if b.t.ck.poll() {
				return // buildTree returns at the next token
			}
			poll += pollBytes
		}
		c := s[i]
		size := 1
		var sp, invalid bool
		if c < utf8.RuneSelf {
			sp = c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v'
		} else {
			var r rune
			r, size = utf8.DecodeRune(s[i:])
			sp = unicode.IsSpace(r)
			invalid = r == utf8.RuneError && size == 1
		}
		if sp {
			b.space = true
		} else {
			if b.space && len(b.buf) > 0 {
				b.buf = append(b.buf, ' ')
				b.runes++
				if inLink && b.lastLink {
					b.links++ // a space inside link text
				}
			}
			if len(b.buf) == 0 {
				b.bufEl = b.stack[len(b.stack)-1].el
			}
			b.space, b.lastLink = false, inLink
			if invalid {
				// A byte that is no character is one: stray bytes of two
				// text tokens side by side would otherwise make one.
				b.buf = utf8.AppendRune(b.buf, utf8.RuneError)
			} else {
				b.buf = append(b.buf, s[i:i+size]...)
			}
			b.runes++
			if inLink {
				b.links++
			}
		}
		i += size
	}
}

// unescape returns s with its character references decoded, in b.dec
// when it has any.
func (b *builder) unescape(s []byte) []byte {
	if bytes.IndexByte(s, '&') < 0 {
		return s
	}
	b.dec = append(b.dec[:0], html.UnescapeString(string(s))...)
	return b.dec
}

// flush ends the current block.
func (b *builder) flush() {
	b.space = false
	if len(b.buf) == 0 {
		return
	}
	// The block belongs to the innermost element open since its text
	// began: an inline element opened after that, around a block-level
	// one (a hidden <span> around a <div>), holds only its end.
	top := len(b.stack) - 1
	for top > 0 && b.stack[top].el > b.bufEl {
		top--
	}
	oe := b.stack[top]
	b.t.blocks = append(b.t.blocks, block{
		text: string(b.buf), runes: b.runes, linkRunes: b.links,
		el: oe.el, flags: b.t.els[oe.el].flags & inherited, skipDepth: oe.skip,
	})
	b.buf, b.runes, b.links = b.buf[:0], 0, 0
}

// start handles a start tag.
func (b *builder) start(name []byte, attrs []attr) {
	a := atom.Lookup(name)
	ti := tagInfos[a]
	key := tagKey{a: a}
	if a == 0 {
		key.name = string(name)
	}
	// Structure: implied ends.
	if b.cur().tag == atom.Head && ti&tiHead == 0 {
		b.popAbove(atom.Head)
	}
	switch {
	case a == atom.Html || a == atom.Body || a == atom.Head:
		if b.open(key) >= 0 || (a == atom.Head && b.openAtom(atom.Body) >= 0) {
			return // a second <html>/<body> adds nothing
		}
	case a == atom.Li:
		b.closeInScope(atom.Li, atom.Ul, atom.Ol)
	case a == atom.Dd || a == atom.Dt:
		b.closeInScope(atom.Dd, atom.Dl)
		b.closeInScope(atom.Dt, atom.Dl)
	case a == atom.Tr:
		b.closeInTable(atom.Td, atom.Th, atom.Tr)
	case a == atom.Td || a == atom.Th:
		b.closeInTable(atom.Td, atom.Th)
	case a == atom.Tbody || a == atom.Thead || a == atom.Tfoot:
		b.closeInTable(atom.Td, atom.Th, atom.Tr, atom.Tbody, atom.Thead, atom.Tfoot)
	case a == atom.Option || a == atom.Optgroup:
		if t := b.cur().tag; t == atom.Option || (a == atom.Optgroup && t == atom.Optgroup) {
			b.popTo(len(b.stack) - 1)
		}
	case a == atom.A:
		// A new link ends an open one in the same run of inline text. An
		// open one around blocks (a named anchor left open over a post)
		// stays: closing it would close the blocks too.
		if pos := b.openAtom(atom.A); pos > b.stack[len(b.stack)-1].block {
			b.popTo(int(pos))
		}
	}
	if ti&tiClosesP != 0 {
		b.closeInScope(atom.P)
	}
	if headingLevelOf(a) > 0 && headingLevelOf(b.cur().tag) > 0 {
		b.popTo(len(b.stack) - 1)
	}

	brk := !isInline(a, ti, name) && ti&tiSilent == 0
	if brk {
		b.flush()
	}
	if a == atom.Title && !b.titleSeen {
		b.inTitle = true // the lexer reads its content as one text token
	}
	// HTML ignores the "/>" of other elements than void ones ("<div/>"
	// opens a div).
	if ti&tiVoid != 0 || len(b.stack) >= maxDepth {
		return
	}

	// Push.
	parent := b.cur()
	pi := b.stack[len(b.stack)-1].el
	e := element{
		tag: a, parent: pi, depth: parent.depth + 1,
		first: int32(len(b.t.blocks)), flags: parent.flags & inherited,
	}
	if brk {
		e.flags |= fBreak
	}
	if headingLevelOf(a) > 0 {
		e.flags |= fHeading
	}
	if ti&tiNoText != 0 {
		e.flags |= fNoText
	}
	if ti&tiBoilerplate != 0 {
		e.flags |= fBoilerplate
	}
	if ti&tiNoise != 0 {
		e.flags |= fNoise
	}
	if a == atom.Td || a == atom.Th {
		e.flags |= fCell
	}
	if len(attrs) > 0 && e.flags&fNoText == 0 {
		b.attrs(attrs, &e) // the names of elements without text do not matter
	}
	b.t.els = append(b.t.els, e)
	pos := int32(len(b.stack))
	below := b.stack[pos-1]
	oe := openElem{el: int32(len(b.t.els) - 1), key: key, prevSame: b.open(key), scope: below.scope, block: below.block, skip: below.skip}
	if ti&tiScope != 0 {
		oe.scope = pos
	}
	if brk {
		oe.block = pos
	}
	if ti&tiSectionSkip != 0 {
		oe.skip = e.depth
	}
	b.stack = append(b.stack, oe)
	b.setTop(key, pos)
}

// attrs reads the attributes of a start tag into e.
func (b *builder) attrs(attrs []attr, e *element) {
	var names nameHint
	var idValue []byte
	var seen uint8
	for _, a := range attrs {
		// The first of a key counts, as in HTML.
		bit := attrBit(a.key)
		if bit == 0 || seen&bit != 0 {
			continue
		}
		seen |= bit
		v := a.value()
		switch string(a.key) {
		case "href":
			if e.tag == atom.A {
				e.flags |= fLink
			}
		case "class":
			// Pages repeat a few class values (every item of a menu).
			h, ok := b.classHints[string(v)]
			if !ok {
				h.add(v, false)
				b.classHints[string(v)] = h
			}
			names.plus(h)
		case "id":
			names.add(v, true)
			idValue = v
		case "role", "itemprop":
			switch strings.ToLower(string(bytes.TrimSpace(v))) {
			case "navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar", "dialog", "alert":
				e.flags |= fNoise
			case "main", "article", "articlebody":
				names.pos++
			}
		case "hidden":
			e.flags |= fNoise
		case "aria-hidden":
			if string(v) == "true" {
				e.flags |= fNoise
			}
		case "style":
			if hidden(v) {
				e.flags |= fNoise
			}
		}
	}
	switch {
	case names.comment > 0 && !neverBox[e.tag] || names.exactComment > 0 && e.tag == atom.Article:
		// Pages name their outer elements after features and states
		// ("f_comments_on", "commented"); an <article> named "comment"
		// or "reply" is one.
		e.flags |= fBox | fWholeBox
	case names.box() && !neverBox[e.tag]:
		e.flags |= fBox
		if names.gallery > 0 || soleSidebar(idValue) {
			e.flags |= fWholeBox
		}
	}
}

// soleSidebar reports whether an id is "sidebar" alone, with a number:
// the column beside the article, whatever its size (a short post's page
// has more prose in its sidebar than in its post), unlike the wrappers
// that themes name after the sidebar in them, which are classes.
func soleSidebar(id []byte) bool {
	id = bytes.TrimRight(bytes.ToLower(bytes.TrimSpace(id)), "0123456789")
	return string(id) == "sidebar"
}

// attrBit returns the bit of an attribute attrs reads, 0 for others.
func attrBit(key []byte) uint8 {
	switch string(key) {
	case "href":
		return 1
	case "class":
		return 2
	case "id":
		return 4
	case "role":
		return 8
	case "itemprop":
		return 16
	case "hidden":
		return 32
	case "aria-hidden":
		return 64
	case "style":
		return 128
	}
	return 0
}

// end handles an end tag.
func (b *builder) end(name []byte) {
	a := atom.Lookup(name)
	if b.inTitle {
		if a != atom.Title {
			return
		}
		b.endTitle()
	}
	switch a {
	case atom.Br, atom.P:
		if a == atom.Br || b.openAtom(atom.P) < 0 {
			b.flush() // a stray </br> or </p> breaks the line
			return
		}
	case atom.Body, atom.Html:
		return // text after them still belongs to the body
	}
	key := tagKey{a: a}
	if a == 0 {
		key.name = string(name)
	}
	pos := b.open(key)
	ti := tagInfos[a]
	switch {
	case pos <= 0:
		return
	case ti&tiTable != 0:
		if pos < b.openAtom(atom.Table) {
			return // a row or cell of an outer table
		}
	case ti&tiScope == 0 && pos < b.stack[len(b.stack)-1].scope:
		return // outside the current table cell, object...
	}
	b.popTo(int(pos))
}

func (b *builder) endTitle() {
	b.inTitle, b.titleSeen = false, true
	b.t.title = collapse(string(b.titleBuf))
	b.titleBuf = nil
}

// open returns the stack position of the topmost open element with key,
// or -1.
func (b *builder) open(key tagKey) int32 {
	if key.a != 0 {
		return b.openAtom(key.a)
	}
	if p, ok := b.topName[key.name]; ok {
		return p
	}
	return -1
}

// openAtom is open for a tag with an atom.
func (b *builder) openAtom(a atom.Atom) int32 {
	if p, ok := b.topAtom[a]; ok {
		return p
	}
	return -1
}

// setTop records pos as the topmost open element with key; -1 forgets
// the key.
func (b *builder) setTop(key tagKey, pos int32) {
	switch {
	case key.a != 0 && pos >= 0:
		b.topAtom[key.a] = pos
	case key.a != 0:
		delete(b.topAtom, key.a)
	case pos >= 0:
		b.topName[key.name] = pos
	default:
		delete(b.topName, key.name)
	}
}

// closeInScope closes an open a unless a scope element or one of bounds
// is open above it.
func (b *builder) closeInScope(a atom.Atom, bounds ...atom.Atom) {
	pos := b.openAtom(a)
	if pos <= 0 || pos < b.stack[len(b.stack)-1].scope {
		return
	}
	for _, bound := range bounds {
		if b.openAtom(bound) > pos {
			return
		}
	}
	b.popTo(int(pos))
}

// closeInTable closes the open elements of tags that are in the innermost
// open table (a new row closes the cell and the row before it).
func (b *builder) closeInTable(tags ...atom.Atom) {
	table := b.openAtom(atom.Table)
	for _, a := range tags {
		if pos := b.openAtom(a); pos > table && pos > 0 {
			b.popTo(int(pos))
		}
	}
}

// popAbove closes the topmost open a and what is open above it.
func (b *builder) popAbove(a atom.Atom) {
	if pos := b.openAtom(a); pos > 0 {
		b.popTo(int(pos))
	}
}

// popTo closes the open elements at stack positions pos and above.
func (b *builder) popTo(pos int) {
	if pos < 1 {
		pos = 1 // the document stays open
	}
	for i := len(b.stack) - 1; i >= pos; i-- {
		b.stack = b.stack[:i+1] // blocks flushed now belong to this element
		oe := b.stack[i]
		e := &b.t.els[oe.el]
		if e.flags&fBreak != 0 {
			b.flush()
		}
		e.end = int32(len(b.t.blocks))
		if len(b.buf) > 0 {
			e.end++ // the pending block ends inside this inline element
		}
		e.last = int32(len(b.t.els) - 1)
		b.setTop(oe.key, oe.prevSame)
	}
	b.stack = b.stack[:min(pos, len(b.stack))]
}

// isBlank reports whether s is only ASCII white space.
func isBlank(s []byte) bool {
	for _, c := range s {
		if c != ' ' && c != '\n' && c != '\t' && c != '\r' && c != '\f' {
			return false
		}
	}
	return true
}

// headingLevelOf returns n for hn, 0 for any other tag.
func headingLevelOf(a atom.Atom) int {
	switch a {
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

// hidden reports whether a style attribute hides the element.
func hidden(style []byte) bool {
	s := strings.ToLower(strings.ReplaceAll(string(style), " ", ""))
	return strings.Contains(s, "display:none") || strings.Contains(s, "visibility:hidden")
}

// runes returns the runes of text in the page's blocks.
func (t *tree) runes() int {
	n := 0
	for _, b := range t.blocks {
		n += b.runes
	}
	return n
}

// text returns the text of the blocks under e, joined by spaces.
func (t *tree) text(e int32) string {
	var sb strings.Builder
	for _, b := range t.blocks[t.els[e].first:t.els[e].end] {
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(b.text)
	}
	return sb.String()
}
