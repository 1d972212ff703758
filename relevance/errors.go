package relevance

import (
	"errors"

	"github.com/bleve-dedup/bleve-dedup/internal/errs"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrInvalidOptions reports an Options or LinkOptions field out of range.
	ErrInvalidOptions = errs.InvalidOptions
	// ErrNoKeywords reports a profile whose keywords yield no terms.
	ErrNoKeywords = errors.New("profile has no keywords")
	// ErrBadWeight reports a keyword weight that is negative, NaN or infinite.
	ErrBadWeight = errors.New("bad keyword weight")
	// ErrNoExamples reports Learn called without example texts.
	ErrNoExamples = errors.New("no example texts")
	// ErrBadState reports stored link-scorer state that cannot be loaded.
	ErrBadState = errors.New("bad link scorer state")
)
