package collapse

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/bleve-dedup/bleve-dedup/api"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
)

// Defaults and limits of Searcher.Search.
const (
	// DefaultSize is the page size used when Request.Size is 0.
	DefaultSize = 10
	// MaxWindow bounds From+Size: deeper pages cost memory and time
	// linear in the window, like bleve's own from+size paging.
	MaxWindow = 10000
	// DefaultClusterBound is how many distinct matching clusters are
	// counted exactly when Request.ClusterBound is 0. Counting
	// puts the cluster of every match into a hash set until the bound is
	// passed; on the 100,000-page benchmark (BenchmarkCollapse100k) the
	// median latency was 1.04 times plain search's with a bound of 1,000,
	// 1.17 with 10,000 and 1.40 with no bound.
	DefaultClusterBound = 1000
	// DefaultMaxMembers is how many folded members a hit lists when
	// Request.MaxMembers is 0.
	DefaultMaxMembers = 50
)

// Request is a search whose hits may be folded by duplicate cluster.
type Request struct {
	Query query.Query
	// Size hits from offset From; 0 means DefaultSize. From+Size is at
	// most MaxWindow. With Collapse on both count clusters, not documents.
	Size, From int
	// Collapse folds each cluster into one hit. Off, every matching
	// document is a hit of its own (Folded 0), in the same order.
	Collapse bool
	// ClusterBound caps the exact count of matching clusters: past it
	// Result.Clusters stops at the bound and ClustersExact is
	// false. 0 means DefaultClusterBound; negative means no cap (every
	// matching document's cluster is read).
	ClusterBound int
	// MaxMembers caps Hit.Members (Hit.Folded still counts them all); 0
	// means DefaultMaxMembers, negative lists none.
	MaxMembers int
	// Visit, when set, sees every matching document before it is counted
	// or ranked: it may change m.Score, to rank by something other than
	// relevance (a date, say: clusters then rank by their best member's
	// new score, and that member stands for the cluster), and returns
	// false to leave the document out (not counted in Total or Clusters,
	// not ranked). Facets and filters on what the index does not hold
	// are made this way. It costs a stored-id read a match; Collapse off
	// then uses this package's collector too, in the same order as
	// without. An alias of shards calls it from each shard's goroutine
	// at once, so it must be safe for concurrent use.
	Visit func(m *Match) bool
}

// Match is a matching document as Request.Visit sees it.
type Match struct {
	ID      string
	Cluster string // "" for a document written around the filter
	Score   float64
}

// Hit is one search result: with collapsing, the best-scoring indexed
// member of a cluster standing for the whole cluster. It is api.Hit, the
// hit of the server's JSON answer.
type Hit = api.Hit

// Member is a folded document of a Hit's cluster (api.Member).
type Member = api.Member

// Result is a page of hits: api.SearchResult, the search answer of the
// server's JSON API too.
type Result = api.SearchResult

// Store is where a Searcher reads the members folded under a hit;
// *dedupfilter.Filter is one.
type Store interface {
	Fold(hits, clusters []string, max int) ([]dedupfilter.Folded, error)
}

// Fields name what a Searcher reads from the index: each document's
// cluster id (a keyword field with doc values), and the title and URL a
// hit shows (stored fields).
type Fields struct {
	Cluster, Title, URL string
}

// DefaultFields are the fields of an index written by package indexer
// (indexer.FieldCluster, FieldTitle, FieldURL).
var DefaultFields = Fields{Cluster: "cluster", Title: "title", URL: "url"}

// Searcher runs collapsed searches over a bleve index whose documents
// carry their cluster id (an index written by package indexer, or through
// its Index), reading folded members from the index's dedup store. It
// keeps per-segment cluster tables between searches, so make one per
// index and reuse it. A Searcher is safe for concurrent use.
type Searcher struct {
	index    bleve.Index
	store    Store
	fields   Fields
	clusters *clusterCache
}

// New returns a Searcher over index, folding members from store, reading
// DefaultFields. For an *indexer.Index ix: New(ix.Unwrap(), ix.Filter()).
func New(index bleve.Index, store Store) *Searcher {
	return NewWithFields(index, store, DefaultFields)
}

// NewWithFields is New for an index whose fields are named otherwise.
func NewWithFields(index bleve.Index, store Store, f Fields) *Searcher {
	return &Searcher{index: index, store: store, fields: f, clusters: newClusterCache(f.Cluster)}
}

// Search runs req and returns its page of hits, one per duplicate cluster
// when req.Collapse is set.
//
// Order and paging: clusters are ranked by their best member's score,
// descending, ties by that member's id, ascending; a cluster's best member
// is likewise its highest-scoring indexed member, ties to the smaller id.
// The order is a total order over the matching documents, so calls on an
// unchanged index return the same pages, every cluster appears on exactly
// one page, and page N of size S holds the S clusters after the first N*S.
// Documents whose bleve record has no cluster field (written around the
// filter) are clusters of their own.
//
// Design: collapsing happens inside bleve's collector, through the
// search.MakeDocumentMatchHandlerKey hook, in one pass over the matches:
// the handler keeps only the best From+Size clusters in a heap (Lucene's
// first-pass grouping collector), looking up a match's cluster only when
// its score can enter that heap or while it still counts clusters (until
// ClusterBound distinct clusters have been seen). Lookups go to a table
// per bleve segment (see clusterCache), not to doc values, which cost a
// chunk decompression per scattered match. Over-fetching instead (plain
// top-k searches, widened until From+Size distinct clusters are found)
// must sort by id as well as score for a stable order, which loads the id
// of every match, repeats searches when duplicates crowd a page, and
// cannot count clusters: on BenchmarkCollapse100k its median latency was
// 1.74 times plain search's, this collector's 1.04 (p99: 0.86 and 1.13,
// where slow phrase queries dominate; runs on a shared machine vary by
// about ±15%).
//
// Memory: the tables take 4 bytes per indexed document plus about 50 per
// cluster and segment, built once per segment (about 60 ms of CPU per
// 100,000 documents) on the first collapsed search that meets it.
//
// Hit titles and URLs come from bleve's stored fields in the snapshot
// searched, folded members from the dedup store (read after the search, so
// a concurrent write may show); a cluster the store does not know yields
// no members.
func (s *Searcher) Search(ctx context.Context, req Request) (*Result, error) {
	if req.Query == nil {
		return nil, fmt.Errorf("collapse: no query: %w", ErrInvalidRequest)
	}
	if req.Size == 0 {
		req.Size = DefaultSize
	}
	if req.Size < 0 || req.From < 0 || req.From+req.Size > MaxWindow {
		return nil, fmt.Errorf("collapse: from %d size %d (want from, size >= 0 and from+size <= %d): %w", req.From, req.Size, MaxWindow, ErrInvalidRequest)
	}
	if req.ClusterBound == 0 {
		req.ClusterBound = DefaultClusterBound
	}
	if req.MaxMembers == 0 {
		req.MaxMembers = DefaultMaxMembers
	}
	start := time.Now()
	var res *Result
	var err error
	if req.Collapse || req.Visit != nil {
		res, err = s.collapsed(ctx, req)
	} else {
		res, err = s.plain(ctx, req)
	}
	if err != nil {
		return nil, err
	}
	res.Took = time.Since(start)
	return res, nil
}

// plain is Search with collapsing off: bleve's own collector,
// with the id as tie-breaker so that the order is the collapsed one's.
func (s *Searcher) plain(ctx context.Context, req Request) (*Result, error) {
	breq := bleve.NewSearchRequestOptions(req.Query, req.Size, req.From, false)
	breq.SortBy([]string{"-_score", "_id"})
	breq.Fields = []string{s.fields.Title, s.fields.URL, s.fields.Cluster}
	bres, err := s.index.SearchInContext(ctx, breq)
	if err != nil {
		return nil, fmt.Errorf("collapse: search: %w", err)
	}
	res := &Result{Total: bres.Total, MaxScore: bres.MaxScore, Hits: make([]Hit, 0, len(bres.Hits))}
	for _, h := range bres.Hits {
		res.Hits = append(res.Hits, Hit{
			ID: h.ID, Score: h.Score, Members: []Member{},
			Cluster: fieldString(h.Fields, s.fields.Cluster),
			Title:   fieldString(h.Fields, s.fields.Title),
			URL:     fieldString(h.Fields, s.fields.URL),
		})
	}
	return res, nil
}

func fieldString(f map[string]any, name string) string {
	s, _ := f[name].(string)
	return s
}

func (s *Searcher) collapsed(ctx context.Context, req Request) (*Result, error) {
	// An alias of shards searches each shard with this handler, in
	// parallel: each gets a collapser of its own, and their top clusters
	// are merged. A cluster's best member in the union is the best of its
	// best members in the shards, so each shard's top From+Size holds
	// every cluster of the union's top From+Size.
	_, sharded := s.index.(bleve.IndexAlias)
	var mu sync.Mutex
	var shards []*collapser
	handler := func(sctx *search.SearchContext) (search.DocumentMatchHandler, bool, error) {
		c := &collapser{k: req.From + req.Size, from: req.From, load: !sharded, fields: s.fields, bound: req.ClusterBound, exact: true,
			groups: map[uint64]*group{}, seen: map[uint64]struct{}{}, cache: s.clusters, visit: req.Visit, each: !req.Collapse}
		if sharded {
			c.from = 0
		}
		mu.Lock()
		shards = append(shards, c)
		mu.Unlock()
		return c.handler(sctx)
	}
	ctx = context.WithValue(ctx, search.MakeDocumentMatchHandlerKey, search.MakeDocumentMatchHandler(handler))
	// The hook replaces bleve's top-n store, so bleve returns no hits of
	// its own: size 0 keeps it from preallocating for them.
	breq := bleve.NewSearchRequestOptions(req.Query, 0, 0, false)
	if _, err := s.index.SearchInContext(ctx, breq); err != nil {
		return nil, fmt.Errorf("collapse: search: %w", err)
	}
	var res *Result
	switch {
	case !sharded && len(shards) == 1:
		c := shards[0]
		res = &Result{Total: c.total, MaxScore: c.maxScore, Clusters: len(c.seen), ClustersExact: c.exact, Hits: c.page}
	default:
		var err error
		if res, err = s.merge(ctx, shards, req); err != nil {
			return nil, err
		}
	}
	if !req.Collapse { // every document a hit of its own, as plain's
		res.Clusters, res.ClustersExact = 0, false
		return res, nil
	}
	if err := s.fold(res.Hits, req.MaxMembers); err != nil {
		return nil, err
	}
	return res, nil
}

// merge makes the page of the union of the shards' top clusters, with
// the titles and URLs of its hits read in one more search.
func (s *Searcher) merge(ctx context.Context, shards []*collapser, req Request) (*Result, error) {
	res := &Result{ClustersExact: true, Hits: []Hit{}}
	best := map[string]Hit{}
	seen := map[uint64]struct{}{}
	for i, c := range shards {
		res.Total += c.total
		res.MaxScore = max(res.MaxScore, c.maxScore)
		res.ClustersExact = res.ClustersExact && c.exact
		for k := range c.seen {
			seen[k] = struct{}{}
		}
		for _, h := range c.page {
			key := h.Cluster
			if key == "" || !req.Collapse { // a document without a cluster is one of its own
				key = fmt.Sprintf("\x00%d\x00%s", i, h.ID)
			}
			if b, ok := best[key]; !ok || h.Score > b.Score || (h.Score == b.Score && h.ID < b.ID) {
				best[key] = h
			}
		}
	}
	res.Clusters = len(seen)
	if req.ClusterBound >= 0 && res.Clusters > req.ClusterBound {
		res.Clusters, res.ClustersExact = req.ClusterBound, false
	}
	for _, h := range best {
		res.Hits = append(res.Hits, h)
	}
	slices.SortFunc(res.Hits, func(a, b Hit) int {
		if a.Score != b.Score {
			return cmp.Compare(b.Score, a.Score)
		}
		return strings.Compare(a.ID, b.ID)
	})
	res.Hits = res.Hits[min(req.From, len(res.Hits)):min(req.From+req.Size, len(res.Hits))]
	return res, s.loadFields(ctx, res.Hits)
}

// loadFields reads the hits' titles and URLs from bleve's stored fields.
func (s *Searcher) loadFields(ctx context.Context, hits []Hit) error {
	if len(hits) == 0 {
		return nil
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	breq := bleve.NewSearchRequestOptions(bleve.NewDocIDQuery(ids), len(ids), 0, false)
	breq.Fields = []string{s.fields.Title, s.fields.URL}
	bres, err := s.index.SearchInContext(ctx, breq)
	if err != nil {
		return fmt.Errorf("collapse: stored fields: %w", err)
	}
	byID := make(map[string]*search.DocumentMatch, len(bres.Hits))
	for _, m := range bres.Hits {
		byID[m.ID] = m
	}
	for i := range hits {
		if m := byID[hits[i].ID]; m != nil {
			hits[i].Title = fieldString(m.Fields, s.fields.Title)
			hits[i].URL = fieldString(m.Fields, s.fields.URL)
		}
	}
	return nil
}

// fold fills the hits' folded counts and members from the dedup store,
// in one read.
func (s *Searcher) fold(hits []Hit, maxMembers int) error {
	var ids, clusters []string
	var at []int
	for i, h := range hits {
		if h.Cluster != "" { // bleve documents written around the filter have none
			ids, clusters, at = append(ids, h.ID), append(clusters, h.Cluster), append(at, i)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	folds, err := s.store.Fold(ids, clusters, max(maxMembers, 0))
	if err != nil {
		return fmt.Errorf("collapse: folded members: %w", err)
	}
	for j, f := range folds {
		h := &hits[at[j]]
		h.Folded = max(f.Size-1, 0)
		for _, e := range f.Members {
			h.Members = append(h.Members, Member{ID: e.ID, URL: e.URL, Title: e.Title, Indexed: e.Indexed})
		}
	}
	return nil
}
