package boolquery

import "fmt"

// MaxDepth bounds the nesting of parentheses and NOT operators, so that a
// hostile query cannot exhaust the stack of the recursive-descent parser.
const MaxDepth = 200

// Parse parses a boolean query (see the package documentation for the
// grammar). The error, if any, is a *SyntaxError.
func Parse(s string) (Node, error) {
	p := &parser{lx: lexer{src: s}}
	if err := p.advance(); err != nil {
		return nil, err
	}
	n, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tokEOF {
		// Every other token would have been consumed by or(): this is a
		// ")" without a matching "(".
		return nil, &SyntaxError{Pos: p.tok.pos, Expected: "end of input", Found: `unmatched ")"`}
	}
	return n, nil
}

type parser struct {
	lx    lexer
	tok   token // the current, not yet consumed token
	depth int
}

func (p *parser) advance() error {
	t, err := p.lx.next()
	p.tok = t
	return err
}

// or parses  and { ("OR" | "+") and }.
func (p *parser) or() (Node, error) {
	var xs Or
	for {
		x, err := p.and()
		if err != nil {
			return nil, err
		}
		if o, ok := x.(Or); ok {
			xs = append(xs, o...)
		} else {
			xs = append(xs, x)
		}
		if p.tok.kind != tokOr {
			break
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	if len(xs) == 1 {
		return xs[0], nil
	}
	return xs, nil
}

// and parses  unary { ["AND" | "*"] unary | ("NOT" | "-") unary }.
//
// Binary NOT ("a NOT b" = a AND NOT b) binds tighter than AND, but as
// both are conjunctions the grouping is unobservable, so one flat loop
// handles both.
func (p *parser) and() (Node, error) {
	var xs And
	for {
		negate := false
		if len(xs) > 0 {
			switch p.tok.kind {
			case tokAnd:
				if err := p.advance(); err != nil {
					return nil, err
				}
			case tokNot:
				negate = true
				if err := p.advance(); err != nil {
					return nil, err
				}
			case tokTerm, tokPhrase, tokLParen:
				// juxtaposition: an implicit AND
			default:
				if len(xs) == 1 {
					return xs[0], nil
				}
				return xs, nil
			}
		}
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		switch {
		case negate:
			xs = append(xs, Not{X: x})
		case isAnd(x):
			xs = append(xs, x.(And)...)
		default:
			xs = append(xs, x)
		}
	}
}

func isAnd(x Node) bool {
	_, ok := x.(And)
	return ok
}

// unary parses  ("NOT" | "-") unary | term | phrase | "(" or ")".
func (p *parser) unary() (Node, error) {
	switch p.tok.kind {
	case tokTerm, tokPhrase:
		var x Node = Term{Field: p.tok.field, Text: p.tok.text}
		if p.tok.kind == tokPhrase {
			x = Phrase{Field: p.tok.field, Text: p.tok.text}
		}
		return x, p.advance()
	case tokNot, tokLParen:
		open := p.tok
		if p.depth == MaxDepth {
			return nil, &SyntaxError{
				Pos:      open.pos,
				Expected: fmt.Sprintf("at most %d nested groups and NOTs", MaxDepth),
				Found:    open.describe(),
			}
		}
		p.depth++
		defer func() { p.depth-- }()
		if err := p.advance(); err != nil {
			return nil, err
		}
		if open.kind == tokNot {
			x, err := p.unary()
			if err != nil {
				return nil, err
			}
			return Not{X: x}, nil
		}
		x, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.tok.kind != tokRParen {
			return nil, &SyntaxError{
				Pos:      p.tok.pos,
				Expected: fmt.Sprintf(`")" matching "(" at %d`, open.pos),
				Found:    p.tok.describe(),
			}
		}
		return x, p.advance()
	}
	return nil, &SyntaxError{Pos: p.tok.pos, Expected: `term or "("`, Found: p.tok.describe()}
}
