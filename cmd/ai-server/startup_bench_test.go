package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// BenchmarkStartup builds ai-server and ai-client as a user would (go build)
// and measures how long a command that does no work takes from exec to exit,
// and how much memory it holds (max resident set): the cost every ai-server
// subcommand and every ai-client -p pays before it does anything.
func BenchmarkStartup(b *testing.B) {
	dir := b.TempDir()
	for _, c := range []struct{ name, pkg string }{{"ai-server", "."}, {"ai-client", "../ai-client"}} {
		bin := filepath.Join(dir, c.name)
		build := exec.Command("go", "build", "-o", bin, c.pkg)
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			b.Fatalf("go build %s: %v", c.pkg, err)
		}
		info, _ := os.Stat(bin)
		b.Run(c.name, func(b *testing.B) {
			var times []time.Duration
			var rss int64
			for b.Loop() {
				cmd := exec.Command(bin, "--help")
				start := time.Now()
				if err := cmd.Run(); err != nil {
					b.Fatalf("%s --help: %v", c.name, err)
				}
				times = append(times, time.Since(start))
				if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
					rss = max(rss, ru.Maxrss) // KiB on Linux
				}
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "start-p50-ms")
			b.ReportMetric(float64(rss)/1024, "max-rss-MB")
			b.ReportMetric(float64(info.Size())/(1<<20), "binary-MB")
		})
	}
}
