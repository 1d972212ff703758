package store

import (
	"errors"

	"github.com/bleve-dedup/bleve-dedup/internal/binenc"
)

// Sentinel errors; test with errors.Is. Package dedupfilter exports the
// same values under the same names.
var (
	// ErrNotFound: the store holds no document, signature, payload or
	// cluster under the id given.
	ErrNotFound = errors.New("not found")
	// ErrClosed: a use of a store after Close.
	ErrClosed = errors.New("store closed")
	// ErrReadOnly: a write to a store opened read-only.
	ErrReadOnly = errors.New("store opened read-only")
	// ErrCorrupt: a stored value does not decode; the store was damaged
	// or written by an incompatible version.
	ErrCorrupt = binenc.ErrCorrupt
	// ErrFull: the store cannot take more (the embedded store's posting
	// table numbers documents up to 2^32-2 adds and holds about 3 billion
	// postings, some 50 million documents).
	ErrFull = errors.New("store full")
	// ErrDiskFull: a write refused because the disk under the store is
	// (almost) full; nothing of it was written.
	ErrDiskFull = errors.New("disk full")
	// ErrNamespace: a KV write outside the namespaces other packages own
	// (see the key schema): the store's own keys are written only by the store.
	ErrNamespace = errors.New("key outside the namespaces open to other packages")
)
