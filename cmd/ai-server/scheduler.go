package main

import (
	"strings"
)

// steadySysmon is the GODEBUG setting a server runs with when
// server.steady_scheduler is true.
//
// Go's runtime watches the process from a thread of its own, sysmon. When every
// processor is idle it sleeps until woken, and the first system call after that
// wakes it and puts it back to polling every 20 µs for a millisecond or more. A
// server that waits on a slow model goes idle between almost every two events of
// a turn, so under load sysmon restarts its fast polling more than once a turn:
// some 76 of a turn's 270 system calls, and a seventh of the server's CPU on a
// VM where every sleep costs a trip through the hypervisor.
//
// With schedtrace set, sysmon never takes that deep sleep; it backs off to a
// 10 ms poll while nothing needs it and speeds up only when it finds a long system
// call or a goroutine to preempt, as it does in a busy process anyway. The
// period is the largest the runtime accepts, so the line of scheduler state it
// exists for is printed to stderr every 24.8 days of the machine's uptime (once
// at start on a machine up longer than that); a fatal error also prints the
// scheduler's state before the goroutines. Measured with the load benchmark
// (README, Speed under load): sysmon's share of the server's CPU falls from
// about 13% to under 2%, and CPU per turn at 100 sessions by up to a fifth in
// some sittings and by nothing measurable in others; and 100 wake-ups a second
// more when idle, which is why it is not the default: a
// server on a laptop idles most of the time. No runtime API sets this, and
// //go:debug accepts only the settings Go keeps for compatibility, so the
// process sets it by running itself again.
const steadySysmon = "schedtrace=2147483647"

// schedulerEnv returns the GODEBUG value to run the server with, and whether it
// differs from godebug (the current value). A GODEBUG that already names
// schedtrace is the user's choice and is kept.
func schedulerEnv(godebug string) (string, bool) {
	for _, kv := range strings.Split(godebug, ",") {
		if k, _, _ := strings.Cut(strings.TrimSpace(kv), "="); k == "schedtrace" {
			return godebug, false
		}
	}
	if strings.TrimSpace(godebug) == "" {
		return steadySysmon, true
	}
	return godebug + "," + steadySysmon, true
}
