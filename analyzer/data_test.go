package analyzer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Real pages' main text, read from the shared data set next to the repo.
const (
	enGroundTruth = "../../shared/data/extract/en/ground-truth.json"
	zhCleaned     = "../../shared/data/extract/zh/cleaned"
)

// realPages returns the paragraphs of real English and Chinese articles,
// skipping the test when the data set is absent (a fresh clone).
func realPages(tb testing.TB) (en, zh [][]string) {
	tb.Helper()
	raw, err := os.ReadFile(enGroundTruth)
	if os.IsNotExist(err) {
		tb.Skipf("real pages absent (%s): skipping", enGroundTruth)
	}
	if err != nil {
		tb.Fatal(err)
	}
	var gt map[string]struct {
		ArticleBody string `json:"articleBody"`
	}
	if err := json.Unmarshal(raw, &gt); err != nil {
		tb.Fatal(err)
	}
	for _, a := range gt {
		en = append(en, splitParagraphs(a.ArticleBody))
	}
	files, err := filepath.Glob(filepath.Join(zhCleaned, "*.txt"))
	if err != nil {
		tb.Fatal(err)
	}
	if len(files) == 0 {
		tb.Skipf("real pages absent (%s): skipping", zhCleaned)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			tb.Fatal(err)
		}
		zh = append(zh, splitParagraphs(string(b)))
	}
	return en, zh
}

func splitParagraphs(s string) []string {
	var out []string
	for _, p := range strings.Split(s, "\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func pageBytes(p []string) int {
	n := 0
	for _, s := range p {
		n += len(s)
	}
	return n
}

// BenchmarkAnalyze analyses real pages, with the terms by name (Terms)
// and by hash (WithTermHashes, the dedup filter's).
func BenchmarkAnalyze(b *testing.B) {
	en, zh := realPages(b)
	names, err := New(DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		pages [][]string
	}{{"en", en}, {"zh", zh}} {
		for _, a := range []struct {
			name string
			a    *Analyzer
		}{{"names", names}, {"hashes", names.WithTermHashes()}} {
			b.Run(c.name+"/"+a.name, func(b *testing.B) {
				total := 0
				for _, p := range c.pages {
					total += pageBytes(p)
				}
				b.SetBytes(int64(total / len(c.pages)))
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; b.Loop(); i++ {
					a.a.Analyze(c.pages[i%len(c.pages)])
				}
				b.ReportMetric(float64(total)/float64(len(c.pages)), "B/page")
			})
		}
	}
}

// TestAppendWordsRealPages checks the segmentation shortcuts against the
// segmenter alone on real text.
func TestAppendWordsRealPages(t *testing.T) {
	en, zh := realPages(t)
	for _, p := range append(en, zh...) {
		text := AppendNormalized(nil, strings.Join(p, "\n"))
		if got, want := appendWords(nil, text, nil), segmentWords(text); !slices.Equal(got, want) {
			t.Errorf("appendWords differs from the segmenter on %.60q...: %d words, want %d", text, len(got), len(want))
		}
	}
}

// BenchmarkAppendNormalized isolates normalisation, which runs on every
// page, from the rest of Analyze.
func BenchmarkAppendNormalized(b *testing.B) {
	en, zh := realPages(b)
	for _, c := range []struct {
		name  string
		pages [][]string
	}{{"en", en}, {"zh", zh}} {
		texts := make([]string, len(c.pages))
		total := 0
		for i, p := range c.pages {
			texts[i] = strings.Join(p, "\n")
			total += len(texts[i])
		}
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(total / len(texts)))
			b.ReportAllocs()
			var buf []byte
			for i := 0; b.Loop(); i++ {
				buf = AppendNormalized(buf[:0], texts[i%len(texts)])
			}
		})
	}
}
