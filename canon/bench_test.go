package canon

import (
	"net/url"
	"testing"
)

func BenchmarkURL(b *testing.B) {
	base, _ := url.Parse("http://example.com/dir/page.html")
	refs := []string{"../a/./b?z=1&utm_source=x&a=2#f", "HTTP://Example.COM:80/%7euser", "/wiki/%E9%B2%A4%E9%B1%BC", "other.html", "index.html"}
	b.ReportAllocs()
	for b.Loop() {
		for _, r := range refs {
			if _, err := URL(base, r, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*len(refs))/b.Elapsed().Seconds(), "urls/s")
}
