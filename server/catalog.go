package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
)

// The catalog: what facets, the overview and sorting by date know of
// every document (its site, language and time) and of every cluster (its
// size), none of which the search index holds. It is read from the
// filter's store in one walk (every cluster, every document's metadata
// and the start of its text), kept in memory (about 100 bytes a
// document), and read again once the index has changed: after an ingest
// has committed pages, at most every catalogRefresh. Documents added
// since the last walk are read one at a time when a search meets them.

// catalogRefresh is the least time between two walks of the store.
const catalogRefresh = 5 * time.Second

// langSample is how much of a text its language is told from, in bytes.
const langSample = 4 << 10

// docInfo is what the catalog knows of a document.
type docInfo struct {
	site    string // the URL's host, "" without a URL
	lang    string // see language
	time    time.Time
	indexed bool
}

// catalog is one walk of the store.
type catalog struct {
	docs  map[string]docInfo
	sizes map[string]int // cluster id → members
	made  time.Time
	gen   uint64 // the server's change count when the walk began
	stats overview
}

// overview is the body of /api/overview: the index at a glance.
type overview struct {
	Documents int `json:"documents"` // in the store, suppressed ones included
	Indexed   int `json:"indexed"`   // searchable (in bleve)
	// Clusters counts every cluster, those of one document too;
	// Duplicates those of two or more.
	Clusters   int `json:"clusters"`
	Duplicates int `json:"duplicate_clusters"`
	// Suppressed and Marked count the copies that are not their cluster's
	// representative: left out of the search index, or kept in it.
	Suppressed int `json:"suppressed"`
	Marked     int `json:"marked"`
	Sites      int `json:"sites"`
	// Policy is the filter's policy (suppress, mark, replace).
	Policy  string           `json:"policy"`
	Largest []clusterSummary `json:"largest"`
	// LastUpdate is the newest document's time (the time it was indexed
	// unless the indexer was given the page's own), or the end of the
	// latest ingest into this server if later.
	LastUpdate time.Time    `json:"last_update"`
	Languages  []facetValue `json:"languages"`
	TopSites   []facetValue `json:"top_sites"`
	Examples   []syntaxHelp `json:"examples"`
	// Measure is what the filter decides duplicates by; CatalogAge how
	// old these counts are, in seconds.
	Measure    string  `json:"measure"`
	CatalogAge float64 `json:"catalog_age_seconds"`
}

// largestShown is how many of the largest clusters the overview lists.
const largestShown = 10

// walkCatalog reads the store.
func (s *Server) walkCatalog(ctx context.Context, gen uint64) (*catalog, error) {
	f := s.ix.Filter()
	c := &catalog{docs: map[string]docInfo{}, sizes: map[string]int{}, made: time.Now(), gen: gen}
	sites := map[string]int{}
	langs := map[string]int{}
	largest := []clusterSummary{} // [] rather than null without duplicates: the page lists it
	var titles []string           // of searchable documents, for the examples
	err := f.Clusters(func(cl dedupfilter.Cluster) error {
		c.sizes[cl.ID] = len(cl.Members)
		c.stats.Clusters++
		if len(cl.Members) > 1 {
			c.stats.Duplicates++
			largest = append(largest, clusterSummary{ID: cl.ID, Representative: cl.Representative, Size: len(cl.Members)})
		}
		for _, id := range cl.Members {
			d, title, err := s.readTitledInfo(id)
			if errors.Is(err, dedupfilter.ErrNotFound) {
				continue // removed since the walk began
			}
			if err != nil {
				return err
			}
			c.docs[id] = d
			if d.indexed && title != "" && len(titles) < exampleTitles {
				titles = append(titles, title)
			}
			c.stats.Documents++
			if d.indexed {
				c.stats.Indexed++
			}
			if id != cl.Representative {
				if d.indexed {
					c.stats.Marked++
				} else {
					c.stats.Suppressed++
				}
			}
			sites[d.site]++
			langs[d.lang]++
			if d.time.After(c.stats.LastUpdate) {
				c.stats.LastUpdate = d.time
			}
		}
		return ctx.Err()
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(largest, func(a, b clusterSummary) int { return cmp.Compare(b.Size, a.Size) })
	c.stats.Largest = largest[:min(len(largest), largestShown)]
	var largestTitles []string
	for i := range c.stats.Largest {
		l := &c.stats.Largest[i]
		if e, err := f.Meta(l.Representative); err == nil {
			l.Title, l.URL = e.Title, e.URL
		}
		if l.Title == "" {
			l.CopyTitle = copyTitle(f, l.ID)
		} else {
			largestTitles = append(largestTitles, l.Title)
		}
	}
	// The largest clusters' titles first: what the index has most of.
	c.stats.Examples = s.indexExamples(ctx, append(largestTitles, titles...))
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	delete(sites, "")
	c.stats.Sites = len(sites)
	c.stats.TopSites = topValues(sites, 10)
	c.stats.Languages = topValues(langs, 10)
	c.stats.Policy = f.Options().Policy.String()
	c.stats.Measure = f.Options().Measure.String()
	return c, nil
}

// copyTitle is the title of the first member of cluster that has one:
// what names a cluster whose representative has none.
func copyTitle(f *dedupfilter.Filter, cluster string) string {
	cl, err := f.Cluster(cluster)
	if err != nil {
		return ""
	}
	for _, id := range cl.Members {
		if e, err := f.Meta(id); err == nil && e.Title != "" {
			return e.Title
		}
	}
	return ""
}

// topValues returns the n values of counts with the largest counts.
func topValues(counts map[string]int, n int) []facetValue {
	out := make([]facetValue, 0, len(counts))
	for v, k := range counts {
		out = append(out, facetValue{Value: v, Documents: k})
	}
	slices.SortFunc(out, func(a, b facetValue) int {
		if a.Documents != b.Documents {
			return cmp.Compare(b.Documents, a.Documents)
		}
		return strings.Compare(a.Value, b.Value)
	})
	return out[:min(len(out), n)]
}

// readInfo reads a document's catalog entry from the store.
func (s *Server) readInfo(id string) (docInfo, error) {
	d, _, err := s.readTitledInfo(id)
	return d, err
}

// readTitledInfo is readInfo with the document's title, which the
// catalog does not keep (the walk samples a few for the examples).
func (s *Server) readTitledInfo(id string) (docInfo, string, error) {
	e, err := s.ix.Doc(id)
	if err != nil {
		return docInfo{}, "", err
	}
	d := docInfo{site: site(e.URL), time: e.Time, indexed: e.Indexed}
	text, _ := payloadText(e.Payload, langSample) // a payload without text has no language
	d.lang = language(e.Title + "\n" + text)
	return d, e.Title, nil
}

// site returns the host of u, lower case, without "www."; "" when u has
// none.
func site(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Hostname() == "" {
		return ""
	}
	return strings.TrimPrefix(strings.ToLower(p.Hostname()), "www.")
}

// language tells a text's language by its script: "zh" when Han
// characters are at least a fifth of its letters (Chinese pages carry
// Latin names and URLs), "ja" with kana, "ko" with Hangul, "en" for
// Latin text where English's commonest words are at least a twentieth of
// the words, "other" for the rest, "" without letters. Enough to split a
// crawl of English and Chinese pages; not a language identifier.
func language(text string) string {
	var han, kana, hangul, latin, letters int
	for _, r := range text {
		switch {
		case unicode.Is(unicode.Han, r):
			han++
		case unicode.In(r, unicode.Hiragana, unicode.Katakana):
			kana++
		case unicode.Is(unicode.Hangul, r):
			hangul++
		case unicode.Is(unicode.Latin, r):
			latin++
		case !unicode.IsLetter(r):
			continue
		}
		letters++
	}
	switch {
	case letters == 0:
		return ""
	case kana*10 >= letters:
		return "ja"
	case hangul*5 >= letters:
		return "ko"
	case han*5 >= letters:
		return "zh"
	case latin*2 >= letters && englishShare(text) >= 0.05:
		return "en"
	}
	return "other"
}

// englishShare is the share of text's words that are among English's
// commonest.
func englishShare(text string) float64 {
	words, common := 0, 0
	for w := range strings.FieldsFuncSeq(text, func(r rune) bool { return !unicode.IsLetter(r) }) {
		words++
		switch strings.ToLower(w) {
		case "the", "of", "and", "to", "a", "in", "is", "that", "for", "it", "was", "on", "with", "as", "are", "by":
			common++
		}
	}
	if words == 0 {
		return 0
	}
	return float64(common) / float64(words)
}

// errClosed is returned by catalog once Close has stopped the walks, when
// none has ended.
var errClosed = errors.New("server: closed: no catalog of the store")

// catalogs holds the current catalog and makes the next one.
type catalogs struct {
	mu  sync.Mutex
	cur *catalog
	err error // the last walk's, when it failed
	// walking is closed when the walk running ends; nil when none runs.
	walking chan struct{}
	// stop ends the walk running, and no other begins, once Close cancels
	// it; walks counts the walks running.
	stop   context.Context
	cancel context.CancelFunc
	walks  sync.WaitGroup
	// extra holds the documents and clusters met since the current
	// catalog was made.
	extraMu sync.Mutex
	extra   map[string]docInfo
	sizes   map[string]int
}

// catalog returns the current catalog of the store. The first call, and
// the first after the index changed (ingest bumps s.gen) once the
// current one is catalogRefresh old, start a walk in the background; the
// current catalog serves meanwhile. Before the first walk ends, with
// wait the call waits for it, and without it returns an empty catalog,
// which info and clusterSize fill from the store on demand: a
// search page needs what the catalog knows of its ten hits, which reads
// faster than a walk (minutes for a million documents).
func (s *Server) catalog(ctx context.Context, wait bool) (*catalog, error) {
	cs := &s.cat
	gen := s.gen.Load()
	cs.mu.Lock()
	cur, walking := cs.cur, cs.walking
	stale := cur == nil || (cur.gen != gen && time.Since(cur.made) >= catalogRefresh)
	closed := cs.stop.Err() != nil
	if stale && walking == nil && !closed {
		walking = make(chan struct{})
		cs.walking = walking
		cs.walks.Add(1)
		go s.walk(gen, walking)
	}
	cs.mu.Unlock()
	switch {
	case cur != nil:
		return cur, nil
	case !wait:
		return &catalog{}, nil
	case walking == nil:
		return nil, errClosed
	}
	select {
	case <-walking:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.cur == nil {
		return nil, cs.err
	}
	return cs.cur, nil
}

// walk makes a catalog and makes it current, then closes done.
func (s *Server) walk(gen uint64, done chan struct{}) {
	cs := &s.cat
	defer cs.walks.Done()
	c, err := s.walkCatalog(cs.stop, gen)
	cs.mu.Lock()
	defer cs.mu.Unlock()
	defer close(done)
	cs.walking = nil
	if err != nil {
		// The current catalog, if any, serves until a walk succeeds.
		cs.err = fmt.Errorf("server: catalog: %w", err)
		if s.opts.Logger != nil && cs.stop.Err() == nil {
			s.opts.Logger.Error("catalog walk", "error", err.Error())
		}
		return
	}
	cs.cur, cs.err = c, nil
	cs.extraMu.Lock()
	cs.extra, cs.sizes = nil, nil
	cs.extraMu.Unlock()
}

// info returns what the catalog knows of id, reading the store for a
// document added since the walk.
func (s *Server) info(c *catalog, id string) docInfo {
	if d, ok := c.docs[id]; ok {
		return d
	}
	return since(&s.cat.extraMu, &s.cat.extra, id, func() docInfo {
		d, _ := s.readInfo(id) // a document gone since the search: no facets
		return d
	})
}

// clusterSize returns the members of cluster, reading the store for a
// cluster made since the walk; 1 for a document without one.
func (s *Server) clusterSize(c *catalog, cluster string) int {
	if cluster == "" {
		return 1
	}
	if n, ok := c.sizes[cluster]; ok {
		return n
	}
	return since(&s.cat.extraMu, &s.cat.sizes, cluster, func() int {
		if cl, err := s.ix.Filter().Cluster(cluster); err == nil {
			return len(cl.Members)
		}
		return 1
	})
}

// since returns (*m)[key], read and kept there first when absent.
func since[T any](mu *sync.Mutex, m *map[string]T, key string, read func() T) T {
	mu.Lock()
	v, ok := (*m)[key]
	mu.Unlock()
	if ok {
		return v
	}
	v = read()
	mu.Lock()
	if *m == nil {
		*m = map[string]T{}
	}
	(*m)[key] = v
	mu.Unlock()
	return v
}

// Close stops the walk of the store the Server may be running in the
// background to count facets (started by a request) and waits for it to
// end; the Server answers on from what it has read. Serve closes the
// Server as it returns; a caller that runs the Server as an http.Handler
// of its own calls Close before closing the index.
func (s *Server) Close() {
	cs := &s.cat
	cs.cancel()
	cs.mu.Lock() // a walk begun before the cancel has been counted
	cs.mu.Unlock()
	cs.walks.Wait()
}
