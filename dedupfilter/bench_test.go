package dedupfilter

import (
	"fmt"
	"testing"
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
				p, err := f.Prepare(d.doc)
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
// batches of 200 under one Exclusive call, as the indexer adds them: with
// a shared store, one lease and one write of the shared state a batch.
// With DEDUPFILTER_REDIS set it measures the Redis store (round trips).
func BenchmarkAddExclusive(b *testing.B) {
	docs := newCorpus(11).clusters(b, testAnalyzer(b), 250, 4)
	f := openTest(b, nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += 200 {
		err := f.Exclusive(func() error {
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
