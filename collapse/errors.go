package collapse

import "errors"

// ErrInvalidRequest is returned, wrapped, for a Request that cannot run
// (no query, negative or too deep paging).
var ErrInvalidRequest = errors.New("invalid search request")

// ErrNotSent is returned, wrapped with ErrInvalidRequest, for a search
// that cannot be sent to a shard in another process (a Request.Visit
// function, facets without a field, inner hits): the search runs in one
// process, or without that part.
var ErrNotSent = errors.New("not sent to a shard in another process")

// ErrShardUnavailable marks, wrapped, the error of a shard in another
// process that did not answer (down, unreachable, past its timeout,
// failing itself): a search over an alias then answers with the other
// shards' results, naming it in Result.ShardErrors. Any other error of a
// shard fails the search, as it fails a search of that shard alone.
var ErrShardUnavailable = errors.New("shard unavailable")
