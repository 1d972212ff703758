package server

import "errors"

var (
	// ErrInvalidOptions is returned, wrapped, by New for Options out of
	// range.
	ErrInvalidOptions = errors.New("invalid options")

	// ErrQueryTooLong is returned, wrapped, by Options.CheckQuery for a
	// query longer than Options.MaxQueryLen.
	ErrQueryTooLong = errors.New("query too long")

	// ErrServer is returned, wrapped with the server's message, by a
	// Client whose request the server answered with an error.
	ErrServer = errors.New("the server refused")
)
