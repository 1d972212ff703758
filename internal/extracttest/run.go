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

// score extracts every sample and returns averaged precision, recall, F1.
func score[C Texter](ctx context.Context, samples []Sample, x Extractor[C]) (p, r, f1 float64) {
	var s scorer
	for _, smp := range samples {
		c, _ := x(ctx, smp.page()) // an empty result just scores 0
		s.add(c.Text(), smp.Gold)
	}
	return s.prf()
}

// F1 scores x on the English and Chinese extraction benchmarks (subtests
// en and zh) and fails when its F1 is below minEN or minZH.
func F1[C Texter](t *testing.T, x Extractor[C], minEN, minZH float64) {
	if testing.Short() {
		t.Skip("extracts 250 pages")
	}
	for _, tt := range []struct {
		lang string
		load func(testing.TB) []Sample
		min  float64
	}{
		{"en", LoadEN, minEN},
		{"zh", LoadZH, minZH},
	} {
		t.Run(tt.lang, func(t *testing.T) {
			p, r, f1 := score(t.Context(), tt.load(t), x)
			t.Logf("%s: precision %.4f recall %.4f F1 %.4f", tt.lang, p, r, f1)
			if f1 < tt.min {
				t.Errorf("%s F1 = %.4f, want >= %.2f", tt.lang, f1, tt.min)
			}
		})
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
