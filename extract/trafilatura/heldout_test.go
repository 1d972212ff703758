package trafilatura_test

import (
	"testing"

	"github.com/bleve-dedup/bleve-dedup/internal/testkit/extracttest"
)

// TestHeldout reports the Trafilatura engine's figures on the sets kept
// apart from ../shared/data (package extract's TestHeldout reports
// Native's), the comparison for Native's on data neither was tuned on.
// It fails only when an engine run returns nothing at all.
func TestHeldout(t *testing.T) {
	if testing.Short() {
		t.Skip("extracts 2,000 pages with go-trafilatura")
	}
	for _, s := range []struct {
		name string
		load func(testing.TB) []extracttest.Sample
	}{{"dragnet", extracttest.LoadDragnet}, {"l3s-gn1", extracttest.LoadL3S}} {
		t.Run(s.name, func(t *testing.T) {
			r := extracttest.Evaluate(t.Context(), s.load(t), options().FromPageContext)
			t.Logf("%-8s %5d pages  P %.4f  R %.4f  F1 %.4f  %.2f ms CPU/page", s.name, len(r.Pages), r.P, r.R, r.F1, float64(r.CPUPerPage.Microseconds())/1000)
			if r.F1 == 0 {
				t.Error("F1 = 0")
			}
		})
	}
}
