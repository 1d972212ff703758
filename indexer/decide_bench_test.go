package indexer

import (
	"errors"
	"testing"
	"time"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"

	"github.com/bleve-dedup/bleve-dedup/internal/testkit/synth"
)

// BenchmarkDecide measures the filter's own CPU a page, bleve left out:
// the synthetic crawl bench-scale indexes (10,000 pages, 30% copies),
// extracted and staged outside the measurement, then decided in batches
// of 1,000 as the pipeline decides them (site tables, features on every
// core, candidates, verification, the store's writes). It reports the
// process' CPU (all goroutines) and wall time a page: a stable figure
// for the filter's share of a page's cost, which an end-to-end ratio
// against --no-dedup shows only through the noise of bleve's own work.
// It also counts the search-index writes of pages of earlier batches
// (clusters re-decided or merged): each rewrites a page bleve holds in
// an older segment, whose deleted copy its merges then filter out.
// Under the default policy, suppress, and under mark.
func BenchmarkDecide(b *testing.B) {
	const n, batch = 10000, 1000
	data, err := synth.FindData()
	if errors.Is(err, synth.ErrNoData) {
		b.Skipf("synthetic corpus model absent (%v); it lives in ../shared/data", err)
	}
	if err != nil {
		b.Fatal(err)
	}
	m, err := synth.Load(data)
	if err != nil {
		b.Fatal(err)
	}
	pages, err := m.Pages(synth.DefaultOptions(n))
	if err != nil {
		b.Fatal(err)
	}
	var docs []Document
	var keys [][]byte
	for p := range pages {
		d, err := FromPage(p.ToPage())
		if err != nil {
			b.Fatal(err)
		}
		docs, keys = append(docs, d), append(keys, urlKey(d.URL, ""))
	}
	for _, policy := range []dedupfilter.Policy{dedupfilter.Suppress, dedupfilter.Mark} {
		b.Run(policy.String(), func(b *testing.B) {
			var cpu, wall time.Duration
			rewrites := 0
			for b.Loop() {
				b.StopTimer()
				ix, err := Open(b.TempDir(), Options{Policy: policy})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				for i := 0; i < len(docs); i += batch {
					b.StopTimer()
					staged := make([]staged, 0, batch)
					inBatch := make(map[string]bool, batch)
					for j := i; j < min(i+batch, len(docs)); j++ {
						s, err := ix.ix.stage(docs[j], keys[j])
						if err != nil {
							b.Fatal(err)
						}
						staged, inBatch[docs[j].ID] = append(staged, s), true
					}
					c0, t0 := cpuTime(b), time.Now()
					b.StartTimer()
					_, ops, err := ix.ix.decideBatch(staged)
					if err != nil {
						b.Fatal(err)
					}
					cpu, wall = cpu+cpuTime(b)-c0, wall+time.Since(t0)
					for _, op := range ops {
						if !inBatch[op.ID] {
							rewrites++
						}
					}
				}
				b.StopTimer()
				if err := ix.Close(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			pagesDecided := float64(b.N * len(docs))
			b.ReportMetric(cpu.Seconds()*1e3/pagesDecided, "cpu-ms/page")
			b.ReportMetric(wall.Seconds()*1e3/pagesDecided, "ms/page")
			b.ReportMetric(float64(rewrites)*1e4/pagesDecided, "earlier-writes/10k-pages")
		})
	}
}
