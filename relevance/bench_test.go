package relevance

import (
	"strings"
	"testing"
)

// benchPage is a mixed Chinese/English page of about 6 KB, a typical
// article body.
var benchPage = strings.Repeat("广茂铁路是中国广东省一条起自广州市广州西站的铁路，全长364.6公里。"+
	"The railway station opened in 2009 and serves the metro line. ", 40)

func BenchmarkScore(b *testing.B) {
	p := mustProfile(b, map[string]float64{"铁路": 1, "车站": 0.8, "地铁": 0.8, "railway": 1, "station": 0.5}, DefaultOptions())
	b.ReportAllocs()
	b.SetBytes(int64(len(benchPage)))
	for b.Loop() {
		p.Score("广茂铁路", benchPage)
	}
}

func BenchmarkLinkValue(b *testing.B) {
	s := newScorer(b)
	l := Link{
		URL:             "https://example.com/sport/2019/11/football-league-table.html",
		Anchor:          "Football league table",
		Siblings:        []string{"Results", "Fixtures", "League news", "Transfers", "Women's football"},
		ParentRelevance: 0.7,
	}
	b.ReportAllocs()
	for b.Loop() {
		s.Value(l)
	}
}
