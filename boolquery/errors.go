package boolquery

import (
	"errors"
	"fmt"

	"github.com/bleve-dedup/bleve-dedup/internal/errs"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrSyntax: the query does not parse. Every *SyntaxError matches it.
	ErrSyntax = errors.New("syntax error")
	// ErrInvalidOptions: an unknown Syntax.
	ErrInvalidOptions = errs.InvalidOptions
)

// SyntaxError describes why and where a query failed to parse.
type SyntaxError struct {
	// Pos is the byte offset into the query string (not a rune or
	// column count: a Chinese character advances it by 3).
	Pos      int
	Expected string // what the parser could have accepted at Pos
	Found    string // what it found there, e.g. `")"` or "end of input"
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("boolquery: at %d: expected %s, found %s", e.Pos, e.Expected, e.Found)
}

// Is reports whether target is ErrSyntax.
func (e *SyntaxError) Is(target error) bool { return target == ErrSyntax }
