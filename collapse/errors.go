package collapse

import "errors"

// ErrInvalidRequest is returned, wrapped, for a Request that cannot run
// (no query, negative or too deep paging).
var ErrInvalidRequest = errors.New("invalid search request")
