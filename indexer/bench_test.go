package indexer

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
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

// BenchmarkIndexVsBleve indexes the same documents with plain bleve (same
// mapping, same batches) and through the dedup filter in each iteration,
// and reports both rates and their ratios, in wall time and in CPU time:
// absolute times wander on shared machines, the ratios much less.
func BenchmarkIndexVsBleve(b *testing.B) {
	docs := benchDocs(b)
	const batch = 200
	var plain, dedup, plainCPU, dedupCPU time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		dir := b.TempDir()
		b.StartTimer()

		start, cpu := time.Now(), cpuTime(b)
		idx, err := bleve.New(filepath.Join(dir, "plain"), NewMapping())
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < len(docs); i += batch {
			bt := idx.NewBatch()
			for _, d := range docs[i:min(i+batch, len(docs))] {
				if err := bt.Index(d.ID, map[string]any{FieldTitle: d.Title, FieldText: joinParagraphs(d.Paragraphs), FieldURL: d.URL, FieldCluster: d.ID}); err != nil {
					b.Fatal(err)
				}
			}
			if err := idx.Batch(bt); err != nil {
				b.Fatal(err)
			}
		}
		if err := idx.Close(); err != nil {
			b.Fatal(err)
		}
		plain += time.Since(start)
		plainCPU += cpuTime(b) - cpu

		start, cpu = time.Now(), cpuTime(b)
		ix, err := Open(filepath.Join(dir, "dedup"), DefaultOptions())
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < len(docs); i += batch {
			if _, err := ix.Batch(docs[i:min(i+batch, len(docs))]); err != nil {
				b.Fatal(err)
			}
		}
		if err := ix.Close(); err != nil {
			b.Fatal(err)
		}
		dedup += time.Since(start)
		dedupCPU += cpuTime(b) - cpu
	}
	n := float64(b.N * len(docs))
	b.ReportMetric(n/plain.Seconds(), "bleve-docs/s")
	b.ReportMetric(n/dedup.Seconds(), "dedup-docs/s")
	b.ReportMetric(dedup.Seconds()/plain.Seconds(), "dedup/bleve")
	// CPU time is steadier than wall time on a shared machine.
	b.ReportMetric(dedupCPU.Seconds()/plainCPU.Seconds(), "cpu-dedup/bleve")
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
