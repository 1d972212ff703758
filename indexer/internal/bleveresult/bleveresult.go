// Package bleveresult answers a bleve search request with one hit per
// duplicate cluster, in bleve's own form: a bleve.SearchResult whose hits
// are the clusters' best members (package collapse), with the fields,
// highlights, locations, explanations and facets the request asks for.
//
// # Basics
//
// Search ranks clusters by their best member's score with exact paging:
// the result's Total is the number of matching clusters, and each hit's
// Fields carry its cluster id, how many other documents the cluster holds
// and up to maxFolded of their ids, under the names of Fields. What the
// request asks of its hits is read by one plain search restricted to
// them; its facets by one plain search without hits, so they count
// documents, not clusters.
//
// # Caveats
//
// Collapsing keeps the order of scores only: a request sorted by
// anything else is for a plain search (Collapses).
package bleveresult

import (
	"context"
	"fmt"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/bleve-dedup/bleve-dedup/collapse"
)

// Fields name what a hit's Fields carry besides those requested.
type Fields struct {
	Cluster   string // the cluster id
	Folded    string // how many other documents the cluster holds
	FoldedIDs string // up to maxFolded of their ids
}

// Collapses reports whether req is ranked by score, the order collapsing
// keeps.
func Collapses(req *bleve.SearchRequest) bool {
	if len(req.Sort) == 0 {
		return true
	}
	s, ok := req.Sort[0].(*search.SortScore)
	return ok && s.Desc && len(req.Sort) <= 2
}

// Search runs req collapsed through s, a Searcher over idx, and reads
// what req asks of the hits and its facets from idx.
func Search(ctx context.Context, idx bleve.Index, s *collapse.Searcher, req *bleve.SearchRequest, f Fields, maxFolded int) (*bleve.SearchResult, error) {
	res, err := s.Search(ctx, collapse.Request{Query: req.Query, Size: req.Size, From: req.From,
		Collapse: true, ClusterBound: -1, MaxMembers: maxFolded})
	if err != nil {
		return nil, fmt.Errorf("bleveresult: %w", err)
	}
	out := &bleve.SearchResult{Status: &bleve.SearchStatus{Total: 1, Successful: 1}, Request: req,
		Total: uint64(res.Clusters), MaxScore: res.MaxScore, Took: res.Took, Hits: make(search.DocumentMatchCollection, len(res.Hits))}
	for i, h := range res.Hits {
		ids := make([]string, len(h.Members))
		for j, m := range h.Members {
			ids[j] = m.ID
		}
		out.Hits[i] = &search.DocumentMatch{Index: idx.Name(), ID: h.ID, Score: h.Score,
			Fields: map[string]any{f.Cluster: h.Cluster, f.Folded: h.Folded, f.FoldedIDs: ids}}
	}
	if err := load(ctx, idx, req, out); err != nil {
		return nil, err
	}
	return out, nil
}

// load fills the hits' requested fields, highlights, locations and
// explanations, and the request's facets (over documents), with one
// plain search restricted to the hits and, for facets, one without hits.
func load(ctx context.Context, idx bleve.Index, req *bleve.SearchRequest, out *bleve.SearchResult) error {
	if len(out.Hits) > 0 && (len(req.Fields) > 0 || req.Highlight != nil || req.IncludeLocations || req.Explain) {
		ids := make([]string, len(out.Hits))
		for i, h := range out.Hits {
			ids[i] = h.ID
		}
		sub := *req
		sub.Query = query.NewConjunctionQuery([]query.Query{req.Query, query.NewDocIDQuery(ids)})
		sub.From, sub.Size, sub.Facets, sub.Sort = 0, len(ids), nil, nil
		res, err := idx.SearchInContext(ctx, &sub)
		if err != nil {
			return fmt.Errorf("bleveresult: hits' fields: %w", err)
		}
		byID := make(map[string]*search.DocumentMatch, len(res.Hits))
		for _, m := range res.Hits {
			byID[m.ID] = m
		}
		for _, h := range out.Hits {
			m := byID[h.ID]
			if m == nil {
				continue
			}
			for k, v := range m.Fields {
				if _, ours := h.Fields[k]; !ours {
					h.Fields[k] = v
				}
			}
			h.Fragments, h.Locations, h.Expl = m.Fragments, m.Locations, m.Expl
		}
	}
	if len(req.Facets) > 0 {
		sub := bleve.NewSearchRequestOptions(req.Query, 0, 0, false)
		sub.Facets = req.Facets
		res, err := idx.SearchInContext(ctx, sub)
		if err != nil {
			return fmt.Errorf("bleveresult: facets: %w", err)
		}
		out.Facets = res.Facets
	}
	return nil
}
