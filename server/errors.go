package server

import (
	"errors"

	"github.com/bleve-dedup/bleve-dedup/internal/errs"
)

var (
	// ErrInvalidOptions is returned, wrapped, by New for Options out of
	// range.
	ErrInvalidOptions = errs.InvalidOptions

	// ErrQueryTooLong is returned, wrapped, by Options.CheckQuery for a
	// query longer than Options.MaxQueryLen.
	ErrQueryTooLong = errors.New("query too long")
)
