package collapse_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/bleve-dedup/bleve-dedup/api"
	"github.com/bleve-dedup/bleve-dedup/collapse"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testindex"
)

// match is a matching document as the brute force sees it.
type match struct {
	id, cluster, source, pos, site string
	score                          float64
}

// allMatches returns every match of q in idx, best first, ties by id.
func allMatches(t *testing.T, idx bleve.Index, q query.Query) []match {
	t.Helper()
	req := bleve.NewSearchRequestOptions(q, 1<<20, 0, false)
	req.SortBy([]string{"-_score", "_id"})
	req.Fields = []string{indexer.FieldCluster, "source", "pos", "site"}
	res, err := idx.Search(req)
	if err != nil {
		t.Fatal(err)
	}
	ms := make([]match, len(res.Hits))
	for i, h := range res.Hits {
		s := func(f string) string { v, _ := h.Fields[f].(string); return v }
		ms[i] = match{id: h.ID, cluster: s(indexer.FieldCluster), source: s("source"), pos: s("pos"), site: s("site"), score: h.Score}
	}
	return ms
}

// bruteGroup is a group as the brute force makes it: its documents in
// rank order.
type bruteGroup struct {
	value string
	docs  []match
}

// bruteGroups groups ms (in rank order) by field ("" for the cluster),
// folding copies first (keeping the first match of each cluster) when
// fold is set; the groups come in the order of their first documents. A
// document without the field is a group of its own.
func bruteGroups(ms []match, field string, fold bool) []bruteGroup {
	if fold {
		seen := map[string]bool{}
		var kept []match
		for _, m := range ms {
			if !seen[m.cluster] {
				seen[m.cluster] = true
				kept = append(kept, m)
			}
		}
		ms = kept
	}
	var groups []bruteGroup
	at := map[string]int{}
	for _, m := range ms {
		v := m.source
		if field == "" {
			v = m.cluster
		}
		key := v
		if v == "" {
			key = "\x00" + m.id
		}
		i, ok := at[key]
		if !ok {
			i = len(groups)
			at[key] = i
			groups = append(groups, bruteGroup{value: v})
		}
		groups[i].docs = append(groups[i].docs, m)
	}
	return groups
}

// bruteInner is the first n of docs ordered by sort (Inner.Sort).
func bruteInner(docs []match, sort string, n int) []string {
	docs = slices.Clone(docs)
	slices.SortStableFunc(docs, func(a, b match) int {
		switch sort {
		case "pos":
			return cmp.Or(strings.Compare(a.pos, b.pos), strings.Compare(a.id, b.id))
		case "-pos":
			return cmp.Or(strings.Compare(b.pos, a.pos), strings.Compare(a.id, b.id))
		case "_score":
			return cmp.Or(cmp.Compare(a.score, b.score), strings.Compare(a.id, b.id))
		}
		return 0 // rank order already
	})
	var ids []string
	for _, d := range docs[:min(n, len(docs))] {
		ids = append(ids, d.id)
	}
	return ids
}

// scoreOf is the score of document id among docs.
func scoreOf(docs []match, id string) float64 {
	for _, d := range docs {
		if d.id == id {
			return d.score
		}
	}
	return -1
}

// bruteSites counts the groups' documents by site: documents and groups.
func bruteSites(groups []bruteGroup) []api.FacetCount {
	byValue := map[string]*api.FacetCount{}
	for _, g := range groups {
		counted := map[string]bool{}
		for _, d := range g.docs {
			c := byValue[d.site]
			if c == nil {
				c = &api.FacetCount{Value: d.site}
				byValue[d.site] = c
			}
			c.Documents++
			if !counted[d.site] {
				counted[d.site] = true
				c.Groups++
			}
		}
	}
	var out []api.FacetCount
	for _, c := range byValue {
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b api.FacetCount) int {
		return cmp.Or(cmp.Compare(b.Groups, a.Groups), cmp.Compare(b.Documents, a.Documents), strings.Compare(a.Value, b.Value))
	})
	return out
}

// TestSearchGroupsMatchBruteForce pages through every group of a search
// by cluster, by source and by source with copies folded, on one index and
// over two shards, and checks each page against the brute force: group
// totals, hits and their group sizes, inner hits and site facets.
func TestSearchGroupsMatchBruteForce(t *testing.T) {
	union, a, b := testindex.Split(t, 400)
	indexes := []struct {
		name string
		idx  bleve.Index
	}{{"one index", union}, {"two shards", bleve.NewIndexAlias(a, b)}}
	queries := []query.Query{bleve.NewMatchAllQuery(), bleve.NewMatchQuery("alpha"), bleve.NewQueryStringQuery("beta gamma"),
		bleve.NewMatchPhraseQuery("delta epsilon"), bleve.NewQueryStringQuery("+zeta -eta")}
	modes := []struct {
		name  string
		field string
		fold  bool
		inner string
	}{
		{"by cluster", "", false, ""},
		{"by source", "source", false, "pos"},
		{"by source, copies folded", "source", true, "-pos"},
		{"by source, inner by score", "source", false, "_score"},
		{"by source, copies folded, inner best first", "source", true, ""},
	}
	const size, innerSize = 7, 3
	for _, ix := range indexes {
		s := collapse.New(ix.idx, testindex.NoFolds{})
		for _, q := range queries {
			ms := allMatches(t, ix.idx, q)
			for _, m := range modes {
				t.Run(fmt.Sprintf("%s/%v/%s", ix.name, q, m.name), func(t *testing.T) {
					want := bruteGroups(ms, m.field, m.fold)
					wantSites := bruteSites(want)
					for from := 0; from < len(want)+size; from += size {
						res, err := s.Search(context.Background(), collapse.Request{Query: q, From: from, Size: size, Collapse: true,
							Field: m.field, FoldCopies: m.fold, ClusterBound: -1, Inner: collapse.Inner{Size: innerSize, Sort: m.inner},
							Facets: []collapse.Facet{{Name: "site", Field: "site"}}})
						if err != nil {
							t.Fatal(err)
						}
						groups := res.Clusters
						if m.field != "" {
							groups = res.Groups
						}
						if groups != len(want) || res.Total != uint64(len(ms)) {
							t.Errorf("from %d: groups %d of %d documents, want %d of %d", from, groups, res.Total, len(want), len(ms))
						}
						page := want[min(from, len(want)):min(from+size, len(want))]
						if len(res.Hits) != len(page) {
							t.Fatalf("from %d: %d hits, want %d", from, len(res.Hits), len(page))
						}
						for i, h := range res.Hits {
							w := page[i]
							if h.ID != w.docs[0].id || h.Score != w.docs[0].score {
								t.Errorf("from %d hit %d: got %s (%g), want %s (%g)", from, i, h.ID, h.Score, w.docs[0].id, w.docs[0].score)
							}
							if m.field != "" && (h.Group != w.value || h.Size != len(w.docs)) {
								t.Errorf("from %d hit %s: group %q size %d, want %q size %d", from, h.ID, h.Group, h.Size, w.value, len(w.docs))
							}
							var inner []string
							for _, in := range h.Inner {
								inner = append(inner, in.ID)
							}
							if wi := bruteInner(w.docs, m.inner, innerSize); !slices.Equal(inner, wi) {
								t.Errorf("from %d hit %s: inner hits %v, want %v", from, h.ID, inner, wi)
							}
							for _, in := range h.Inner {
								if want := scoreOf(w.docs, in.ID); in.Score != want {
									t.Errorf("from %d hit %s: inner hit %s scores %g, want %g", from, h.ID, in.ID, in.Score, want)
								}
							}
						}
						if got := res.Facets["site"]; !slices.Equal(got, wantSites) {
							t.Errorf("from %d: site facet\n got %v\nwant %v", from, got, wantSites)
						}
					}
				})
			}
		}
	}
}
