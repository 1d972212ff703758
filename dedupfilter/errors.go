package dedupfilter

import "errors"

// Sentinel errors; test with errors.Is. Every error the package returns
// starts with "dedupfilter: " and says what failed before wrapping one of
// these (or an error of Badger's).
var (
	// ErrNotFound: no stored document or cluster has the id asked for.
	ErrNotFound = errors.New("not found")
	// ErrClosed: the Filter was closed.
	ErrClosed = errors.New("filter closed")
	// ErrReadOnly: a write to a filter over a store opened read-only.
	ErrReadOnly = errors.New("store opened read-only")
	// ErrInvalidOptions: an Options field is out of range, or a policy,
	// keep rule or measure name is unknown.
	ErrInvalidOptions = errors.New("invalid options")
	// ErrInvalidDoc: a Doc offered to Add has no id or features, or
	// features that do not fit the Options (a MinHash of another length).
	ErrInvalidDoc = errors.New("invalid document")
	// ErrCorrupt: a stored value does not decode; the store was damaged or
	// written by an incompatible version.
	ErrCorrupt = errors.New("corrupt store value")
	// ErrFull: the embedded store's posting table cannot take more: its
	// slots number documents up to 2^32-2 adds, and it holds up to about
	// 3 billion postings (some 50 million documents).
	ErrFull = errors.New("store full")
)
