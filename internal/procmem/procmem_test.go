package procmem

import (
	"os"
	"runtime"
	"testing"
)

func TestRead(t *testing.T) {
	keep := make([]byte, 64<<20)
	for i := range keep {
		keep[i] = 1 // touch every page, so it is resident
	}
	m := Read()
	runtime.KeepAlive(keep)
	if m.HeapObj < 64<<20 || m.GoTotal < m.HeapObj {
		t.Errorf("heap objects %d, Go total %d; want at least the 64 MiB held", m.HeapObj, m.GoTotal)
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skipf("no /proc: %v", err)
	}
	if m.RSSAnon < 64<<20 || m.VmHWM < m.RSSAnon {
		t.Errorf("RssAnon %d, VmHWM %d; want at least the 64 MiB held", m.RSSAnon, m.VmHWM)
	}
}
