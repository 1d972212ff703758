package main

import (
	"sync"
	"syscall"
	"time"

	"github.com/bleve-dedup/bleve-dedup/internal/procmem"
)

// memory is a reading of the process' memory.
type memory = procmem.Memory

func readMemory() memory { return procmem.Read() }

// peaks polls memory in the background, to catch the highs between
// the samples taken at every tenth.
type peaks struct {
	mu               sync.Mutex
	anon, heap       uint64 // since the last take
	allAnon, allHeap uint64 // over the whole run
	stop             chan struct{}
	done             chan struct{}
}

func startPeaks(every time.Duration) *peaks {
	p := &peaks{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			p.poll()
			select {
			case <-p.stop:
				return
			case <-t.C:
			}
		}
	}()
	return p
}

func (p *peaks) poll() {
	m := readMemory()
	p.mu.Lock()
	p.anon, p.heap = max(p.anon, m.RSSAnon), max(p.heap, m.HeapObj)
	p.allAnon, p.allHeap = max(p.allAnon, m.RSSAnon), max(p.allHeap, m.HeapObj)
	p.mu.Unlock()
}

// take returns the peaks since the last take and starts over.
func (p *peaks) take() (anon, heap uint64) {
	p.poll()
	p.mu.Lock()
	defer p.mu.Unlock()
	anon, heap = p.anon, p.heap
	p.anon, p.heap = 0, 0
	return anon, heap
}

// all returns the peaks over the whole run.
func (p *peaks) all() (anon, heap uint64) {
	p.poll()
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.allAnon, p.allHeap
}

func (p *peaks) close() {
	close(p.stop)
	<-p.done
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
