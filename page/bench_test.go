package page

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// devCorpus is the near-duplicate development corpus, where the shared
// data is present.
var devCorpus = filepath.Join("..", "..", "shared", "data", "neardup", "dev-corpus.jsonl.gz")

// BenchmarkReadJSONL reads the near-duplicate development corpus (gzipped
// JSONL, 1,902 pages) when it is present.
func BenchmarkReadJSONL(b *testing.B) {
	path := devCorpus
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

// BenchmarkDecodeRecord decodes the development corpus's lines (the
// gzip and line reading left out) with decodeRecord and, for the ratio,
// json.Unmarshal.
func BenchmarkDecodeRecord(b *testing.B) {
	path := devCorpus
	raw, err := os.ReadFile(path)
	if err != nil {
		b.Skipf("corpus absent: %v", err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		b.Fatal(err)
	}
	all, err := io.ReadAll(zr)
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(all), []byte("\n"))
	for _, bc := range []struct {
		name   string
		decode func([]byte, *record, *[]byte) error
	}{
		{"decodeRecord", decodeRecord},
		{"json.Unmarshal", func(line []byte, rec *record, _ *[]byte) error { return json.Unmarshal(line, rec) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(all)))
			b.ReportAllocs()
			var buf []byte
			for b.Loop() {
				for _, line := range lines {
					var rec record
					if err := bc.decode(line, &rec, &buf); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
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
