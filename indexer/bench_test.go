package indexer

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/bleve-dedup/bleve-dedup/page"
)

// benchDocs loads real article texts (Chinese Wikipedia passages and
// English news bodies) from ../shared/data, already extracted: extraction
// costs the same with or without dedup, so the benchmark leaves it out.
func benchDocs(tb testing.TB) []Document {
	tb.Helper()
	root := filepath.Join("..", "..", "shared", "data")
	zh, err := os.ReadFile(filepath.Join(root, "text", "zh", "cmrc2018_dev.json"))
	if err != nil {
		tb.Skipf("benchmark data absent (%v); it lives in ../shared/data", err)
	}
	en, err := os.ReadFile(filepath.Join(root, "extract", "en", "ground-truth.json"))
	if err != nil {
		tb.Skipf("benchmark data absent (%v)", err)
	}
	var passages []struct {
		Title       string `json:"title"`
		ContextText string `json:"context_text"`
	}
	var articles map[string]struct{ ArticleBody, URL string }
	if err := json.Unmarshal(zh, &passages); err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(en, &articles); err != nil {
		tb.Fatal(err)
	}
	var docs []Document
	for i, p := range passages {
		docs = append(docs, Document{ID: fmt.Sprintf("zh-%d", i), Title: p.Title, Paragraphs: strings.Split(p.ContextText, "\n")})
	}
	for k, a := range articles {
		docs = append(docs, Document{ID: "en-" + k, URL: a.URL, Paragraphs: strings.Split(a.ArticleBody, "\n")})
	}
	return docs
}

// neardupDocs extracts the development set of ../shared/data/neardup once
// per process: real pages with reprints and same-site templates, so a
// third of them are near-duplicates the filter keeps out of bleve.
var neardupDocs = sync.OnceValues(func() ([]Document, error) {
	path := filepath.Join("..", "..", "shared", "data", "neardup", "dev-corpus.jsonl.gz")
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	var docs []Document
	for p, err := range page.Read([]string{path}, page.Options{MaxBytes: page.DefaultMaxBytes}) {
		if err != nil {
			continue // counted by the CLI; irrelevant to speed
		}
		if d, err := FromPage(p); err == nil {
			docs = append(docs, d)
		}
	}
	return docs, nil
})

// BenchmarkIndexVsBleve indexes the same documents with plain bleve (same
// mapping, same batches) and through the dedup filter in each iteration,
// on two corpora: "unique" has no duplicates (every document costs the
// filter and then bleve: the worst case), "neardup" is the extracted
// development set. It reports their ratios (absolute times wander on shared machines, the
// ratios much less):
//
//   - dedup/bleve: wall time until the last batch is searchable (Batch
//     returned), the indexing time a caller waits for;
//   - settled-dedup/bleve: wall time until bleve's background merges are
//     done and the index is closed (see settle);
//   - cpu-dedup/bleve: CPU time of the same, merges included.
//
// Each run carries a pprof label mode=plain or mode=dedup, inherited by the
// goroutines it starts, so `go tool pprof -tags` on a -cpuprofile splits
// the CPU between the two.
func BenchmarkIndexVsBleve(b *testing.B) {
	b.Run("unique", func(b *testing.B) { benchIndexVsBleve(b, benchDocs(b)) })
	b.Run("neardup", func(b *testing.B) {
		docs, err := neardupDocs()
		if err != nil {
			b.Skipf("neardup data absent (%v); it lives in ../shared/data", err)
		}
		benchIndexVsBleve(b, docs)
	})
}

func benchIndexVsBleve(b *testing.B, docs []Document) {
	batch := DefaultRunOptions().BatchSize
	var plain, dedup run
	b.ReportAllocs()
	b.ResetTimer()
	for iter := range b.N {
		b.StopTimer()
		dir := b.TempDir()
		b.StartTimer()

		indexPlain := func() (bleve.Index, func() error) {
			idx := indexPlain(b, filepath.Join(dir, "plain"), NewMapping(), docs, batch)
			return idx, idx.Close
		}
		indexDedup := func() (bleve.Index, func() error) {
			ix, err := Open(filepath.Join(dir, "dedup"), Options{})
			if err != nil {
				b.Fatal(err)
			}
			for i := 0; i < len(docs); i += batch {
				if _, err := batchDocs(ix, docs[i:min(i+batch, len(docs))]); err != nil {
					b.Fatal(err)
				}
			}
			return ix.Unwrap(), ix.Close
		}
		// Alternate which goes first, so that neither always inherits the
		// other's garbage and page cache.
		if iter%2 == 0 {
			plain.measure(b, "plain", indexPlain)
			dedup.measure(b, "dedup", indexDedup)
		} else {
			dedup.measure(b, "dedup", indexDedup)
			plain.measure(b, "plain", indexPlain)
		}
	}
	n := float64(b.N * len(docs))
	b.ReportMetric(n/plain.ingest.Seconds(), "bleve-docs/s")
	b.ReportMetric(n/dedup.ingest.Seconds(), "dedup-docs/s")
	b.ReportMetric(dedup.ingest.Seconds()/plain.ingest.Seconds(), "dedup/bleve")
	b.ReportMetric(dedup.settled.Seconds()/plain.settled.Seconds(), "settled-dedup/bleve")
	b.ReportMetric(dedup.cpu.Seconds()/plain.cpu.Seconds(), "cpu-dedup/bleve")
}

// BenchmarkMapping indexes the extracted development pages with plain
// bleve under three mappings and two batch sizes, settled (merges done),
// and reports CPU per document and bytes on disk: "lean" is NewMapping,
// "textdefaults" the same fields with bleve's text-field defaults (stored,
// doc values, copied into "_all"), "default" bleve's default mapping
// (standard analyzer, dynamic fields). The figures behind NewMapping.
func BenchmarkMapping(b *testing.B) {
	docs, err := neardupDocs()
	if err != nil {
		b.Skipf("neardup data absent (%v); it lives in ../shared/data", err)
	}
	textDefaults := func() mapping.IndexMapping {
		m := NewMapping()
		for _, name := range []string{FieldTitle, FieldText} {
			f := bleve.NewTextFieldMapping()
			f.Analyzer = cjk.AnalyzerName
			m.DefaultMapping.Properties[name].Fields[0] = f
		}
		m.DefaultField = "_all"
		return m
	}
	mappings := []struct {
		name string
		m    func() mapping.IndexMapping
	}{
		{"lean", func() mapping.IndexMapping { return NewMapping() }},
		{"textdefaults", textDefaults},
		{"default", func() mapping.IndexMapping { return bleve.NewIndexMapping() }},
	}
	for _, mp := range mappings {
		for _, batch := range []int{200, 1000} {
			b.Run(fmt.Sprintf("%s/batch=%d", mp.name, batch), func(b *testing.B) {
				var cpu time.Duration
				var disk int64
				for b.Loop() {
					dir := filepath.Join(b.TempDir(), "bleve")
					start := cpuTime(b)
					idx := indexPlain(b, dir, mp.m(), docs, batch)
					settle(b, idx)
					if err := idx.Close(); err != nil {
						b.Fatal(err)
					}
					cpu += cpuTime(b) - start
					disk = dirSize(b, dir)
				}
				b.ReportMetric(float64(cpu.Microseconds())/1e3/float64(b.N*len(docs)), "cpu-ms/doc")
				b.ReportMetric(float64(disk)/float64(len(docs)), "disk-B/doc")
			})
		}
	}
}

// indexPlain indexes docs into a new bleve index at dir with m, in
// batches of batch, as the indexer would write them.
func indexPlain(tb testing.TB, dir string, m mapping.IndexMapping, docs []Document, batch int) bleve.Index {
	tb.Helper()
	idx, err := bleve.New(dir, m)
	if err != nil {
		tb.Fatal(err)
	}
	for i := 0; i < len(docs); i += batch {
		bt := idx.NewBatch()
		for _, d := range docs[i:min(i+batch, len(docs))] {
			if err := bt.Index(d.ID, map[string]any{FieldTitle: d.Title, FieldText: joinParagraphs(d.Paragraphs), FieldURL: d.URL, FieldCluster: d.ID}); err != nil {
				tb.Fatal(err)
			}
		}
		if err := idx.Batch(bt); err != nil {
			tb.Fatal(err)
		}
	}
	return idx
}

// dirSize is the bytes of the files under dir.
func dirSize(tb testing.TB, dir string) int64 {
	tb.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		n += fi.Size()
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// run sums one mode's times over the benchmark's iterations.
type run struct{ ingest, settled, cpu time.Duration }

// measure times index (which indexes everything and returns the index and
// its Close) under the pprof label mode, then settles and closes it.
func (r *run) measure(b *testing.B, mode string, index func() (bleve.Index, func() error)) {
	pprof.Do(context.Background(), pprof.Labels("mode", mode), func(context.Context) {
		start, cpu := time.Now(), cpuTime(b)
		idx, closeIndex := index()
		r.ingest += time.Since(start)
		settle(b, idx)
		if err := closeIndex(); err != nil {
			b.Fatal(err)
		}
		r.settled += time.Since(start)
		r.cpu += cpuTime(b) - cpu
	})
}

// settle waits until bleve's background merging and persisting are done
// (scorch's index_bgthreads_active stat). Close stops merges in flight, so
// without this a faster run leaves more merge work undone and the ratio
// measures how many merges each run happened to finish, not indexing.
func settle(tb testing.TB, idx bleve.Index) {
	tb.Helper()
	for {
		st, _ := idx.StatsMap()["index"].(map[string]any)
		active, ok := st["index_bgthreads_active"].(bool)
		if !ok {
			tb.Fatalf("bleve stats have no index_bgthreads_active: %v", st)
		}
		if !active {
			return
		}
		time.Sleep(20 * time.Millisecond) // StatsMap walks the index files
	}
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
