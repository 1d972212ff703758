package extract

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/internal/testkit/extracttest"
)

// evalSet is a set Native is measured on and its F1 bound.
type evalSet struct {
	name    string
	load    func(testing.TB) []extracttest.Sample
	heldOut bool
	min     float64
}

// The sets Native is measured on, and whether its weights and rules were
// tuned on them. L3S-GN1 is held out: no change is decided on its pages,
// it is only reported (docs/bench/2026-12-06-extraction-heldout.md). The
// bounds are the figures measured on 2026-12-06 less about 0.005, to
// catch regressions.
var evalSets = []evalSet{
	{"en", extracttest.LoadEN, false, 0.97},
	{"zh", extracttest.LoadZH, false, 0.95},
	{"readability", extracttest.LoadReadability, false, 0.95},
	{"dragnet", extracttest.LoadDragnet, false, 0.90},
	{"l3s-gn1", extracttest.LoadL3S, true, 0.93},
}

// TestHeldout reports Native's shingle precision, recall and F1 and its
// CPU time a page on every set, tuned-on and held-out, and fails below a
// set's bound. Sets kept apart from ../shared/data (dragnet, l3s-gn1) are
// skipped where absent.
func TestHeldout(t *testing.T) {
	if testing.Short() {
		t.Skip("extracts 2,400 pages")
	}
	for _, s := range evalSets {
		t.Run(s.name, func(t *testing.T) {
			r := extracttest.Evaluate(t.Context(), s.load(t), DefaultOptions().FromPageContext)
			role := "tuned-on"
			if s.heldOut {
				role = "held-out"
			}
			t.Logf("%-12s %-8s %5d pages  P %.4f  R %.4f  F1 %.4f  %.2f ms CPU/page", s.name, role, len(r.Pages), r.P, r.R, r.F1, float64(r.CPUPerPage.Microseconds())/1000)
			if r.F1 < s.min {
				t.Errorf("F1 = %.4f, want >= %.3f", r.F1, s.min)
			}
		})
	}
}

// TestLosses lists the pages of a tuning set where Native loses most F1,
// with the lines it added and missed, for classifying its losses: set
// EXTRACT_LOSSES to the set's name (never a held-out one) and the number
// of pages, "dragnet:40".
func TestLosses(t *testing.T) {
	name, nText, _ := strings.Cut(os.Getenv("EXTRACT_LOSSES"), ":")
	if name == "" {
		t.Skip("EXTRACT_LOSSES not set")
	}
	n := 30
	if nText != "" {
		if _, err := fmt.Sscan(nText, &n); err != nil {
			t.Fatalf("EXTRACT_LOSSES %q: %v", nText, err)
		}
	}
	i := slices.IndexFunc(evalSets, func(s evalSet) bool { return s.name == name })
	if i < 0 || evalSets[i].heldOut {
		t.Fatalf("EXTRACT_LOSSES: %q is not a tuning set", name)
	}
	r := extracttest.Evaluate(t.Context(), evalSets[i].load(t), DefaultOptions().FromPageContext)
	slices.SortFunc(r.Pages, func(a, b extracttest.PageScore) int { return cmp.Compare(a.F1, b.F1) })
	lost := 0.0
	for _, p := range r.Pages {
		lost += 1 - p.F1
	}
	t.Logf("%d pages, F1 %.4f, lost F1 (sum of 1-F1 over pages) %.1f", len(r.Pages), r.F1, lost)
	shares := map[lossClass]float64{}
	for _, p := range r.Pages {
		for c, l := range classifyLoss(p) {
			shares[c] += l / lost
		}
	}
	for c := range lossClass(numLossClasses) {
		t.Logf("%5.1f%%  %s", 100*shares[c], c)
	}
	for _, p := range r.Pages[:min(n, len(r.Pages))] {
		extra, missing := extracttest.Diff(p.Got, p.Gold)
		t.Logf("== %s: F1 %.3f (P %.3f R %.3f), %.1f%% of the lost F1", p.Name, p.F1, p.P, p.R, 100*(1-p.F1)/lost)
		for _, l := range extra {
			t.Logf("  + %4d %s", l.Unmatched, clip(l.Line, 160))
		}
		for _, l := range missing {
			t.Logf("  - %4d %s", l.Unmatched, clip(l.Line, 160))
		}
	}
}

// lossClass is a kind of loss of F1 on a page, told from the extracted
// and the gold text alone.
type lossClass int

const (
	// The page's result missed its article (F1 < 0.3):
	shortPost   lossClass = iota // a post of under 40 gold tokens, beside longer sidebar prose
	nothingKept                  // under 10 tokens kept: the article was taken for a box or a link list
	otherText                    // another text kept: an author's bio, an "about" box, another post
	// Lines lost or added on a page whose article was found:
	missingDate  // a date or byline line among the gold's first three
	missingHead  // another of them: headline, standfirst
	missingShort // a line of under 8 tokens: caption, sub-heading, list item, credit
	missingLong  // a longer paragraph: part of the article left out
	extraShort   // an added line of under 8 tokens: label, date, button, caption
	extraLong    // an added longer line: comments, bio, teaser, related text
	partialLines // lines matched in part, and the rounding of the above
	numLossClasses
)

func (c lossClass) String() string {
	return [...]string{
		"missed article: short post beside longer sidebar prose",
		"missed article: (almost) nothing kept",
		"missed article: other text kept (bio, about box, other post)",
		"missing date/byline line (among gold's first three lines)",
		"missing headline/standfirst (other of gold's first three lines)",
		"missing short line (< 8 tokens): caption, sub-heading, list item",
		"missing paragraph (>= 8 tokens)",
		"extra short line (< 8 tokens): label, date, button",
		"extra long line: comments, bio, teaser, related",
		"partly matched lines and remainder",
	}[c]
}

// dateOrByline matches a line that holds a date or starts as a byline.
var dateOrByline = regexp.MustCompile(`(?i)\b(19|20)\d\d\b|\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d|\d\d?:\d\d|^\s*(by|posted|written|published|updated|last updated)\b`)

// missHeaderLines is how many of the gold's first lines count as its
// header (headline, date, byline).
const missHeaderLines = 3

// classifyLoss splits a page's lost F1 (1-F1) between loss classes: all
// to one class when the article was missed, else between precision and
// recall in proportion to 1-P and 1-R, and on each side between the
// unmatched lines' classes in proportion to their unmatched shingles.
func classifyLoss(p extracttest.PageScore) map[lossClass]float64 {
	loss := 1 - p.F1
	out := map[lossClass]float64{}
	if loss <= 0 {
		return out
	}
	words := func(s string) int { return len(strings.Fields(s)) }
	if p.F1 < 0.3 {
		switch {
		case words(p.Gold) < 40:
			out[shortPost] = loss
		case words(p.Got) < 10:
			out[nothingKept] = loss
		default:
			out[otherText] = loss
		}
		return out
	}
	extra, missing := extracttest.Diff(p.Got, p.Gold)
	var header []string
	for line := range strings.SplitSeq(p.Gold, "\n") {
		if l := strings.TrimSpace(line); l != "" && len(header) < missHeaderLines {
			header = append(header, l)
		}
	}
	side := func(lines []extracttest.LineLoss, share float64, short, long lossClass, isMissing bool) {
		total := 0
		for _, l := range lines {
			total += l.Unmatched
		}
		if total == 0 {
			out[partialLines] += share
			return
		}
		for _, l := range lines {
			c := long
			switch {
			case isMissing && slices.Contains(header, strings.TrimSpace(l.Line)) && dateOrByline.MatchString(l.Line):
				c = missingDate
			case isMissing && slices.Contains(header, strings.TrimSpace(l.Line)):
				c = missingHead
			case words(l.Line) < 8:
				c = short
			}
			out[c] += share * float64(l.Unmatched) / float64(total)
		}
	}
	lp, lr := 1-p.P, 1-p.R
	side(extra, loss*lp/(lp+lr), extraShort, extraLong, false)
	side(missing, loss*lr/(lp+lr), missingShort, missingLong, true)
	return out
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// TestSiteSplit tunes Native's weights (native.go) and Options.TitleAnchor
// on half of extract/en's sites and reports the result on the other half,
// then the other way round: how much a value chosen on some sites is worth
// on sites it was not chosen on. Sites go to halves by a hash of their
// host, so that no site's template is on both sides. It reports and
// guards nothing, and extracts extract/en 162 times (a minute of CPU), so
// it runs only with EXTRACT_SITESPLIT set.
func TestSiteSplit(t *testing.T) {
	if os.Getenv("EXTRACT_SITESPLIT") == "" {
		t.Skip("EXTRACT_SITESPLIT not set")
	}
	samples := extracttest.LoadEN(t)
	half := func(s extracttest.Sample) int {
		h := fnv.New32a()
		h.Write([]byte(s.Site()))
		return int(h.Sum32() % 2)
	}
	type trial struct {
		w      weights
		anchor bool
		f1     [2]float64
	}
	var trials []trial
	for _, bc := range []int{5, 10, 20} {
		for _, lc := range []int{1, 2, 3} {
			for _, tg := range []float64{0.8, 0.85, 0.9} {
				for _, mc := range []int{-200, -100, -50} {
					for _, anchor := range []bool{true, false} {
						w := defaultWeights
						w.blockCost, w.linkCost, w.tighten, w.minChildScore = bc, lc, tg, mc
						o := DefaultOptions()
						o.native, o.TitleAnchor = &w, anchor
						r := extracttest.Evaluate(t.Context(), samples, o.FromPageContext)
						var parts [2][]extracttest.PageScore
						for _, p := range r.Pages {
							parts[half(p.Sample)] = append(parts[half(p.Sample)], p)
						}
						tr := trial{w: w, anchor: anchor}
						for h := range parts {
							_, _, tr.f1[h] = extracttest.Summarize(parts[h])
						}
						trials = append(trials, tr)
					}
				}
			}
		}
	}
	desc := func(tr trial) string {
		return fmt.Sprintf("blockCost %d linkCost %d tighten %.2f minChildScore %d TitleAnchor %v", tr.w.blockCost, tr.w.linkCost, tr.w.tighten, tr.w.minChildScore, tr.anchor)
	}
	def := slices.IndexFunc(trials, func(tr trial) bool { return tr.w == defaultWeights && tr.anchor })
	var n [2]int
	for _, s := range samples {
		n[half(s)]++
	}
	t.Logf("halves: A %d pages, B %d pages; defaults (%s): A %.4f, B %.4f", n[0], n[1], desc(trials[def]), trials[def].f1[0], trials[def].f1[1])
	for h, name := range []string{"A", "B"} {
		o := 1 - h
		best := slices.MaxFunc(trials, func(a, b trial) int { return cmp.Compare(a.f1[h], b.f1[h]) })
		t.Logf("tuned on %s: %s: %s %.4f, other half %.4f (defaults there %.4f)", name, desc(best), name, best.f1[h], best.f1[o], trials[def].f1[o])
	}
}
