package server

import (
	"cmp"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/bleve-dedup/bleve-dedup/collapse"
)

// Facets count the matches of a search by site, language, cluster size
// and date (month), each value twice: the distinct clusters among the
// matching documents that have it (what the collapsed view shows) and
// the matching documents. A search may be narrowed to values of these
// facets; the counts are those of the narrowed search (drill-down). The
// values come from the catalog; the counting happens in the collector's
// pass over the matches (collapse.Request.Visit), one map update a match.

// Facet names, as URL parameters and in the response.
const (
	facetSite = "site"
	facetLang = "lang"
	facetSize = "cluster_size"
	facetDate = "date"
)

var facetNames = []string{facetSite, facetLang, facetSize, facetDate}

// facetValues is how many values of each facet a response lists, the
// most clusters first; facetValuesExpanded how many for a facet named in
// the expand parameter, which the page asks for when its reader opens a
// facet's list: bounded, as a crawl may span thousands of sites.
const (
	facetValues         = 20
	facetValuesExpanded = 500
)

// facetValue is a facet's value with its counts.
type facetValue struct {
	Value     string `json:"value"`
	Clusters  int    `json:"clusters,omitempty"` // absent in the overview's lists
	Documents int    `json:"documents"`
}

// facet is a facet in a search response: its values (at most
// facetValues) and how many it has in all.
type facet struct {
	Values []facetValue `json:"values"`
	Total  int          `json:"total"`
}

// sizeBucket is the cluster-size facet's value for a cluster of n.
func sizeBucket(n int) string {
	switch {
	case n <= 1:
		return "1"
	case n == 2:
		return "2"
	case n <= 5:
		return "3-5"
	case n <= 10:
		return "6-10"
	}
	return "11+"
}

// selection is the facet values a search is narrowed to: a document
// passes when, for every facet with values, it has one of them.
type selection map[string][]string

func parseSelection(p url.Values) selection {
	sel := selection{}
	for _, name := range facetNames {
		if vs := p[name]; len(vs) > 0 {
			sel[name] = vs
		}
	}
	return sel
}

// values returns the facet values of a document.
func (s *Server) values(c *catalog, m *collapse.Match) [4]string {
	d := s.info(c, m.ID)
	month := ""
	if !d.time.IsZero() {
		month = d.time.UTC().Format("2006-01")
	}
	return [4]string{d.site, d.lang, sizeBucket(s.clusterSize(c, m.Cluster)), month}
}

// counter counts facet values over a search's matches; safe for the
// concurrent calls of a sharded search.
type counter struct {
	mu       sync.Mutex
	docs     [4]map[string]int
	clusters [4]map[string]map[string]struct{}
}

func newCounter() *counter {
	c := &counter{}
	for i := range c.docs {
		c.docs[i] = map[string]int{}
		c.clusters[i] = map[string]map[string]struct{}{}
	}
	return c
}

func (c *counter) add(vals [4]string, m *collapse.Match) {
	cluster := m.Cluster
	if cluster == "" { // a document without a cluster is one of its own
		cluster = "\x00" + m.ID
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, v := range vals {
		c.docs[i][v]++
		set := c.clusters[i][v]
		if set == nil {
			set = map[string]struct{}{}
			c.clusters[i][v] = set
		}
		set[cluster] = struct{}{}
	}
}

// parseExpand reads the facets named by the expand parameters.
func parseExpand(p url.Values) (map[string]bool, error) {
	out := map[string]bool{}
	for _, name := range p["expand"] {
		if !slices.Contains(facetNames, name) {
			return nil, badRequest("parameter expand: want one of %s, got %q", strings.Join(facetNames, ", "), name)
		}
		out[name] = true
	}
	return out, nil
}

// bucketLow is the least cluster size of a cluster-size bucket ("3-5":
// 3), by which the buckets are listed: in order of size, as a reader
// scans them, rather than by count.
func bucketLow(b string) int {
	n, _ := strconv.Atoi(strings.TrimRight(strings.SplitN(b, "-", 2)[0], "+"))
	return n
}

// facets returns the counts by facet name, the facets in expand with
// up to facetValuesExpanded values.
func (c *counter) facets(expand map[string]bool) map[string]facet {
	out := make(map[string]facet, len(facetNames))
	for i, name := range facetNames {
		vals := make([]facetValue, 0, len(c.docs[i]))
		for v, n := range c.docs[i] {
			vals = append(vals, facetValue{Value: v, Documents: n, Clusters: len(c.clusters[i][v])})
		}
		slices.SortFunc(vals, func(a, b facetValue) int {
			switch name {
			case facetDate: // newest first
				return strings.Compare(b.Value, a.Value)
			case facetSize:
				return cmp.Compare(bucketLow(a.Value), bucketLow(b.Value))
			}
			if a.Clusters != b.Clusters {
				return cmp.Compare(b.Clusters, a.Clusters)
			}
			return strings.Compare(a.Value, b.Value)
		})
		n := facetValues
		if expand[name] {
			n = facetValuesExpanded
		}
		out[name] = facet{Values: vals[:min(len(vals), n)], Total: len(vals)}
	}
	return out
}

// passes reports whether vals pass sel.
func (sel selection) passes(vals [4]string) bool {
	for i, name := range facetNames {
		if want := sel[name]; len(want) > 0 && !slices.Contains(want, vals[i]) {
			return false
		}
	}
	return true
}
