package extracttest

import (
	"context"
	"testing"
	"time"

	"github.com/bleve-dedup/bleve-dedup/page"
)

// Texter is the extracted content: extract.Content.
type Texter interface{ Text() string }

// Extractor extracts a page's main content: extract.Options.FromPageContext
// with the engine under test.
type Extractor[C Texter] func(context.Context, page.Page) (C, error)

// F1 scores x on the English and Chinese extraction benchmarks (subtests
// en and zh) and fails when its F1 is below minEN or minZH.
func F1[C Texter](t *testing.T, x Extractor[C], minEN, minZH float64) {
	if testing.Short() {
		t.Skip("extracts 250 pages")
	}
	t.Run("en", func(t *testing.T) { f1(t, LoadEN, x, minEN) })
	t.Run("zh", func(t *testing.T) { f1(t, LoadZH, x, minZH) })
}

// F1Readability scores x on extract/readability, varied pages in several
// languages, and fails when its F1 is below min. It logs the pages that
// score an F1 under 0.8, with their precision and recall.
func F1Readability[C Texter](t *testing.T, x Extractor[C], min float64) {
	if testing.Short() {
		t.Skip("extracts 130 pages")
	}
	f1(t, LoadReadability, x, min)
}

// f1 scores x on the samples load returns and fails below min.
func f1[C Texter](t *testing.T, load func(testing.TB) []Sample, x Extractor[C], min float64) {
	var s scorer
	for _, smp := range load(t) {
		c, err := x(t.Context(), smp.page()) // an empty result just scores 0
		pp, pr := pageScore(c.Text(), smp.Gold)
		if pf := harmonic(pp, pr); pf < 0.8 {
			t.Logf("%s: F1 %.3f (precision %.3f recall %.3f) err %v", smp.Name, pf, pp, pr, err)
		}
		s.p, s.r, s.n = s.p+pp, s.r+pr, s.n+1
	}
	p, r, f := s.prf()
	t.Logf("%d pages: precision %.4f recall %.4f F1 %.4f", s.n, p, r, f)
	if f < min {
		t.Errorf("F1 = %.4f, want >= %.3f", f, min)
	}
}

// Neardup scores x on the reprinted pages of the near-duplicate corpus
// against the article each reprints, and fails below minPrecision or
// minRecall or when more than 1% of the pages miss their article. The
// copies are edited (a few words changed, paragraphs merged), so even a
// perfect extractor scores below 1 there; the thresholds guard against
// regressions.
func Neardup[C Texter](t *testing.T, x Extractor[C], minPrecision, minRecall float64) {
	if testing.Short() {
		t.Skip("extracts 1,900 pages")
	}
	pages := LoadNeardup(t)
	gold := neardupGold(t)
	var s scorer
	empty, missed := 0, 0
	for _, p := range pages {
		want, ok := gold[copySuffix.ReplaceAllString(p.ID, "")]
		if !ok {
			t.Fatalf("%s: no article for this id", p.ID)
		}
		c, err := x(t.Context(), p)
		if err != nil {
			empty++
		}
		if _, r := pageScore(c.Text(), want); r < 0.2 {
			missed++ // article not found: empty or template-only output
		}
		s.add(c.Text(), want)
	}
	prec, rec, f1 := s.prf()
	t.Logf("%d pages: precision %.4f recall %.4f F1 %.4f; %d empty, %d with recall < 0.2", len(pages), prec, rec, f1, empty, missed)
	if prec < minPrecision || rec < minRecall || missed > len(pages)/100 {
		t.Errorf("precision %.4f, recall %.4f (want >= %.3f, %.3f), %d pages missed (want <= %d)", prec, rec, minPrecision, minRecall, missed, len(pages)/100)
	}
}

// reportCPU reports the process's CPU time per page since start
// (cpu-ms/page), which other loads on the machine do not inflate as they
// do pages/s.
func reportCPU(b *testing.B, start time.Duration, pages int) {
	b.ReportMetric(float64((CPUTime()-start).Microseconds())/1000/float64(pages), "cpu-ms/page")
}

// BenchmarkF1 extracts the samples with x, named engine, in one
// goroutine, and reports the F1 of the result (scored after the timer).
func BenchmarkF1[C Texter](b *testing.B, load func(testing.TB) []Sample, engine string, x Extractor[C]) {
	samples := load(b)
	b.Run(engine, func(b *testing.B) {
		texts := make([]string, len(samples))
		b.ReportAllocs()
		start := CPUTime()
		for b.Loop() {
			for i, smp := range samples {
				c, _ := x(b.Context(), smp.page())
				texts[i] = c.Text()
			}
		}
		b.ReportMetric(float64(b.N*len(samples))/b.Elapsed().Seconds(), "pages/s")
		reportCPU(b, start, b.N*len(samples))
		var s scorer
		for i, smp := range samples {
			s.add(texts[i], smp.Gold)
		}
		_, _, f1 := s.prf()
		b.ReportMetric(f1, "f1")
	})
}

// BenchmarkNeardup measures extraction speed on the near-duplicate corpus
// with x, named engine, in one goroutine, and reports how many pages came
// out empty.
func BenchmarkNeardup[C Texter](b *testing.B, engine string, x Extractor[C]) {
	pages := LoadNeardup(b)
	b.Run(engine, func(b *testing.B) {
		b.ReportAllocs()
		start := CPUTime()
		empty := 0
		for b.Loop() {
			empty = 0
			for _, p := range pages {
				if _, err := x(b.Context(), p); err != nil {
					empty++
				}
			}
		}
		b.ReportMetric(float64(b.N*len(pages))/b.Elapsed().Seconds(), "pages/s")
		reportCPU(b, start, b.N*len(pages))
		b.ReportMetric(float64(empty), "empty")
	})
}
