package extract

import (
	"errors"

	"github.com/bleve-dedup/bleve-dedup/internal/errs"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrNoContent is returned with a Content that has no paragraphs: the
	// page has no main text the engine or the fallback could find.
	// Content.Title may still be set.
	ErrNoContent = errors.New("no main content")
	// ErrInvalidOptions reports an Options field out of range.
	ErrInvalidOptions = errs.InvalidOptions
)
