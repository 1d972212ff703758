package indexer

import (
	"testing"

	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testtext"
)

// TestSiteTemplateTextOption: by default a site's template text is left
// out (package dedupfilter's Decider tests how); with KeepSiteText pages
// are analysed whole, and pages of one template look alike.
func TestSiteTemplateTextOption(t *testing.T) {
	head, tail := testtext.Template("Site A")
	for _, tt := range []struct {
		keep, sameCluster bool
	}{
		{false, false},
		{true, true},
	} {
		opts := Options{}
		opts.KeepSiteText = tt.keep
		ix := openWith(t, []Document{
			{ID: "a1", URL: "https://a.example/1", Paragraphs: append(append(append([]string{}, head...), testtext.Article("river", 1)...), tail...)},
			{ID: "a2", URL: "https://a.example/2", Paragraphs: append(append(append([]string{}, head...), testtext.Article("bridge", 1)...), tail...)},
		}, opts)
		c1, _ := ix.Filter().ClusterOf("a1")
		c2, _ := ix.Filter().ClusterOf("a2")
		if got := c1.ID == c2.ID; got != tt.sameCluster {
			t.Errorf("KeepSiteText %v: a1 and a2 in one cluster = %v, want %v", tt.keep, got, tt.sameCluster)
		}
	}
}

func openWith(tb testing.TB, docs []Document, opts Options) *Index {
	tb.Helper()
	ix, err := Open(tb.TempDir(), opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ix.Close() })
	if _, err := batchDocs(ix, docs); err != nil {
		tb.Fatal(err)
	}
	return ix
}
