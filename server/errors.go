package server

import "errors"

// ErrInvalidOptions is returned, wrapped, by New for Options out of range.
var ErrInvalidOptions = errors.New("invalid options")

// ErrQueryTooLong is returned, wrapped, by Options.CheckQuery for a query
// longer than Options.MaxQueryLen.
var ErrQueryTooLong = errors.New("query too long")
