package indexer

import (
	"context"
	"fmt"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"

	"github.com/bleve-dedup/bleve-dedup/collapse"
	"github.com/bleve-dedup/bleve-dedup/indexer/internal/bleveresult"
)

// The fields a grouped search (SearchGroups by a Field) adds to its hits,
// beside FieldCluster.
const (
	FieldGroup     = "_group"      // the value of the field grouped by
	FieldGroupSize = "_group_size" // the group's matching documents
)

// GroupRequest is a bleve search request whose hits are grouped: by
// duplicate cluster, as Search groups them, or by Field. Its query,
// paging, fields, highlight and facets are the SearchRequest's; its
// sort must be by score (the order groups keep).
type GroupRequest struct {
	*bleve.SearchRequest
	// Field groups by this keyword field (indexed with doc values): one
	// hit per distinct value, its best-scoring document; documents
	// without it are groups of their own. "" groups by cluster.
	Field string
	// FoldCopies, with Field, keeps only the best-scoring matching
	// document of each duplicate cluster and groups those by Field: over
	// passages whose Field names the page they were cut from, one hit per
	// page, none of a page's passages a copy of a better one elsewhere
	// (collapse.Request.FoldCopies).
	FoldCopies bool
	// InnerSize is how many of each group's best documents to list
	// (GroupResult.Groups' Inner), at most collapse.MaxInner, ordered by
	// InnerSort: "" or "-_score" (best first), "_score", a field, or
	// "-field" (descending); ties by id.
	InnerSize int
	InnerSort string
}

// GroupResult is a grouped search's answer: bleve's result, whose Total
// counts groups and whose Hits are one per group (Facets are bleve's,
// counting documents), with what bleve's result has no room for.
type GroupResult struct {
	*bleve.SearchResult
	// Documents is the number of matching documents.
	Documents uint64
	// Clusters, with FoldCopies, is the number of matching clusters.
	Clusters int
	// Groups describe Hits, one for one.
	Groups []Group
	// Terms are the counts of the request's term facets by name: up to
	// the facet's Size terms, most groups first.
	Terms map[string][]TermCount
}

// Group is a hit's group.
type Group struct {
	Value string // "" for a document that is a group of its own (or, by cluster, without one)
	Size  int    // its matching documents (with FoldCopies, those left)
	// Inner are its best documents (GroupRequest.InnerSize), with their
	// FieldCluster and the fields the request asks for.
	Inner search.DocumentMatchCollection
}

// TermCount is a facet term's count: the matching documents that have it
// and the distinct groups among them (with FoldCopies, both over the
// documents left after folding).
type TermCount struct {
	Term      string
	Documents int
	Groups    int
}

// SearchGroups runs r grouped; see GroupRequest. Counts are exact. A
// request sorted by anything but score is refused with an error wrapping
// collapse.ErrInvalidRequest.
func (w *Index) SearchGroups(ctx context.Context, r GroupRequest) (*GroupResult, error) {
	if r.SearchRequest == nil || !bleveresult.Collapses(r.SearchRequest) {
		return nil, fmt.Errorf("indexer: a grouped search needs a request ordered by score: %w", collapse.ErrInvalidRequest)
	}
	if err := w.settle(); err != nil {
		return nil, err
	}
	f := bleveresult.Fields{Cluster: FieldCluster, Folded: FieldFolded, FoldedIDs: FieldFoldedIDs, Group: FieldGroup, Size: FieldGroupSize}
	g := collapse.Request{Field: r.Field, FoldCopies: r.FoldCopies, Inner: collapse.Inner{Size: r.InnerSize, Sort: r.InnerSort}, MaxMembers: DefaultMaxFolded}
	bres, res, err := bleveresult.SearchGroups(ctx, w.wrapped, w.searcher, r.SearchRequest, g, f)
	if err != nil {
		return nil, fmt.Errorf("indexer: %w", err)
	}
	inner, err := bleveresult.Inner(ctx, w.wrapped, r.SearchRequest, res, f)
	if err != nil {
		return nil, fmt.Errorf("indexer: %w", err)
	}
	out := &GroupResult{SearchResult: bres, Documents: res.Total, Clusters: res.Clusters, Groups: make([]Group, len(res.Hits))}
	if !r.FoldCopies {
		out.Clusters = 0
	}
	for i, h := range res.Hits {
		value := h.Group
		if r.Field == "" || r.Field == FieldCluster {
			value = h.Cluster
		}
		out.Groups[i] = Group{Value: value, Size: h.Size, Inner: inner[i]}
	}
	if len(res.Facets) > 0 {
		out.Terms = make(map[string][]TermCount, len(res.Facets))
		for name, counts := range res.Facets {
			var terms []TermCount
			for _, c := range counts {
				if c.Value == "" { // documents without the field: bleve's Missing
					continue
				}
				if n := r.Facets[name].Size; n > 0 && len(terms) == n {
					break
				}
				terms = append(terms, TermCount{Term: c.Value, Documents: c.Documents, Groups: c.Groups})
			}
			out.Terms[name] = terms
		}
	}
	return out, nil
}
