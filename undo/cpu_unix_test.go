//go:build unix

package undo

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) the process used so far: on a
// loaded machine it measures the work done where wall time measures the wait.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
