package boolquery

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

type tokenKind int

const (
	tokEOF tokenKind = iota
	tokTerm
	tokPhrase
	tokLParen
	tokRParen
	tokAnd
	tokOr
	tokNot
)

type token struct {
	kind  tokenKind
	pos   int    // byte offset of the token's first byte
	lit   string // source text of an operator or parenthesis
	field string // tokTerm, tokPhrase: the "field:" prefix, if any
	text  string // tokTerm, tokPhrase: the unescaped text
}

// describe renders t for the Found part of a SyntaxError. Terms and
// phrases are never unexpected (juxtaposition is an implicit AND), so
// only operators, parentheses and the end need describing.
func (t token) describe() string {
	if t.kind == tokEOF {
		return "end of input"
	}
	return strconv.Quote(t.lit)
}

// lexer splits a query into tokens on demand, so that the first error
// reported is the leftmost one whether it is lexical or syntactic.
type lexer struct {
	src string
	pos int
}

// isDelim reports whether r ends a word. The operator characters * + -
// are deliberately not delimiters: they only act as operators at the
// start of a token, so "e-mail", "C++" and "2019-11-19" stay words.
func isDelim(r rune) bool {
	return r == '(' || r == ')' || r == '"' || unicode.IsSpace(r)
}

// punctuation maps the one-byte tokens; they are recognised only at the
// start of a token (after whitespace, a parenthesis or a phrase).
var punctuation = map[byte]tokenKind{'(': tokLParen, ')': tokRParen, '*': tokAnd, '+': tokOr, '-': tokNot}

func (l *lexer) next() (token, error) {
	for l.pos < len(l.src) {
		r, w := utf8.DecodeRuneInString(l.src[l.pos:])
		if !unicode.IsSpace(r) {
			break
		}
		l.pos += w
	}
	start := l.pos
	if start == len(l.src) {
		return token{kind: tokEOF, pos: start}, nil
	}
	if kind, ok := punctuation[l.src[start]]; ok {
		l.pos++
		return token{kind: kind, pos: start, lit: l.src[start:l.pos]}, nil
	}
	if l.src[start] == '"' {
		return l.phrase(start, "")
	}
	for l.pos < len(l.src) {
		r, w := utf8.DecodeRuneInString(l.src[l.pos:])
		if isDelim(r) {
			break
		}
		l.pos += w
	}
	word := l.src[start:l.pos]
	switch word {
	case "AND":
		return token{kind: tokAnd, pos: start, lit: word}, nil
	case "OR":
		return token{kind: tokOr, pos: start, lit: word}, nil
	case "NOT":
		return token{kind: tokNot, pos: start, lit: word}, nil
	}
	field, text, ok := strings.Cut(word, ":")
	if !ok {
		return token{kind: tokTerm, pos: start, text: word}, nil
	}
	if field == "" {
		return token{}, &SyntaxError{Pos: start, Expected: "field name", Found: `":"`}
	}
	if text != "" {
		return token{kind: tokTerm, pos: start, field: field, text: text}, nil
	}
	if l.pos < len(l.src) && l.src[l.pos] == '"' {
		t, err := l.phrase(l.pos, field)
		t.pos = start
		return t, err
	}
	return token{}, &SyntaxError{
		Pos:      l.pos,
		Expected: fmt.Sprintf("term or phrase after %q", word),
		Found:    l.describeAt(l.pos),
	}
}

// phrase scans a quoted phrase whose opening quote is at quote. Inside
// it, \" stands for a quote and \\ for a backslash; any other backslash
// is literal.
func (l *lexer) phrase(quote int, field string) (token, error) {
	var b strings.Builder
	i := quote + 1
	for i < len(l.src) {
		switch c := l.src[i]; {
		case c == '"':
			l.pos = i + 1
			if b.Len() == 0 {
				return token{}, &SyntaxError{Pos: quote, Expected: "phrase text", Found: `empty phrase ""`}
			}
			return token{kind: tokPhrase, pos: quote, field: field, text: b.String()}, nil
		case c == '\\' && i+1 < len(l.src) && (l.src[i+1] == '"' || l.src[i+1] == '\\'):
			b.WriteByte(l.src[i+1])
			i += 2
		default:
			b.WriteByte(c)
			i++
		}
	}
	return token{}, &SyntaxError{
		Pos:      len(l.src),
		Expected: fmt.Sprintf(`closing '"' of phrase at %d`, quote),
		Found:    "end of input",
	}
}

// describeAt renders the character at byte offset i for a SyntaxError.
func (l *lexer) describeAt(i int) string {
	if i >= len(l.src) {
		return "end of input"
	}
	r, _ := utf8.DecodeRuneInString(l.src[i:])
	return strconv.QuoteRune(r)
}
