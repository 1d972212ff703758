package collapse_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/bleve-dedup/bleve-dedup/boolquery"
	"github.com/bleve-dedup/bleve-dedup/collapse"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
)

// benchVersion keys the cached benchmark indexes; change it when the
// generator changes.
const benchVersion = "v2"

// openBench opens (building once, into a cache under os.TempDir()) an
// index of docs pages made of word runs of real English articles, in
// clusters as the mark policy leaves them: 70% singletons, the rest 2 to
// 5 copies with 3% of their words changed. Each page is also a passage
// of a source page (the keyword source: the stories c to c+3 of site k,
// the copy number, are one page of that site), from a site (site).
// The index is built when the environment variable env is set.
func openBench(b *testing.B, docs int, env string) (*indexer.Index, []string) {
	b.Helper()
	if os.Getenv(env) == "" {
		b.Skipf("set %s=1 to build (once: minutes a 100,000 pages) and search a %d-page index", env, docs)
	}
	raw, err := os.ReadFile(filepath.Join("..", "..", "shared", "data", "extract", "en", "ground-truth.json"))
	if err != nil {
		b.Skipf("no source text: %v", err)
	}
	var gt map[string]struct {
		ArticleBody string `json:"articleBody"`
	}
	if err := json.Unmarshal(raw, &gt); err != nil {
		b.Fatal(err)
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range gt {
			if !yield(k) {
				return
			}
		}
	})
	var words []string
	for _, k := range keys {
		words = append(words, strings.FieldsFunc(strings.ToLower(gt[k].ArticleBody), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		})...)
	}
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("bleve-dedup-bench-%d-%s", docs, benchVersion))
	done := filepath.Join(dir, "complete")
	if _, err := os.Stat(done); err != nil {
		if err := os.RemoveAll(dir); err != nil {
			b.Fatal(err)
		}
		buildBench(b, dir, docs, words)
		if err := os.WriteFile(done, nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	o := indexer.Options{}
	o.Policy = dedupfilter.Mark
	ix, err := indexer.Open(dir, o)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	return ix, words
}

func buildBench(b *testing.B, dir string, docs int, words []string) {
	start := time.Now()
	o := indexer.Options{}
	o.Policy = dedupfilter.Mark
	ix, err := indexer.Open(dir, o)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	r := rand.New(rand.NewPCG(uint64(docs), 1))
	batch := ix.Unwrap().NewBatch()
	for n, c := 0, 0; n < docs; c++ {
		length := 80 + r.IntN(400)
		off := r.IntN(len(words) - length)
		story := words[off : off+length]
		copies := 1
		if r.Float64() < 0.3 {
			copies = 2 + r.IntN(4)
		}
		for k := range min(copies, docs-n) {
			text := slices.Clone(story)
			if k > 0 {
				for range len(text) * 3 / 100 {
					text[r.IntN(len(text))] = words[r.IntN(len(words))]
				}
			}
			doc := map[string]any{
				indexer.FieldTitle:   strings.Join(text[:8], " "),
				indexer.FieldText:    strings.Join(text, " "),
				indexer.FieldURL:     fmt.Sprintf("https://site%d.example/%d", k, c),
				indexer.FieldCluster: fmt.Sprintf("%016x", c),
				"source":             fmt.Sprintf("s%dp%d", k, c/4),
				"site":               fmt.Sprintf("site%d", k),
			}
			if err := batch.Index(fmt.Sprintf("doc%06d", n), doc); err != nil {
				b.Fatal(err)
			}
			n++
		}
		if batch.Size() >= 2000 {
			if err := ix.Unwrap().Batch(batch); err != nil {
				b.Fatal(err)
			}
			batch.Reset()
		}
	}
	if err := ix.Unwrap().Batch(batch); err != nil {
		b.Fatal(err)
	}
	b.Logf("built %d documents in %s", docs, time.Since(start))
}

// benchQueries are boolean queries over words of every frequency: the
// most common words match nearly every page, the rare ones a few.
func benchQueries(b *testing.B, words []string) ([]query.Query, []string) {
	count := map[string]int{}
	for _, w := range words {
		count[w]++
	}
	byFreq := slices.SortedFunc(func(yield func(string) bool) {
		for w := range count {
			if !yield(w) {
				return
			}
		}
	}, func(a, b string) int {
		if count[a] != count[b] {
			return count[b] - count[a]
		}
		return strings.Compare(a, b)
	})
	var qs []string
	for _, rank := range []int{0, 3, 10, 30, 100, 300, 1000, 3000} {
		w, v := byFreq[rank], byFreq[rank+1]
		qs = append(qs, w, w+" AND "+v, w+" OR "+v, w+" NOT "+v, `"`+w+" "+byFreq[rank+2]+`"`)
	}
	out := make([]query.Query, len(qs))
	for i, s := range qs {
		q, err := boolquery.Query(s, boolquery.Options{Fields: []string{indexer.FieldTitle, indexer.FieldText}})
		if err != nil {
			b.Fatalf("%q: %v", s, err)
		}
		out[i] = q
	}
	return out, qs
}

// searchFunc runs one query for a page of 10 hits.
type searchFunc func(q query.Query) error

// variant is a way of searching that the benchmarks time.
type variant struct {
	name string
	fn   searchFunc
}

// BenchmarkCollapse100k measures, in one run over the same queries,
// plain bleve search (without and with a term facet), Searcher.Search
// (with the default cluster bound and with exact counting of every
// cluster; by the source field, with copies folded first, with 3 inner
// hits a group; by cluster counting a site facet), collapsing by
// over-fetching and indexer.Index.SearchGroups (by source, 3 inner hits,
// a site facet), all for the first page of 10. It reports the latency
// percentiles of each and the ratios to plain search.
//
//	BLEVE_DEDUP_BENCH_100K=1 go test ./collapse -run '^$' -bench Collapse100k -benchtime 3x
func BenchmarkCollapse100k(b *testing.B) {
	benchCollapse(b, 100_000, "BLEVE_DEDUP_BENCH_100K")
}

// BenchmarkCollapse1M is BenchmarkCollapse100k on 1,000,000 pages
// (built once in about an hour), without over-fetching, whose searches
// there take seconds each.
//
//	BLEVE_DEDUP_BENCH_1M=1 go test ./collapse -run '^$' -bench Collapse1M -benchtime 2x -timeout 3h
func BenchmarkCollapse1M(b *testing.B) {
	benchCollapse(b, 1_000_000, "BLEVE_DEDUP_BENCH_1M")
}

func benchCollapse(b *testing.B, docs int, env string) {
	ix, words := openBench(b, docs, env)
	searcher := collapse.New(ix.Unwrap(), ix.Filter())
	qs, names := benchQueries(b, words)
	ctx := context.Background()
	collapsed := func(bound int) searchFunc {
		return func(q query.Query) error {
			_, err := searcher.Search(ctx, collapse.Request{Query: q, Size: 10, Collapse: true, ClusterBound: bound})
			return err
		}
	}
	grouped := func(r collapse.Request) searchFunc {
		return func(q query.Query) error {
			r.Query, r.Size, r.Collapse, r.ClusterBound = q, 10, true, -1
			_, err := searcher.Search(ctx, r)
			return err
		}
	}
	sites := []collapse.Facet{{Name: "site", Field: "site"}}
	variants := []variant{
		{"plain", func(q query.Query) error {
			req := bleve.NewSearchRequestOptions(q, 10, 0, false)
			req.Fields = []string{indexer.FieldTitle, indexer.FieldURL}
			_, err := ix.Unwrap().Search(req)
			return err
		}},
		{"plain-facet", func(q query.Query) error {
			req := bleve.NewSearchRequestOptions(q, 10, 0, false)
			req.Fields = []string{indexer.FieldTitle, indexer.FieldURL}
			req.AddFacet("site", bleve.NewFacetRequest("site", 10))
			_, err := ix.Unwrap().Search(req)
			return err
		}},
		{"collapsed", collapsed(0)},
		{"collapsed-bound10000", collapsed(10000)},
		{"collapsed-exact", collapsed(-1)},
		{"overfetch", func(q query.Query) error { return overfetch(ix, q, 10) }},
		{"by-source", grouped(collapse.Request{Field: "source"})},
		{"by-source-folded", grouped(collapse.Request{Field: "source", FoldCopies: true})},
		{"by-source-inner3", grouped(collapse.Request{Field: "source", Inner: collapse.Inner{Size: 3}})},
		{"faceted", grouped(collapse.Request{Facets: sites})},
		{"by-source-faceted", grouped(collapse.Request{Field: "source", Facets: sites})},
		{"api-groups", func(q query.Query) error {
			req := bleve.NewSearchRequestOptions(q, 10, 0, false)
			req.Fields = []string{indexer.FieldTitle, indexer.FieldURL}
			req.AddFacet("site", bleve.NewFacetRequest("site", 10))
			_, err := ix.SearchGroups(ctx, indexer.GroupRequest{SearchRequest: req, Field: "source", InnerSize: 3})
			return err
		}},
	}
	if docs > 100_000 {
		variants = slices.DeleteFunc(variants, func(v variant) bool { return v.name == "overfetch" })
	}
	for _, q := range qs { // warm the caches, outside the timings
		for _, v := range variants {
			if err := v.fn(q); err != nil {
				b.Fatal(err)
			}
		}
	}
	lat := make([][]time.Duration, len(variants))
	b.ReportAllocs()
	for b.Loop() {
		// Interleaved per query, so that load from other processes hits
		// every variant alike.
		for _, q := range qs {
			for i, v := range variants {
				start := time.Now()
				if err := v.fn(q); err != nil {
					b.Fatal(err)
				}
				lat[i] = append(lat[i], time.Since(start))
			}
		}
	}
	// Per query: the median of each variant, to see where time goes.
	for j, name := range names {
		line := fmt.Sprintf("%-28q", name)
		for i, v := range variants {
			var ds []time.Duration
			for k := j; k < len(lat[i]); k += len(qs) {
				ds = append(ds, lat[i][k])
			}
			line += fmt.Sprintf(" %s %8.2fms", v.name, float64(percentile(ds, 50).Microseconds())/1000)
		}
		b.Log(line)
	}
	p50, p99 := percentile(lat[0], 50), percentile(lat[0], 99)
	for i, v := range variants {
		v50, v99 := percentile(lat[i], 50), percentile(lat[i], 99)
		b.ReportMetric(float64(v50.Microseconds()), v.name+"-p50-µs")
		b.ReportMetric(float64(v99.Microseconds()), v.name+"-p99-µs")
		if i > 0 {
			b.ReportMetric(float64(v50)/float64(p50), v.name+"/plain-p50")
			b.ReportMetric(float64(v99)/float64(p99), v.name+"/plain-p99")
		}
	}
}

// overfetch is the alternative to collapsing in the collector: plain
// searches for 3*size hits, widened fourfold until size distinct clusters
// are found or the matches run out.
func overfetch(ix *indexer.Index, q query.Query, size int) error {
	for fetch := 3 * size; ; fetch *= 4 {
		req := bleve.NewSearchRequestOptions(q, fetch, 0, false)
		req.SortBy([]string{"-_score", "_id"})
		req.Fields = []string{indexer.FieldTitle, indexer.FieldURL}
		res, err := ix.Unwrap().Search(req)
		if err != nil {
			return err
		}
		seen := map[any]bool{}
		for _, h := range res.Hits {
			seen[h.Fields[indexer.FieldCluster]] = true
		}
		if len(seen) >= size || uint64(len(res.Hits)) == res.Total {
			return nil
		}
	}
}

func percentile(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}
