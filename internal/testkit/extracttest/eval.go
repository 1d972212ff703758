package extracttest

import (
	"context"
	"strings"
	"time"
)

// PageScore is one page's shingle precision, recall and F1, with the text
// extracted from it.
type PageScore struct {
	Sample
	Got      string
	P, R, F1 float64
}

// Result is an extractor's score on a set of samples: precision and
// recall averaged over pages, their F1, and the CPU time of one
// extraction.
type Result struct {
	Pages      []PageScore
	P, R, F1   float64
	CPUPerPage time.Duration
}

// Evaluate extracts every sample with x in this goroutine and scores it as
// F1 and BenchmarkF1 do. CPUPerPage is the process's CPU time over the
// extractions divided by their number, so other goroutines of the
// process (and of parallel tests) inflate it.
func Evaluate[C Texter](ctx context.Context, samples []Sample, x Extractor[C]) Result {
	var r Result
	start := CPUTime()
	got := make([]string, len(samples))
	for i, smp := range samples {
		c, _ := x(ctx, smp.page()) // an empty result just scores 0
		got[i] = c.Text()
	}
	if len(samples) > 0 {
		r.CPUPerPage = (CPUTime() - start) / time.Duration(len(samples))
	}
	for i, smp := range samples {
		p, rec := pageScore(got[i], smp.Gold)
		r.Pages = append(r.Pages, PageScore{Sample: smp, Got: got[i], P: p, R: rec, F1: harmonic(p, rec)})
	}
	r.P, r.R, r.F1 = Summarize(r.Pages)
	return r
}

// Summarize returns the averaged precision and recall of pages and the F1
// of those averages: a subset's figures, as Evaluate's.
func Summarize(pages []PageScore) (p, r, f1 float64) {
	var s scorer
	for _, pg := range pages {
		s.p, s.r, s.n = s.p+pg.P, s.r+pg.R, s.n+1
	}
	return s.prf()
}

// Diff returns the lines of got that are mostly not in want (their
// shingles, as counted by the score: what lowers precision) and the lines
// of want mostly not in got (what lowers recall), each with its number of
// unmatched shingles, for reading where an extractor loses.
func Diff(got, want string) (extra, missing []LineLoss) {
	return unmatched(got, shingles(want)), unmatched(want, shingles(got))
}

// LineLoss is a line of text and its shingles not found on the other side.
type LineLoss struct {
	Line      string
	Unmatched int
}

// unmatched returns the lines of text more than half of whose shingles
// other lacks, consuming other's counts as it matches.
func unmatched(text string, other map[string]int) []LineLoss {
	var out []LineLoss
	for line := range strings.SplitSeq(text, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		sh := shingles(line)
		total, miss := 0, 0
		for k, n := range sh {
			total += n
			have := min(n, other[k])
			other[k] -= have
			miss += n - have
		}
		if total > 0 && 2*miss > total {
			out = append(out, LineLoss{Line: line, Unmatched: miss})
		}
	}
	return out
}
