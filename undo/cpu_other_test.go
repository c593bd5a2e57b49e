//go:build !unix

package undo

import "time"

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }
