//go:build !unix

package extracttest

import "time"

// CPUTime is not measured on this system.
func CPUTime() time.Duration { return 0 }
