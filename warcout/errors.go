package warcout

import (
	"errors"

	"github.com/bleve-dedup/bleve-dedup/internal/errs"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrInvalidOptions: an Options field out of range, or a file name
	// that does not end in ".warc" or ".warc.gz".
	ErrInvalidOptions = errs.InvalidOptions
	// ErrClosed: an exchange ended after Close; it is not recorded.
	ErrClosed = errors.New("recorder closed")
)
