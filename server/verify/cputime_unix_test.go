//go:build unix

package verify

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time this process has used so far. Benchmarks
// report it beside wall time because the build machine is shared and busy:
// wall time there measures the queue, CPU time measures the code.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
