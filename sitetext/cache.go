package sitetext

import "bytes"

// Cache holds table values lately read or committed, in front of a store
// that only its owner writes: a site's template paragraphs are looked up
// on every page of the site, and a copy's paragraphs soon after its
// original wrote them (at 100,000 pages, Badger lookups were three
// quarters of the CPU time of planning pages). Values are written through at
// commit (Committed), so the cache never holds an older value than the
// store; it forgets everything when it is full or when a commit's outcome
// is unknown (Reset). A nil *Cache caches nothing. A Cache is not safe for
// concurrent use: the indexer uses it under its write lock.
type Cache struct {
	max  int
	vals map[string][]byte
}

// NewCache returns a cache of at most max values.
func NewCache(max int) *Cache {
	return &Cache{max: max, vals: make(map[string][]byte)}
}

// Reader returns base read through c. base must see every commit that c
// was told of (Committed): a transaction begun after them.
func (c *Cache) Reader(base Reader) Reader {
	if c == nil {
		return base
	}
	return cachedReader{c, base}
}

// Committed writes p's values through, once the transaction that applied
// p is committed.
func (c *Cache) Committed(p *Plan) {
	if c == nil {
		return
	}
	for _, w := range p.writes {
		if bytes.HasPrefix(w.key, []byte(ns)) { // (not the stale pages: never read by Get)
			c.put(w.key, w.value)
		}
	}
}

// Reset forgets every value: after a commit that may or may not have
// happened.
func (c *Cache) Reset() {
	if c != nil {
		clear(c.vals)
	}
}

func (c *Cache) put(k, v []byte) {
	if len(c.vals) >= c.max {
		clear(c.vals) // the template paragraphs are back after a page or two of each site
	}
	c.vals[string(k)] = v
}

type cachedReader struct {
	c    *Cache
	base Reader
}

// Get implements Reader. Only values found are kept: a paragraph not in
// the table is mostly one the page shows first, which its commit writes
// through.
func (r cachedReader) Get(key []byte) ([]byte, bool, error) {
	if v, ok := r.c.vals[string(key)]; ok {
		return v, true, nil
	}
	v, ok, err := r.base.Get(key)
	if err == nil && ok {
		r.c.put(key, v)
	}
	return v, ok, err
}
