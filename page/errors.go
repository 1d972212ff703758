package page

import (
	"errors"
	"strconv"
)

// Sentinel errors wrapped by [*Error]; test them with errors.Is.
var (
	// ErrEmpty: the document has no content (or only white space).
	ErrEmpty = errors.New("page: empty document")
	// ErrTooLarge: the document exceeds Options.MaxBytes.
	ErrTooLarge = errors.New("page: document too large")
	// ErrBinary: the document is not text (it contains NUL bytes).
	ErrBinary = errors.New("page: binary content")
	// ErrSyntax: a JSONL line is not a JSON object with an id and an html
	// or text field.
	ErrSyntax = errors.New("page: syntax error")
	// ErrDuplicateID: an id was already yielded; the later document is skipped.
	ErrDuplicateID = errors.New("page: duplicate id")
)

// Error reports a problem with one document or one input.
type Error struct {
	Source string // file path
	Line   int    // 1-based JSONL line; 0 for whole files
	ID     string // document id when known
	Err    error  // wraps a sentinel, or an I/O error
}

func (e *Error) Error() string {
	s := e.Source
	if e.Line > 0 {
		s += ":" + strconv.Itoa(e.Line)
	}
	if e.ID != "" {
		s += " (" + e.ID + ")"
	}
	return s + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }
