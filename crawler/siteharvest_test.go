package crawler

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/relevance"
)

// siteVariant is one crawler set-up of the real-page harvest measurement.
type siteVariant struct {
	name     string
	strategy Strategy
	paper    bool // score with the topic-crawler paper's α = 4, r = 0.4
}

var siteVariants = []siteVariant{
	{"breadth-first", BreadthFirst, false},
	{"best-first, α = 4, r = 0.4", BestFirst, true},
	{"best-first, defaults", BestFirst, false},
}

// TestSiteHarvest crawls the real-page web from its home page for every
// topic, hand-written and learnt, and counts the labelled relevant pages
// among the first 50 and 100 fetches and in the 300 of the budget, with
// how many of those the crawl judged relevant.
//
//	CRAWL_EVAL=1 go test -run TestSiteHarvest -v ./crawler/
func TestSiteHarvest(t *testing.T) {
	if os.Getenv("CRAWL_EVAL") == "" {
		t.Skip("set CRAWL_EVAL=1 (about two minutes)")
	}
	sw := loadSite(t)
	var b strings.Builder
	b.WriteString("| topic | pages | strategy | found in 50 | in 100 | in 300 | judged relevant of those 300 | judged, not labelled |\n|---|---|---|---|---|---|---|---|\n")
	sums := make([][5]int, len(siteVariants))
	for _, tp := range sw.profiles(t) {
		total := 0
		for _, p := range sw.site.Pages {
			if p.Topic == tp.topic {
				total++
			}
		}
		for vi, v := range siteVariants {
			o := relevance.DefaultOptions()
			if v.paper {
				o.TitleWeight, o.Threshold = 4, 0.4
			}
			co := testOptions(t, sw.base+"/", tp.profile(t, o))
			co.MaxPages, co.Workers, co.Strategy = harvestBudget, 1, v.strategy
			recs, _ := crawlRecords(t, co)
			var n [5]int // labelled in 50, 100, 300; judged among them; judged off-topic
			for i, r := range recs {
				p := sw.site.Page(strings.TrimPrefix(r.URL, sw.base))
				on := p != nil && p.Topic == tp.topic
				for k, at := range []int{50, 100, harvestBudget} {
					if on && i < at {
						n[k]++
					}
				}
				switch {
				case on && r.Relevant:
					n[3]++
				case r.Relevant:
					n[4]++
				}
			}
			for k := range n {
				sums[vi][k] += n[k]
			}
			fmt.Fprintf(&b, "| %v | %d | %s | %d | %d | %d | %d | %d |\n", tp, total, v.name, n[0], n[1], n[2], n[3], n[4])
		}
	}
	for vi, v := range siteVariants {
		s := sums[vi]
		fmt.Fprintf(&b, "| **sum** | | %s | %d | %d | %d | %d | %d |\n", v.name, s[0], s[1], s[2], s[3], s[4])
	}
	t.Logf("labelled relevant pages fetched, real-page web, budget %d, one worker:\n%s", harvestBudget, b.String())
}
