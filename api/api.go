// Package api holds the JSON types of bleve-dedup's HTTP API, shared by
// package server, which answers with them, and package remote, which
// reads them.
//
// It imports the standard library only, so that a client links neither
// bleve nor the dedup store. Package collapse returns the search types
// (collapse.Hit, collapse.Member and collapse.Result are aliases of Hit,
// Member and SearchResult).
package api

import "time"

// IngestSummary is the body of a POST /api/ingest response.
type IngestSummary struct {
	Read       int `json:"read"`
	Indexed    int `json:"indexed"`
	Duplicates int `json:"duplicates"`
	// KeptDuplicates are the duplicates indexed all the same (mark; or
	// text of their own the page kept does not hold): among Indexed.
	KeptDuplicates int      `json:"kept_duplicates"`
	Unchanged      int      `json:"unchanged"`
	Updated        int      `json:"updated"`
	Truncated      int      `json:"truncated"`
	NotHTML        int      `json:"not_html"`
	BadStatus      int      `json:"bad_status"`
	Errors         int      `json:"errors"`
	ErrorList      []string `json:"error_list"`
	ElapsedMS      int64    `json:"elapsed_ms"`
	Error          string   `json:"error,omitempty"` // why the run stopped early
	// CutShort is set when the server stopped the run because it is
	// stopping itself: the pages counted are indexed, the rest of the
	// body was not read (send it again: unchanged pages are skipped).
	CutShort bool `json:"cut_short,omitempty"`
}

// Add adds the counts and errors of o, a summary of another request of
// the same input, to s. Error and CutShort are left as they are.
func (s *IngestSummary) Add(o IngestSummary) {
	s.Read += o.Read
	s.Indexed += o.Indexed
	s.Duplicates += o.Duplicates
	s.KeptDuplicates += o.KeptDuplicates
	s.Unchanged += o.Unchanged
	s.Updated += o.Updated
	s.Truncated += o.Truncated
	s.NotHTML += o.NotHTML
	s.BadStatus += o.BadStatus
	s.Errors += o.Errors
	s.ErrorList = append(s.ErrorList, o.ErrorList...)
	s.ElapsedMS += o.ElapsedMS
}

// Hit is one search result: with collapsing, the best-scoring indexed
// member of a cluster standing for the whole cluster. The JSON form is
// what the CLI and the server print (the server's hits add fields of
// their own).
type Hit struct {
	ID      string  `json:"id"`
	Score   float64 `json:"score"`
	Cluster string  `json:"cluster"`
	// Folded is the number of other members of the cluster in the dedup
	// store, suppressed ones included, whether or not they match the
	// query; 0 when collapsing is off.
	Folded int `json:"folded"`
	// Members are up to the search's MaxMembers (collapse.Request) of the
	// folded documents, in id order; never nil.
	Members []Member `json:"members"`
	Title   string   `json:"title"`
	URL     string   `json:"url"`
	// Group is the value of the field a search collapsed by, when it
	// collapsed by one other than the cluster ("" for a document without
	// it, a group of its own); Size the matching documents of the hit's
	// group (with copies folded first, those left; exact when the groups
	// are counted exactly, SearchResult.ClustersExact); Inner the group's
	// inner hits, when asked for.
	Group string     `json:"group,omitempty"`
	Size  int        `json:"group_size,omitempty"`
	Inner []InnerHit `json:"inner_hits,omitempty"`
}

// InnerHit is one of the best documents of a Hit's group, by the
// search's inner-hit order.
type InnerHit struct {
	ID      string  `json:"id"`
	Score   float64 `json:"score"`
	Cluster string  `json:"cluster"`
	Title   string  `json:"title"`
	URL     string  `json:"url"`
}

// FacetCount is a facet value's count over a search's matches: the
// documents that have it and the distinct groups (clusters, or values of
// the field collapsed by) among them.
type FacetCount struct {
	Value     string `json:"value"`
	Documents int    `json:"documents"`
	Groups    int    `json:"groups"`
}

// Member is a folded document of a Hit's cluster.
type Member struct {
	ID      string `json:"id"`
	URL     string `json:"url"`
	Title   string `json:"title"`
	Indexed bool   `json:"indexed"` // whether it is in bleve (false: suppressed)
}

// SearchResult is a page of hits: what a search of the index returns
// (collapse.Searcher) and, but for MaxScore and Took, what GET
// /api/search answers with, among fields of the server's own.
type SearchResult struct {
	Hits []Hit `json:"hits"`
	// Total is the number of matching documents in bleve.
	Total uint64 `json:"total"`
	// Clusters is the number of distinct matching clusters, exact when
	// ClustersExact, else a lower bound (collapse.Request.ClusterBound).
	// With collapsing off it equals Total and is exact only if every
	// indexed document is in a cluster of its own, so it is left 0.
	Clusters      int  `json:"clusters"`
	ClustersExact bool `json:"clusters_exact"`
	// Groups, for a search collapsed by a field other than the cluster,
	// is the number of matching groups, exact when ClustersExact, else a
	// lower bound; Clusters then counts clusters only when copies were
	// folded first (else 0).
	Groups int `json:"groups,omitempty"`
	// ShardErrors, over shards searched as one, names the shards that
	// did not answer (down, slow past their timeout) and why: the result
	// is then of the others only.
	ShardErrors map[string]string `json:"shard_errors,omitempty"`
	// Facets are the counts of the facets the search asked for, by name,
	// most groups first: the server answers with facets of its own form,
	// so they are not read from its JSON.
	Facets map[string][]FacetCount `json:"-"`
	// MaxScore and Took are the searcher's: not in the JSON answer (the
	// server writes its own took_ms), so 0 in a result read from it.
	MaxScore float64       `json:"-"`
	Took     time.Duration `json:"-"`
}
