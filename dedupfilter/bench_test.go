package dedupfilter

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// BenchmarkAdd measures Add on a growing store: a pool of articles with
// 3 reprints each (so a quarter are new clusters), ids unique per
// iteration. Feature computation is outside the timer, as in the indexer.
func BenchmarkAdd(b *testing.B) {
	for _, policy := range []Policy{Suppress, Replace} {
		b.Run(policy.String(), func(b *testing.B) {
			docs := newCorpus(11).clusters(b, testAnalyzer(b), 250, 4)
			f := openTest(b, func(o *Options) { o.Policy = policy })
			keys := 0
			for _, d := range docs {
				p, err := f.prepare(d.doc)
				if err != nil {
					b.Fatal(err)
				}
				keys += len(p.own)
			}
			b.ReportAllocs()
			b.ResetTimer()
			i := 0
			for b.Loop() {
				d := docs[i%len(docs)].doc
				d.ID = fmt.Sprintf("%s#%d", d.ID, i/len(docs))
				if _, err := f.Add(d); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "docs/s")
			// Posting lists touched, plus record, signature, payload,
			// membership and pending mark (cluster record and counters not
			// counted).
			b.ReportMetric(float64(keys)/float64(len(docs))+5, "keys/doc")
		})
	}
}

// BenchmarkAddExclusive is BenchmarkAdd with the documents added in
// batches of 200 under one exclusive call, as the indexer adds them: with
// a shared store, one lease and one write of the shared state a batch.
// With DEDUPFILTER_REDIS set it measures the Redis store (round trips).
func BenchmarkAddExclusive(b *testing.B) {
	docs := newCorpus(11).clusters(b, testAnalyzer(b), 250, 4)
	f := openTest(b, nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += 200 {
		err := f.exclusive(func() error {
			for j := range min(200, b.N-i) {
				d := docs[(i+j)%len(docs)].doc
				d.ID = fmt.Sprintf("%s#%d", d.ID, (i+j)/len(docs))
				if _, err := f.Add(d); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkOneAtATime measures, on one core, the share of a page's
// filter time spent where only one decision of a process may be at a
// time (prefetch's reads and ranking and each add hold the filter's lock;
// prefetch's verification runs on every core but is counted here with
// the lock's share, so the share is an upper bound), against the time
// any number of cores can share (features and signature). It reports the
// pages/s Amdahl's law bounds the filter to on 16 cores. Batches of 1,000
// documents as the indexer makes them; 4,000 documents, a quarter new.
func BenchmarkOneAtATime(b *testing.B) {
	const batch, n = 1000, 4000
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	a := testAnalyzer(b)
	c := newCorpus(23)
	var texts [][]string
	for len(texts) < n {
		orig := c.article(5 + c.rng.IntN(8))
		texts = append(texts, orig)
		for m := 1; m < 4; m++ {
			texts = append(texts, c.reprint(orig, 0.03, m%2 == 0))
		}
	}
	var par, plan, add time.Duration
	pages := 0
	for b.Loop() {
		f := openTest(b, nil)
		for i := 0; i < n; i += batch {
			t0 := time.Now()
			ps := make([]*prepared, batch)
			for j := range ps {
				id := fmt.Sprintf("doc-%d", i+j)
				p, err := f.prepare(Doc{ID: id, URL: "https://example.com/" + id, Title: id, Features: a.Analyze(texts[i+j])})
				if err != nil {
					b.Fatal(err)
				}
				ps[j] = p
			}
			t1 := time.Now()
			var t2 time.Time
			err := f.exclusive(func() error {
				if err := f.prefetch(ps); err != nil {
					return err
				}
				t2 = time.Now()
				for _, p := range ps {
					if _, err := f.addPrepared(p, addOptions{}); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			par, plan, add = par+t1.Sub(t0), plan+t2.Sub(t1), add+time.Since(t2)
			pages += batch
		}
		b.StopTimer()
		f.Close()
		b.StartTimer()
	}
	perPage := func(d time.Duration) float64 { return d.Seconds() * 1e3 / float64(pages) }
	serial, total := perPage(plan+add), perPage(par+plan+add)
	b.ReportMetric(perPage(par), "parallel-ms/page")
	b.ReportMetric(perPage(plan), "prefetch-ms/page")
	b.ReportMetric(perPage(add), "add-ms/page")
	b.ReportMetric(serial/total, "one-at-a-time-share")
	b.ReportMetric(1e3/(serial+(total-serial)/16), "pages/s-16-cores")
}
