//go:build linux

package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// alive reports whether pid is a running process (a zombie is not: it has
// ended and only waits for its parent to reap it).
func alive(pid int) bool {
	state, _, ok := procStat(pid)
	return ok && state != "Z"
}

// procStat reads the state and process group of pid from /proc.
func procStat(pid int) (state string, pgrp int, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", 0, false
	}
	// "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(fields) < 3 {
		return "", 0, false
	}
	pgrp, _ = strconv.Atoi(fields[2])
	return fields[0], pgrp, true
}

// groupMembers lists the running processes of process group pgid.
func groupMembers(pgid int) []int {
	var live []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		if state, pgrp, ok := procStat(pid); ok && pgrp == pgid && state != "Z" {
			live = append(live, pid)
		}
	}
	return live
}

// pids calls the stdio test server's pids tool: the server's pid and its child's.
func pids(t *testing.T, h *Hub, server string) (int, int) {
	t.Helper()
	res, err := run(t, mustTool(t, h, server+"__pids"), `{}`)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`>(\d+) (\d+)<`).FindStringSubmatch(res.Content)
	if m == nil {
		t.Fatalf("pids answered %q", res.Content)
	}
	srv, _ := strconv.Atoi(m[1])
	child, _ := strconv.Atoi(m[2])
	return srv, child
}

func waitGone(t *testing.T, what string, pids ...int) {
	t.Helper()
	waitFor(t, 5*time.Second, what+" still running", func() bool { return !slices.ContainsFunc(pids, alive) })
}

func TestStdioServerGetsItsEnv(t *testing.T) {
	c := stdioServer("s")
	c.Env["AILAB_TEST_GREETING"] = "hello from the config"
	h := startHub(t, []ServerConfig{c}, Options{})
	waitReady(t, h, "s")
	res, err := run(t, mustTool(t, h, "s__env"), `{"Name":"AILAB_TEST_GREETING"}`)
	if err != nil {
		t.Fatal(err)
	}
	checkWrapped(t, res.Content, "mcp:s/env")
	if !strings.Contains(res.Content, ">hello from the config<") {
		t.Errorf("env not passed: %q", res.Content)
	}
}

func TestCloseLeavesNoProcess(t *testing.T) {
	h := startHub(t, []ServerConfig{stdioServer("s")}, Options{})
	waitReady(t, h, "s")
	srv, child := pids(t, h, "s")
	if pgid, _ := syscall.Getpgid(srv); pgid != srv {
		t.Errorf("the server is not the leader of its own process group (pgid %d, pid %d)", pgid, srv)
	}
	if !alive(srv) || !alive(child) {
		t.Fatalf("server %d or child %d not running before Close", srv, child)
	}
	began := time.Now()
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(began); d > 4*terminateGrace {
		t.Errorf("Close took %s", d)
	}
	waitGone(t, "after Close, the server or its child", srv, child)
	if live := groupMembers(srv); len(live) > 0 {
		t.Errorf("processes %v of the server's group outlived Close", live)
	}
	if st := serverInfo(h, "s"); st.State != StateFailed {
		t.Errorf("state after Close %s", st.State)
	}
	if _, err := run(t, mustTool(t, h, "s__echo"), `{}`); !errors.Is(err, ErrNotRunning) {
		t.Errorf("a call after Close: %v", err)
	}
}

// waitRestarted waits until the server s answers from another process than old.
func waitRestarted(t *testing.T, h *Hub, old int) {
	t.Helper()
	waitFor(t, 10*time.Second, "the server was not restarted", func() bool {
		res, err := run(t, mustTool(t, h, "s__pids"), `{}`)
		return err == nil && !strings.Contains(res.Content, fmt.Sprintf(">%d ", old))
	})
}

func TestDeadServerIsRestarted(t *testing.T) {
	h := startHub(t, []ServerConfig{stdioServer("s")}, Options{})
	waitReady(t, h, "s")
	first, _ := pids(t, h, "s")
	_, err := run(t, mustTool(t, h, "s__die"), `{}`)
	if !errors.Is(err, ErrNotRunning) || !strings.Contains(err.Error(), "the MCP server s stopped during the call to s__die") {
		t.Errorf("a server dying during the call: %v", err)
	}
	waitRestarted(t, h, first)
	srv, child := pids(t, h, "s")
	if err := syscall.Kill(srv, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitRestarted(t, h, srv)
	// The dead server's child went with it.
	waitGone(t, "the killed server's child", child)
	res, err := run(t, mustTool(t, h, "s__echo"), `{"after":"restart"}`)
	if err != nil || !strings.Contains(res.Content, `{"after":"restart"}`) {
		t.Errorf("echo after the restart: %v %q", err, res.Content)
	}
}

func TestToolsStayListedWhileDown(t *testing.T) {
	h := startHub(t, []ServerConfig{stdioServer("s")}, Options{Backoff: func(int) time.Duration { return time.Hour }})
	waitReady(t, h, "s")
	srv, _ := pids(t, h, "s")
	echo := mustTool(t, h, "s__echo")
	if err := syscall.Kill(srv, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the server's death went unnoticed", func() bool { return serverInfo(h, "s").State == StateRestarting })
	if names := toolNames(h); !slices.Contains(names, "s__echo") {
		t.Errorf("tools while down: %v", names)
	}
	_, err := run(t, echo, `{}`)
	if !errors.Is(err, ErrNotRunning) || !regexp.MustCompile(`^the MCP server s is not running \(restarting in 3600 s\): it stopped: `).MatchString(err.Error()) {
		t.Errorf("a call while down: %v", err)
	}
	if st := echo.Status(); !strings.HasPrefix(st, "restarting in 3600 s: it stopped") {
		t.Errorf("status while down %q", st)
	}
}

func TestFailingServerBacksOff(t *testing.T) {
	var mu sync.Mutex
	var asked []int
	backoff := func(failures int) time.Duration {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, failures)
		return 10 * time.Millisecond
	}
	c := stdioServer("crashy")
	c.Env[testServerEnv] = "crash"
	h := startHub(t, []ServerConfig{c}, Options{Backoff: backoff})
	waitFor(t, 20*time.Second, "the server was not started again and again", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(asked) >= 3
	})
	mu.Lock()
	got := slices.Clone(asked[:3])
	mu.Unlock()
	if !slices.Equal(got, []int{1, 2, 3}) {
		t.Errorf("backoff asked for %v, want failures counted up 1, 2, 3", got)
	}
	info := serverInfo(h, "crashy")
	if !strings.Contains(info.Reason, "boom: cannot open the database") {
		t.Errorf("reason %q does not carry the server's last words", info.Reason)
	}
}

func TestFailedStartLeavesNoProcess(t *testing.T) {
	c := stdioServer("s")
	c.Env[testServerEnv] = "crash-with-child"
	h := startHub(t, []ServerConfig{c}, Options{Backoff: func(int) time.Duration { return time.Hour }})
	if err := h.WaitStarted(context.Background()); err != nil {
		t.Fatal(err)
	}
	info := serverInfo(h, "s")
	m := regexp.MustCompile(`spawned child (\d+)`).FindStringSubmatch(info.Reason)
	if info.State != StateRestarting || m == nil {
		t.Fatalf("after a failed start: %+v", info)
	}
	child, _ := strconv.Atoi(m[1])
	waitGone(t, "the child of a server whose start failed", child)
}

func TestMissingProgramFails(t *testing.T) {
	called := false
	h := startHub(t, []ServerConfig{{Name: "gone", Command: []string{"/nonexistent/mcp-server", "--x"}}},
		Options{Backoff: func(int) time.Duration { called = true; return time.Millisecond }})
	if err := h.WaitStarted(context.Background()); err != nil {
		t.Fatal(err)
	}
	info := serverInfo(h, "gone")
	if info.State != StateFailed || !strings.HasPrefix(info.Status(), "failed: starting: ") || !strings.Contains(info.Reason, "/nonexistent/mcp-server") {
		t.Errorf("a missing program: %+v", info)
	}
	time.Sleep(50 * time.Millisecond)
	if called {
		t.Error("a server whose program is missing was scheduled for a restart")
	}
}

// TestAServersStatusMasksSecrets: a server that dies quoting its credentials
// (in its last output, which the status carries) shows them masked, with the
// rest of its words kept.
func TestAServersStatusMasksSecrets(t *testing.T) {
	c := stdioServer("leaky")
	c.Env[testServerEnv] = "crash-secret"
	h := startHub(t, []ServerConfig{c}, Options{Backoff: func(int) time.Duration { return time.Hour }})
	if err := h.WaitStarted(context.Background()); err != nil {
		t.Fatal(err)
	}
	status := serverInfo(h, "leaky").Status()
	for _, s := range []string{"SECRETQ789", "SECRETT123", "SECRETP456"} {
		if strings.Contains(status, s) {
			t.Errorf("status shows %s: %q", s, status)
		}
	}
	if !strings.Contains(status, "login failed for POST /mcp?api_key=***") {
		t.Errorf("status lost the server's words: %q", status)
	}
}
