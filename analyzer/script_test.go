package analyzer_test

import (
	"testing"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/extract"
	"github.com/bleve-dedup/bleve-dedup/page"
)

// TestTraditionalReprint reads a simplified article (UTF-8) and its
// traditional-script reprint (Big5) through the real pipeline and checks
// that their features now nearly agree. Without script folding the two
// pages share 0.16 of their MinHash slots and 0.26 of their pieces.
func TestTraditionalReprint(t *testing.T) {
	a, err := analyzer.New(analyzer.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	simplified := analyzePage(t, a, "../testdata/pages/zh/hedong-news/library-night.html")
	traditional := analyzePage(t, a, "../testdata/pages/zh/tw-mirror/library-night.html")

	minhash := equalFraction(simplified.MinHash, traditional.MinHash)
	pieces := jaccard(simplified.Pieces, traditional.Pieces)
	t.Logf("MinHash slots equal %.3f, piece Jaccard %.3f", minhash, pieces)
	if minhash < 0.8 || pieces < 0.8 {
		t.Errorf("simplified vs traditional reprint: MinHash %.3f, pieces %.3f; want both >= 0.8", minhash, pieces)
	}
}

// analyzePage reads the one page at path, extracts its main text and
// analyses it.
func analyzePage(tb testing.TB, a *analyzer.Analyzer, path string) *analyzer.Features {
	tb.Helper()
	var f *analyzer.Features
	for p, err := range page.Read([]string{path}, page.DefaultOptions()) {
		if err != nil {
			tb.Fatal(err)
		}
		c, err := extract.FromPage(p)
		if err != nil {
			tb.Fatalf("%s: %v", path, err)
		}
		f = a.Analyze(c.Paragraphs)
	}
	if f == nil {
		tb.Fatalf("%s: no page read", path)
	}
	return f
}

func equalFraction(a, b []uint64) float64 {
	eq := 0
	for i := range a {
		if a[i] == b[i] {
			eq++
		}
	}
	return float64(eq) / float64(len(a))
}

// jaccard is the Jaccard similarity of the sets of a and b.
func jaccard(a, b []string) float64 {
	set := make(map[string]int, len(a))
	for _, s := range a {
		set[s] |= 1
	}
	for _, s := range b {
		set[s] |= 2
	}
	both := 0
	for _, v := range set {
		if v == 3 {
			both++
		}
	}
	return float64(both) / float64(len(set))
}
