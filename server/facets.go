package server

import (
	"cmp"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/bleve-dedup/bleve-dedup/api"
	"github.com/bleve-dedup/bleve-dedup/collapse"
)

// Facets count the matches of a search by site, language, cluster size
// and date (month), and by the index's keyword fields named in facet_field
// parameters, each value twice: the distinct groups among the matching
// documents that have it (clusters, what the collapsed view shows, or the
// groups of the collapse field) and the matching documents. A search may
// be narrowed to values of the first four; the counts are those of the
// narrowed search (drill-down). Their values come from the catalog, set
// by collapse.Request.Visit; the field facets' from the index. Both are
// counted by package collapse in the collector's pass over the matches,
// as indexer.Index.SearchGroups counts its facets.

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

// facetValue is a facet's value with its counts: Clusters, grouped by
// cluster (absent in the overview's lists), else Groups.
type facetValue struct {
	Value     string `json:"value"`
	Clusters  int    `json:"clusters,omitempty"`
	Groups    int    `json:"groups,omitempty"`
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

// values returns the catalog's facet values of a document.
func (s *Server) values(c *catalog, m *collapse.Match) [4]string {
	d := s.info(c, m.ID)
	month := ""
	if !d.time.IsZero() {
		month = d.time.UTC().Format("2006-01")
	}
	return [4]string{d.site, d.lang, sizeBucket(s.clusterSize(c, m.Cluster)), month}
}

// searchFacets are the facets a search counts: the catalog's (values
// set by Visit) when all is set, then the index fields named.
func searchFacets(all bool, fields []string) []collapse.Facet {
	var fs []collapse.Facet
	if all {
		for _, name := range facetNames {
			fs = append(fs, collapse.Facet{Name: name})
		}
	}
	for _, f := range fields {
		fs = append(fs, collapse.Facet{Name: f, Field: f})
	}
	return fs
}

// parseExpand reads the facets named by the expand parameters: the
// catalog's, or fields, the index fields the search counts.
func parseExpand(p url.Values, fields []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, name := range p["expand"] {
		if !slices.Contains(facetNames, name) && !slices.Contains(fields, name) {
			return nil, badRequest("parameter expand: want one of %s or a facet_field, got %q", strings.Join(facetNames, ", "), name)
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

// facets returns the counts by facet name, those in expand with up to
// facetValuesExpanded values; byCluster puts the group counts in
// Clusters, as a search grouped by cluster has them. The facets of index
// fields leave out the documents without the field, as bleve's do.
func facets(counts map[string][]api.FacetCount, expand map[string]bool, byCluster bool, fields []string) map[string]facet {
	out := make(map[string]facet, len(counts))
	for name, cs := range counts {
		vals := make([]facetValue, 0, len(cs))
		for _, c := range cs {
			if c.Value == "" && slices.Contains(fields, name) {
				continue
			}
			v := facetValue{Value: c.Value, Documents: c.Documents, Groups: c.Groups}
			if byCluster {
				v.Clusters, v.Groups = c.Groups, 0
			}
			vals = append(vals, v)
		}
		switch name {
		case facetDate: // newest first
			slices.SortFunc(vals, func(a, b facetValue) int { return strings.Compare(b.Value, a.Value) })
		case facetSize:
			slices.SortFunc(vals, func(a, b facetValue) int { return cmp.Compare(bucketLow(a.Value), bucketLow(b.Value)) })
		} // the others come most groups first, then by value
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
