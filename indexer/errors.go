package indexer

import (
	"errors"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrInvalidDocument: a Document without an id.
	ErrInvalidDocument = errors.New("invalid document")
	// ErrInvalidOptions: an Options or RunOptions field out of range.
	ErrInvalidOptions = errors.New("invalid options")
	// ErrPageTimeout: a page's extraction ran past RunOptions.PageTimeout.
	ErrPageTimeout = errors.New("page timed out")
	// ErrLocked: another process has the index open for writing.
	ErrLocked = errors.New("index in use by another process")
	// ErrReadOnly: a write to an index opened with Options.ReadOnly. It is
	// dedupfilter's, so errors.Is works at either level.
	ErrReadOnly = dedupfilter.ErrReadOnly
)
