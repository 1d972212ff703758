package page

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkReadJSONL reads the near-duplicate development corpus (gzipped
// JSONL, 1,902 pages) when it is present.
func BenchmarkReadJSONL(b *testing.B) {
	path := filepath.Join("..", "..", "shared", "data", "neardup", "dev-corpus.jsonl.gz")
	if _, err := os.Stat(path); err != nil {
		b.Skipf("corpus absent: %v", err)
	}
	b.ReportAllocs()
	pages := 0
	for range b.N {
		for _, err := range Read([]string{path}, DefaultOptions()) {
			if err != nil {
				b.Fatal(err)
			}
			pages++
		}
	}
	b.ReportMetric(float64(pages)/b.Elapsed().Seconds(), "pages/s")
}

// BenchmarkDecode decodes the real-byte fixtures: labelled, mislabelled and
// unlabelled pages, so detection's cost shows against a trusted label's.
func BenchmarkDecode(b *testing.B) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "decode", "*.html"))
	var raws [][]byte
	size := 0
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		raws = append(raws, raw)
		size += len(raw)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, raw := range raws {
			if _, err := Decode(raw, ""); err != nil {
				b.Fatal(err)
			}
		}
	}
}
