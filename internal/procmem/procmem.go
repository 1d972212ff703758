// Package procmem reads the process' memory as the kernel and the Go
// runtime count it, for progress lines and benchmarks: resident anonymous
// memory (heap, stacks: what grows with leaks) apart from resident
// file-backed pages (bleve's and Badger's mmapped files, which the page
// cache can drop), and the Go heap.
package procmem

import (
	"bufio"
	"bytes"
	"os"
	"runtime/metrics"
	"strconv"
)

// Memory is one reading, in bytes. The /proc fields are zero where the
// system has no /proc/self/status.
type Memory struct {
	RSSAnon  uint64 // resident anonymous memory
	RSSFile  uint64 // resident file-backed pages
	VmHWM    uint64 // peak resident set so far, as the kernel counts it
	HeapLive uint64 // Go heap live after the last GC
	HeapObj  uint64 // Go heap objects now, live or not yet swept
	GoTotal  uint64 // all memory the Go runtime has mapped
}

// metricNames are runtime/metrics samples: cheap, unlike ReadMemStats,
// which stops the world.
var metricNames = []string{"/gc/heap/live:bytes", "/memory/classes/heap/objects:bytes", "/memory/classes/total:bytes"}

// Read takes a reading.
func Read() Memory {
	var m Memory
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

// procStatus reads the RssAnon, RssFile and VmHWM lines of
// /proc/self/status.
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
		if f := bytes.Fields(line); len(f) >= 2 {
			kb, _ := strconv.ParseUint(string(f[1]), 10, 64)
			*dst = kb << 10
		}
	}
	return anon, file, hwm
}
