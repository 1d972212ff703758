package collapse

import (
	"bytes"
	"cmp"
	"container/heap"
	"fmt"
	"slices"

	"github.com/blevesearch/bleve/v2/search"
	index "github.com/blevesearch/bleve_index_api"
)

// group is a group in the running top k: its best member so far.
type group struct {
	key   uint64 // the group's hash
	value string // its value; "" for a document that is a group of its own
	score float64
	id    string
	num   uint64 // the best member's document number
	pos   int    // index in collapser.heap
}

// collapser is the state of one collapsing search of one index (one
// shard of an alias). bleve calls its handler from one goroutine, so it
// needs no locks.
type collapser struct {
	shard  int // its number among an alias' shards, for keys of its own documents
	k      int
	from   int
	load   bool // one index, not a shard: finish loads the page's titles and URLs (with fold, makes the page)
	fields Fields
	field  string // the field grouped by: Fields.Cluster or Request.Field

	page []Hit             // the result, made when the matches end
	keys []uint64          // the page's group hashes
	grps map[uint64]*group // the groups in heap, by hash
	heap []*group          // worst first

	bound int
	exact bool
	// seen counts the matching documents of each distinct group counted,
	// up to bound groups.
	seen map[uint64]int

	total    uint64
	maxScore float64

	// visit is Request.Visit; each: every document is a group of its own
	// (collapsing off); fold: copies are folded before grouping (best,
	// not the heap, then holds the state).
	visit  func(*Match) bool
	each   bool
	fold   bool
	best   map[uint64]*entry // by cluster hash, with fold
	folded *foldedPage       // the page made of best, in one index

	facets []Facet
	counts []facetCounts
	values []string // the current match's facet values (Match.Values)

	cache    *tableCache
	reader   index.IndexReader
	groups   *snapshotTable // of field
	clusters *snapshotTable // of Fields.Cluster
	ftables  []*snapshotTable
	pool     *search.DocumentMatchPool

	// remote: the state was answered by a shard in another process
	// (fromShard); names, when set, records the group each counted hash
	// stands for, for a shard answering one (export).
	remote bool
	names  map[uint64]GroupRef
}

// entry is, with fold, a cluster's best matching document so far.
type entry struct {
	num     uint64
	id      string
	score   float64
	cluster string
	gkey    uint64   // its group's hash
	value   string   // its group's value
	values  []string // its facet values
}

// facetCounts are one facet's counts: documents and groups by value.
type facetCounts map[string]*facetCount

type facetCount struct {
	docs   int
	groups map[uint64]struct{}
}

func (fc facetCounts) add(v string, key uint64) {
	c := fc[v]
	if c == nil {
		c = &facetCount{groups: map[uint64]struct{}{}}
		fc[v] = c
	}
	c.docs++
	c.groups[key] = struct{}{}
}

// open reads r's tables of the cluster field and the field grouped by.
func (c *collapser) open(r index.IndexReader) error {
	var err error
	if c.clusters, err = c.cache.forSnapshot(r, c.fields.Cluster); err != nil {
		return err
	}
	c.groups = c.clusters
	if c.field != c.fields.Cluster {
		c.groups, err = c.cache.forSnapshot(r, c.field)
	}
	c.reader = r
	return err
}

func (c *collapser) handler(sctx *search.SearchContext) (search.DocumentMatchHandler, bool, error) {
	r := sctx.IndexReader
	if err := c.open(r); err != nil {
		return nil, false, err
	}
	var err error
	c.ftables = make([]*snapshotTable, len(c.facets))
	for i, f := range c.facets {
		if f.Field != "" {
			if c.ftables[i], err = c.cache.forSnapshot(r, f.Field); err != nil {
				return nil, false, err
			}
		}
	}
	c.pool = sctx.DocumentMatchPool
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

// key returns the hash document n is grouped by and its group's value.
func (c *collapser) key(n uint64) (uint64, string) {
	if !c.each {
		if h, v, ok := c.groups.value(n); ok {
			return h, v
		}
	}
	return docKey(c.shard, n, c.cache.seed), ""
}

// cluster returns the hash of document n's cluster and its id.
func (c *collapser) cluster(n uint64) (uint64, string) {
	if h, v, ok := c.clusters.value(n); ok {
		return h, v
	}
	return docKey(c.shard, n, c.cache.seed), ""
}

// visitMatch reads d's facet values and passes it to Visit: false when
// Visit leaves it out. d's ID and Score are then Visit's.
func (c *collapser) visitMatch(d *search.DocumentMatch, cluster string) (bool, error) {
	n := d.IndexInternalID.Value()
	for i, t := range c.ftables {
		c.values[i] = ""
		if t != nil {
			_, c.values[i], _ = t.value(n)
		}
	}
	if c.visit == nil {
		return true, nil
	}
	id, err := c.reader.ExternalID(d.IndexInternalID)
	if err != nil {
		return false, err
	}
	m := Match{ID: id, Cluster: cluster, Score: d.Score, Values: c.values}
	if !c.visit(&m) {
		return false, nil
	}
	d.ID, d.Score = id, m.Score
	return true, nil
}

func (c *collapser) collect(d *search.DocumentMatch) error {
	n := d.IndexInternalID.Value()
	var key, ckey uint64
	var value, cluster string
	looked := false
	if c.visit != nil || len(c.facets) > 0 || c.fold {
		key, value = c.key(n)
		ckey, cluster = c.cluster(n)
		looked = true
		if ok, err := c.visitMatch(d, cluster); !ok || err != nil {
			return err
		}
	}
	c.total++
	c.maxScore = max(c.maxScore, d.Score)
	if c.fold {
		return c.keep(d, ckey, cluster, key, value)
	}
	if len(c.facets) > 0 {
		gkey := key
		if c.each { // facets still count clusters
			gkey = ckey
		}
		for i, v := range c.values {
			c.counts[i].add(v, gkey)
		}
		if c.names != nil {
			if c.each {
				c.names[gkey] = ref(cluster, n)
			} else {
				c.names[gkey] = ref(value, n)
			}
		}
	}
	full := len(c.heap) == c.k
	competitive := !full || d.Score >= c.heap[0].score
	if !competitive && !c.counting() {
		return nil
	}
	if !looked {
		key, value = c.key(n)
	}
	if c.counting() {
		if _, ok := c.seen[key]; ok {
			c.seen[key]++
		} else if c.bound >= 0 && len(c.seen) == c.bound {
			c.exact = false
		} else {
			c.seen[key] = 1
			if c.names != nil {
				c.names[key] = ref(value, n)
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
	g := c.grps[key]
	switch {
	case g != nil:
		// A group already in the top k: d may become its best member.
		if ok, err := beats(g); !ok || err != nil {
			return err
		}
	case !full:
		g = &group{key: key, value: value}
		c.grps[key] = g
		heap.Push((*groupHeap)(c), g)
	default:
		// A new group: it replaces the worst of the top k if it beats it.
		g = c.heap[0]
		if ok, err := beats(g); !ok || err != nil {
			return err
		}
		delete(c.grps, g.key)
		g.key, g.value = key, value
		c.grps[key] = g
	}
	if err := loadID(); err != nil {
		return err
	}
	g.score, g.id, g.num = d.Score, id, n
	heap.Fix((*groupHeap)(c), g.pos)
	return nil
}

// keep makes d its cluster's entry if it beats the one there (with
// fold): the higher score, ties to the smaller id.
func (c *collapser) keep(d *search.DocumentMatch, ckey uint64, cluster string, key uint64, value string) error {
	n := d.IndexInternalID.Value()
	e := c.best[ckey]
	if e != nil {
		if d.Score < e.score {
			return nil
		}
		if d.Score == e.score {
			var err error
			if d.ID == "" {
				if d.ID, err = c.reader.ExternalID(d.IndexInternalID); err != nil {
					return err
				}
			}
			if e.id == "" {
				if e.id, err = c.reader.ExternalID(index.NewIndexInternalID(nil, e.num)); err != nil {
					return err
				}
			}
			if d.ID >= e.id {
				return nil
			}
		}
	} else {
		e = &entry{}
		c.best[ckey] = e
	}
	*e = entry{num: n, id: d.ID, score: d.Score, cluster: cluster, gkey: key, value: value, values: append(e.values[:0], c.values...)}
	return nil
}

// finish makes the page of hits from the top k groups, with their
// titles and URLs from bleve's stored fields, read from the snapshot that
// was searched, as a plain search does. With fold, it groups the entries
// of one index, reading the ids it needs (of the page, and where scores
// tie); of a shard, it reads every entry's id, for the groups made once
// every shard is done.
func (c *collapser) finish() error {
	if c.fold {
		var err error
		id := func(e *entry) string {
			if e.id == "" && err == nil {
				e.id, err = c.reader.ExternalID(index.NewIndexInternalID(nil, e.num))
			}
			return e.id
		}
		if c.load {
			c.folded = groupFolded([]*collapser{c}, c.facets, c.from, c.k-c.from, id)
			return err
		}
		for _, e := range c.best {
			id(e)
		}
		return err
	}
	top := c.ranked()
	top = top[min(c.from, len(top)):]
	c.page = make([]Hit, len(top))
	c.keys = make([]uint64, len(top))
	for i, g := range top {
		h := &c.page[i]
		_, cluster := c.cluster(g.num)
		h.ID, h.Score, h.Cluster, h.Members, h.Size = g.id, g.score, cluster, []Member{}, c.seen[g.key]
		if c.field != c.fields.Cluster {
			h.Group = g.value
		}
		c.keys[i] = g.key
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

// ranked returns the collected groups best first.
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

// worse orders groups: lower score, then greater id, is worse.
func worse(a, b *group) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return a.id > b.id
}

// groupHeap is the collapser's heap of groups, worst on top.
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

// innerCollector collects, in a second pass restricted to the page's
// groups, every match of each group with its order key.
type innerCollector struct {
	c      *collapser // for key, cluster and visitMatch
	sortBy string     // a field, or "" for the score
	want   map[uint64]bool
	found  map[uint64][]innerMatch
}

type innerMatch struct {
	id      string
	score   float64
	cluster string
	sort    []byte // the sort field's value, nil without one
}

func (ic *innerCollector) handler(sctx *search.SearchContext) (search.DocumentMatchHandler, bool, error) {
	c := ic.c
	r := sctx.IndexReader
	if err := c.open(r); err != nil {
		return nil, false, err
	}
	var sortTable *snapshotTable
	if ic.sortBy != "" {
		var err error
		if sortTable, err = c.cache.forSnapshot(r, ic.sortBy); err != nil {
			return nil, false, err
		}
	}
	pool := sctx.DocumentMatchPool
	return func(d *search.DocumentMatch) error {
		if d == nil {
			return nil
		}
		defer pool.Put(d)
		n := d.IndexInternalID.Value()
		key, _ := c.key(n)
		if !ic.want[key] {
			return nil
		}
		_, cluster := c.cluster(n)
		if ok, err := c.visitMatch(d, cluster); !ok || err != nil {
			return err
		}
		if d.ID == "" {
			var err error
			if d.ID, err = r.ExternalID(d.IndexInternalID); err != nil {
				return err
			}
		}
		m := innerMatch{id: d.ID, score: d.Score, cluster: cluster}
		if sortTable != nil {
			if _, v, ok := sortTable.value(n); ok {
				m.sort = []byte(v)
			}
		}
		ic.found[key] = append(ic.found[key], m)
		return nil
	}, false, nil
}

// compareInner orders inner hits by score (descending unless asc) or by
// the sort field (ascending unless desc, a document without it last),
// ties by id.
func compareInner(a, b innerMatch, byField, desc bool) int {
	var r int
	switch {
	case !byField:
		r = cmp.Compare(a.score, b.score)
	case a.sort == nil || b.sort == nil:
		if a.sort == nil && b.sort != nil {
			return 1
		}
		if b.sort == nil && a.sort != nil {
			return -1
		}
	default:
		r = bytes.Compare(a.sort, b.sort)
	}
	if desc {
		r = -r
	}
	if r != 0 {
		return r
	}
	return cmp.Compare(a.id, b.id)
}
