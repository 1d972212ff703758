// Package htmltags reduces an HTML page to its tag sequence, the input of
// the feature-string paper's third method (§2.3): the Levenshtein
// distance between two pages' sequences of HTML tags. The paper finds it
// fast but imprecise — pages of one template have almost the same tags,
// and a reprint in another site's template has different ones — and the
// project measures it as one measure among others (similarity.TagEdit).
//
// A sequence holds one byte per start tag, in document order: the
// element's code (Code), 0 for an element this package does not name.
// End tags, comments, doctypes and the content of raw-text elements
// (script, style, textarea, title) are left out.
package htmltags

import "strings"

// DefaultMax is the longest sequence Sequence keeps by default: long
// enough for every page of the development set (a median of 348 start
// tags, the longest 7,778), short enough that a comparison stays in the
// milliseconds (see Distance).
const DefaultMax = 8192

// names are the element names with codes 1..len(names), in this order.
// Stored sequences depend on the codes: append only.
var names = [...]string{
	"a", "abbr", "address", "area", "article", "aside", "audio", "b", "base", "bdi",
	"bdo", "blockquote", "body", "br", "button", "canvas", "caption", "cite", "code", "col",
	"colgroup", "data", "datalist", "dd", "del", "details", "dfn", "dialog", "div", "dl",
	"dt", "em", "embed", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2",
	"h3", "h4", "h5", "h6", "head", "header", "hgroup", "hr", "html", "i",
	"iframe", "img", "input", "ins", "kbd", "label", "legend", "li", "link", "main",
	"map", "mark", "menu", "meta", "meter", "nav", "noscript", "object", "ol", "optgroup",
	"option", "output", "p", "param", "picture", "pre", "progress", "q", "rp", "rt",
	"ruby", "s", "samp", "script", "search", "section", "select", "slot", "small", "source",
	"span", "strong", "style", "sub", "summary", "sup", "table", "tbody", "td", "template",
	"textarea", "tfoot", "th", "thead", "time", "title", "tr", "track", "u", "ul",
	"var", "video", "wbr", "svg", "math", "path", "g", "acronym", "applet", "basefont",
	"big", "blink", "center", "dir", "font", "frame", "frameset", "marquee", "nobr", "noframes",
	"strike", "tt", "xmp",
}

// codes maps a lower-case element name to its code.
var codes = func() map[string]byte {
	m := make(map[string]byte, len(names))
	for i, n := range names {
		m[n] = byte(i + 1)
	}
	return m
}()

// rawText are the elements whose content is text, not markup, up to their
// end tag.
var rawText = map[string]bool{"script": true, "style": true, "textarea": true, "title": true, "xmp": true}

// Code returns the code of element name (lower case), 0 for an element
// this package does not name.
func Code(name string) byte { return codes[name] }

// Name returns the element name of code, "" for 0 or a code out of range.
func Name(code byte) string {
	if code == 0 || int(code) > len(names) {
		return ""
	}
	return names[code-1]
}

// Sequence returns the codes of html's start tags in document order, at
// most max of them (the first max; max <= 0: no limit). It reads any
// bytes, well-formed or not, and never fails: a lone '<' is text, an
// unclosed tag ends the input.
func Sequence(html string, max int) []byte {
	var out []byte
	var name []byte
	for i := 0; i < len(html); {
		if max > 0 && len(out) >= max {
			break
		}
		j := indexByte(html, i, '<')
		if j < 0 {
			break
		}
		i = j + 1
		if i >= len(html) {
			break
		}
		switch c := html[i]; {
		case c == '!' && hasPrefix(html, i, "!--"):
			i = skipPast(html, i+3, "-->")
			continue
		case c == '!' || c == '?' || c == '/':
			i = skipTag(html, i)
			continue
		case !isLetter(c):
			continue // text: "a < b"
		}
		name = name[:0]
		for i < len(html) && isNameByte(html[i]) {
			name = append(name, lower(html[i]))
			i++
		}
		out = append(out, codes[string(name)])
		i = skipTag(html, i)
		if rawText[string(name)] {
			i = skipEndTag(html, i, string(name))
		}
	}
	return out
}

// skipTag returns the position after the '>' closing the tag at i,
// stepping over quoted attribute values. As in browsers, a quote opens a
// value only after '=': a stray one (src="a.js"") is part of a name.
func skipTag(s string, i int) int {
	afterEq := false
	for i < len(s) {
		switch c := s[i]; {
		case c == '>':
			return i + 1
		case (c == '"' || c == '\'') && afterEq:
			i++
			for i < len(s) && s[i] != c {
				i++
			}
			afterEq = false
		case c == '=':
			afterEq = true
		case c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f':
			afterEq = false
		}
		i++
	}
	return len(s)
}

// skipEndTag returns the position after the end tag of raw-text element
// name (any case), or the end of s.
func skipEndTag(s string, i int, name string) int {
	for {
		j := indexByte(s, i, '<')
		if j < 0 || j+2+len(name) > len(s) {
			return len(s)
		}
		i = j + 1
		if s[i] != '/' {
			continue
		}
		k := i + 1
		match := true
		for n := 0; n < len(name); n++ {
			if lower(s[k+n]) != name[n] {
				match = false
				break
			}
		}
		if match && (k+len(name) == len(s) || !isNameByte(s[k+len(name)])) {
			return skipTag(s, k+len(name))
		}
	}
}

func skipPast(s string, i int, end string) int {
	if j := strings.Index(s[i:], end); j >= 0 {
		return i + j + len(end)
	}
	return len(s)
}

func indexByte(s string, i int, c byte) int {
	if j := strings.IndexByte(s[i:], c); j >= 0 {
		return i + j
	}
	return -1
}

func hasPrefix(s string, i int, p string) bool {
	return len(s)-i >= len(p) && s[i:i+len(p)] == p
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isNameByte(c byte) bool {
	return isLetter(c) || '0' <= c && c <= '9' || c == '-' || c == ':' || c == '_'
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
