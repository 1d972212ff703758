package extract

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bleve-dedup/bleve-dedup/internal/testkit/extracttest"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/shapes"
)

// shapeSizes are the page sizes of the shape benchmark, in MB.
var shapeSizes = []int{1, 2, 4, 8}

func shapeName(shape string, mb int) string { return fmt.Sprintf("%s/%dMB", shape, mb) }

// TestShapes extracts an 8 MB page of each shape within 3 s of CPU (of
// wall time where the CPU time is not measured) and 300 MiB of heap (see
// BenchmarkShapes for the figures at 1 to 8 MB). CPU time, because other
// loads on the machine stretch the wall time.
func TestShapes(t *testing.T) {
	if testing.Short() {
		t.Skip("extracts 8 MB pages")
	}
	const maxTime, maxHeap = 3 * time.Second, 300 << 20
	for _, sh := range shapes.All {
		t.Run(sh.Name, func(t *testing.T) {
			doc := sh.Page(8 << 20)
			runtime.GC()
			var took time.Duration
			var err error
			peak := peakHeap(func() {
				start, cpu := time.Now(), extracttest.CPUTime()
				_, err = HTML(doc, "")
				if took = extracttest.CPUTime() - cpu; took == 0 {
					took = time.Since(start)
				}
			})
			if err != nil && !errors.Is(err, ErrNoContent) { // a page of links has none
				t.Fatal(err)
			}
			if took > maxTime || peak > maxHeap {
				t.Errorf("took %v with a %d MiB heap peak, want <= %v and %d MiB", took, peak>>20, maxTime, maxHeap>>20)
			}
		})
	}
}

// BenchmarkShapes extracts pages of each shape at 1, 2, 4 and 8 MB and
// reports the process's CPU time per page (cpu-ms/op, which other loads on
// the machine do not inflate as they do ns/op) and the heap's peak
// (peak-MiB).
func BenchmarkShapes(b *testing.B) {
	for _, sh := range shapes.All {
		for _, mb := range shapeSizes {
			b.Run(shapeName(sh.Name, mb), func(b *testing.B) {
				doc := sh.Page(mb << 20)
				b.ReportAllocs()
				var peak uint64
				var cpu time.Duration
				for b.Loop() {
					runtime.GC()
					start := extracttest.CPUTime()
					peak = max(peak, peakHeap(func() {
						if _, err := HTML(doc, ""); err != nil && !errors.Is(err, ErrNoContent) {
							b.Fatal(err)
						}
					}))
					cpu += extracttest.CPUTime() - start
				}
				b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
				b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
			})
		}
	}
}

// peakHeap runs f and returns the most heap the live and not yet swept
// objects took meanwhile, sampled every millisecond.
func peakHeap(f func()) uint64 {
	var peak atomic.Uint64
	stop, done := make(chan struct{}), make(chan struct{})
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() {
		metrics.Read(sample)
		if v := sample[0].Value.Uint64(); v > peak.Load() {
			peak.Store(v)
		}
	}
	go func() {
		defer close(done)
		for {
			read()
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	f()
	close(stop)
	<-done
	read()
	return peak.Load()
}

// cancelDelays are the times after which TestShapesCancel cancels an
// extraction: early ones land in the tokenizer pass, later ones in the
// stages after it.
var cancelDelays = []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond}

// TestShapesCancel cancels the extraction of an 8 MB page of each shape
// after each of cancelDelays and checks that it returns ctx's error within
// a second of the cancellation (or has finished before it).
func TestShapesCancel(t *testing.T) {
	if testing.Short() {
		t.Skip("extracts 8 MB pages")
	}
	const bound = time.Second
	for _, sh := range shapes.All {
		t.Run(sh.Name, func(t *testing.T) {
			doc := sh.Page(8 << 20)
			for _, d := range cancelDelays {
				latency, err := cancelAfter(doc, d)
				if err == nil || errors.Is(err, ErrNoContent) {
					continue // finished before the deadline
				}
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("cancelled after %v: err %v, want context.DeadlineExceeded", d, err)
				}
				if latency > bound {
					t.Errorf("cancelled after %v: returned %v later, want <= %v", d, latency, bound)
				}
			}
		})
	}
}

// BenchmarkShapesCancel reports the longest time an extraction of an 8 MB
// page of each shape ran on after its context was cancelled (max-ms) over
// cancelDelays.
func BenchmarkShapesCancel(b *testing.B) {
	for _, sh := range shapes.All {
		b.Run(sh.Name, func(b *testing.B) {
			doc := sh.Page(8 << 20)
			var worst time.Duration
			for b.Loop() {
				for _, d := range cancelDelays {
					if latency, err := cancelAfter(doc, d); errors.Is(err, context.DeadlineExceeded) {
						worst = max(worst, latency)
					}
				}
			}
			b.ReportMetric(float64(worst.Microseconds())/1000, "max-ms")
		})
	}
}

// cancelAfter extracts doc with a context cancelled after d and returns
// how long after d it returned (0 if it returned earlier) and its error.
func cancelAfter(doc string, d time.Duration) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	start := time.Now()
	_, err := DefaultOptions().HTMLContext(ctx, doc, "")
	return max(0, time.Since(start)-d), err
}
