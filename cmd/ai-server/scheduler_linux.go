package main

import (
	"os"
	"strings"
	"syscall"
)

// steadyScheduler runs this server again, in the same process, with sysmon's
// deep sleep off (see steadySysmon). It returns only when it leaves the process
// as it is: the setting is already there, or exec failed, in which case the
// server runs with Go's default and says so.
func steadyScheduler(stderr func(format string, args ...any)) {
	godebug, changed := schedulerEnv(os.Getenv("GODEBUG"))
	if !changed {
		return
	}
	env := []string{"GODEBUG=" + godebug}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GODEBUG=") {
			env = append(env, kv)
		}
	}
	// The binary's own path keeps the process's name (ps, top, pgrep show
	// what they showed). /proc/self/exe is this very binary even if its file
	// was removed or replaced since, but would name the process "exe".
	path, err := os.Executable()
	if err != nil || strings.HasSuffix(path, " (deleted)") {
		path = "/proc/self/exe"
	}
	err = syscall.Exec(path, os.Args, env)
	stderr("ai-server: running with Go's default scheduler (could not restart with GODEBUG=%s: %v)\n", godebug, err)
}
