// Package errs holds the sentinel errors that mean the same in every
// package, so that a caller tests one value whichever layer found the
// problem: an indexer.Open given bad filter options fails with an error
// that is indexer.ErrInvalidOptions and dedupfilter.ErrInvalidOptions
// alike. Each package exports them under its own names.
package errs

import "errors"

var (
	// InvalidOptions: an options field out of range or a name not known.
	InvalidOptions = errors.New("invalid options")
	// InvalidDocument: a document that cannot be indexed as given.
	InvalidDocument = errors.New("invalid document")
)
