package extract

import (
	"context"
	"slices"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/internal/testkit/extracttest"
)

// The bounds of TestF1 and TestNeardup are the Trafilatura engine's
// figures, which Native must not fall below (it scores 0.975, 0.956 and
// 0.956/0.964); package extract/trafilatura's tests guard that engine's.

func TestF1(t *testing.T) {
	extracttest.F1(t, DefaultOptions().FromPageContext, 0.96, 0.92)
}

func TestNeardup(t *testing.T) {
	extracttest.Neardup(t, DefaultOptions().FromPageContext, 0.948, 0.96)
}

func BenchmarkF1EN(b *testing.B) {
	extracttest.BenchmarkF1(b, extracttest.LoadEN, Native.String(), DefaultOptions().FromPageContext)
}

func BenchmarkF1ZH(b *testing.B) {
	extracttest.BenchmarkF1(b, extracttest.LoadZH, Native.String(), DefaultOptions().FromPageContext)
}

func BenchmarkNeardup(b *testing.B) {
	extracttest.BenchmarkNeardup(b, Native.String(), DefaultOptions().FromPageContext)
}

// BenchmarkNarrow measures title-anchored narrowing alone (reading the
// page and the engine are done before the timer) on the near-duplicate
// corpus, and reports the share of pages it narrowed.
func BenchmarkNarrow(b *testing.B) {
	type input struct {
		t          *tree
		extracted  []string
		first, end int32
	}
	o := DefaultOptions()
	o.TitleAnchor = false
	var in []input
	for _, p := range extracttest.LoadNeardup(b) {
		t, err := buildTree(context.Background(), p.HTML)
		if err != nil {
			b.Fatal(err)
		}
		c, _ := o.HTML(p.HTML, p.URL)
		_, first, end := t.mainBlocks()
		in = append(in, input{t, c.Paragraphs, first, end})
	}
	b.ReportAllocs()
	b.ResetTimer()
	narrowed := 0
	for range b.N {
		narrowed = 0
		for _, x := range in {
			if !slices.Equal(narrow(x.t, x.extracted, x.first, x.end), x.extracted) {
				narrowed++
			}
		}
	}
	b.ReportMetric(float64(b.N*len(in))/b.Elapsed().Seconds(), "pages/s")
	b.ReportMetric(float64(narrowed)/float64(len(in)), "narrowed")
}

// TestF1Readability guards Native's figure on extract/readability
// (0.955).
func TestF1Readability(t *testing.T) {
	extracttest.F1Readability(t, DefaultOptions().FromPageContext, 0.95)
}

func BenchmarkF1Readability(b *testing.B) {
	extracttest.BenchmarkF1(b, extracttest.LoadReadability, Native.String(), DefaultOptions().FromPageContext)
}

// BenchmarkF1Dragnet and BenchmarkF1L3S measure Native on the sets kept
// apart from ../shared/data (see TestHeldout); they skip where absent.
func BenchmarkF1Dragnet(b *testing.B) {
	extracttest.BenchmarkF1(b, extracttest.LoadDragnet, Native.String(), DefaultOptions().FromPageContext)
}

func BenchmarkF1L3S(b *testing.B) {
	extracttest.BenchmarkF1(b, extracttest.LoadL3S, Native.String(), DefaultOptions().FromPageContext)
}
