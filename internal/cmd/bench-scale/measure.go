package main

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// memory is a reading of the process' memory.
type memory struct {
	RSSAnon  uint64 // resident anonymous memory (heap, stacks, cgo): what grows with leaks
	RSSFile  uint64 // resident file-backed pages (mmapped index files)
	VmHWM    uint64 // peak resident set so far, as the kernel counts it
	HeapLive uint64 // Go heap live after the last GC
	HeapObj  uint64 // Go heap objects now, live or not yet swept
	GoTotal  uint64 // all memory the Go runtime has mapped
}

// procStatus reads the RssAnon, RssFile and VmHWM lines of
// /proc/self/status (zeros where the kernel has no such file).
func procStatus() (anon, file, hwm uint64) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0, 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Bytes()
		var dst *uint64
		switch {
		case bytes.HasPrefix(line, []byte("RssAnon:")):
			dst = &anon
		case bytes.HasPrefix(line, []byte("RssFile:")):
			dst = &file
		case bytes.HasPrefix(line, []byte("VmHWM:")):
			dst = &hwm
		default:
			continue
		}
		f := bytes.Fields(line)
		if len(f) >= 2 {
			kb, _ := strconv.ParseUint(string(f[1]), 10, 64)
			*dst = kb << 10
		}
	}
	return anon, file, hwm
}

// runtime/metrics samples: cheap, unlike ReadMemStats, which stops the
// world.
var metricNames = []string{"/gc/heap/live:bytes", "/memory/classes/heap/objects:bytes", "/memory/classes/total:bytes"}

func readMemory() memory {
	var m memory
	m.RSSAnon, m.RSSFile, m.VmHWM = procStatus()
	s := make([]metrics.Sample, len(metricNames))
	for i, n := range metricNames {
		s[i].Name = n
	}
	metrics.Read(s)
	val := func(i int) uint64 {
		if s[i].Value.Kind() == metrics.KindUint64 {
			return s[i].Value.Uint64()
		}
		return 0
	}
	m.HeapLive, m.HeapObj, m.GoTotal = val(0), val(1), val(2)
	return m
}

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

// diskUsage is the space the files under path take on disk (allocated
// blocks, as du counts them: Badger preallocates sparse value-log files
// whose apparent size means nothing). A missing path is 0.
func diskUsage(path string) int64 {
	var total int64
	filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // files come and go while bleve merges
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			total += st.Blocks * 512
		} else {
			total += info.Size()
		}
		return nil
	})
	return total
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
