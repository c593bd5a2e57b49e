//go:build unix

package sanitize

import (
	"syscall"
	"time"
)

// processCPUTime returns the user and system CPU time this process has used, so a
// benchmark can report throughput per CPU second on a machine shared with other jobs.
func processCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
