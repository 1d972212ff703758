package dedupfilter

import (
	"testing"

	"github.com/bleve-dedup/bleve-dedup/similarity"
)

// TestCompareRealText: the default measures and thresholds on reprints of
// the test corpus's articles, as the filter verifies them.
func TestCompareRealText(t *testing.T) {
	a := testAnalyzer(t)
	c := newCorpus(7)
	orig := c.article(5)
	tests := []struct {
		name string
		text []string
		dup  bool
	}{
		{"identical", orig, true},
		{"3% words changed", c.reprint(orig, 0.03, false), true},
		{"last paragraph dropped", c.reprint(orig, 0, true), true},
		{"unrelated", c.article(5), false},
		{"one paragraph quoted", orig[:1], false},
	}
	for _, tt := range tests {
		v := similarity.CompareFeatures(a.Analyze(orig), a.Analyze(tt.text), DefaultOptions().Options)
		if v.Duplicate != tt.dup {
			t.Errorf("%s: dup = %v (votes %d, %v), want %v", tt.name, v.Duplicate, v.Votes, v.Scores, tt.dup)
		}
	}
}
