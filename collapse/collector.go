package collapse

import (
	"container/heap"
	"fmt"
	"slices"

	"github.com/blevesearch/bleve/v2/search"
	index "github.com/blevesearch/bleve_index_api"
)

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
	load   bool // finish loads the page's titles and URLs
	fields Fields
	page   []Hit             // the result, made when the matches end
	groups map[uint64]*group // the clusters in heap, by hash
	heap   []*group          // worst first

	bound int
	exact bool
	// seen holds the hashes of the distinct clusters counted, up to bound.
	seen map[uint64]struct{}

	total    uint64
	maxScore float64

	// visit is Request.Visit; each: every document is a group of its own
	// (collapsing off).
	visit func(*Match) bool
	each  bool

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
	var key uint64
	var cluster string
	looked := false
	if c.visit != nil {
		id, err := c.reader.ExternalID(d.IndexInternalID)
		if err != nil {
			return err
		}
		key, cluster = c.key(d)
		looked = true
		m := Match{ID: id, Cluster: cluster, Score: d.Score}
		if !c.visit(&m) {
			return nil
		}
		d.ID, d.Score = id, m.Score
	}
	c.total++
	c.maxScore = max(c.maxScore, d.Score)
	full := len(c.heap) == c.k
	competitive := !full || d.Score >= c.heap[0].score
	if !competitive && !c.counting() {
		return nil
	}
	if !looked {
		key, cluster = c.key(d)
	}
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

// key returns the hash d is grouped by, and its cluster id.
func (c *collapser) key(d *search.DocumentMatch) (uint64, string) {
	key, cluster := c.snap.cluster(d.IndexInternalID, c.cache.seed)
	if c.each {
		key = docKey(d.IndexInternalID.Value(), c.cache.seed)
	}
	return key, cluster
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
		if !c.load {
			continue
		}
		doc, err := c.reader.Document(g.id)
		if err != nil {
			return fmt.Errorf("collapse: document %s: %w", g.id, err)
		}
		if doc == nil { // cannot happen within one snapshot; be safe
			continue
		}
		doc.VisitFields(func(f index.Field) {
			switch f.Name() {
			case c.fields.Title:
				h.Title = string(f.Value())
			case c.fields.URL:
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
