//go:build unix

package extract

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user and system) the process has used,
// which, unlike the wall clock, other loads on the machine do not inflate.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
