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
