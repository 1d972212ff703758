package collapse

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"maps"
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

// Request is a search whose hits may be folded by duplicate cluster, or
// grouped by another keyword field.
type Request struct {
	Query query.Query
	// Size hits from offset From; 0 means DefaultSize. From+Size is at
	// most MaxWindow. With Collapse on both count groups, not documents.
	Size, From int
	// Collapse folds each cluster (or each group of Field) into one hit.
	// Off, every matching document is a hit of its own (Folded 0), in the
	// same order.
	Collapse bool
	// Field, with Collapse, groups by this keyword field (indexed with
	// doc values) instead of the cluster: one hit per distinct value, its
	// best-scoring document, with Hit.Group the value and Hit.Size the
	// group's matching documents; documents without the field are groups
	// of their own. Result.Groups counts the groups, and hits fold no
	// members from the store.
	Field string
	// FoldCopies, with Field, folds copies before grouping: of the
	// matching documents of each duplicate cluster only the best-scoring
	// one is kept, and those kept are grouped by Field. In an index of
	// passages whose Field names the page each was cut from, a page's
	// group then holds its passages that no better passage of another
	// page copies, and a page all of whose matching passages are copies
	// of better ones elsewhere has no hit. Result.Clusters counts the
	// matching clusters, Groups the groups, both exactly.
	FoldCopies bool
	// Inner asks for the best documents of each hit's group.
	Inner Inner
	// Facets count the matches' values (see Facet), into Result.Facets.
	Facets []Facet
	// ClusterBound caps the exact count of matching groups (clusters, or
	// values of Field): past it Result.Clusters (Groups) stops at the
	// bound, ClustersExact is false and Hit.Size may fall short. 0 means
	// DefaultClusterBound; negative means no cap (every matching
	// document's group is read). FoldCopies counts exactly.
	ClusterBound int
	// MaxMembers caps Hit.Members (Hit.Folded still counts them all); 0
	// means DefaultMaxMembers, negative lists none.
	MaxMembers int
	// Visit, when set, sees every matching document before it is counted
	// or ranked: it may change m.Score, to rank by something other than
	// relevance (a date, say: groups then rank by their best member's
	// new score, and that member stands for the group), may set
	// m.Values, and returns false to leave the document out (not counted
	// in Total, Clusters or Facets, not ranked). Filters on what the
	// index does not hold are made this way. It costs a stored-id read a
	// match; Collapse off then uses this package's collector too, in the
	// same order as without. It sees the documents of the page's groups
	// again when Inner asks for hits. An alias of shards calls it from
	// each shard's goroutine at once, so it must be safe for concurrent
	// use.
	Visit func(m *Match) bool
}

// Inner asks for up to Size documents of each hit's group (Hit.Inner),
// the hit's own document among them when the order puts it there.
type Inner struct {
	// Size is how many; 0 asks for none, at most MaxInner.
	Size int
	// Sort is one key in bleve's sort syntax: "" or "-_score" (the best
	// score first), "_score", a field ("date": ascending, documents
	// without it last) or "-field" (descending). A field is compared by
	// its first indexed value's bytes: keywords as strings, numbers and
	// dates in their order. Ties go to the smaller id.
	Sort string
}

// MaxInner bounds Inner.Size.
const MaxInner = 100

// Facet counts, for each value, the matching documents that have it and
// the distinct groups among them (Result.Facets): clusters, or the
// values of Request.Field, or with FoldCopies the groups of the
// documents left after folding, which the documents are then counted
// over too. With collapsing off, groups are clusters.
type Facet struct {
	Name string
	// Field is a keyword field with doc values (a document's first value
	// counts; a document without one counts under ""). Empty, the values
	// are those Request.Visit sets in Match.Values.
	Field string
}

// Match is a matching document as Request.Visit sees it.
type Match struct {
	ID      string
	Cluster string // "" for a document written around the filter
	Score   float64
	// Values are the match's values of Request.Facets, in order: those
	// of facets with a Field read from the index, the others for Visit
	// to set.
	Values []string
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
// keeps per-segment tables of the fields it groups and counts by between
// searches, so make one per index and reuse it. A Searcher is safe for
// concurrent use.
type Searcher struct {
	index  bleve.Index
	store  Store
	fields Fields
	tables *tableCache
}

// New returns a Searcher over index, folding members from store, reading
// DefaultFields. For an *indexer.Index ix: New(ix.Unwrap(), ix.Filter()).
func New(index bleve.Index, store Store) *Searcher {
	return NewWithFields(index, store, DefaultFields)
}

// NewWithFields is New for an index whose fields are named otherwise.
func NewWithFields(index bleve.Index, store Store, f Fields) *Searcher {
	return &Searcher{index: index, store: store, fields: f, tables: newTableCache()}
}

// Search runs req and returns its page of hits, one per duplicate cluster
// (or group of req.Field) when req.Collapse is set.
//
// Order and paging: groups are ranked by their best member's score,
// descending, ties by that member's id, ascending; a group's best member
// is likewise its highest-scoring indexed member, ties to the smaller id.
// The order is a total order over the matching documents, so calls on an
// unchanged index return the same pages, every group appears on exactly
// one page, and page N of size S holds the S groups after the first N*S.
// Documents whose bleve record has no cluster field (written around the
// filter), or no req.Field, are groups of their own. With FoldCopies the
// same order holds over the documents left after folding.
//
// Design: collapsing happens inside bleve's collector, through the
// search.MakeDocumentMatchHandlerKey hook, in one pass over the matches:
// the handler keeps only the best From+Size groups in a heap (Lucene's
// first-pass grouping collector), looking up a match's group only when
// its score can enter that heap or while it still counts groups (until
// ClusterBound distinct groups have been seen). Lookups go to a table
// per bleve segment and field (see tableCache), not to doc values, which
// cost a chunk decompression per scattered match. Over-fetching instead
// (plain top-k searches, widened until From+Size distinct clusters are
// found) must sort by id as well as score for a stable order, which loads
// the id of every match, repeats searches when duplicates crowd a page,
// and cannot count clusters: on BenchmarkCollapse100k its median latency
// was 1.74 times plain search's, this collector's 1.04 (p99: 0.86 and
// 1.13, where slow phrase queries dominate; runs on a shared machine vary
// by about ±15%).
//
// FoldCopies cannot rank groups before every cluster's best member is
// known: the pass keeps the best matching document of every matching
// cluster, and groups them when the matches end (memory and time linear
// in the matching clusters; ids are read where scores tie, for the page,
// and, over shards, for every kept document). Facets look up every
// match's values and group. Inner hits take a second pass, led by the
// documents of the page's groups (their values' postings, or with
// FoldCopies the ids left in them), the query advanced to each and
// scored as in the first pass, every match collected to be ordered by
// Inner.Sort: its cost grows with the groups' sizes.
//
// Memory: a table takes 4 bytes per indexed document plus about 50 per
// distinct value and segment, built once per segment and field (about
// 60 ms of CPU per 100,000 documents) on the first search that needs it.
//
// Hit titles and URLs come from bleve's stored fields in the snapshot
// searched, folded members from the dedup store (read after the search, so
// a concurrent write may show); a cluster the store does not know yields
// no members.
func (s *Searcher) Search(ctx context.Context, req Request) (*Result, error) {
	if err := s.check(&req); err != nil {
		return nil, err
	}
	start := time.Now()
	var res *Result
	var err error
	if req.Collapse || req.Visit != nil || len(req.Facets) > 0 {
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

// check validates req and sets its defaults.
func (s *Searcher) check(req *Request) error {
	if req.Query == nil {
		return fmt.Errorf("collapse: no query: %w", ErrInvalidRequest)
	}
	if req.Size == 0 {
		req.Size = DefaultSize
	}
	if req.Size < 0 || req.From < 0 || req.From+req.Size > MaxWindow {
		return fmt.Errorf("collapse: from %d size %d (want from, size >= 0 and from+size <= %d): %w", req.From, req.Size, MaxWindow, ErrInvalidRequest)
	}
	if !req.Collapse && (req.Field != "" || req.FoldCopies || req.Inner.Size != 0) {
		return fmt.Errorf("collapse: a group field, folded copies or inner hits without collapsing: %w", ErrInvalidRequest)
	}
	if req.Inner.Size < 0 || req.Inner.Size > MaxInner {
		return fmt.Errorf("collapse: inner size %d (want 0 to %d): %w", req.Inner.Size, MaxInner, ErrInvalidRequest)
	}
	if req.Field == s.fields.Cluster {
		req.Field = ""
	}
	if req.Field == "" {
		req.FoldCopies = false // folding copies is grouping by cluster
	}
	if req.ClusterBound == 0 {
		req.ClusterBound = DefaultClusterBound
	}
	if req.MaxMembers == 0 {
		req.MaxMembers = DefaultMaxMembers
	}
	return nil
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
	failed, err := shardErrors(bres)
	if err != nil {
		return nil, err
	}
	res := &Result{Total: bres.Total, MaxScore: bres.MaxScore, Hits: make([]Hit, 0, len(bres.Hits)), ShardErrors: failed}
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

// run searches q once with a collapser per shard made by mk; shards in
// another process take part (nil: they cannot), by default each answer
// becoming a shard's collapser. It returns the errors of the shards that
// failed, by name, when others answered.
func (s *Searcher) run(ctx context.Context, q query.Query, mk func(shard int) *collapser, handle func(c *collapser, sctx *search.SearchContext) (search.DocumentMatchHandler, bool, error), part *remotePart) ([]*collapser, map[string]string, error) {
	var mu sync.Mutex
	var shards []*collapser
	handler := func(sctx *search.SearchContext) (search.DocumentMatchHandler, bool, error) {
		mu.Lock()
		c := mk(len(shards))
		shards = append(shards, c)
		mu.Unlock()
		return handle(c, sctx)
	}
	if part == nil {
		part = &remotePart{err: fmt.Errorf("collapse: a shard's own shards: %w: %w", ErrNotSent, ErrInvalidRequest)}
	}
	if part.answer == nil {
		part.answer = s.importer(mk, &mu, &shards)
	}
	ctx = context.WithValue(ctx, search.MakeDocumentMatchHandlerKey, search.MakeDocumentMatchHandler(handler))
	ctx = context.WithValue(ctx, shardCallKey{}, &ShardCall{part: part})
	// The hook replaces bleve's top-n store, so bleve returns no hits of
	// its own: size 0 keeps it from preallocating for them.
	breq := bleve.NewSearchRequestOptions(q, 0, 0, false)
	bres, err := s.index.SearchInContext(ctx, breq)
	if err != nil {
		return nil, nil, fmt.Errorf("collapse: search: %w", err)
	}
	failed, err := shardErrors(bres)
	return shards, failed, err
}

// shardErrors returns the errors of the shards of an alias that were
// unavailable (ErrShardUnavailable) while others answered: bleve's alias
// gives a partial result. It returns an error when none answered, or
// when a shard failed otherwise (a query it refused, an error of its
// own), as a search of that shard alone does.
func shardErrors(bres *bleve.SearchResult) (map[string]string, error) {
	if bres == nil || bres.Status == nil || bres.Status.Failed == 0 {
		return nil, nil
	}
	failed := map[string]string{}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(bres.Status.Errors)) {
		err := bres.Status.Errors[name]
		if !errors.Is(err, ErrShardUnavailable) {
			return nil, fmt.Errorf("collapse: search: %w", err)
		}
		failed[name] = err.Error()
		errs = append(errs, err)
	}
	if bres.Status.Successful == 0 {
		return nil, fmt.Errorf("collapse: no shard answered: %w", errors.Join(errs...))
	}
	return failed, nil
}

// newCollapser returns the collapser of req for shard.
func (s *Searcher) newCollapser(req Request, shard int, sharded bool) *collapser {
	c := &collapser{shard: shard, k: req.From + req.Size, from: req.From, load: !sharded, fields: s.fields,
		field: cmp.Or(req.Field, s.fields.Cluster), bound: req.ClusterBound, exact: true,
		grps: map[uint64]*group{}, seen: map[uint64]int{}, cache: s.tables, visit: req.Visit,
		each: !req.Collapse, fold: req.FoldCopies, facets: req.Facets, values: make([]string, len(req.Facets))}
	if sharded {
		c.from = 0
	}
	if c.fold {
		c.best = map[uint64]*entry{}
	}
	for range req.Facets {
		c.counts = append(c.counts, facetCounts{})
	}
	return c
}

func (s *Searcher) collapsed(ctx context.Context, req Request) (*Result, error) {
	// An alias of shards searches each shard with this handler, in
	// parallel: each gets a collapser of its own, and their top groups
	// are merged. A group's best member in the union is the best of its
	// best members in the shards, so each shard's top From+Size holds
	// every group of the union's top From+Size.
	_, sharded := s.index.(bleve.IndexAlias)
	shards, failed, err := s.run(ctx, req.Query, func(shard int) *collapser { return s.newCollapser(req, shard, sharded) },
		func(c *collapser, sctx *search.SearchContext) (search.DocumentMatchHandler, bool, error) {
			return c.handler(sctx)
		}, s.shardPart(&req, req.Query))
	if err != nil {
		return nil, err
	}
	// A shard in another process answers as a shard of an alias does.
	sharded = sharded || slices.ContainsFunc(shards, func(c *collapser) bool { return c.remote })
	var res *Result
	var keys []uint64
	var kept map[uint64][]string
	switch {
	case req.FoldCopies:
		var f *foldedPage
		if !sharded && len(shards) == 1 {
			f = shards[0].folded
		} else {
			f = groupFolded(shards, req.Facets, req.From, req.Size, func(e *entry) string { return e.id })
		}
		res, keys, kept = f.res, f.keys, f.kept
		if err := s.loadFields(ctx, res.Hits); err != nil {
			return nil, err
		}
	case !sharded && len(shards) == 1:
		c := shards[0]
		res = &Result{Total: c.total, MaxScore: c.maxScore, Clusters: len(c.seen), ClustersExact: c.exact, Hits: c.page}
		keys = c.keys
	default:
		if res, keys, err = s.merge(ctx, shards, req); err != nil {
			return nil, err
		}
	}
	if !req.FoldCopies {
		res.Facets = facetResult(req.Facets, shards)
	}
	res.ShardErrors = failed
	if !req.Collapse { // every document a hit of its own, as plain's
		res.Clusters, res.ClustersExact = 0, false
		return res, nil
	}
	if req.Field != "" && !req.FoldCopies {
		res.Groups, res.Clusters = res.Clusters, 0
	}
	if req.Inner.Size > 0 {
		failed, err := s.inner(ctx, req, res.Hits, keys, kept)
		if err != nil {
			return nil, err
		}
		if res.ShardErrors == nil && len(failed) > 0 {
			res.ShardErrors = map[string]string{}
		}
		maps.Copy(res.ShardErrors, failed)
	}
	if req.Field != "" {
		return res, nil
	}
	if err := s.fold(res.Hits, req.MaxMembers); err != nil {
		return nil, err
	}
	return res, nil
}

// merge makes the page of the union of the shards' top groups, with
// the titles and URLs of its hits read in one more search, and the
// groups' hashes.
func (s *Searcher) merge(ctx context.Context, shards []*collapser, req Request) (*Result, []uint64, error) {
	res := &Result{ClustersExact: true, Hits: []Hit{}}
	type ranked struct {
		hit Hit
		key uint64
	}
	best := map[uint64]ranked{}
	seen := map[uint64]int{}
	for _, c := range shards {
		res.Total += c.total
		res.MaxScore = max(res.MaxScore, c.maxScore)
		res.ClustersExact = res.ClustersExact && c.exact
		for k, n := range c.seen {
			seen[k] += n
		}
		for i, h := range c.page {
			key := c.keys[i] // a document of a group of its own has a key of its shard's
			if b, ok := best[key]; !ok || h.Score > b.hit.Score || (h.Score == b.hit.Score && h.ID < b.hit.ID) {
				best[key] = ranked{h, key}
			}
		}
	}
	res.Clusters = len(seen)
	if req.ClusterBound >= 0 && res.Clusters > req.ClusterBound {
		res.Clusters, res.ClustersExact = req.ClusterBound, false
	}
	page := slices.Collect(maps.Values(best))
	slices.SortFunc(page, func(a, b ranked) int {
		if a.hit.Score != b.hit.Score {
			return cmp.Compare(b.hit.Score, a.hit.Score)
		}
		return strings.Compare(a.hit.ID, b.hit.ID)
	})
	page = page[min(req.From, len(page)):min(req.From+req.Size, len(page))]
	keys := make([]uint64, len(page))
	for i, r := range page {
		r.hit.Size = seen[r.key]
		res.Hits = append(res.Hits, r.hit)
		keys[i] = r.key
	}
	return res, keys, s.loadFields(ctx, res.Hits)
}

// foldedPage is the page of a FoldCopies search: the result, its groups'
// hashes and the ids left in each of its groups.
type foldedPage struct {
	res  *Result
	keys []uint64
	kept map[uint64][]string
}

// groupFolded makes the page of a FoldCopies search once every shard has
// its clusters' best documents: the best of each cluster over the shards,
// grouped by their group's hash; id returns an entry's id, which only
// ties and the page need.
func groupFolded(shards []*collapser, facets []Facet, from, size int, id func(*entry) string) *foldedPage {
	better := func(a, b *entry) int {
		if a.score != b.score {
			return cmp.Compare(b.score, a.score)
		}
		return strings.Compare(id(a), id(b))
	}
	res := &Result{ClustersExact: true, Hits: []Hit{}}
	best := map[uint64]*entry{}
	for _, c := range shards {
		res.Total += c.total
		res.MaxScore = max(res.MaxScore, c.maxScore)
		for k, e := range c.best {
			if b := best[k]; b == nil || better(e, b) < 0 {
				best[k] = e
			}
		}
	}
	res.Clusters = len(best)
	groups := map[uint64][]*entry{}
	counts := make([]facetCounts, len(facets))
	for i := range counts {
		counts[i] = facetCounts{}
	}
	for _, e := range best {
		groups[e.gkey] = append(groups[e.gkey], e)
		for i, v := range e.values {
			counts[i].add(v, e.gkey)
		}
	}
	res.Groups = len(groups)
	res.Facets = countsResult(facets, counts)
	type rankedGroup struct {
		key  uint64
		best *entry
		size int
	}
	ranked := make([]rankedGroup, 0, len(groups))
	for k, es := range groups {
		ranked = append(ranked, rankedGroup{k, slices.MinFunc(es, better), len(es)})
	}
	slices.SortFunc(ranked, func(a, b rankedGroup) int { return better(a.best, b.best) })
	ranked = ranked[min(from, len(ranked)):min(from+size, len(ranked))]
	page := &foldedPage{res: res, keys: make([]uint64, len(ranked)), kept: map[uint64][]string{}}
	for i, g := range ranked {
		e := g.best
		res.Hits = append(res.Hits, Hit{ID: id(e), Score: e.score, Cluster: e.cluster, Members: []Member{}, Group: e.value, Size: g.size})
		page.keys[i] = g.key
		for _, m := range groups[g.key] {
			page.kept[g.key] = append(page.kept[g.key], id(m))
		}
	}
	return page
}

// facetResult adds up the shards' facet counts.
func facetResult(facets []Facet, shards []*collapser) map[string][]api.FacetCount {
	if len(facets) == 0 {
		return nil
	}
	counts := make([]facetCounts, len(facets))
	for i := range facets {
		counts[i] = facetCounts{}
		for _, c := range shards {
			for v, fc := range c.counts[i] {
				sum := counts[i][v]
				if sum == nil {
					sum = &facetCount{groups: map[uint64]struct{}{}}
					counts[i][v] = sum
				}
				sum.docs += fc.docs
				for k := range fc.groups {
					sum.groups[k] = struct{}{}
				}
			}
		}
	}
	return countsResult(facets, counts)
}

// countsResult lists each facet's values, the most groups first, then
// the most documents, then by value.
func countsResult(facets []Facet, counts []facetCounts) map[string][]api.FacetCount {
	if len(facets) == 0 {
		return nil
	}
	out := make(map[string][]api.FacetCount, len(facets))
	for i, f := range facets {
		vals := make([]api.FacetCount, 0, len(counts[i]))
		for v, c := range counts[i] {
			vals = append(vals, api.FacetCount{Value: v, Documents: c.docs, Groups: len(c.groups)})
		}
		slices.SortFunc(vals, func(a, b api.FacetCount) int {
			return cmp.Or(cmp.Compare(b.Groups, a.Groups), cmp.Compare(b.Documents, a.Documents), strings.Compare(a.Value, b.Value))
		})
		out[f.Name] = vals
	}
	return out
}

// inner fills the hits' inner hits by a second pass over the query's
// matches in their groups (kept: with FoldCopies, the ids left in each),
// led by the groups' documents (restricted).
// A hit whose group is its document alone is its own inner hit.
func (s *Searcher) inner(ctx context.Context, req Request, hits []Hit, keys []uint64, kept map[uint64][]string) (map[string]string, error) {
	want := map[uint64]bool{}
	var values, ids []string
	for i, h := range hits {
		value := h.Group
		if req.Field == "" {
			value = h.Cluster
		}
		if value == "" {
			hits[i].Inner = []api.InnerHit{{ID: h.ID, Score: h.Score, Cluster: h.Cluster, Title: h.Title, URL: h.URL}}
			continue
		}
		want[keys[i]] = true
		values = append(values, value)
		if req.FoldCopies {
			ids = append(ids, kept[keys[i]]...)
		}
	}
	if len(want) == 0 {
		return nil, nil
	}
	q := restricted{query: req.Query, filter: s.innerFilter(req, values, ids)}
	desc := strings.HasPrefix(req.Inner.Sort, "-")
	sortBy := strings.TrimPrefix(req.Inner.Sort, "-")
	byField := sortBy != "" && sortBy != "_score"
	if !byField {
		desc = req.Inner.Sort != "_score"
		sortBy = ""
	}
	part := s.shardPart(&req, req.Query)
	part.req.Inner = &ShardInner{Groups: values, IDs: ids, Sort: sortBy}
	found, failed, err := s.innerPass(ctx, q, req, sortBy, want, part)
	if err != nil {
		return nil, err
	}
	var all []*api.InnerHit
	for i := range hits {
		ms := found[keys[i]]
		if len(ms) == 0 {
			continue
		}
		slices.SortFunc(ms, func(a, b innerMatch) int { return compareInner(a, b, byField, desc) })
		ms = ms[:min(len(ms), req.Inner.Size)]
		hits[i].Inner = make([]api.InnerHit, len(ms))
		for j, m := range ms {
			hits[i].Inner[j] = api.InnerHit{ID: m.id, Score: m.score, Cluster: m.cluster}
			all = append(all, &hits[i].Inner[j])
		}
	}
	return failed, s.loadInnerFields(ctx, all)
}

// innerFilter restricts the inner-hit pass to the documents of the
// groups of values (with FoldCopies, to ids, those left in them).
func (s *Searcher) innerFilter(req Request, values, ids []string) query.Query {
	if req.FoldCopies {
		return query.NewDocIDQuery(ids)
	}
	field := cmp.Or(req.Field, s.fields.Cluster)
	filters := make([]query.Query, len(values))
	for i, v := range values {
		t := query.NewTermQuery(v)
		t.SetField(field)
		filters[i] = t
	}
	return query.NewDisjunctionQuery(filters)
}

// innerPass collects the matches of q in the groups want, by group,
// with their values of the field sortBy ("": none); shards in another
// process take part through part, answering with their matches.
func (s *Searcher) innerPass(ctx context.Context, q query.Query, req Request, sortBy string, want map[uint64]bool, part *remotePart) (map[uint64][]innerMatch, map[string]string, error) {
	_, sharded := s.index.(bleve.IndexAlias)
	found := map[uint64][]innerMatch{}
	var mu sync.Mutex
	if part != nil {
		part.answer = func(rs []ShardResult) error {
			mu.Lock()
			defer mu.Unlock()
			for _, r := range rs {
				for _, m := range r.Inner {
					k := maphash.String(s.tables.seed, m.Group)
					if !want[k] {
						continue
					}
					im := innerMatch{id: m.ID, score: m.Score, cluster: m.Cluster}
					if m.Sort != nil {
						im.sort = []byte(*m.Sort)
					}
					found[k] = append(found[k], im)
				}
			}
			return nil
		}
	}
	_, failed, err := s.run(ctx, q, func(shard int) *collapser {
		r := req
		r.Facets = nil
		return s.newCollapser(r, shard, sharded)
	}, func(c *collapser, sctx *search.SearchContext) (search.DocumentMatchHandler, bool, error) {
		ic := &innerCollector{c: c, sortBy: sortBy, want: want, found: map[uint64][]innerMatch{}}
		h, ok, err := ic.handler(sctx)
		if err != nil {
			return nil, false, err
		}
		return func(d *search.DocumentMatch) error {
			if d == nil {
				mu.Lock()
				defer mu.Unlock()
				for k, ms := range ic.found {
					found[k] = append(found[k], ms...)
				}
			}
			return h(d)
		}, ok, nil
	}, part)
	return found, failed, err
}

// loadFields reads the hits' titles and URLs from bleve's stored fields.
func (s *Searcher) loadFields(ctx context.Context, hits []Hit) error {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	byID, err := s.stored(ctx, ids)
	for i := range hits {
		if m := byID[hits[i].ID]; m != nil {
			hits[i].Title = fieldString(m.Fields, s.fields.Title)
			hits[i].URL = fieldString(m.Fields, s.fields.URL)
		}
	}
	return err
}

// loadInnerFields is loadFields for inner hits.
func (s *Searcher) loadInnerFields(ctx context.Context, hits []*api.InnerHit) error {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	byID, err := s.stored(ctx, ids)
	for _, h := range hits {
		if m := byID[h.ID]; m != nil {
			h.Title = fieldString(m.Fields, s.fields.Title)
			h.URL = fieldString(m.Fields, s.fields.URL)
		}
	}
	return err
}

// stored reads the titles and URLs of the documents ids, in one search.
func (s *Searcher) stored(ctx context.Context, ids []string) (map[string]*search.DocumentMatch, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	breq := bleve.NewSearchRequestOptions(bleve.NewDocIDQuery(ids), len(ids), 0, false)
	breq.Fields = []string{s.fields.Title, s.fields.URL}
	bres, err := s.index.SearchInContext(ctx, breq)
	if err != nil {
		return nil, fmt.Errorf("collapse: stored fields: %w", err)
	}
	byID := make(map[string]*search.DocumentMatch, len(bres.Hits))
	for _, m := range bres.Hits {
		byID[m.ID] = m
	}
	return byID, nil
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
