package indexer

import (
	"container/heap"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"

	"github.com/bleve-dedup/bleve-dedup/boolquery"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
)

// Defaults and limits of SearchCollapsed.
const (
	// DefaultSize is the page size used when CollapseRequest.Size is 0.
	DefaultSize = 10
	// MaxWindow bounds From+Size: deeper pages cost memory and time
	// linear in the window, like bleve's own from+size paging.
	MaxWindow = 10000
	// DefaultClusterBound is how many distinct matching clusters are
	// counted exactly when CollapseRequest.ClusterBound is 0. Counting
	// puts the cluster of every match into a hash set until the bound is
	// passed; on the 100,000-page benchmark (BenchmarkCollapse100k) the
	// median latency was 1.04 times plain search's with a bound of 1,000,
	// 1.17 with 10,000 and 1.40 with no bound.
	DefaultClusterBound = 1000
	// DefaultMaxMembers is how many folded members a hit lists when
	// CollapseRequest.MaxMembers is 0.
	DefaultMaxMembers = 50
)

// ErrInvalidRequest is returned for a CollapseRequest that cannot run
// (no query, negative or too deep paging).
var ErrInvalidRequest = errors.New("indexer: invalid search request")

// CollapseRequest is a search whose hits are folded by duplicate cluster.
type CollapseRequest struct {
	Query query.Query
	// Size hits from offset From; 0 means DefaultSize. From+Size is at
	// most MaxWindow. With Collapse on both count clusters, not documents.
	Size, From int
	// Collapse folds each cluster into one hit. Off, every matching
	// document is a hit of its own (Folded 0), in the same order.
	Collapse bool
	// ClusterBound caps the exact count of matching clusters: past it
	// CollapseResult.Clusters stops at the bound and ClustersExact is
	// false. 0 means DefaultClusterBound; negative means no cap (every
	// matching document's cluster is read).
	ClusterBound int
	// MaxMembers caps Hit.Members (Hit.Folded still counts them all); 0
	// means DefaultMaxMembers, negative lists none.
	MaxMembers int
}

// Hit is one search result: with collapsing, the best-scoring indexed
// member of a cluster standing for the whole cluster. The JSON form is
// what the CLI and the server print.
type Hit struct {
	ID      string  `json:"id"`
	Score   float64 `json:"score"`
	Cluster string  `json:"cluster"`
	// Folded is the number of other members of the cluster in the dedup
	// store, suppressed ones included, whether or not they match the
	// query; 0 when collapsing is off.
	Folded int `json:"folded"`
	// Members are up to MaxMembers of the folded documents, in id order;
	// never nil.
	Members []Member `json:"members"`
	Title   string   `json:"title"`
	URL     string   `json:"url"`
}

// Member is a folded document of a Hit's cluster.
type Member struct {
	ID      string `json:"id"`
	URL     string `json:"url"`
	Title   string `json:"title"`
	Indexed bool   `json:"indexed"` // whether it is in bleve (false: suppressed)
}

// CollapseResult is a page of hits.
type CollapseResult struct {
	Hits []Hit
	// Total is the number of matching documents in bleve.
	Total uint64
	// Clusters is the number of distinct matching clusters, exact when
	// ClustersExact, else a lower bound (the request's ClusterBound).
	// With Collapse off it equals Total and is exact only if every
	// indexed document is in a cluster of its own, so it is left 0.
	Clusters      int
	ClustersExact bool
	MaxScore      float64
	Took          time.Duration
}

// SearchCollapsed runs req and returns one hit per duplicate cluster.
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
func (ix *Index) SearchCollapsed(ctx context.Context, req CollapseRequest) (*CollapseResult, error) {
	if req.Query == nil {
		return nil, fmt.Errorf("%w: no query", ErrInvalidRequest)
	}
	if req.Size == 0 {
		req.Size = DefaultSize
	}
	if req.Size < 0 || req.From < 0 || req.From+req.Size > MaxWindow {
		return nil, fmt.Errorf("%w: from %d size %d (want from, size >= 0 and from+size <= %d)",
			ErrInvalidRequest, req.From, req.Size, MaxWindow)
	}
	if req.ClusterBound == 0 {
		req.ClusterBound = DefaultClusterBound
	}
	if req.MaxMembers == 0 {
		req.MaxMembers = DefaultMaxMembers
	}
	start := time.Now()
	var res *CollapseResult
	var err error
	if req.Collapse {
		res, err = ix.collapsed(ctx, req)
	} else {
		res, err = ix.plain(ctx, req)
	}
	if err != nil {
		return nil, err
	}
	res.Took = time.Since(start)
	return res, nil
}

// plain is SearchCollapsed with collapsing off: bleve's own collector,
// with the id as tie-breaker so that the order is the collapsed one's.
func (ix *Index) plain(ctx context.Context, req CollapseRequest) (*CollapseResult, error) {
	breq := bleve.NewSearchRequestOptions(req.Query, req.Size, req.From, false)
	breq.SortBy([]string{"-_score", "_id"})
	breq.Fields = []string{FieldTitle, FieldURL, FieldCluster}
	bres, err := ix.bleve.SearchInContext(ctx, breq)
	if err != nil {
		return nil, fmt.Errorf("indexer: search: %w", err)
	}
	res := &CollapseResult{Total: bres.Total, MaxScore: bres.MaxScore, Hits: make([]Hit, 0, len(bres.Hits))}
	for _, h := range bres.Hits {
		res.Hits = append(res.Hits, Hit{
			ID: h.ID, Score: h.Score, Members: []Member{},
			Cluster: fieldString(h.Fields, FieldCluster),
			Title:   fieldString(h.Fields, FieldTitle),
			URL:     fieldString(h.Fields, FieldURL),
		})
	}
	return res, nil
}

func fieldString(f map[string]any, name string) string {
	s, _ := f[name].(string)
	return s
}

func (ix *Index) collapsed(ctx context.Context, req CollapseRequest) (*CollapseResult, error) {
	c := &collapser{k: req.From + req.Size, from: req.From, bound: req.ClusterBound, exact: true,
		groups: map[uint64]*group{}, seen: map[uint64]struct{}{}, cache: ix.clusters}
	ctx = context.WithValue(ctx, search.MakeDocumentMatchHandlerKey, search.MakeDocumentMatchHandler(c.handler))
	// The hook replaces bleve's top-n store, so bleve returns no hits of
	// its own: size 0 keeps it from preallocating for them.
	breq := bleve.NewSearchRequestOptions(req.Query, 0, 0, false)
	if _, err := ix.bleve.SearchInContext(ctx, breq); err != nil {
		return nil, fmt.Errorf("indexer: search: %w", err)
	}
	res := &CollapseResult{Total: c.total, MaxScore: c.maxScore,
		Clusters: len(c.seen), ClustersExact: c.exact, Hits: c.page}
	for i := range res.Hits {
		if err := ix.fold(&res.Hits[i], req.MaxMembers); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// fold fills h's folded count and members from the dedup store.
func (ix *Index) fold(h *Hit, max int) error {
	if h.Cluster == "" {
		return nil
	}
	cl, err := ix.filter.Cluster(h.Cluster)
	if errors.Is(err, dedupfilter.ErrNotFound) {
		return nil // bleve documents written around the filter
	}
	if err != nil {
		return fmt.Errorf("indexer: cluster of %s: %w", h.ID, err)
	}
	for _, id := range cl.Members {
		if id == h.ID {
			continue
		}
		h.Folded++
		if len(h.Members) >= max {
			continue
		}
		m := Member{ID: id}
		if e, err := ix.filter.Doc(id); err == nil {
			m.URL, m.Title, m.Indexed = e.URL, e.Title, e.Indexed
		} else if !errors.Is(err, dedupfilter.ErrNotFound) {
			return fmt.Errorf("indexer: member %s: %w", id, err)
		}
		h.Members = append(h.Members, m)
	}
	return nil
}

// group is a cluster in the running top k: its best member so far.
type group struct {
	key     uint64 // the cluster's hash
	cluster string // its id; "" for a document without one
	score   float64
	id      string
	pos     int // index in collapser.heap
}

// collapser is the state of one collapsing search. bleve calls its
// handler from one goroutine, so it needs no locks.
type collapser struct {
	k      int
	from   int
	page   []Hit             // the result, made when the matches end
	groups map[uint64]*group // the clusters in heap, by hash
	heap   []*group          // worst first

	bound int
	exact bool
	// seen holds the hashes of the distinct clusters counted, up to bound.
	seen map[uint64]struct{}

	total    uint64
	maxScore float64

	cache  *clusterCache
	reader index.IndexReader
	snap   *snapshotClusters
	pool   *search.DocumentMatchPool
}

func (c *collapser) handler(sctx *search.SearchContext) (search.DocumentMatchHandler, bool, error) {
	snap, err := c.cache.forSnapshot(sctx.IndexReader)
	if err != nil {
		return nil, false, err
	}
	c.reader, c.snap, c.pool = sctx.IndexReader, snap, sctx.DocumentMatchPool
	return func(d *search.DocumentMatch) error {
		if d == nil { // end of the matches, with the reader still open
			return c.finish()
		}
		err := c.collect(d)
		c.pool.Put(d)
		return err
	}, false, nil
}

func (c *collapser) counting() bool { return c.exact && (c.bound < 0 || len(c.seen) <= c.bound) }

func (c *collapser) collect(d *search.DocumentMatch) error {
	c.total++
	c.maxScore = max(c.maxScore, d.Score)
	full := len(c.heap) == c.k
	competitive := !full || d.Score >= c.heap[0].score
	if !competitive && !c.counting() {
		return nil
	}
	key, cluster := c.snap.cluster(d.IndexInternalID, c.cache.seed)
	if c.counting() {
		if _, ok := c.seen[key]; !ok {
			if c.bound >= 0 && len(c.seen) == c.bound {
				c.exact = false
			} else {
				c.seen[key] = struct{}{}
			}
		}
	}
	if !competitive {
		return nil
	}
	id := d.ID // d's external id, loaded when needed
	loadID := func() (err error) {
		if id == "" {
			id, err = c.reader.ExternalID(d.IndexInternalID)
		}
		return err
	}
	beats := func(g *group) (bool, error) {
		if d.Score != g.score {
			return d.Score > g.score, nil
		}
		if err := loadID(); err != nil {
			return false, err
		}
		return id < g.id, nil
	}
	g := c.groups[key]
	switch {
	case g != nil:
		// A cluster already in the top k: d may become its best member.
		if ok, err := beats(g); !ok || err != nil {
			return err
		}
	case !full:
		g = &group{key: key, cluster: cluster}
		c.groups[key] = g
		heap.Push((*groupHeap)(c), g)
	default:
		// A new cluster: it replaces the worst of the top k if it beats it.
		g = c.heap[0]
		if ok, err := beats(g); !ok || err != nil {
			return err
		}
		delete(c.groups, g.key)
		g.key, g.cluster = key, cluster
		c.groups[key] = g
	}
	if err := loadID(); err != nil {
		return err
	}
	g.score, g.id = d.Score, id
	heap.Fix((*groupHeap)(c), g.pos)
	return nil
}

// finish makes the page of hits from the top k clusters, with their
// titles and URLs from bleve's stored fields, read from the snapshot that
// was searched, as a plain search does.
func (c *collapser) finish() error {
	top := c.ranked()
	top = top[min(c.from, len(top)):]
	c.page = make([]Hit, len(top))
	for i, g := range top {
		h := &c.page[i]
		h.ID, h.Score, h.Cluster, h.Members = g.id, g.score, g.cluster, []Member{}
		doc, err := c.reader.Document(g.id)
		if err != nil {
			return fmt.Errorf("indexer: document %s: %w", g.id, err)
		}
		if doc == nil { // cannot happen within one snapshot; be safe
			continue
		}
		doc.VisitFields(func(f index.Field) {
			switch f.Name() {
			case FieldTitle:
				h.Title = string(f.Value())
			case FieldURL:
				h.URL = string(f.Value())
			}
		})
	}
	return nil
}

// ranked returns the collected clusters best first.
func (c *collapser) ranked() []*group {
	gs := slices.Clone(c.heap)
	slices.SortFunc(gs, func(a, b *group) int {
		if worse(a, b) {
			return 1
		}
		if worse(b, a) {
			return -1
		}
		return 0
	})
	return gs
}

// worse orders clusters: lower score, then greater id, is worse.
func worse(a, b *group) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return a.id > b.id
}

// groupHeap is the collapser's heap of clusters, worst on top.
type groupHeap collapser

func (h *groupHeap) Len() int           { return len(h.heap) }
func (h *groupHeap) Less(i, j int) bool { return worse(h.heap[i], h.heap[j]) }
func (h *groupHeap) Swap(i, j int) {
	h.heap[i], h.heap[j] = h.heap[j], h.heap[i]
	h.heap[i].pos, h.heap[j].pos = i, j
}
func (h *groupHeap) Push(x any) {
	g := x.(*group)
	g.pos = len(h.heap)
	h.heap = append(h.heap, g)
}
func (h *groupHeap) Pop() any {
	g := h.heap[len(h.heap)-1]
	h.heap = h.heap[:len(h.heap)-1]
	return g
}

// Syntax is a query language accepted by ParseQuery.
type Syntax int

const (
	// Boolean is package boolquery's syntax (seed 001): AND/*, OR/+,
	// NOT/-, parentheses, phrases, field:term; bare terms search the
	// title and text fields.
	Boolean Syntax = iota
	// QueryString is bleve's query-string syntax (+must -not field:x).
	QueryString
)

var syntaxNames = [...]string{Boolean: "boolean", QueryString: "querystring"}

func (s Syntax) String() string {
	if s < 0 || int(s) >= len(syntaxNames) {
		return fmt.Sprintf("Syntax(%d)", int(s))
	}
	return syntaxNames[s]
}

// ParseSyntax parses "boolean" or "querystring".
func ParseSyntax(s string) (Syntax, error) {
	if i := slices.Index(syntaxNames[:], s); i >= 0 {
		return Syntax(i), nil
	}
	return 0, fmt.Errorf("%w: unknown syntax %q (want boolean or querystring)", ErrInvalidRequest, s)
}

// ParseQuery compiles s written in syntax syn. Boolean syntax errors are
// *boolquery.SyntaxError (with the byte position); both kinds wrap
// ErrInvalidRequest.
func ParseQuery(s string, syn Syntax) (query.Query, error) {
	var q query.Query
	var err error
	switch syn {
	case Boolean:
		q, err = boolquery.Query(s, boolquery.Options{Fields: []string{FieldTitle, FieldText}})
	case QueryString:
		qs := bleve.NewQueryStringQuery(s)
		if _, err = qs.Parse(); err == nil {
			q = qs
		}
	default:
		err = fmt.Errorf("unknown syntax %v", syn)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	return q, nil
}

// The cluster of a match comes from a per-segment table instead of bleve's
// doc values: reading the doc value of a scattered match decompresses a
// doc-value chunk per match (about 5 µs, 8 ms for a query matching 750
// of 100,000 pages, where the plain search took 1 ms). The table is read
// once per segment, in document order, and kept while the segment is in
// the index: segments are immutable, so it never goes stale (the idea of
// Lucene's global ordinals).

// clusterCache holds the tables of an Index's segments.
type clusterCache struct {
	seed maphash.Seed // for cluster hashes, fixed per cache
	mu   sync.Mutex
	segs map[segment.Segment]*segClusters
}

// segClusters is the cluster table of one segment.
type segClusters struct {
	ords   []uint32 // local document number → 1 + index in keys; 0: none
	keys   []string // cluster ids
	hashes []uint64 // their hashes
}

// snapshotClusters is the cluster tables of one index snapshot.
type snapshotClusters struct {
	offsets []uint64 // first global document number of each segment
	segs    []*segClusters
	last    int // segment of the previous lookup: matches come in order
}

func newClusterCache() *clusterCache {
	return &clusterCache{seed: maphash.MakeSeed(), segs: map[segment.Segment]*segClusters{}}
}

// forSnapshot returns the tables of r's segments, building the missing
// ones and dropping those of segments merged away since the last call.
func (cc *clusterCache) forSnapshot(r index.IndexReader) (*snapshotClusters, error) {
	is, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return nil, fmt.Errorf("indexer: collapsing needs a scorch index, not %T", r)
	}
	segs := is.Segments()
	snap := &snapshotClusters{offsets: make([]uint64, len(segs)), segs: make([]*segClusters, len(segs))}
	live := make(map[segment.Segment]bool, len(segs))
	var dv index.DocValueReader
	var next uint64
	cc.mu.Lock()
	defer cc.mu.Unlock()
	for i, ss := range segs {
		seg := ss.Segment()
		live[seg] = true
		snap.offsets[i] = next
		sc := cc.segs[seg]
		if sc == nil {
			if dv == nil {
				var err error
				if dv, err = is.DocValueReader([]string{FieldCluster}); err != nil {
					return nil, fmt.Errorf("indexer: cluster doc values: %w", err)
				}
			}
			var err error
			if sc, err = cc.build(dv, next, seg.Count()); err != nil {
				return nil, err
			}
			cc.segs[seg] = sc
		}
		snap.segs[i] = sc
		next += seg.Count()
	}
	for seg := range cc.segs {
		if !live[seg] {
			delete(cc.segs, seg)
		}
	}
	return snap, nil
}

// build reads the clusters of the n documents from global number first.
func (cc *clusterCache) build(dv index.DocValueReader, first, n uint64) (*segClusters, error) {
	sc := &segClusters{ords: make([]uint32, n)}
	ord := map[string]uint32{}
	var id index.IndexInternalID
	var term []byte
	for j := range n {
		term = term[:0]
		found := false
		id = index.NewIndexInternalID(id, first+j)
		err := dv.VisitDocValues(id, func(field string, t []byte) {
			if field == FieldCluster && !found {
				term, found = append(term, t...), true
			}
		})
		if err != nil {
			return nil, fmt.Errorf("indexer: cluster doc values: %w", err)
		}
		if !found {
			continue
		}
		o, ok := ord[string(term)]
		if !ok {
			k := string(term)
			sc.keys = append(sc.keys, k)
			sc.hashes = append(sc.hashes, maphash.String(cc.seed, k))
			o = uint32(len(sc.keys))
			ord[k] = o
		}
		sc.ords[j] = o
	}
	return sc, nil
}

// cluster returns the hash and id of the cluster of the document with
// internal id; a document without a cluster is one of its own, with a
// hash of its number and no id. Two clusters whose 64-bit hashes collide
// fold together: odds about n²/2⁶⁵ for n clusters, 3e-12 at 10,000.
func (sn *snapshotClusters) cluster(id index.IndexInternalID, seed maphash.Seed) (uint64, string) {
	n := id.Value()
	i := sn.last
	if n < sn.offsets[i] || (i+1 < len(sn.offsets) && n >= sn.offsets[i+1]) {
		i = sort.Search(len(sn.offsets), func(x int) bool { return sn.offsets[x] > n }) - 1
		sn.last = i
	}
	sc := sn.segs[i]
	if o := sc.ords[n-sn.offsets[i]]; o > 0 {
		return sc.hashes[o-1], sc.keys[o-1]
	}
	var b [9]byte // a prefix no cluster id's hash input has
	binary.BigEndian.PutUint64(b[1:], n)
	return maphash.Bytes(seed, b[:]), ""
}
