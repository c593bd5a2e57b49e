package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/llm/llmtest"
)

// BenchmarkServeUnderLoad measures a built ai-server from outside, as a user's
// machine runs it: its own process, a fake model on loopback that answers in
// 500 ms ± 250 (AILAB_BENCH_MODEL_MS sets the delay; the jitter is half of
// it), and many sessions at once, each turn one tool round (a list_directory
// or a write_file, under the minimal preset so it runs without asking) and a
// final answer citing the run. It reports:
//
//   - overhead-p50-ms, overhead-p99-ms: a turn's time at the client less the
//     model's time on each of its rounds, per model round;
//   - server-cpu-ms/turn: the server process's user+system CPU (from
//     /proc/PID/stat) over the turns it played, and server-sys-ms/turn the
//     part spent in the kernel;
//   - wal-peak-MB: the largest the state database's WAL file was, sampled
//     every 20 ms; wal-idle-MB: its size 5 s after the last turn;
//   - rss-peak-MB: the server's largest resident set;
//   - server-rw-calls/turn, server-written-KB/turn, server-switches/turn: its
//     read and write system calls (the WAL's page writes among them), the bytes
//     it wrote and its threads' context switches per turn, which the machine's
//     speed does not blur as it does the CPU.
//
// b.N is the number of turns over all sessions (run it with -benchtime=1000x:
// 10 turns for each of 100 sessions). AILAB_BENCH_DURATION=10m plays turns for
// that long instead, for the WAL's bound under sustained load.
// AILAB_BENCH_STEADY_SCHEDULER=true runs the server with
// server.steady_scheduler (a binary older than that key refuses it).
// AILAB_BENCH_SESSIONS=N plays only that many sessions (default: 100 and 200).
// AILAB_BENCH_FLOOR=true runs testdata/floorrelay instead of ai-server: a
// server that only relays the turn between the client, the model and the tool,
// whose figures are what this machine's loopback and thread wake-ups cost
// before ai-server does anything.
func BenchmarkServeUnderLoad(b *testing.B) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		b.Skip("reads the server's CPU from /proc: Linux only")
	}
	// AILAB_BENCH_SERVER_BIN measures a binary built elsewhere (another
	// commit, to compare two in one sitting).
	bin := os.Getenv("AILAB_BENCH_SERVER_BIN")
	if bin == "" {
		bin = filepath.Join(b.TempDir(), "ai-server")
		pkg := "."
		if os.Getenv("AILAB_BENCH_FLOOR") == "true" {
			pkg = "./testdata/floorrelay"
		}
		build := exec.Command("go", "build", "-o", bin, pkg)
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			b.Fatalf("go build: %v", err)
		}
	}
	delay := 500 * time.Millisecond
	if v := os.Getenv("AILAB_BENCH_MODEL_MS"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms < 0 {
			b.Fatalf("AILAB_BENCH_MODEL_MS=%q: want a number of milliseconds", v)
		}
		delay = time.Duration(ms) * time.Millisecond
	}
	var duration time.Duration
	if v := os.Getenv("AILAB_BENCH_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			b.Fatalf("AILAB_BENCH_DURATION=%q: want a duration such as 10m", v)
		}
		duration = d
	}
	counts := []int{100, 200}
	if v := os.Getenv("AILAB_BENCH_SESSIONS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("AILAB_BENCH_SESSIONS=%q: want a number of sessions", v)
		}
		counts = []int{n}
	}
	for _, sessions := range counts {
		for _, tool := range []string{llmtest.RoundListDirectory, llmtest.RoundWriteFile} {
			b.Run(fmt.Sprintf("sessions=%d/tool=%s", sessions, tool), func(b *testing.B) {
				runServeLoad(b, bin, sessions, tool, delay, duration)
			})
		}
	}
}

func runServeLoad(b *testing.B, bin string, sessions int, tool string, delay, duration time.Duration) {
	model := llmtest.NewToolRoundModel(b, tool, delay, delay/2)
	srv := startLoadServer(b, bin, model.URL)
	var left atomic.Int64
	left.Store(int64(b.N))
	var end time.Time
	if duration > 0 {
		left.Store(1 << 40)
		end = time.Now().Add(duration)
	}
	stop := make(chan struct{})
	sampled := make(chan struct{})
	var walPeak, rssPeak int64
	go func() {
		defer close(sampled)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				walPeak = max(walPeak, srv.walBytes())
				rssPeak = max(rssPeak, srv.rss())
			}
		}
	}()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 512, MaxIdleConns: 512}}
	b.ResetTimer()
	user0, sys0 := srv.cpuParts()
	io0 := srv.ioCounts()
	sessionOf := make([]string, sessions)
	more := func() bool { return left.Add(-1) >= 0 && (end.IsZero() || time.Now().Before(end)) }
	overheads, errs := llmtest.PlaySessions(sessions, delay, more, func(i, n int) (time.Duration, error) {
		marker := fmt.Sprintf("marker-%d-%d", i, n)
		sent := time.Now()
		s, err := loadTurn(client, srv.url, srv.token, sessionOf[i], "please look at the files "+marker)
		took := time.Since(sent)
		if err != nil {
			return 0, err
		}
		sessionOf[i] = s
		d, ok := llmtest.Overhead(&model.Times, func(r int) string { return fmt.Sprintf("%s/%d", marker, r) }, took, 2)
		if !ok {
			return 0, fmt.Errorf("turn %s did not reach the model twice", marker)
		}
		return d, nil
	})
	user1, sys1 := srv.cpuParts()
	io1 := srv.ioCounts()
	user, sys := user1-user0, sys1-sys0
	cpu := user + sys
	b.StopTimer()
	close(stop)
	<-sampled
	walIdle := srv.walBytes()
	for deadline := time.Now().Add(5 * time.Second); walIdle > 0 && time.Now().Before(deadline); walIdle = srv.walBytes() {
		time.Sleep(100 * time.Millisecond)
	}
	pct := func(q float64) float64 { return float64(llmtest.Percentile(overheads, q).Microseconds()) / 1000 }
	b.ReportMetric(pct(0.50), "overhead-p50-ms")
	b.ReportMetric(pct(0.99), "overhead-p99-ms")
	b.ReportMetric(float64(errs), "errors")
	if n := len(overheads); n > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(n), "server-cpu-ms/turn")
		b.ReportMetric(float64(sys.Microseconds())/1000/float64(n), "server-sys-ms/turn")
		if io0.ok && io1.ok {
			b.ReportMetric(float64(io1.reads-io0.reads+io1.writes-io0.writes)/float64(n), "server-rw-calls/turn")
			b.ReportMetric(float64(io1.written-io0.written)/1024/float64(n), "server-written-KB/turn")
			b.ReportMetric(float64(io1.switches-io0.switches)/float64(n), "server-switches/turn")
		}
	}
	b.ReportMetric(float64(len(overheads)), "turns")
	b.ReportMetric(float64(walPeak)/(1<<20), "wal-peak-MB")
	b.ReportMetric(float64(walIdle)/(1<<20), "wal-idle-MB")
	b.ReportMetric(float64(rssPeak)/(1<<20), "rss-peak-MB")
}

// loadTurn posts one message and returns its session.
func loadTurn(c *http.Client, url, token, session, msg string) (string, error) {
	body, _ := json.Marshal(api.ChatRequest{Message: msg, SessionID: session})
	req, _ := http.NewRequest("POST", url+"/chat", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := c.Do(req)
	if err != nil {
		return session, err
	}
	defer resp.Body.Close()
	var r api.ChatResponse
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return session, err
	}
	if resp.StatusCode != 200 || !r.Validation.Valid || len(r.ToolsUsed) != 1 {
		return r.SessionID, fmt.Errorf("status %d, valid %v, %d runs", resp.StatusCode, r.Validation.Valid, len(r.ToolsUsed))
	}
	return r.SessionID, nil
}

// A loadServer is a running ai-server process.
type loadServer struct {
	cmd        *exec.Cmd
	url, token string
	wal        string
	workspace  string
}

func startLoadServer(b testing.TB, bin, modelURL string) *loadServer {
	dir := b.TempDir()
	state := filepath.Join(dir, "state")
	cfgPath := filepath.Join(dir, "config.yaml")
	steady := ""
	if v := os.Getenv("AILAB_BENCH_STEADY_SCHEDULER"); v != "" {
		steady = "  steady_scheduler: " + v + "\n"
	}
	yaml := fmt.Sprintf("server:\n  state_dir: %q\n%sllm:\n  base_url: %q\n  model: fake\n  timeout: 60s\nsafety:\n  preset: minimal\ntools:\n  workspace: %q\nweb:\n  search_endpoint: http://127.0.0.1:9/html/\n  search_lite_endpoint: http://127.0.0.1:9/lite/\n",
		state, steady, modelURL, filepath.Join(dir, "ws"))
	if err := os.MkdirAll(filepath.Join(dir, "ws"), 0o755); err != nil {
		b.Fatal(err)
	}
	for i := range 20 {
		if err := os.WriteFile(filepath.Join(dir, "ws", fmt.Sprintf("file-%02d.txt", i)), []byte("some text\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(cfgPath, []byte(yaml), 0o600); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(bin, "--config", cfgPath, "--addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_STATE_HOME="+dir, "XDG_CONFIG_HOME="+dir)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			if i := strings.Index(sc.Text(), "listening on http://"); i >= 0 && !sent {
				lines <- strings.Fields(sc.Text()[i+len("listening on "):])[0]
				sent = true
			}
		}
	}()
	var url string
	select {
	case url = <-lines:
	case <-time.After(30 * time.Second):
		b.Fatal("ai-server did not say where it listens within 30 s")
	}
	token, err := os.ReadFile(filepath.Join(state, "token"))
	if err != nil {
		b.Fatal(err)
	}
	return &loadServer{cmd: cmd, url: url, token: strings.TrimSpace(string(token)), wal: filepath.Join(state, "ai-lab.db-wal"), workspace: filepath.Join(dir, "ws")}
}

// cpuParts is the process's user and system CPU time so far.
func (s *loadServer) cpuParts() (user, sys time.Duration) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0, 0
	}
	// The command name may hold blanks: the fields start after its ")".
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	const tick = time.Second / 100 // USER_HZ is 100 on Linux
	return time.Duration(utime) * tick, time.Duration(stime) * tick
}

// ioCounts are the process's read and write system calls and the bytes its
// writes carried (/proc/PID/io's syscr, syscw and wchar), and its context
// switches (every thread's, from /proc/PID/task/*/status). They count work that a
// machine's speed does not blur, so two builds compare in fewer runs than their
// CPU does. ok is false where /proc does not show them.
type ioCounts struct {
	reads, writes, written, switches int64
	ok                               bool
}

func (s *loadServer) ioCounts() ioCounts {
	pid := s.cmd.Process.Pid
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return ioCounts{}
	}
	var c ioCounts
	for _, line := range strings.Split(string(data), "\n") {
		name, value, _ := strings.Cut(line, ": ")
		n, _ := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		switch name {
		case "syscr":
			c.reads = n
		case "syscw":
			c.writes = n
		case "wchar":
			c.written = n
		}
	}
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	for _, t := range tasks {
		status, err := os.ReadFile(t)
		if err != nil {
			continue // the thread ended
		}
		for _, line := range strings.Split(string(status), "\n") {
			if name, value, ok := strings.Cut(line, ":"); ok && strings.HasSuffix(name, "ctxt_switches") {
				n, _ := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
				c.switches += n
			}
		}
	}
	c.ok = true
	return c
}

// rss is the process's resident set in bytes.
func (s *loadServer) rss() int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

func (s *loadServer) walBytes() int64 {
	fi, err := os.Stat(s.wal)
	if err != nil {
		return 0
	}
	return fi.Size()
}
