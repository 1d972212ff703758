package dedupfilter

import (
	"errors"

	"github.com/bleve-dedup/bleve-dedup/internal/errs"
	"github.com/bleve-dedup/bleve-dedup/store"
)

// Sentinel errors; test with errors.Is. Every error the package returns
// starts with "dedupfilter: " and says what failed before wrapping one of
// these (or an error of its store's). The store's sentinels are package
// store's values under the same names.
var (
	// ErrNotFound: no stored document or cluster has the id given.
	ErrNotFound = store.ErrNotFound
	// ErrClosed: the Filter, and so its store, was closed (the same value
	// as store.ErrClosed).
	ErrClosed = store.ErrClosed
	// ErrReadOnly: a write to a filter over a store opened read-only.
	ErrReadOnly = store.ErrReadOnly
	// ErrInvalidOptions: an Options field is out of range, or a policy,
	// keep rule or measure name is unknown (the same value as every
	// package's ErrInvalidOptions).
	ErrInvalidOptions = errs.InvalidOptions
	// ErrInvalidDocument: a Doc offered to Add has no id or features, or
	// features that do not fit the Options (a MinHash of another length).
	ErrInvalidDocument = errs.InvalidDocument
	// ErrCorrupt: a stored value does not decode; the store was damaged or
	// written by an incompatible version.
	ErrCorrupt = store.ErrCorrupt
	// ErrFull: the store cannot take more (see store.ErrFull).
	ErrFull = store.ErrFull
	// ErrStale: Regroup was given clusters whose members changed since
	// they were read.
	ErrStale = errors.New("clusters changed since they were read")
)
