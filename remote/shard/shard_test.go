package shard_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/bleve-dedup/bleve-dedup/collapse"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testindex"
	"github.com/bleve-dedup/bleve-dedup/remote/shard"
	"github.com/bleve-dedup/bleve-dedup/server"
)

// serve serves idx's shard endpoints, through h when set.
func serve(t *testing.T, idx bleve.Index, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	var h http.Handler = server.ShardHandler(idx, collapse.New(idx, testindex.NoFolds{}), server.DefaultOptions())
	if wrap != nil {
		h = wrap(h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL
}

func remote(t *testing.T, url string, o shard.Options) *shard.Index {
	t.Helper()
	s, err := shard.New(url, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCollapseRemote: collapsed searches over an alias with shards
// served elsewhere (one, then both) equal the same searches over the
// same shards in the process: hits, scores, group sizes, totals, group
// counts, facet counts, every page.
func TestCollapseRemote(t *testing.T) {
	_, a, b := testindex.Split(t, 300)
	local := collapse.New(bleve.NewIndexAlias(a, b), testindex.NoFolds{})
	mixed := collapse.New(bleve.NewIndexAlias(a, remote(t, serve(t, b, nil), shard.Options{})), testindex.NoFolds{})
	far := collapse.New(bleve.NewIndexAlias(remote(t, serve(t, a, nil), shard.Options{}), remote(t, serve(t, b, nil), shard.Options{})), testindex.NoFolds{})
	sites := []collapse.Facet{{Name: "site", Field: "site"}}
	requests := []struct {
		name string
		req  collapse.Request
	}{
		{"plain", collapse.Request{}},
		{"by cluster", collapse.Request{Collapse: true}},
		{"by cluster, bound 5", collapse.Request{Collapse: true, ClusterBound: 5}},
		{"by cluster, exact, facets", collapse.Request{Collapse: true, ClusterBound: -1, Facets: sites}},
		{"by source", collapse.Request{Collapse: true, Field: "source", ClusterBound: -1, Facets: sites}},
		{"by source, copies folded", collapse.Request{Collapse: true, Field: "source", FoldCopies: true, Facets: sites}},
		{"not collapsed, facets", collapse.Request{Facets: sites}},
		{"by cluster, 2 inner hits by site", collapse.Request{Collapse: true, Inner: collapse.Inner{Size: 2, Sort: "-site"}}},
		{"by source, 3 inner hits", collapse.Request{Collapse: true, Field: "source", Inner: collapse.Inner{Size: 3}}},
		{"by source, copies folded, 2 inner hits", collapse.Request{Collapse: true, Field: "source", FoldCopies: true, Inner: collapse.Inner{Size: 2}}},
	}
	queries := []query.Query{bleve.NewMatchAllQuery(), bleve.NewMatchQuery("alpha"), bleve.NewQueryStringQuery("beta gamma -delta")}
	for _, tt := range requests {
		for _, q := range queries {
			for from := 0; from < 60; from += 9 {
				req := tt.req
				req.Query, req.From, req.Size = q, from, 9
				want, err := local.Search(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				want.Took = 0
				for name, s := range map[string]*collapse.Searcher{"one remote": mixed, "both remote": far} {
					got, err := s.Search(context.Background(), req)
					if err != nil {
						t.Fatalf("%s, %s, %v, from %d: %v", tt.name, name, q, from, err)
					}
					got.Took = 0
					if !reflect.DeepEqual(got, want) {
						t.Errorf("%s, %s, %v, from %d:\ngot  %+v\nwant %+v", tt.name, name, q, from, got, want)
					}
				}
			}
		}
	}
}

// TestRemoteFaults: a shard that is down, or slower than its timeout,
// leaves the others' result, which names it and says why, in about the
// timeout, and the searches right after do not wait for it; a shard
// refusing the query fails the search; a search that cannot be sent (a
// Visit function) is refused.
func TestRemoteFaults(t *testing.T) {
	_, a, b := testindex.Split(t, 120)
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()
	release := make(chan struct{})
	defer close(release)
	slowURL := serve(t, b, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			h.ServeHTTP(w, r)
		})
	})
	const timeout = 300 * time.Millisecond
	alone := collapse.New(a, testindex.NoFolds{})
	want, err := alone.Search(context.Background(), collapse.Request{Query: bleve.NewMatchAllQuery(), Collapse: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, url, why string }{
		{"down", downURL, "connection refused"},
		{"slow", slowURL, "no answer within"},
	} {
		s := collapse.New(bleve.NewIndexAlias(a, remote(t, tt.url, shard.Options{Timeout: timeout})), testindex.NoFolds{})
		for _, req := range []collapse.Request{{Collapse: true}, {}} {
			req.Query = bleve.NewMatchAllQuery()
			start := time.Now()
			got, err := s.Search(context.Background(), req)
			took := time.Since(start)
			if err != nil {
				t.Fatalf("%s, collapse %v: %v, want a partial result", tt.name, req.Collapse, err)
			}
			if took > 5*timeout {
				t.Errorf("%s, collapse %v: answered in %s, want about %s", tt.name, req.Collapse, took, timeout)
			}
			if msg := got.ShardErrors[tt.url]; !strings.Contains(msg, tt.why) {
				t.Errorf("%s, collapse %v: shard errors %v, want %s: ...%s...", tt.name, req.Collapse, got.ShardErrors, tt.url, tt.why)
			}
			if got.Total != want.Total {
				t.Errorf("%s, collapse %v: total %d, want the other shard's %d", tt.name, req.Collapse, got.Total, want.Total)
			}
			if !req.Collapse && took > timeout/2 {
				t.Errorf("%s: a search right after one the shard failed took %s, want at once (the shard taken for down)", tt.name, took)
			}
		}
	}
	// A search cancelled by its caller does not take a shard for down.
	healthy := remote(t, serve(t, b, nil), shard.Options{})
	s := collapse.New(bleve.NewIndexAlias(a, healthy), testindex.NoFolds{})
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	s.Search(cancelled, collapse.Request{Query: bleve.NewMatchAllQuery(), Collapse: true})
	if res, err := s.Search(context.Background(), collapse.Request{Query: bleve.NewMatchAllQuery(), Collapse: true}); err != nil || len(res.ShardErrors) > 0 {
		t.Errorf("after a cancelled search: %v, shard errors %v; want the shard searched", err, res.ShardErrors)
	}
	// A shard refusing the query fails the search, as a search of it
	// alone fails: its part is not merely missing.
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":"query opens more than 1024 term searchers"}`))
	}))
	defer refusing.Close()
	s = collapse.New(bleve.NewIndexAlias(a, remote(t, refusing.URL, shard.Options{})), testindex.NoFolds{})
	for _, req := range []collapse.Request{{Collapse: true}, {}} {
		req.Query = bleve.NewMatchAllQuery()
		if res, err := s.Search(context.Background(), req); err == nil || !strings.Contains(err.Error(), "1024 term searchers") {
			t.Errorf("a shard refusing the query, collapse %v: %v, %+v; want its refusal", req.Collapse, err, res)
		}
	}
	s = collapse.New(bleve.NewIndexAlias(a, remote(t, serve(t, b, nil), shard.Options{})), testindex.NoFolds{})
	_, err = s.Search(context.Background(), collapse.Request{Query: bleve.NewMatchAllQuery(), Collapse: true, Visit: func(*collapse.Match) bool { return true }})
	if !errors.Is(err, collapse.ErrNotSent) || !errors.Is(err, collapse.ErrInvalidRequest) {
		t.Errorf("a Visit function over a remote shard: %v, want ErrNotSent and ErrInvalidRequest", err)
	}
}
