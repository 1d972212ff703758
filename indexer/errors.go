package indexer

import (
	"errors"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/internal/errs"
)

// Sentinel errors, the package's all; test with errors.Is. Those that
// mean the same in every package (ErrInvalidOptions, ErrInvalidDocument,
// ErrReadOnly) are one value, whichever package returns them.
var (
	// ErrInvalidDocument: a Document without an id. The same value as
	// dedupfilter.ErrInvalidDocument.
	ErrInvalidDocument = errs.InvalidDocument
	// ErrInvalidOptions: an Options or RunOptions field out of range,
	// here or in the options of a package underneath (the same value as
	// every package's ErrInvalidOptions).
	ErrInvalidOptions = errs.InvalidOptions
	// ErrPageTimeout: a page's extraction ran past RunOptions.PageTimeout.
	ErrPageTimeout = errors.New("page timed out")
	// ErrUnchanged: the index holds the page already with the same content
	// (Feed.Add; IndexPages counts it in Stats.Unchanged).
	ErrUnchanged = errors.New("unchanged: indexed already")
	// ErrLocked: another process has the index open for writing.
	ErrLocked = errors.New("index in use by another process")
	// ErrReadOnly: a write to an index opened with Options.ReadOnly. It is
	// dedupfilter's, so errors.Is works at either level.
	ErrReadOnly = dedupfilter.ErrReadOnly
	// ErrNotIndex: a directory that is not a bleve-dedup index (Open writes
	// nothing in it).
	ErrNotIndex = errors.New("not a bleve-dedup index")
	// ErrSettings: the options given to Open or Wrap differ from those the
	// index was made with.
	ErrSettings = errors.New("options differ from the index's settings")
	// ErrNotStored: a document's text, or a field of the index, is not
	// stored in bleve, so the filter cannot read it back (Adopt).
	ErrNotStored = errors.New("not stored in the index")
)
