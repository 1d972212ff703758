package similarity

import (
	"github.com/bleve-dedup/bleve-dedup/internal/binenc"
	"github.com/bleve-dedup/bleve-dedup/internal/errs"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrInvalidOptions: an Options field is out of range, or a measure
	// name is unknown. The same value as every package's
	// ErrInvalidOptions.
	ErrInvalidOptions = errs.InvalidOptions
	// ErrCorrupt: an encoded signature does not decode (the same value as
	// store.ErrCorrupt).
	ErrCorrupt = binenc.ErrCorrupt
)
