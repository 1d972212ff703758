package crawler

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testweb"
	"github.com/bleve-dedup/bleve-dedup/relevance"
	"github.com/bleve-dedup/bleve-dedup/warcout"
)

// BenchmarkCrawl crawls 300 pages of the loopback test web, best-first
// with learning, indexing the relevant ones into a real index, with 1, 4
// and 16 workers. It reports pages/s and the peak Go heap in use.
//
//	go test -run XXX -bench BenchmarkCrawl -benchtime 3x ./crawler/
func BenchmarkCrawl(b *testing.B) {
	rw := loadRealWeb(b, testweb.Options{Seed: harvestWebSeed})
	_, prof := rw.topic(b, "rail", 0)
	for _, workers := range []int{1, 4, 16} {
		for _, index := range []bool{true, false} {
			b.Run(fmt.Sprintf("workers=%d/index=%v", workers, index), func(b *testing.B) {
				benchCrawl(b, rw, prof, workers, index, false)
			})
		}
	}
}

// BenchmarkCrawlWARC is BenchmarkCrawl's 4 workers with an index,
// without and with every exchange archived (warcout, gzipped): pages/s
// of both in one run, and the archive's bytes per page fetched.
//
//	go test -run XXX -bench BenchmarkCrawlWARC -benchtime 3x -count 3 ./crawler/
func BenchmarkCrawlWARC(b *testing.B) {
	rw := loadRealWeb(b, testweb.Options{Seed: harvestWebSeed})
	_, prof := rw.topic(b, "rail", 0)
	for _, warc := range []bool{false, true} {
		b.Run(fmt.Sprintf("warc=%v", warc), func(b *testing.B) {
			benchCrawl(b, rw, prof, 4, true, warc)
		})
	}
}

func benchCrawl(b *testing.B, rw *realWeb, prof *relevance.Profile, workers int, index, warc bool) {
	b.ReportAllocs()
	var pages int
	var elapsed time.Duration
	var peak uint64
	var warcBytes int64
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		o := testOptions(b, rw.base+"/", prof)
		o.Dir = dir + "/crawl"
		o.Workers, o.MaxPages = workers, harvestBudget
		var ix *indexer.Index
		if index {
			var err error
			if ix, err = indexer.Open(dir, indexer.Options{}); err != nil {
				b.Fatal(err)
			}
			feed, err := ix.Feed(context.Background(), indexer.DefaultRunOptions())
			if err != nil {
				b.Fatal(err)
			}
			defer feed.Close()
			o.Index = feed
		}
		var rec *warcout.Recorder
		if warc {
			var err error
			if rec, err = warcout.Open(dir+"/crawl.warc.gz", warcout.DefaultOptions()); err != nil {
				b.Fatal(err)
			}
			o.Recorder = rec
		}
		c, err := New(o)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		stop := sampleHeap(&peak)
		b.StartTimer()
		sum, err := c.Run(context.Background())
		b.StopTimer()
		stop()
		if err != nil {
			b.Fatal(err)
		}
		pages += sum.RunFetched
		elapsed += sum.Elapsed
		if rec != nil {
			if err := errors.Join(rec.Close(), rec.Err()); err != nil {
				b.Fatal(err)
			}
			warcBytes += rec.Stats().Bytes
		}
		c.Close()
		if ix != nil {
			ix.Close()
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(pages)/elapsed.Seconds(), "pages/s")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	if warc {
		b.ReportMetric(float64(warcBytes)/float64(pages), "warc-bytes/page")
	}
}

// sampleHeap records the largest heap (live and unswept objects) seen
// every 5 ms into peak until the returned function is called. It reads
// runtime/metrics, which, unlike ReadMemStats, does not stop the world.
func sampleHeap(peak *uint64) (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for !done.Load() {
			metrics.Read(s)
			*peak = max(*peak, s[0].Value.Uint64())
			time.Sleep(5 * time.Millisecond)
		}
	})
	return func() { done.Store(true); wg.Wait() }
}

func BenchmarkParseLinks(b *testing.B) {
	var page strings.Builder
	page.WriteString("<html><body><article><p>text</p></article><ul>")
	for i := range 200 {
		fmt.Fprintf(&page, `<li><a href="/p/%d?x=1">Link number %d</a></li>`, i, i)
	}
	page.WriteString("</ul></body></html>")
	html := page.String()
	b.SetBytes(int64(len(html)))
	b.ReportAllocs()
	for b.Loop() {
		links, _ := parseLinks(strings.NewReader(html), 500)
		siblingAnchors(links)
	}
}
