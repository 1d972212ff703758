// Command pageread reads inputs with page.Read alone (no extraction, no
// indexing) and reports what it yielded and how fast, so the reader's
// throughput and memory can be measured apart from the indexer's:
//
//	/usr/bin/time -v go run ./tools/pageread big.warc
package main

import (
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"
	"time"

	"github.com/bleve-dedup/bleve-dedup/page"
)

func main() {
	flag.Parse()
	if flag.NArg() == 0 {
		log.Fatal("usage: pageread INPUT...")
	}
	var size int64
	for _, in := range flag.Args() {
		if st, err := os.Stat(in); err == nil {
			size += st.Size()
		}
	}
	start := time.Now()
	pages, notHTML, status, corrupt, other := 0, 0, 0, 0, 0
	var text int64
	charsets := map[string]int{}
	var peakHeap uint64
	for p, err := range page.Read(flag.Args(), page.DefaultOptions()) {
		switch {
		case errors.Is(err, page.ErrNotHTML):
			notHTML++
		case errors.Is(err, page.ErrHTTPStatus):
			status++
		case errors.Is(err, page.ErrCorrupt):
			corrupt++
			fmt.Fprintln(os.Stderr, err)
		case err != nil:
			other++
		default:
			pages++
			text += int64(len(p.HTML) + len(p.Text))
			charsets[p.Charset+"/"+p.CharsetSource]++
		}
		if (pages+other)%1000 == 0 {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peakHeap = max(peakHeap, m.HeapInuse)
		}
	}
	el := time.Since(start).Seconds()
	fmt.Printf("pages %d, skipped %d non-HTML, %d non-2xx, corrupt %d, other errors %d\n", pages, notHTML, status, corrupt, other)
	fmt.Printf("%.1f s, %.0f pages/s, %.1f MB/s of input, %.1f MB/s of decoded text, peak heap in use %.1f MiB\n",
		el, float64(pages)/el, float64(size)/el/1e6, float64(text)/el/1e6, float64(peakHeap)/(1<<20))
	fmt.Printf("charsets: %v\n", charsets)
}
