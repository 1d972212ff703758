package collapse

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"sync"

	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
)

// A shard searched in another process (a bleve.Index that sends its
// searches to a server, such as package remote/shard's) cannot run this
// package's collector in the searching process. It answers instead with
// what a shard's collector leaves once its matches end: its top groups,
// the groups it counted, its facet counts and, with FoldCopies, each
// matching cluster's best document (ShardResult). Groups are named by
// their values, not by hashes, which are seeded per process. The
// searching process turns each answer into a shard's collapser, and the
// shards are merged as local ones are, by bleve's alias calling each
// shard's SearchInContext.

// ShardRequest is one shard's part of a collapsed search: what a
// Searcher asks of a shard in another process (ShardCall), and what
// SearchShard answers there.
type ShardRequest struct {
	// Query is the bleve query, in bleve's JSON.
	Query json.RawMessage `json:"query"`
	// K is how many of its best groups the shard returns: the page's
	// From+Size.
	K            int    `json:"k"`
	Collapse     bool   `json:"collapse,omitempty"`
	Field        string `json:"field,omitempty"`
	FoldCopies   bool   `json:"fold_copies,omitempty"`
	ClusterBound int    `json:"cluster_bound"`
	// Facets are the fields of Request.Facets, in order.
	Facets []string `json:"facets,omitempty"`
	// Inner, when set, asks instead for the matches of the page's
	// groups, for their inner hits (ShardResult.Inner).
	Inner *ShardInner `json:"inner,omitempty"`
}

// ShardInner is the inner-hit pass of a collapsed search: the matches
// of the page's groups, each with its value of the inner hits' sort
// field.
type ShardInner struct {
	// Groups are the values of the page's groups (of Field, or the
	// cluster).
	Groups []string `json:"groups"`
	// IDs are, with FoldCopies, the documents left in those groups.
	IDs []string `json:"ids,omitempty"`
	// Sort is the field inner hits are sorted by, "" for the score.
	Sort string `json:"sort,omitempty"`
}

// ShardInnerMatch is a match of a page's group.
type ShardInnerMatch struct {
	Group   string  `json:"group"`
	ID      string  `json:"id"`
	Score   float64 `json:"score"`
	Cluster string  `json:"cluster,omitempty"`
	// Sort is the document's value of ShardInner.Sort, if it has one.
	Sort *string `json:"sort,omitempty"`
}

// ShardResult is what one index answers to a ShardRequest.
type ShardResult struct {
	Total    uint64  `json:"total"`
	MaxScore float64 `json:"max_score"`
	// Exact is false when the shard stopped counting groups at the
	// request's ClusterBound.
	Exact bool `json:"exact"`
	// Top are the shard's best K groups, best first.
	Top []ShardGroup `json:"top,omitempty"`
	// Counted are the groups counted, with their matching documents.
	Counted []ShardCount `json:"counted,omitempty"`
	// Facets are, for each of the request's facets, its values' counts.
	Facets [][]ShardFacet `json:"facets,omitempty"`
	// Best are, with FoldCopies, each matching cluster's best document.
	Best []ShardEntry `json:"best,omitempty"`
	// Inner are, for a ShardRequest with Inner, the matches of its groups.
	Inner []ShardInnerMatch `json:"inner,omitempty"`
}

// GroupRef names a group in a ShardResult: its value or, for a document
// that is a group of its own, the document's number in its index.
type GroupRef struct {
	Value string  `json:"v,omitempty"`
	Doc   *uint64 `json:"d,omitempty"`
}

// ShardGroup is a group among a shard's best: its best document.
type ShardGroup struct {
	GroupRef
	ID      string  `json:"id"`
	Score   float64 `json:"score"`
	Cluster string  `json:"cluster,omitempty"`
}

// ShardCount is a group counted and its matching documents.
type ShardCount struct {
	GroupRef
	Count int `json:"n"`
}

// ShardFacet is a facet value's matching documents and their groups.
type ShardFacet struct {
	Value  string     `json:"value"`
	Docs   int        `json:"docs"`
	Groups []GroupRef `json:"groups"`
}

// ShardEntry is, with FoldCopies, a cluster's best matching document,
// with its group's value and its facet values.
type ShardEntry struct {
	Doc     uint64   `json:"d"`
	ID      string   `json:"id"`
	Score   float64  `json:"score"`
	Cluster string   `json:"cluster,omitempty"`
	Value   string   `json:"value,omitempty"`
	Values  []string `json:"values,omitempty"`
}

// ShardCall is a collapsed search's request to a shard in another
// process, which finds it in the context its SearchInContext is called
// with (ShardCallFrom), sends it and passes the answer to Answer instead
// of returning hits.
type ShardCall struct{ part *remotePart }

type shardCallKey struct{}

// ShardCallFrom returns the ShardCall of a collapsed search, if ctx is
// the context of one.
func ShardCallFrom(ctx context.Context) (*ShardCall, bool) {
	c, ok := ctx.Value(shardCallKey{}).(*ShardCall)
	return c, ok
}

// Request returns what to send, or why the search cannot be sent
// (ErrNotSent): a Request.Visit function, or a facet without a field,
// run in the searching process only.
func (c *ShardCall) Request() (ShardRequest, error) { return c.part.req, c.part.err }

// Answer hands the shard's answer (one result per index it searched) to
// the search.
func (c *ShardCall) Answer(rs []ShardResult) error {
	if c.part.err != nil {
		return c.part.err
	}
	return c.part.answer(rs)
}

// remotePart is a pass of a search as shards in another process take
// it: what they are asked (or why they cannot be), and what is done with
// their answers (by default, in run, each becomes a shard's collapser).
type remotePart struct {
	req    ShardRequest
	err    error
	answer func([]ShardResult) error
}

// shardPart returns the part of req, searching q, for shards in another
// process.
func (s *Searcher) shardPart(req *Request, q query.Query) *remotePart {
	p := &remotePart{req: ShardRequest{K: req.From + req.Size, Collapse: req.Collapse, Field: req.Field, FoldCopies: req.FoldCopies, ClusterBound: req.ClusterBound}}
	if req.Visit != nil {
		p.err = fmt.Errorf("collapse: a Visit function: %w: %w", ErrNotSent, ErrInvalidRequest)
		return p
	}
	for _, f := range req.Facets {
		if f.Field == "" {
			p.err = fmt.Errorf("collapse: facet %q, without a field: %w: %w", f.Name, ErrNotSent, ErrInvalidRequest)
			return p
		}
		p.req.Facets = append(p.req.Facets, f.Field)
	}
	var err error
	if p.req.Query, err = json.Marshal(q); err != nil {
		p.err = fmt.Errorf("collapse: query %T: %v: %w: %w", q, err, ErrNotSent, ErrInvalidRequest)
	}
	return p
}

// importer is the default answer of a remotePart: each result becomes a
// shard's collapser, made by mk and added to *shards under mu.
func (s *Searcher) importer(mk func(shard int) *collapser, mu *sync.Mutex, shards *[]*collapser) func([]ShardResult) error {
	return func(rs []ShardResult) error {
		mu.Lock()
		defer mu.Unlock()
		for i := range rs {
			c := mk(len(*shards))
			c.remote = true
			if err := s.fromShard(c, &rs[i]); err != nil {
				return err
			}
			*shards = append(*shards, c)
		}
		return nil
	}
}

// SearchShard answers a ShardRequest sent by a Searcher in another
// process, with one result per index searched (the shards of an alias),
// or with Inner, one result holding every index's matches.
func (s *Searcher) SearchShard(ctx context.Context, r ShardRequest) ([]ShardResult, error) {
	q, err := query.ParseQuery(r.Query)
	if err != nil {
		return nil, fmt.Errorf("collapse: query: %v: %w", err, ErrInvalidRequest)
	}
	if r.K < 1 {
		return nil, fmt.Errorf("collapse: k %d (want at least 1): %w", r.K, ErrInvalidRequest)
	}
	req := Request{Query: q, Size: r.K, Collapse: r.Collapse, Field: r.Field, FoldCopies: r.FoldCopies, ClusterBound: r.ClusterBound}
	for _, f := range r.Facets {
		req.Facets = append(req.Facets, Facet{Name: f, Field: f})
	}
	if err := s.check(&req); err != nil {
		return nil, err
	}
	if r.Inner != nil {
		return s.innerShard(ctx, req, r.Inner)
	}
	shards, _, err := s.run(ctx, q, func(shard int) *collapser {
		c := s.newCollapser(req, shard, true)
		c.names = map[uint64]GroupRef{}
		return c
	}, func(c *collapser, sctx *search.SearchContext) (search.DocumentMatchHandler, bool, error) {
		return c.handler(sctx)
	}, nil)
	if err != nil {
		return nil, err
	}
	out := make([]ShardResult, len(shards))
	for i, c := range shards {
		out[i] = c.export()
	}
	return out, nil
}

// innerShard answers a ShardRequest's inner-hit pass.
func (s *Searcher) innerShard(ctx context.Context, req Request, in *ShardInner) ([]ShardResult, error) {
	want, values := map[uint64]bool{}, map[uint64]string{}
	for _, v := range in.Groups {
		k := maphash.String(s.tables.seed, v)
		want[k], values[k] = true, v
	}
	q := restricted{query: req.Query, filter: s.innerFilter(req, in.Groups, in.IDs)}
	found, _, err := s.innerPass(ctx, q, req, in.Sort, want, nil)
	if err != nil {
		return nil, err
	}
	var r ShardResult
	for k, ms := range found {
		for _, m := range ms {
			sm := ShardInnerMatch{Group: values[k], ID: m.id, Score: m.score, Cluster: m.cluster}
			if m.sort != nil {
				v := string(m.sort)
				sm.Sort = &v
			}
			r.Inner = append(r.Inner, sm)
		}
	}
	return []ShardResult{r}, nil
}

// ref names the group of value ("" for document n alone).
func ref(value string, n uint64) GroupRef {
	if value == "" {
		return GroupRef{Doc: &n}
	}
	return GroupRef{Value: value}
}

// export is c's state once its matches have ended, as a ShardResult.
func (c *collapser) export() ShardResult {
	r := ShardResult{Total: c.total, MaxScore: c.maxScore, Exact: c.exact}
	for i, g := range c.ranked() {
		r.Top = append(r.Top, ShardGroup{GroupRef: ref(g.value, g.num), ID: g.id, Score: g.score, Cluster: c.page[i].Cluster})
	}
	for k, n := range c.seen {
		r.Counted = append(r.Counted, ShardCount{GroupRef: c.names[k], Count: n})
	}
	for _, fc := range c.counts {
		var vals []ShardFacet
		for v, n := range fc {
			sf := ShardFacet{Value: v, Docs: n.docs, Groups: make([]GroupRef, 0, len(n.groups))}
			for k := range n.groups {
				sf.Groups = append(sf.Groups, c.names[k])
			}
			vals = append(vals, sf)
		}
		r.Facets = append(r.Facets, vals)
	}
	for _, e := range c.best {
		r.Best = append(r.Best, ShardEntry{Doc: e.num, ID: e.id, Score: e.score, Cluster: e.cluster, Value: e.value, Values: e.values})
	}
	return r
}

// fromShard sets c, a collapser of this process, to a shard's answer r.
func (s *Searcher) fromShard(c *collapser, r *ShardResult) error {
	if len(r.Facets) != len(c.counts) {
		return fmt.Errorf("collapse: a shard answered %d facets to a request of %d", len(r.Facets), len(c.counts))
	}
	seed := s.tables.seed
	key := func(g GroupRef) uint64 {
		if g.Doc != nil {
			return docKey(c.shard, *g.Doc, seed)
		}
		return maphash.String(seed, g.Value)
	}
	c.total, c.maxScore, c.exact = r.Total, r.MaxScore, r.Exact
	for _, n := range r.Counted {
		c.seen[key(n.GroupRef)] = n.Count
	}
	c.page, c.keys = make([]Hit, 0, len(r.Top)), make([]uint64, 0, len(r.Top))
	for _, g := range r.Top {
		k := key(g.GroupRef)
		h := Hit{ID: g.ID, Score: g.Score, Cluster: g.Cluster, Members: []Member{}, Size: c.seen[k]}
		if c.field != c.fields.Cluster {
			h.Group = g.Value
		}
		c.page, c.keys = append(c.page, h), append(c.keys, k)
	}
	for i, vals := range r.Facets {
		for _, v := range vals {
			fc := &facetCount{docs: v.Docs, groups: make(map[uint64]struct{}, len(v.Groups))}
			for _, g := range v.Groups {
				fc.groups[key(g)] = struct{}{}
			}
			c.counts[i][v.Value] = fc
		}
	}
	if c.fold {
		for _, e := range r.Best {
			ckey, gkey := key(ref(e.Cluster, e.Doc)), key(ref(e.Value, e.Doc))
			c.best[ckey] = &entry{num: e.Doc, id: e.ID, score: e.Score, cluster: e.Cluster, gkey: gkey, value: e.Value, values: e.Values}
		}
	}
	return nil
}
