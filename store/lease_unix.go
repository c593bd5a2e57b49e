//go:build unix

package store

import (
	"errors"
	"syscall"
)

// processGone reports whether no process has this pid. Signal 0 checks that
// the process exists without touching it.
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
