package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/bleve-dedup/bleve-dedup/boolquery"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/page"
	"github.com/bleve-dedup/bleve-dedup/server"
)

// loadQueries are the searches of BenchmarkServeLoad: English and
// Chinese words and boolean combinations found in the development pages.
var loadQueries = []string{
	"China", "music", "university OR college", "trade", "police", "game", "health", "film", "market", "school",
	"water", "president", "company", "court", "Google", "fire", "football", "science", "weather", "Apple AND iPhone",
	"图书馆", "经济", "公司", "北京", "中国", "大学", "历史", "音乐", "电影", "城市",
	"政府", "发展", "市场", "文化", "教育", "技术", "医院", "足球", "汽车", "(经济 OR 公司) NOT 北京",
}

const (
	loadClients  = 32
	loadRequests = 2000
)

// devIndex indexes the development pages of ../shared/data under the mark
// policy (BLEVE_DEDUP_DEV_INDEX names an index made so to use instead),
// skipping tb when they are absent.
func devIndex(tb testing.TB) *indexer.Index {
	tb.Helper()
	if dir := os.Getenv("BLEVE_DEDUP_DEV_INDEX"); dir != "" {
		o, err := indexer.SavedOptions(dir)
		if err != nil {
			tb.Fatal(err)
		}
		ix, err := indexer.Open(dir, o)
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { ix.Close() })
		return ix
	}
	input := filepath.Join("..", "..", "shared", "data", "neardup", "dev-corpus.jsonl.gz")
	if _, err := os.Stat(input); err != nil {
		tb.Skipf("no development set: %v", err)
	}
	o := indexer.Options{}
	o.Policy = dedupfilter.Mark
	ix, err := indexer.Open(tb.TempDir(), o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ix.Close() })
	if _, err := ix.IndexPages(context.Background(), page.Read([]string{input}, page.DefaultOptions()), indexer.DefaultRunOptions()); err != nil {
		tb.Fatal(err)
	}
	return ix
}

// load runs loadRequests calls of do (the i-th with loadQueries[i mod n])
// on loadClients goroutines and reports requests a second, the median
// and 99th percentile latency in milliseconds, and the errors.
func load(b *testing.B, do func(q string) error) {
	for b.Loop() {
		lat := make([]time.Duration, loadRequests)
		var next, errs atomic.Int64
		var wg sync.WaitGroup
		start := time.Now()
		for range loadClients {
			wg.Go(func() {
				for {
					i := next.Add(1) - 1
					if i >= loadRequests {
						return
					}
					t := time.Now()
					if err := do(loadQueries[int(i)%len(loadQueries)]); err != nil {
						errs.Add(1)
					}
					lat[i] = time.Since(t)
				}
			})
		}
		wg.Wait()
		took := time.Since(start)
		slices.Sort(lat)
		b.ReportMetric(float64(loadRequests)/took.Seconds(), "req/s")
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(errs.Load()), "errors")
	}
}

// BenchmarkServeLoad is the server under load on the development pages:
// loadClients clients send loadRequests searches over loopback HTTP, one
// collapsed page of 10 hits each, with snippets (the default), then with
// facets too, then without snippets; "bleve" calls bleve's SearchInContext directly on the same
// queries (top 10, no collapsing, no HTTP), the floor the server's cost
// is measured against. Run with -benchtime 1x: an iteration is the
// whole run.
func BenchmarkServeLoad(b *testing.B) {
	ix := devIndex(b)
	ts := httptest.NewServer(newServer(b, ix, server.DefaultOptions()))
	b.Cleanup(ts.Close)
	o := server.DefaultOptions()
	o.Snippets = false
	bare := httptest.NewServer(newServer(b, ix, o))
	b.Cleanup(bare.Close)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: loadClients}}
	getFrom := func(ts *httptest.Server, params string) func(q string) error {
		return func(q string) error {
			resp, err := client.Get(ts.URL + "/api/search?q=" + url.QueryEscape(q) + params)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			if _, err := io.Copy(io.Discard, resp.Body); err != nil {
				return err
			}
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("status %d", resp.StatusCode)
			}
			return nil
		}
	}
	get := func(params string) func(q string) error { return getFrom(ts, params) }
	// The first facet search reads the catalog; the first collapsed one
	// builds the cluster tables: both before timing.
	for _, f := range []func(string) error{get("&facets=true"), getFrom(bare, "&facets=true")} {
		if err := f("China"); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("server-collapse", func(b *testing.B) { load(b, get("&collapse=true")) })
	b.Run("server-collapse-facets", func(b *testing.B) { load(b, get("&collapse=true&facets=true")) })
	b.Run("server-collapse-nosnippets", func(b *testing.B) { load(b, getFrom(bare, "&collapse=true")) })
	b.Run("bleve", func(b *testing.B) {
		load(b, func(qs string) error {
			q, err := boolquery.Query(qs, boolquery.Options{Fields: []string{indexer.FieldTitle, indexer.FieldText}})
			if err != nil {
				return err
			}
			_, err = ix.Unwrap().SearchInContext(context.Background(), bleve.NewSearchRequestOptions(q, 10, 0, false))
			return err
		})
	})
}
