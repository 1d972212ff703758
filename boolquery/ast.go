package boolquery

import "strings"

// Node is a node of a parsed boolean query. The concrete types are Term,
// Phrase, Not, And and Or; the set is closed so that Compile can handle
// every node.
//
// String renders a node in the query syntax, fully determined by the tree:
// for a tree returned by Parse, Parse(n.String()) yields an equal tree.
type Node interface {
	String() string
	node()
}

// Term is a single word, matched through the field's analyzer. When the
// analyzer splits it into several tokens (e.g. "e-mail", or CJK bigrams),
// all of them must occur in the same field.
type Term struct {
	Field string // empty: the default fields of Options
	Text  string
}

// Phrase is a quoted phrase: its tokens must occur in order and adjacent.
type Phrase struct {
	Field string // empty: the default fields of Options
	Text  string
}

// Not matches the documents that X does not match. Inside an And it is an
// exclusion ("a AND NOT b"); elsewhere it is everything except X.
type Not struct {
	X Node
}

// And matches the documents that every element matches. Parse flattens
// nested conjunctions, so an And never directly contains an And.
type And []Node

// Or matches the documents that at least one element matches. Parse
// flattens nested disjunctions, so an Or never directly contains an Or.
type Or []Node

func (Term) node()   {}
func (Phrase) node() {}
func (Not) node()    {}
func (And) node()    {}
func (Or) node()     {}

func (t Term) String() string {
	if t.Field == "" {
		return t.Text
	}
	return t.Field + ":" + t.Text
}

// phraseEscaper undoes what the lexer does inside quotes.
var phraseEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

func (p Phrase) String() string {
	q := `"` + phraseEscaper.Replace(p.Text) + `"`
	if p.Field == "" {
		return q
	}
	return p.Field + ":" + q
}

func (n Not) String() string { return "NOT " + group(n.X, isCompound) }

func (a And) String() string { return join(a, " AND ", isCompound) }

// An And inside an Or needs no parentheses: AND binds tighter than OR.
func (o Or) String() string { return join(o, " OR ", isOr) }

func isCompound(x Node) bool {
	switch x.(type) {
	case And, Or:
		return true
	}
	return false
}

func isOr(x Node) bool {
	_, ok := x.(Or)
	return ok
}

// join renders xs separated by sep, parenthesising the elements for
// which needParens reports that precedence alone would regroup them.
func join(xs []Node, sep string, needParens func(Node) bool) string {
	var b strings.Builder
	for i, x := range xs {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(group(x, needParens))
	}
	return b.String()
}

func group(x Node, needParens func(Node) bool) string {
	if needParens(x) {
		return "(" + x.String() + ")"
	}
	return x.String()
}
