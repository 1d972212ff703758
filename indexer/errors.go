package indexer

import "errors"

// Sentinel errors; test with errors.Is.
var (
	// ErrInvalidDocument: a Document without an id.
	ErrInvalidDocument = errors.New("invalid document")
	// ErrInvalidOptions: an Options or RunOptions field out of range.
	ErrInvalidOptions = errors.New("invalid options")
)
