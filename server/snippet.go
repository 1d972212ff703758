package server

import (
	"fmt"

	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/bleve-dedup/bleve-dedup/api"
	"github.com/bleve-dedup/bleve-dedup/snippet"
)

// Snippets: a passage of each hit's text with the query's terms marked
// (package snippet). The texts come from the filter's store (the payload
// /api/doc shows: the default mapping does not store them in bleve); the
// page shows the segments through textContent like everything else.

// snippets returns the snippet of each hit of q, by id, from the texts
// the filter's store keeps. A hit whose text has none of the query's
// terms (a query of NOT only) gets the beginning of its text.
func (s *Server) snippets(q query.Query, hits []api.Hit) (map[string][]snippet.Segment, error) {
	if len(hits) == 0 {
		return nil, nil
	}
	terms := snippet.Terms(q, s.ix.Mapping(), s.ix.SearchFields())
	out := make(map[string][]snippet.Segment, len(hits))
	for _, h := range hits {
		e, err := s.ix.Doc(h.ID)
		if err != nil || len(e.Payload) == 0 {
			continue // removed since the search, or stored by another shard: no snippet
		}
		text, err := payloadText(e.Payload, snippet.MaxSource)
		if err != nil {
			return nil, fmt.Errorf("server: snippets: document %q: %w", h.ID, err)
		}
		if segs := snippet.Make(text, terms); segs != nil {
			out[h.ID] = segs
		}
	}
	return out, nil
}
