package embedded

import (
	"errors"

	"github.com/bleve-dedup/bleve-dedup/internal/errs"
)

// Sentinel errors of this package; the store's others (not found, read
// only, corrupt, full, namespace) are package store's.
var (
	// ErrInvalidOptions: an Options field is out of range (the same value
	// as every package's ErrInvalidOptions).
	ErrInvalidOptions = errs.InvalidOptions
	// ErrLocked: another process has the store open (Badger's directory
	// lock); the error names it when Badger's LOCK file does.
	ErrLocked = errors.New("store in use by another process")
)
