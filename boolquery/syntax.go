package boolquery

import (
	"fmt"

	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/bleve-dedup/bleve-dedup/internal/enum"
)

// Syntax is a query language Query accepts.
type Syntax int

const (
	// Boolean is this package's syntax: AND/*, OR/+, NOT/-, parentheses,
	// phrases and field:term.
	Boolean Syntax = iota
	// QueryString is bleve's query-string syntax (+must -not field:x);
	// Options.Fields does not apply to it.
	QueryString
)

var syntaxNames = enum.New[Syntax]("syntax", "boolean", "querystring")

func (s Syntax) String() string { return syntaxNames.String(s) }

// ParseSyntax parses "boolean" or "querystring" (case-insensitive).
func ParseSyntax(s string) (Syntax, error) {
	syn, err := syntaxNames.Parse(s)
	if err != nil {
		return 0, fmt.Errorf("boolquery: %v: %w", err, ErrInvalidOptions)
	}
	return syn, nil
}

// Query parses s in opts.Syntax and compiles it with opts. Its errors wrap
// ErrSyntax; boolean syntax errors are *SyntaxError with the position.
func Query(s string, opts Options) (query.Query, error) {
	switch opts.Syntax {
	case Boolean:
		n, err := Parse(s)
		if err != nil {
			return nil, err
		}
		return Compile(n, opts)
	case QueryString:
		qs := query.NewQueryStringQuery(s)
		if _, err := qs.Parse(); err != nil {
			return nil, queryStringError{err}
		}
		if len(opts.Fields) == 0 {
			return qs, nil
		}
		q, _ := qs.Parse() // parsed without error above
		return spread(q, opts.Fields), nil
	}
	return nil, fmt.Errorf("boolquery: syntax %v: %w", opts.Syntax, ErrInvalidOptions)
}

// queryStringError is bleve's error for a query string it cannot parse,
// matching ErrSyntax.
type queryStringError struct{ err error }

func (e queryStringError) Error() string        { return "boolquery: query string: " + e.err.Error() }
func (e queryStringError) Unwrap() error        { return e.err }
func (e queryStringError) Is(target error) bool { return target == ErrSyntax }
