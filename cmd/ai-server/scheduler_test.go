package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSchedulerEnvKeepsTheUsersChoice(t *testing.T) {
	for _, c := range []struct {
		in, want string
		changed  bool
	}{
		{"", steadySysmon, true},
		{"  ", steadySysmon, true},
		{"madvdontneed=1", "madvdontneed=1," + steadySysmon, true},
		{"schedtrace=0", "schedtrace=0", false},
		{"gctrace=1, schedtrace=1000", "gctrace=1, schedtrace=1000", false},
		{"schedtracex=1", "schedtracex=1," + steadySysmon, true},
	} {
		got, changed := schedulerEnv(c.in)
		if got != c.want || changed != c.changed {
			t.Errorf("schedulerEnv(%q) = %q, %v; want %q, %v", c.in, got, changed, c.want, c.changed)
		}
	}
}

// With server.steady_scheduler the serving process runs with sysmon's deep sleep
// off, in the same process (the pid a service manager or a script knows), unless
// GODEBUG already names schedtrace; without it nothing changes; a bad config is
// still reported once.
func TestServerRestartsItselfWithASteadyScheduler(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the restart is made on Linux only")
	}
	bin := filepath.Join(t.TempDir(), "ai-server")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, c := range []struct {
		steady        bool
		godebug, want string
	}{
		{true, "", "GODEBUG=" + steadySysmon},
		{true, "madvdontneed=1", "GODEBUG=madvdontneed=1," + steadySysmon},
		{true, "schedtrace=0", "GODEBUG=schedtrace=0"},
		{false, "", ""},
		{false, "madvdontneed=1", "GODEBUG=madvdontneed=1"},
	} {
		t.Run(fmt.Sprintf("steady=%v/GODEBUG=%s", c.steady, c.godebug), func(t *testing.T) {
			cmd, stderr := startDemoServer(t, bin, c.steady, c.godebug)
			env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", cmd.Process.Pid))
			if err != nil {
				t.Fatal(err)
			}
			var godebug []string
			for _, kv := range bytes.Split(env, []byte{0}) {
				if bytes.HasPrefix(kv, []byte("GODEBUG=")) {
					godebug = append(godebug, string(kv))
				}
			}
			if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", cmd.Process.Pid)); strings.TrimSpace(string(comm)) != "ai-server" {
				t.Errorf("the server's process is named %q, want ai-server", strings.TrimSpace(string(comm)))
			}
			var want []string
			if c.want != "" {
				want = []string{c.want}
			}
			if !slices.Equal(godebug, want) {
				t.Errorf("the server's pid %d runs with %q, want %q; its stderr:\n%s", cmd.Process.Pid, godebug, want, stderr())
			}
		})
	}
	t.Run("bad config", func(t *testing.T) {
		cfg := filepath.Join(t.TempDir(), "config.yaml")
		if err := os.WriteFile(cfg, []byte("server:\n  steady_scheduler: true\nsafety:\n  preset: nosuch\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "--config", cfg)
		cmd.Env = append(withoutGodebug(), "HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Fatalf("a bad preset was accepted:\n%s", out)
		}
		if n := strings.Count(string(out), "nosuch"); n != 1 {
			t.Errorf("the error was printed %d times, want once:\n%s", n, out)
		}
	})
}

func withoutGodebug() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GODEBUG=") {
			env = append(env, kv)
		}
	}
	return env
}

// startDemoServer starts bin with the demo model and waits until it listens; the
// returned func gives what it printed so far.
func startDemoServer(t *testing.T, bin string, steady bool, godebug string) (*exec.Cmd, func() string) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.yaml")
	yaml := fmt.Sprintf("server:\n  state_dir: %q\n  steady_scheduler: %v\ntools:\n  workspace: %q\n", filepath.Join(dir, "state"), steady, dir)
	if err := os.WriteFile(cfgPath, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--demo", "--config", cfgPath, "--addr", "127.0.0.1:0")
	cmd.Env = append(withoutGodebug(), "HOME="+dir, "XDG_STATE_HOME="+dir, "XDG_CONFIG_HOME="+dir)
	if godebug != "" {
		cmd.Env = append(cmd.Env, "GODEBUG="+godebug)
	}
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var printed strings.Builder
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("ai-server exited before it listened:\n%s", printed.String())
			}
			printed.WriteString(line + "\n")
			if strings.Contains(line, "listening on http://") {
				return cmd, printed.String
			}
		case <-deadline:
			t.Fatalf("ai-server did not say where it listens within 30 s:\n%s", printed.String())
		}
	}
}
