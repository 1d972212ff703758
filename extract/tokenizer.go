// The tokenizer's states follow golang.org/x/net/html's Tokenizer
// (token.go): Copyright 2010 The Go Authors, BSD-style license
// (https://cs.opensource.google/go/x/net/+/master:LICENSE).

package extract

import (
	"strings"

	"golang.org/x/net/html"
)

// tokenizer splits a page held in memory into the tokens that
// golang.org/x/net/html's Tokenizer returns for it: the same token types,
// raw extents, tag names, attributes and texts (FuzzTokenizer compares
// them). That Tokenizer reads through a buffer a function call per byte
// and copies every tag name, attribute key and value it returns; it was
// half the CPU of an extraction. This one indexes the page's string: a
// token's text and attribute values are slices of it, decoded (entities,
// "\r\n", NUL) only when they hold something to decode and only when
// asked for.
type tokenizer struct {
	doc string
	// doc[start:pos] is the current token; doc[data.start:data.end] its
	// data (a text, a tag name).
	start, pos int
	data       span
	tt         html.TokenType
	eof        bool
	// attrs are the key and value of each attribute of the current start
	// tag, the first of each key only (keys compared in lower case), as
	// the Tokenizer keeps them.
	attrs   [][2]span
	pending [2]span
	keys    map[string]bool // the keys seen, on tags with many attributes
	// rawTag is the lower-case name of the element whose end tag ends the
	// next token (script, style, title...), "" for none.
	rawTag string
	// textIsRaw: the text has no entities; convertNUL: its NULs are
	// replaced.
	textIsRaw, convertNUL bool
	name                  []byte // the current tag name in lower case
}

type span struct{ start, end int }

// maxLinearAttrs is how many attributes a tag may have before the
// duplicate check uses a map (keeps a tag of many attributes linear).
const maxLinearAttrs = 16

func newTokenizer(doc string) *tokenizer {
	return &tokenizer{doc: doc, attrs: make([][2]span, 0, 8), name: make([]byte, 0, 16)}
}

// readByte returns the next byte, or 0 and sets eof at the end.
func (z *tokenizer) readByte() byte {
	if z.pos >= len(z.doc) {
		z.eof = true
		return 0
	}
	c := z.doc[z.pos]
	z.pos++
	return c
}

func (z *tokenizer) skipWhiteSpace() {
	for !z.eof {
		switch z.readByte() {
		case ' ', '\n', '\r', '\t', '\f':
		default:
			if !z.eof {
				z.pos--
			}
			return
		}
	}
}

// readRawOrRCDATA reads until the end tag of z.rawTag.
func (z *tokenizer) readRawOrRCDATA() {
	if z.rawTag == "script" {
		z.readScript()
		z.textIsRaw = true
		z.rawTag = ""
		return
	}
	for {
		i := strings.IndexByte(z.doc[z.pos:], '<')
		if i < 0 {
			z.pos, z.eof = len(z.doc), true
			break
		}
		z.pos += i + 1
		c := z.readByte()
		if z.eof {
			break
		}
		if c != '/' {
			z.pos--
			continue
		}
		if z.readRawEndTag() || z.eof {
			break
		}
	}
	z.data.end = z.pos
	// A textarea's or title's RCDATA can contain escaped entities.
	z.textIsRaw = z.rawTag != "textarea" && z.rawTag != "title"
	z.rawTag = ""
}

// readRawEndTag reads "</rawTag" and a separator, then backs up to the
// "<" and reports true; else it reports false. "</" has been read.
func (z *tokenizer) readRawEndTag() bool {
	for i := 0; i < len(z.rawTag); i++ {
		c := z.readByte()
		if z.eof {
			return false
		}
		if c != z.rawTag[i] && c != z.rawTag[i]-('a'-'A') {
			z.pos--
			return false
		}
	}
	c := z.readByte()
	if z.eof {
		return false
	}
	switch c {
	case ' ', '\n', '\r', '\t', '\f', '/', '>':
		z.pos -= 3 + len(z.rawTag)
		return true
	}
	z.pos--
	return false
}

// readScript reads until the next </script>, by the rules for escaped
// and double-escaped script data.
func (z *tokenizer) readScript() {
	defer func() { z.data.end = z.pos }()
	var c byte

scriptData:
	if i := strings.IndexByte(z.doc[z.pos:], '<'); i >= 0 {
		z.pos += i + 1
	} else {
		z.pos, z.eof = len(z.doc), true
		return
	}
	c = z.readByte()
	if z.eof {
		return
	}
	switch c {
	case '/':
		if z.readRawEndTag() || z.eof {
			return
		}
		goto scriptData
	case '!':
		goto scriptDataEscapeStart
	}
	z.pos--
	goto scriptData

scriptDataEscapeStart:
	c = z.readByte()
	if z.eof {
		return
	}
	if c == '-' {
		goto scriptDataEscapeStartDash
	}
	z.pos--
	goto scriptData

scriptDataEscapeStartDash:
	c = z.readByte()
	if z.eof {
		return
	}
	if c == '-' {
		goto scriptDataEscapedDashDash
	}
	z.pos--
	goto scriptData

scriptDataEscaped:
	c = z.readByte()
	if z.eof {
		return
	}
	switch c {
	case '-':
		goto scriptDataEscapedDash
	case '<':
		goto scriptDataEscapedLessThanSign
	}
	goto scriptDataEscaped

scriptDataEscapedDash:
	c = z.readByte()
	if z.eof {
		return
	}
	switch c {
	case '-':
		goto scriptDataEscapedDashDash
	case '<':
		goto scriptDataEscapedLessThanSign
	}
	goto scriptDataEscaped

scriptDataEscapedDashDash:
	c = z.readByte()
	if z.eof {
		return
	}
	switch c {
	case '-':
		goto scriptDataEscapedDashDash
	case '<':
		goto scriptDataEscapedLessThanSign
	case '>':
		goto scriptData
	}
	goto scriptDataEscaped

scriptDataEscapedLessThanSign:
	c = z.readByte()
	if z.eof {
		return
	}
	if c == '/' {
		if z.readRawEndTag() || z.eof {
			return
		}
		goto scriptDataEscaped
	}
	if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
		z.pos--
		for i := 0; i < len("script"); i++ {
			c = z.readByte()
			if z.eof {
				return
			}
			if c != "script"[i] && c != "SCRIPT"[i] {
				z.pos--
				goto scriptDataEscaped
			}
		}
		c = z.readByte()
		if z.eof {
			return
		}
		switch c {
		case ' ', '\n', '\r', '\t', '\f', '/', '>':
			goto scriptDataDoubleEscaped
		}
		z.pos--
		goto scriptDataEscaped
	}
	z.pos--
	goto scriptData

scriptDataDoubleEscaped:
	c = z.readByte()
	if z.eof {
		return
	}
	switch c {
	case '-':
		goto scriptDataDoubleEscapedDash
	case '<':
		goto scriptDataDoubleEscapedLessThanSign
	}
	goto scriptDataDoubleEscaped

scriptDataDoubleEscapedDash:
	c = z.readByte()
	if z.eof {
		return
	}
	switch c {
	case '-':
		goto scriptDataDoubleEscapedDashDash
	case '<':
		goto scriptDataDoubleEscapedLessThanSign
	}
	goto scriptDataDoubleEscaped

scriptDataDoubleEscapedDashDash:
	c = z.readByte()
	if z.eof {
		return
	}
	switch c {
	case '-':
		goto scriptDataDoubleEscapedDashDash
	case '<':
		goto scriptDataDoubleEscapedLessThanSign
	case '>':
		goto scriptData
	}
	goto scriptDataDoubleEscaped

scriptDataDoubleEscapedLessThanSign:
	c = z.readByte()
	if z.eof {
		return
	}
	if c == '/' {
		if z.readRawEndTag() {
			z.pos += len("</script>")
			goto scriptDataEscaped
		}
		if z.eof {
			return
		}
		goto scriptDataDoubleEscaped
	}
	z.pos--
	goto scriptDataDoubleEscaped
}

// readComment reads a comment; "<!--" has been read.
func (z *tokenizer) readComment() {
	z.data.start = z.pos
	defer func() { z.data.end = max(z.data.end, z.data.start) }() // <!-->
	dashCount, beginning := 0, true
	for {
		c := z.readByte()
		if z.eof {
			z.data.end = z.abruptCommentDataEnd()
			return
		}
		switch c {
		case '-':
			dashCount++
			continue
		case '>':
			if dashCount >= 2 || beginning {
				z.data.end = z.pos - len("-->")
				return
			}
		case '!':
			if dashCount >= 2 {
				c = z.readByte()
				if z.eof {
					z.data.end = z.abruptCommentDataEnd()
					return
				} else if c == '>' {
					z.data.end = z.pos - len("--!>")
					return
				} else if c == '-' {
					dashCount, beginning = 1, false
					continue
				}
			}
		}
		dashCount, beginning = 0, false
	}
}

func (z *tokenizer) abruptCommentDataEnd() int {
	raw := z.doc[z.start:z.pos]
	if len(raw) >= len("<!--") {
		raw = raw[len("<!--"):]
		switch {
		case strings.HasSuffix(raw, "--!"):
			return z.pos - 3
		case strings.HasSuffix(raw, "--"):
			return z.pos - 2
		case strings.HasSuffix(raw, "-"):
			return z.pos - 1
		}
	}
	return z.pos
}

// readUntilCloseAngle reads up to and including the next ">".
func (z *tokenizer) readUntilCloseAngle() {
	z.data.start = z.pos
	i := strings.IndexByte(z.doc[z.pos:], '>')
	if i < 0 {
		z.pos, z.eof = len(z.doc), true
		z.data.end = z.pos
		return
	}
	z.pos += i + 1
	z.data.end = z.pos - 1
}

// readMarkupDeclaration reads a comment, a doctype or a bogus comment;
// "<!" has been read.
func (z *tokenizer) readMarkupDeclaration() html.TokenType {
	z.data.start = z.pos
	var c [2]byte
	for i := range 2 {
		c[i] = z.readByte()
		if z.eof {
			z.data.end = z.pos
			if i == 1 && c[0] == '>' {
				z.data.end--
			}
			return html.CommentToken
		}
	}
	if c[0] == '-' && c[1] == '-' {
		z.readComment()
		return html.CommentToken
	}
	z.pos -= 2
	if z.readDoctype() {
		return html.DoctypeToken
	}
	z.readUntilCloseAngle()
	return html.CommentToken
}

// readDoctype reads a doctype, reporting whether there is one; "<!" has
// been read.
func (z *tokenizer) readDoctype() bool {
	const s = "DOCTYPE"
	for i := 0; i < len(s); i++ {
		c := z.readByte()
		if z.eof {
			// Back up to read the fragment again; the end is seen at the
			// next read.
			z.pos, z.eof = z.data.start, false
			return false
		}
		if c != s[i] && c != s[i]+('a'-'A') {
			z.pos = z.data.start
			return false
		}
	}
	if z.skipWhiteSpace(); z.eof {
		z.data.start, z.data.end = z.pos, z.pos
		return true
	}
	z.readUntilCloseAngle()
	return true
}

// tagIs reports whether the current tag name is s, case-insensitively (s
// in lower case).
func (z *tokenizer) tagIs(s string) bool {
	if z.data.end-z.data.start != len(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if lowerASCII(z.doc[z.data.start+i]) != s[i] {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		c += 'a' - 'A'
	}
	return c
}

// rawTags are the elements whose content is one text token.
var rawTags = []string{"iframe", "noembed", "noframes", "noscript", "plaintext", "script", "style", "textarea", "title", "xmp"}

// readStartTag reads a start tag; "<a" has been read.
func (z *tokenizer) readStartTag() html.TokenType {
	z.readTag(true)
	if z.eof {
		return html.ErrorToken
	}
	if c := lowerASCII(z.doc[z.data.start]); strings.IndexByte("inpstx", c) >= 0 {
		for _, t := range rawTags {
			if t[0] == c && z.tagIs(t) {
				z.rawTag = t
				break
			}
		}
	}
	// Self-closing: "/" before ">" that is not the end of an unquoted
	// value ("<p a=/>").
	n := len(z.attrs)
	if z.doc[z.pos-2] == '/' && (n == 0 || z.pos-2 != z.attrs[n-1][1].end-1) {
		return html.SelfClosingTagToken
	}
	return html.StartTagToken
}

// readTag reads a tag name and its attributes, keeping them for a start
// tag; "<a" or "</a" has been read.
func (z *tokenizer) readTag(saveAttr bool) {
	z.attrs = z.attrs[:0]
	clear(z.keys)
	z.readTagName()
	if z.skipWhiteSpace(); z.eof {
		return
	}
	for {
		c := z.readByte()
		if z.eof || c == '>' {
			break
		}
		z.pos--
		z.readTagAttrKey()
		z.readTagAttrVal()
		if saveAttr && z.pending[0].start != z.pending[0].end && z.newKey(z.pending[0]) {
			z.attrs = append(z.attrs, z.pending)
		}
		if z.skipWhiteSpace(); z.eof {
			break
		}
	}
}

// newKey reports whether no attribute kept so far has key k (ASCII case
// folded).
func (z *tokenizer) newKey(k span) bool {
	key := z.doc[k.start:k.end]
	if len(z.attrs) < maxLinearAttrs {
		for _, a := range z.attrs {
			if equalLowerASCII(z.doc[a[0].start:a[0].end], key) {
				return false
			}
		}
		return true
	}
	if z.keys == nil {
		z.keys = map[string]bool{}
	}
	if len(z.keys) == 0 {
		for _, a := range z.attrs {
			z.keys[lowerString(z.doc[a[0].start:a[0].end])] = true
		}
	}
	lk := lowerString(key)
	if z.keys[lk] {
		return false
	}
	z.keys[lk] = true
	return true
}

func equalLowerASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if lowerASCII(a[i]) != lowerASCII(b[i]) {
			return false
		}
	}
	return true
}

// lowerString lower-cases the ASCII letters of s, as the Tokenizer does.
func lowerString(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lowerASCII(c)
	}
	return string(b)
}

func (z *tokenizer) readTagName() {
	z.data.start = z.pos - 1
	for {
		c := z.readByte()
		if z.eof {
			z.data.end = z.pos
			return
		}
		switch c {
		case ' ', '\n', '\r', '\t', '\f':
			z.data.end = z.pos - 1
			return
		case '/', '>':
			z.pos--
			z.data.end = z.pos
			return
		}
	}
}

func (z *tokenizer) readTagAttrKey() {
	z.pending[0].start = z.pos
	for {
		c := z.readByte()
		if z.eof {
			z.pending[0].end = z.pos
			return
		}
		switch c {
		case '=':
			if z.pending[0].start+1 == z.pos {
				continue // "=" first is part of the name
			}
			fallthrough
		case ' ', '\n', '\r', '\t', '\f', '/', '>':
			z.pos--
			z.pending[0].end = z.pos
			return
		}
	}
}

func (z *tokenizer) readTagAttrVal() {
	z.pending[1] = span{z.pos, z.pos}
	if z.skipWhiteSpace(); z.eof {
		return
	}
	c := z.readByte()
	if z.eof || c == '/' {
		return
	}
	if c != '=' {
		z.pos--
		return
	}
	if z.skipWhiteSpace(); z.eof {
		return
	}
	quote := z.readByte()
	if z.eof {
		return
	}
	switch quote {
	case '>':
		z.pos--
	case '\'', '"':
		z.pending[1].start = z.pos
		i := strings.IndexByte(z.doc[z.pos:], quote)
		if i < 0 {
			z.pos, z.eof = len(z.doc), true
			z.pending[1].end = z.pos
			return
		}
		z.pos += i + 1
		z.pending[1].end = z.pos - 1
	default:
		z.pending[1].start = z.pos - 1
		for {
			c := z.readByte()
			if z.eof {
				z.pending[1].end = z.pos
				return
			}
			switch c {
			case ' ', '\n', '\r', '\t', '\f':
				z.pending[1].end = z.pos - 1
				return
			case '>':
				z.pos--
				z.pending[1].end = z.pos
				return
			}
		}
	}
}

// next reads the next token and returns its type: html.ErrorToken at the
// end of the page (the only error there is).
func (z *tokenizer) next() html.TokenType {
	z.start, z.data = z.pos, span{z.pos, z.pos}
	if z.eof {
		z.tt = html.ErrorToken
		return z.tt
	}
	if z.rawTag != "" {
		if z.rawTag == "plaintext" {
			z.pos, z.eof = len(z.doc), true
			z.data.end = z.pos
			z.textIsRaw = true
		} else {
			z.readRawOrRCDATA()
		}
		if z.data.end > z.data.start {
			z.tt, z.convertNUL = html.TextToken, true
			return z.tt
		}
	}
	z.textIsRaw, z.convertNUL = false, false

	for {
		i := strings.IndexByte(z.doc[z.pos:], '<')
		if i < 0 {
			z.pos, z.eof = len(z.doc), true
			break
		}
		z.pos += i + 1
		c := z.readByte()
		if z.eof {
			break
		}
		var tt html.TokenType
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			tt = html.StartTagToken
		case c == '/':
			tt = html.EndTagToken
		case c == '!' || c == '?':
			tt = html.CommentToken
		default:
			z.pos-- // reconsume
			continue
		}
		// Text before the tag is a token of its own.
		if x := z.pos - len("<a"); z.start < x {
			z.pos, z.data.end = x, x
			z.tt = html.TextToken
			return z.tt
		}
		switch tt {
		case html.StartTagToken:
			z.tt = z.readStartTag()
			return z.tt
		case html.EndTagToken:
			c = z.readByte()
			if z.eof {
				break
			}
			if c == '>' {
				z.tt = html.CommentToken // "</>": an empty comment
				return z.tt
			}
			if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
				z.readTag(false)
				z.tt = html.EndTagToken
				if z.eof {
					z.tt = html.ErrorToken
				}
				return z.tt
			}
			z.pos--
			z.readUntilCloseAngle()
			z.tt = html.CommentToken
			return z.tt
		case html.CommentToken:
			if c == '!' {
				z.tt = z.readMarkupDeclaration()
				return z.tt
			}
			z.pos--
			z.readUntilCloseAngle()
			z.tt = html.CommentToken
			return z.tt
		}
		break
	}
	if z.start < z.pos {
		z.data.end = z.pos
		z.tt = html.TextToken
		return z.tt
	}
	z.tt = html.ErrorToken
	return z.tt
}

// text returns the text of a text, comment or doctype token, decoded as
// the Tokenizer's Text decodes it.
func (z *tokenizer) text() string {
	s := z.doc[z.data.start:z.data.end]
	if strings.IndexByte(s, '\r') >= 0 {
		s = convertNewlines(s)
	}
	if (z.convertNUL || z.tt == html.CommentToken) && strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "\ufffd")
	}
	if !z.textIsRaw && strings.IndexByte(s, '&') >= 0 {
		s = html.UnescapeString(s)
	}
	return s
}

// convertNewlines turns "\r\n" and "\r" into "\n".
func convertNewlines(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// tagName returns the name of a tag token in lower case (NULs replaced),
// valid until the next call, and whether the tag has attributes.
func (z *tokenizer) tagName() ([]byte, bool) {
	s := z.doc[z.data.start:z.data.end]
	z.name = z.name[:0]
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			z.name = append(z.name, "\ufffd"...)
		} else {
			z.name = append(z.name, lowerASCII(s[i]))
		}
	}
	return z.name, len(z.attrs) > 0
}

// attrKey returns the key of attribute i of a start tag in lower case
// (NULs replaced), as a string to switch on: compared, not kept.
func (z *tokenizer) attrKey(i int) string {
	k := z.doc[z.attrs[i][0].start:z.attrs[i][0].end]
	for j := 0; j < len(k); j++ {
		if c := k[j]; 'A' <= c && c <= 'Z' || c == 0 {
			return strings.ReplaceAll(lowerString(k), "\x00", "\ufffd")
		}
	}
	return k
}

// attrVal returns the value of attribute i of a start tag, decoded as the
// Tokenizer decodes it. A value with a character reference goes through
// html's own Tokenizer, in a tag of its own: references in attribute
// values follow rules of their own ("&copy=" stays), which html does not
// export.
func (z *tokenizer) attrVal(i int) string {
	v := z.doc[z.attrs[i][1].start:z.attrs[i][1].end]
	if strings.IndexByte(v, '&') >= 0 {
		return decodeAttr(v)
	}
	if strings.IndexByte(v, '\r') >= 0 {
		v = convertNewlines(v)
	}
	if strings.IndexByte(v, 0) >= 0 {
		v = strings.ReplaceAll(v, "\x00", "\ufffd")
	}
	return v
}

// decodeAttr decodes a raw attribute value with html's Tokenizer. The
// value is quoted with a quote it does not hold; one that holds both came
// unquoted, so it holds no white space or ">" and goes unquoted.
func decodeAttr(raw string) string {
	q := `"`
	switch {
	case !strings.Contains(raw, `"`):
	case !strings.Contains(raw, "'"):
		q = "'"
	default:
		q = ""
	}
	t := html.NewTokenizer(strings.NewReader("<a v=" + q + raw + q + ">"))
	t.Next()
	_, v, _ := t.TagAttr()
	return string(v)
}
