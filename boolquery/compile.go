package boolquery

import (
	"errors"
	"fmt"

	"github.com/blevesearch/bleve/v2/search/query"
)

// Options control how a parsed query is compiled into a bleve query.
type Options struct {
	// Fields are searched by a term or phrase without a "field:" prefix,
	// in both syntaxes; it matches if it matches in any of them. Default: empty, meaning
	// the index mapping's default search field (bleve's "_all", which is
	// analysed with the mapping's default analyzer — set Fields when the
	// text fields use a different analyzer, e.g. "cjk" for Chinese).
	Fields []string
	// Syntax is the language of the query string. Default Boolean.
	Syntax Syntax
}

// DefaultOptions returns the defaults documented on Options.
func DefaultOptions() Options { return Options{} }

// Compile turns a parsed query into a bleve query. Terms and phrases
// become match and match-phrase queries, so bleve analyses them with the
// analyzer the index mapping assigns to each field, exactly as at index
// time; all tokens of one term must match. An empty And matches every
// document and an empty Or none.
func Compile(n Node, opts Options) (query.Query, error) {
	fields := opts.Fields
	if len(fields) == 0 {
		fields = []string{""} // bleve substitutes the mapping's default field
	}
	return compile(n, fields)
}

func compile(n Node, fields []string) (query.Query, error) {
	switch n := n.(type) {
	case Term:
		return perField(n.Field, fields, func(f string) query.Query {
			q := query.NewMatchQuery(n.Text)
			q.SetOperator(query.MatchQueryOperatorAnd)
			q.SetField(f)
			return q
		}), nil
	case Phrase:
		return perField(n.Field, fields, func(f string) query.Query {
			q := query.NewMatchPhraseQuery(n.Text)
			q.SetField(f)
			return q
		}), nil
	case Not:
		return compileAnd(And{n}, fields)
	case And:
		return compileAnd(n, fields)
	case Or:
		if len(n) == 0 {
			return query.NewMatchNoneQuery(), nil
		}
		qs, err := compileAll(n, fields)
		if err != nil {
			return nil, err
		}
		return query.NewDisjunctionQuery(qs), nil
	case nil:
		return nil, errors.New("boolquery: compile: nil node")
	}
	return nil, fmt.Errorf("boolquery: compile: unsupported node %T", n)
}

// compileAnd turns the Not elements of a conjunction into exclusions, so
// "a NOT b" costs one boolean query rather than a conjunction with
// "everything except b". With no positive element it starts from all
// documents.
func compileAnd(a And, fields []string) (query.Query, error) {
	var must, mustNot []Node
	for _, x := range a {
		if not, ok := x.(Not); ok {
			mustNot = append(mustNot, not.X)
		} else {
			must = append(must, x)
		}
	}
	mq, err := compileAll(must, fields)
	if err != nil {
		return nil, err
	}
	if len(mustNot) == 0 {
		if len(mq) == 0 {
			return query.NewMatchAllQuery(), nil
		}
		return query.NewConjunctionQuery(mq), nil
	}
	if len(mq) == 0 {
		mq = []query.Query{query.NewMatchAllQuery()}
	}
	nq, err := compileAll(mustNot, fields)
	if err != nil {
		return nil, err
	}
	// NewBooleanQuery wraps must in a conjunction; that matters: bleve
	// drops a Must clause whose searcher is match-none (a term analysed
	// to no tokens, e.g. a stop word), which would turn "the NOT x" into
	// "everything except x".
	return query.NewBooleanQuery(mq, nil, nq), nil
}

func compileAll(ns []Node, fields []string) ([]query.Query, error) {
	qs := make([]query.Query, 0, len(ns))
	for _, n := range ns {
		q, err := compile(n, fields)
		if err != nil {
			return nil, err
		}
		qs = append(qs, q)
	}
	return qs, nil
}

// perField builds one query for field, or, when field is empty, a
// disjunction over the default fields.
func perField(field string, defaults []string, build func(field string) query.Query) query.Query {
	if field != "" {
		return build(field)
	}
	if len(defaults) == 1 {
		return build(defaults[0])
	}
	qs := make([]query.Query, len(defaults))
	for i, f := range defaults {
		qs[i] = build(f)
	}
	return query.NewDisjunctionQuery(qs)
}
