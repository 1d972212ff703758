// Package shard is a bleve.Index whose documents are on another machine:
// an index served there by bleve-dedup serve (package server), searched
// through the server's shard endpoints. Put in a bleve.IndexAlias with
// local indexes and other shards, it is searched by bleve's own
// scatter-gather: bleve's search request and result travel in bleve's
// JSON, and a collapsed search (package collapse) sends each shard its
// part of the search and merges the answers as it merges local shards'.
//
// # Basics
//
//	s, err := shard.New("http://10.0.0.7:8080", shard.Options{})
//	alias := bleve.NewIndexAlias(local, s)
//	ix, err := indexer.AliasWith([]*indexer.Index{local}, s)
//
// # Caveats
//
// A shard is searched, never written: Index, Delete, Batch and the
// internal key-value methods return ErrReadOnly, and the methods that
// read an index's dictionaries and documents directly (Document,
// Fields, FieldDict…, Advanced) return ErrUnsupported. A shard that does
// not answer within Options.Timeout fails its part of the search: bleve's
// alias then returns the other shards' result with the shard's error in
// its status (collapse.Result.ShardErrors), not an error, and never
// waits longer. The shard is then taken for down for as long again:
// searches meanwhile answer without it at once, and the first after
// tries it again.
package shard

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/bleve-dedup/bleve-dedup/collapse"
	"github.com/bleve-dedup/bleve-dedup/remote"
)

// The server's endpoints a shard calls (package server).
const (
	PathSearch   = "/api/shard/search"
	PathCollapse = "/api/shard/collapse"
	PathCount    = "/api/shard/count"
)

// ErrReadOnly is returned by the methods that would write to a shard:
// write to it on its own machine.
var ErrReadOnly = errors.New("shard: a shard on another machine is written there, not through a search alias")

// ErrUnsupported is returned by the methods that read an index's
// dictionaries or documents directly, which a shard does not serve.
var ErrUnsupported = errors.New("shard: not served by a shard on another machine")

// DefaultTimeout bounds one call to a shard unless Options say otherwise.
const DefaultTimeout = 5 * time.Second

// Options are a shard's settings.
type Options struct {
	// Timeout bounds each search of the shard (DefaultTimeout when 0):
	// past it the shard's part of a search fails, and the others'
	// results are returned.
	Timeout time.Duration
	// Token is sent with every request (Authorization: Bearer), for a
	// server that asks for one.
	Token string
}

// Index is a shard served by bleve-dedup serve on another machine.
type Index struct {
	client  *remote.Client
	name    string
	timeout time.Duration

	// After a call finds the shard unavailable, calls until downUntil
	// fail at once with that error, rather than each wait the timeout
	// (a search reads a shard twice: its part, then the page's fields).
	mu        sync.Mutex
	downUntil time.Time
	downErr   error
}

// New returns the shard served at base, an http:// or https:// URL of a
// bleve-dedup serve; its Name is base. It does not call the server.
func New(base string, o Options) (*Index, error) {
	c, err := remote.New(base)
	if err != nil {
		return nil, fmt.Errorf("shard: %w", err)
	}
	c.Token = o.Token
	t := o.Timeout
	if t <= 0 {
		t = DefaultTimeout
	}
	return &Index{client: c, name: base, timeout: t}, nil
}

// CollapseAnswer is the body of the server's answer on PathCollapse:
// one result per index it searched.
type CollapseAnswer struct {
	Shards []collapse.ShardResult `json:"shards"`
}

// SearchInContext searches the shard: for a collapsed search, the
// shard's part of it (collapse.ShardCall), handed to the search, with
// an empty result returned to bleve; else req itself, whose result is
// the shard's.
func (x *Index) SearchInContext(ctx context.Context, req *bleve.SearchRequest) (*bleve.SearchResult, error) {
	if err := x.down(); err != nil {
		return nil, err
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, x.timeout)
	defer cancel()
	if call, ok := collapse.ShardCallFrom(ctx); ok {
		sreq, err := call.Request()
		if err != nil {
			return nil, err
		}
		var a CollapseAnswer
		if err := x.client.PostJSON(ctx, PathCollapse, sreq, &a); err != nil {
			return nil, x.failed(parent, ctx, err)
		}
		if err := call.Answer(a.Shards); err != nil {
			return nil, fmt.Errorf("shard %s: %w", x.name, err)
		}
		return &bleve.SearchResult{Status: &bleve.SearchStatus{Total: 1, Successful: 1}, Request: req, Hits: search.DocumentMatchCollection{}}, nil
	}
	res := &bleve.SearchResult{Status: &bleve.SearchStatus{Errors: bleve.IndexErrMap{}}}
	if err := x.client.PostJSON(ctx, PathSearch, req, res); err != nil {
		return nil, x.failed(parent, ctx, err)
	}
	for i := range res.Hits {
		res.Hits[i].Index = x.name
	}
	return res, nil
}

// failed is the error of a call within parent that failed:
// unavailable (collapse.ErrShardUnavailable), the shard then taken for
// down for a timeout, unless parent itself ended or the shard refused
// the request itself (a 4xx answer: a
// query it cannot run, which fails a search of it alone too).
func (x *Index) failed(parent, ctx context.Context, err error) error {
	if se, ok := errors.AsType[*remote.StatusError](err); ok && se.Code >= 400 && se.Code < 500 {
		return fmt.Errorf("shard %s: %w", x.name, err)
	}
	if perr := parent.Err(); perr != nil {
		// The search itself was cancelled or ran out of time: the shard
		// is not to blame, and stays up.
		return fmt.Errorf("shard %s: %w", x.name, perr)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("shard %s: no answer within %s: %w: %w", x.name, x.timeout, collapse.ErrShardUnavailable, context.DeadlineExceeded)
	} else {
		err = fmt.Errorf("shard %s: %w: %w", x.name, collapse.ErrShardUnavailable, err)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.downUntil, x.downErr = time.Now().Add(x.timeout), err
	return err
}

// down returns the error that made the shard down, while it is.
func (x *Index) down() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.downErr == nil || !time.Now().Before(x.downUntil) {
		return nil
	}
	return fmt.Errorf("%w (taken for down until %s)", x.downErr, x.downUntil.Format(time.TimeOnly))
}

// Search is SearchInContext without a context.
func (x *Index) Search(req *bleve.SearchRequest) (*bleve.SearchResult, error) {
	return x.SearchInContext(context.Background(), req)
}

// DocCount returns the number of documents in the shard.
func (x *Index) DocCount() (uint64, error) {
	if err := x.down(); err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), x.timeout)
	defer cancel()
	var a struct {
		Documents uint64 `json:"documents"`
	}
	if err := x.client.PostJSON(ctx, PathCount, struct{}{}, &a); err != nil {
		return 0, x.failed(context.Background(), ctx, err)
	}
	return a.Documents, nil
}

// Name is the shard's URL, unless SetName changed it: the name bleve's
// alias gives the shard's hits and errors.
func (x *Index) Name() string { return x.name }

// SetName sets the shard's name.
func (x *Index) SetName(name string) { x.name = name }

// Close releases nothing: a shard holds no more than idle connections.
func (x *Index) Close() error { return nil }

// Mapping is nil: the mapping is the serving machine's.
func (x *Index) Mapping() mapping.IndexMapping { return nil }

// Stats is nil: a shard's statistics are read on its machine.
func (x *Index) Stats() *bleve.IndexStat { return nil }

// StatsMap names the shard.
func (x *Index) StatsMap() map[string]any { return map[string]any{"name": x.name} }

// Index returns ErrReadOnly.
func (x *Index) Index(id string, data any) error { return ErrReadOnly }

// Delete returns ErrReadOnly.
func (x *Index) Delete(id string) error { return ErrReadOnly }

// NewBatch returns a batch that Batch refuses.
func (x *Index) NewBatch() *bleve.Batch { return &bleve.Batch{} }

// Batch returns ErrReadOnly.
func (x *Index) Batch(b *bleve.Batch) error { return ErrReadOnly }

// SetInternal returns ErrReadOnly.
func (x *Index) SetInternal(key, val []byte) error { return ErrReadOnly }

// DeleteInternal returns ErrReadOnly.
func (x *Index) DeleteInternal(key []byte) error { return ErrReadOnly }

// GetInternal returns ErrUnsupported.
func (x *Index) GetInternal(key []byte) ([]byte, error) { return nil, ErrUnsupported }

// Document returns ErrUnsupported.
func (x *Index) Document(id string) (index.Document, error) { return nil, ErrUnsupported }

// Fields returns ErrUnsupported.
func (x *Index) Fields() ([]string, error) { return nil, ErrUnsupported }

// FieldDict returns ErrUnsupported.
func (x *Index) FieldDict(field string) (index.FieldDict, error) { return nil, ErrUnsupported }

// FieldDictRange returns ErrUnsupported.
func (x *Index) FieldDictRange(field string, start, end []byte) (index.FieldDict, error) {
	return nil, ErrUnsupported
}

// FieldDictPrefix returns ErrUnsupported.
func (x *Index) FieldDictPrefix(field string, prefix []byte) (index.FieldDict, error) {
	return nil, ErrUnsupported
}

// Advanced returns ErrUnsupported.
func (x *Index) Advanced() (index.Index, error) { return nil, ErrUnsupported }

var _ bleve.Index = (*Index)(nil)
