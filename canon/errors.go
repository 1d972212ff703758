package canon

import "errors"

// Sentinel errors; test with errors.Is.
var (
	// ErrBadURL reports a URL that has no canonical form: unparsable, not
	// http(s), or without a host.
	ErrBadURL = errors.New("canon: bad url")
)
