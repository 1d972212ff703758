package collapse_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/bleve-dedup/bleve-dedup/collapse"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testindex"
)

// pages pages through every cluster of q, size at a time.
func pages(t *testing.T, s *collapse.Searcher, q query.Query, size int) []string {
	t.Helper()
	var out []string
	for from := 0; ; from += size {
		res, err := s.Search(context.Background(), collapse.Request{Query: q, From: from, Size: size, Collapse: true, ClusterBound: -1})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			out = append(out, h.Cluster+"/"+h.ID)
		}
		if len(res.Hits) < size {
			return out
		}
	}
}

// TestSearchShards: collapsing over an alias of two shards returns every
// cluster exactly once over the pages, the clusters of the same search on
// one index holding all the documents, in the same order where scores do
// not depend on the shard (match all: every score ties, ids decide).
func TestSearchShards(t *testing.T) {
	union, a, b := testindex.Split(t, 240)
	one := collapse.New(union, testindex.NoFolds{})
	two := collapse.New(bleve.NewIndexAlias(a, b), testindex.NoFolds{})
	for _, q := range []query.Query{bleve.NewMatchAllQuery(), bleve.NewMatchQuery("alpha"), bleve.NewQueryStringQuery("beta gamma")} {
		want := pages(t, one, q, 7)
		got := pages(t, two, q, 7)
		clusters := func(hits []string) []string {
			var cs []string
			for _, h := range hits {
				c, _, _ := strings.Cut(h, "/")
				cs = append(cs, c)
			}
			return cs
		}
		gc := clusters(got)
		if dup := len(gc) - len(slices.Compact(slices.Sorted(slices.Values(gc)))); dup > 0 {
			t.Errorf("%v: %d clusters came twice over the pages", q, dup)
		}
		if g, w := slices.Sorted(slices.Values(gc)), slices.Sorted(slices.Values(clusters(want))); !slices.Equal(g, w) {
			t.Errorf("%v: %d clusters over the shards, %d in one index", q, len(g), len(w))
		}
		if _, all := q.(*query.MatchAllQuery); all && !slices.Equal(got, want) {
			t.Errorf("match all: pages over the shards\n%v\nwant (one index)\n%v", got, want)
		}
	}
}
