package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkStartup builds ai-server and ai-client as a user would (go build)
// and measures commands that do little or no work, from exec to exit: the
// p50 time, the median and the largest peak resident set of 15 runs, and
// the binary's size, plain and with -ldflags="-s -w" (no symbol table, no
// DWARF). This is the cost
// every ai-server subcommand and every ai-client -p pays before it does
// anything.
func BenchmarkStartup(b *testing.B) {
	dir := b.TempDir()
	type binary struct{ path, stripped string }
	bins := map[string]binary{}
	for _, c := range []struct{ name, pkg string }{{"ai-server", "."}, {"ai-client", "../ai-client"}} {
		bin := binary{filepath.Join(dir, c.name), filepath.Join(dir, c.name+"-stripped")}
		for _, out := range []struct {
			path  string
			flags []string
		}{{bin.path, nil}, {bin.stripped, []string{"-ldflags=-s -w"}}} {
			build := exec.Command("go", append(append([]string{"build", "-o", out.path}, out.flags...), c.pkg)...)
			build.Stderr = os.Stderr
			if err := build.Run(); err != nil {
				b.Fatalf("go build %s: %v", c.pkg, err)
			}
		}
		bins[c.name] = bin
	}
	home := b.TempDir() // no config, no token, no state of the user's
	for _, c := range []struct {
		name, bin string
		args      []string
		stdin     string
		failing   bool // the command is expected to exit non-zero
	}{
		{"ai-server-help", "ai-server", []string{"--help"}, "", false},
		{"ai-server-sanitize", "ai-server", []string{"sanitize"}, "Hello <b>world</b>, a short page.\n", false},
		{"ai-client-help", "ai-client", []string{"--help"}, "", false},
		// Port 1 on loopback refuses at once: the run measures start-up,
		// flag parsing and the first dial, not a network.
		{"ai-client-p-unreachable", "ai-client", []string{"-p", "hi", "--server", "http://127.0.0.1:1", "--token", "x"}, "", true},
	} {
		bin := bins[c.bin]
		b.Run(c.name, func(b *testing.B) {
			run := func(name string, args ...string) *exec.Cmd {
				cmd := exec.Command(name, args...)
				cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_STATE_HOME="+home, "AILAB_SERVER=", "AILAB_TOKEN=")
				cmd.Dir = home
				cmd.Stdin = strings.NewReader(c.stdin)
				err := cmd.Run()
				var exit *exec.ExitError
				if err != nil && !(c.failing && errors.As(err, &exit)) {
					b.Fatalf("%s %v: %v", c.bin, c.args, err)
				}
				if err == nil && c.failing {
					b.Fatalf("%s %v succeeded, want a failure", c.bin, c.args)
				}
				return cmd
			}
			var times []time.Duration
			var rss []float64
			for b.Loop() {
				start := time.Now()
				run(bin.path, c.args...)
				times = append(times, time.Since(start))
				if len(rss) < 15 {
					rss = append(rss, peakRSS(b, run, bin.path, c.args))
				}
			}
			slices.Sort(times)
			slices.Sort(rss)
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "start-p50-ms")
			b.ReportMetric(rss[len(rss)/2], "rss-p50-MB")
			b.ReportMetric(rss[len(rss)-1], "max-rss-MB")
			b.ReportMetric(sizeMB(b, bin.path), "binary-MB")
			b.ReportMetric(sizeMB(b, bin.stripped), "stripped-MB")
		})
	}
}

// peakRSS is the peak resident set of one run, in MB. The rusage Go gets
// for its own child is no use here: os/exec starts the child with vfork, so
// the kernel carries this test process's own peak (it links all of
// ai-server) over into the child's at exec. GNU time forks its child from a
// small process, so its figure is the command's alone.
func peakRSS(b *testing.B, run func(string, ...string) *exec.Cmd, bin string, args []string) float64 {
	const gnuTime = "/usr/bin/time"
	if _, err := os.Stat(gnuTime); err != nil {
		b.Skipf("%s is needed to measure the resident set: %v", gnuTime, err)
	}
	out := filepath.Join(b.TempDir(), "rss")
	run(gnuTime, append([]string{"-f", "%M", "-o", out, bin}, args...)...)
	data, err := os.ReadFile(out)
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	kb, err := strconv.ParseFloat(lines[len(lines)-1], 64) // a failing command adds a status line first
	if err != nil {
		b.Fatalf("GNU time wrote %q: %v", data, err)
	}
	return kb / 1024
}

func sizeMB(b *testing.B, path string) float64 {
	info, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return float64(info.Size()) / (1 << 20)
}
