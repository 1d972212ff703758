package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"

	"github.com/bleve-dedup/bleve-dedup/collapse"
)

// maxShardBody bounds the body of a shard request: a query in bleve's
// JSON, which the searching server built from a query string of at most
// MaxQueryLen bytes.
const maxShardBody = 1 << 20

// The shard endpoints serve a server on another machine that searches
// this server's index as one shard of its own (package remote/shard, in
// a bleve IndexAlias): bleve's search request and result in bleve's
// JSON, a collapsed search's part (collapse.ShardRequest), the number of
// documents. They read the index as /api/search does, under the same
// time and query bounds.

// shards serves the shard endpoints over an index.
type shards struct {
	index    bleve.Index
	searcher *collapse.Searcher
	opts     Options
}

// ShardHandler returns the handler of the shard endpoints
// (/api/shard/search, /api/shard/collapse, /api/shard/count) over idx,
// collapsing with cs, within o's SearchTimeout and MaxQueryTerms: what a
// Server serves, for a program that serves a bleve index of its own as
// a shard (without the Server's checks of hosts and origins).
func ShardHandler(idx bleve.Index, cs *collapse.Searcher, o Options) http.Handler {
	sh := &shards{index: idx, searcher: cs, opts: o}
	mux := http.NewServeMux()
	for path, h := range sh.routes() {
		mux.Handle(path, h)
	}
	return mux
}

func (s *shards) routes() map[string]http.Handler {
	return map[string]http.Handler{
		"/api/shard/search":   handler(s.search),
		"/api/shard/collapse": handler(s.collapse),
		"/api/shard/count":    handler(s.count),
	}
}

// search answers POST /api/shard/search: a bleve.SearchRequest in
// bleve's JSON, answered with bleve's SearchResult.
func (s *shards) search(w http.ResponseWriter, r *http.Request) error {
	var req bleve.SearchRequest
	if err := readShardBody(r, &req); err != nil {
		return err
	}
	if req.Query == nil {
		return badRequest("bleve search request: no query")
	}
	if req.From < 0 || req.Size < 0 || req.From+req.Size > collapse.MaxWindow {
		return badRequest("bleve search request: from %d size %d (want from, size >= 0 and from+size <= %d)", req.From, req.Size, collapse.MaxWindow)
	}
	ctx, cancel := s.context(r)
	defer cancel()
	res, err := s.index.SearchInContext(ctx, &req)
	if err != nil {
		return searchError(err, s.opts.MaxQueryTerms)
	}
	if res.Status != nil && res.Status.Failed > 0 {
		// This server's own shards failed in part: say so, rather than
		// answer for them.
		return &httpError{status: http.StatusBadGateway, msg: fmt.Sprintf("%d of this server's shards failed: %v", res.Status.Failed, res.Status.Errors)}
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}

// collapse answers POST /api/shard/collapse: a collapse.ShardRequest,
// answered with this server's part of the collapsed search, one result
// per shard it holds.
func (s *shards) collapse(w http.ResponseWriter, r *http.Request) error {
	var req collapse.ShardRequest
	if err := readShardBody(r, &req); err != nil {
		return err
	}
	ctx, cancel := s.context(r)
	defer cancel()
	rs, err := s.searcher.SearchShard(ctx, req)
	if err != nil {
		return searchError(err, s.opts.MaxQueryTerms)
	}
	writeJSON(w, http.StatusOK, map[string]any{"shards": rs})
	return nil
}

// count answers POST /api/shard/count with the number of documents in
// the index.
func (s *shards) count(w http.ResponseWriter, r *http.Request) error {
	if r.Method != http.MethodPost {
		return &httpError{status: http.StatusMethodNotAllowed, msg: "method " + r.Method + " not allowed: POST"}
	}
	n, err := s.index.DocCount()
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]uint64{"documents": n})
	return nil
}

// context is the context of a shard search: the request's, bounded in
// time and in term searchers as a search of /api/search is.
func (s *shards) context(r *http.Request) (context.Context, context.CancelFunc) {
	ctx := context.WithValue(r.Context(), search.MaxTermSearchersKey, s.opts.MaxQueryTerms)
	return context.WithTimeout(ctx, s.opts.SearchTimeout)
}

// readShardBody decodes r's JSON body, of at most maxShardBody bytes,
// into v.
func readShardBody(r *http.Request, v any) error {
	if r.Method != http.MethodPost {
		return &httpError{status: http.StatusMethodNotAllowed, msg: "method " + r.Method + " not allowed: POST a JSON body"}
	}
	return decodeBody(r, v, maxShardBody)
}

// decodeBody decodes r's JSON body, of at most max bytes, into v: 413
// past max, 400 for what is not v's JSON.
func decodeBody(r *http.Request, v any, max int64) error {
	if err := json.NewDecoder(http.MaxBytesReader(nil, r.Body, max)).Decode(v); err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return &httpError{status: http.StatusRequestEntityTooLarge, msg: fmt.Sprintf("body larger than %d bytes", max)}
		}
		return badRequest("body: %v", err)
	}
	return nil
}
