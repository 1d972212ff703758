//go:build unix

package extracttest

import (
	"syscall"
	"time"
)

// CPUTime returns the CPU time (user and system) the process has used,
// which, unlike the wall clock, other loads on the machine do not inflate.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
