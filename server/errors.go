package server

import "errors"

// ErrInvalidOptions is returned, wrapped, by New for Options out of range.
var ErrInvalidOptions = errors.New("invalid options")
