package relevance

import "errors"

// Sentinel errors; test with errors.Is.
var (
	// ErrBadOption reports an Options or LinkOptions field out of range.
	ErrBadOption = errors.New("relevance: bad option")
	// ErrNoKeywords reports a profile whose keywords yield no terms.
	ErrNoKeywords = errors.New("relevance: profile has no keywords")
	// ErrBadWeight reports a keyword weight that is negative, NaN or infinite.
	ErrBadWeight = errors.New("relevance: bad keyword weight")
	// ErrNoExamples reports Learn called without example texts.
	ErrNoExamples = errors.New("relevance: no example texts")
	// ErrBadState reports stored link-scorer state that cannot be loaded.
	ErrBadState = errors.New("relevance: bad link scorer state")
)
