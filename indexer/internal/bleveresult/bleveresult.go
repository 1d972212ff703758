// Package bleveresult answers a bleve search request with one hit per
// duplicate cluster, or per group of another field, in bleve's own form:
// a bleve.SearchResult whose hits are the groups' best members (package
// collapse), with the fields, highlights, locations, explanations and
// facets the request asks for.
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
// SearchGroups is Search with the grouping, inner hits and facet counts
// of a collapse.Request: Total counts its groups, each hit's Fields carry
// its group's value and size, and the collapse.Result returned beside
// has the group and facet counts bleve's result has no room for.
//
// # Caveats
//
// Collapsing keeps the order of scores only: a request sorted by
// anything else is for a plain search (Collapses).
package bleveresult

import (
	"context"
	"fmt"
	"maps"
	"slices"

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
	Group     string // the value of the field grouped by
	Size      string // the group's matching documents
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
	out, _, err := grouped(ctx, idx, s, req, collapse.Request{MaxMembers: maxFolded}, f)
	return out, err
}

// SearchGroups runs req through s, a Searcher over idx, grouped as g says
// (its Field, FoldCopies, Inner and MaxMembers; req gives the query and
// paging), counting groups for req's term facets (those without ranges)
// too. The hits' Fields carry, in a search by cluster, f.Cluster,
// f.Folded and f.FoldedIDs; by another field, f.Cluster, f.Group and
// f.Size. Inner hits (collapse's Hit.Inner) carry f.Cluster and the
// fields req asks for.
func SearchGroups(ctx context.Context, idx bleve.Index, s *collapse.Searcher, req *bleve.SearchRequest, g collapse.Request, f Fields) (*bleve.SearchResult, *collapse.Result, error) {
	g.Facets = nil
	for _, name := range slices.Sorted(maps.Keys(req.Facets)) {
		if fr := req.Facets[name]; len(fr.NumericRanges) == 0 && len(fr.DateTimeRanges) == 0 {
			g.Facets = append(g.Facets, collapse.Facet{Name: name, Field: fr.Field})
		}
	}
	return grouped(ctx, idx, s, req, g, f)
}

// grouped is SearchGroups counting the facets g names.
func grouped(ctx context.Context, idx bleve.Index, s *collapse.Searcher, req *bleve.SearchRequest, g collapse.Request, f Fields) (*bleve.SearchResult, *collapse.Result, error) {
	g.Query, g.Size, g.From, g.Collapse, g.ClusterBound = req.Query, req.Size, req.From, true, -1
	res, err := s.Search(ctx, g)
	if err != nil {
		return nil, nil, fmt.Errorf("bleveresult: %w", err)
	}
	total := res.Clusters
	if g.Field != "" {
		total = res.Groups
	}
	out := &bleve.SearchResult{Status: &bleve.SearchStatus{Total: 1, Successful: 1}, Request: req,
		Total: uint64(total), MaxScore: res.MaxScore, Took: res.Took, Hits: make(search.DocumentMatchCollection, len(res.Hits))}
	for i, h := range res.Hits {
		fields := map[string]any{f.Cluster: h.Cluster}
		if g.Field == "" {
			ids := make([]string, len(h.Members))
			for j, m := range h.Members {
				ids[j] = m.ID
			}
			fields[f.Folded], fields[f.FoldedIDs] = h.Folded, ids
		} else {
			fields[f.Group], fields[f.Size] = h.Group, h.Size
		}
		out.Hits[i] = &search.DocumentMatch{Index: idx.Name(), ID: h.ID, Score: h.Score, Fields: fields}
	}
	if err := load(ctx, idx, req, out); err != nil {
		return nil, nil, err
	}
	return out, res, nil
}

// Inner returns the inner hits of res's hit i as bleve's hits, with
// their cluster under f.Cluster and the fields req asks for, read in one
// search for all of res's hits.
func Inner(ctx context.Context, idx bleve.Index, req *bleve.SearchRequest, res *collapse.Result, f Fields) ([]search.DocumentMatchCollection, error) {
	out := make([]search.DocumentMatchCollection, len(res.Hits))
	var ids []string
	for i, h := range res.Hits {
		out[i] = make(search.DocumentMatchCollection, len(h.Inner))
		for j, m := range h.Inner {
			out[i][j] = &search.DocumentMatch{Index: idx.Name(), ID: m.ID, Score: m.Score, Fields: map[string]any{f.Cluster: m.Cluster}}
			ids = append(ids, m.ID)
		}
	}
	if len(ids) == 0 || len(req.Fields) == 0 {
		return out, nil
	}
	sub := bleve.NewSearchRequestOptions(query.NewDocIDQuery(ids), len(ids), 0, false)
	sub.Fields = req.Fields
	got, err := idx.SearchInContext(ctx, sub)
	if err != nil {
		return nil, fmt.Errorf("bleveresult: inner hits' fields: %w", err)
	}
	byID := make(map[string]*search.DocumentMatch, len(got.Hits))
	for _, m := range got.Hits {
		byID[m.ID] = m
	}
	for _, hs := range out {
		for _, h := range hs {
			if m := byID[h.ID]; m != nil {
				for k, v := range m.Fields {
					if _, ours := h.Fields[k]; !ours {
						h.Fields[k] = v
					}
				}
			}
		}
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
