//go:build linux

package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// These tests run real MCP servers written by others, installed from the npm
// registry at the versions pinned in testdata/npm/package-lock.json. They run
// the installed programs, never npx, so they need no network.

// npmServer is the path of an installed server program; the test fails, with
// the command that installs it, when it is missing.
func npmServer(t *testing.T, bin string) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("testdata", "npm", "node_modules", ".bin", bin))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the MCP servers these tests run are not installed (%s is missing): run `npm ci --prefix mcp/testdata/npm` from the repository root (needs Node.js 20 or later and npm)", path)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("the MCP servers these tests run need Node.js: install Node.js 20 or later so that `node` is on PATH (%v)", err)
	}
	return path
}

// pidsWithArg lists the running processes whose command line holds arg.
func pidsWithArg(arg string) []int {
	var found []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil || !alive(pid) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err == nil && slices.Contains(strings.Split(string(b), "\x00"), arg) {
			found = append(found, pid)
		}
	}
	return found
}

func TestRealEverythingServer(t *testing.T) {
	bin := npmServer(t, "mcp-server-everything")
	h := startHub(t, []ServerConfig{{
		Name:    "everything",
		Command: []string{bin, "stdio"},
		Env:     map[string]string{"AILAB_PROBE": "probe-value-42"},
	}}, Options{})
	info := waitReady(t, h, "everything")
	for _, want := range []string{"everything__echo", "everything__get-env", "everything__get-tiny-image", "everything__get-sum"} {
		if !slices.Contains(info.Tools, want) {
			t.Errorf("%s missing from %v (skipped %v)", want, info.Tools, info.Skipped)
		}
	}
	echo := mustTool(t, h, "everything__echo")
	props, _ := echo.Parameters()["properties"].(map[string]any)
	if msg, _ := props["message"].(map[string]any); msg["type"] != "string" {
		t.Errorf("echo's schema did not pass through: %v", echo.Parameters())
	}
	if !strings.HasPrefix(echo.Description(), "Tool of the MCP server everything: Echoes back the input string") {
		t.Errorf("description %q", echo.Description())
	}

	res, err := run(t, echo, `{"message":"hello from ai-lab"}`)
	if err != nil {
		t.Fatal(err)
	}
	checkWrapped(t, res.Content, "mcp:everything/echo")
	if !strings.Contains(res.Content, "Echo: hello from ai-lab") {
		t.Errorf("echo answered %q", res.Content)
	}

	msg, _ := json.Marshal(injection)
	res, err = run(t, echo, `{"message":`+string(msg)+`}`)
	if err != nil {
		t.Fatal(err)
	}
	checkWrapped(t, res.Content, "mcp:everything/echo")
	if low := strings.ToLower(res.Content); strings.Contains(low, "ignore all previous instructions") || strings.Contains(low, "system:") {
		t.Errorf("an injection echoed by the server arrived: %q", res.Content)
	}

	res, err = run(t, mustTool(t, h, "everything__get-env"), `{}`)
	if err != nil || !strings.Contains(res.Content, `"AILAB_PROBE": "probe-value-42"`) {
		t.Errorf("the configured env did not reach the server: %v %.300q", err, res.Content)
	}

	res, err = run(t, mustTool(t, h, "everything__get-tiny-image"), `{}`)
	if err != nil || !strings.Contains(res.Content, "[image/png, ") {
		t.Errorf("the image was not described: %v %q", err, res.Content)
	}

	res, err = run(t, mustTool(t, h, "everything__get-sum"), `{"a":2,"b":40}`)
	if err != nil || !strings.Contains(res.Content, "42") {
		t.Errorf("get-sum: %v %q", err, res.Content)
	}
	// Arguments the server's schema refuses come back as a tool error.
	if _, err := run(t, mustTool(t, h, "everything__get-sum"), `{"a":"two"}`); !errors.Is(err, ErrToolFailed) {
		t.Errorf("get-sum with bad arguments: %v", err)
	}
}

func TestRealFilesystemServer(t *testing.T) {
	bin := npmServer(t, "mcp-server-filesystem")
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(dir, "notes.txt")
	page := "Meeting notes, Tuesday.\n" + injection + "\nAction items: none.\n"
	if err := os.WriteFile(notes, []byte(page), 0o600); err != nil {
		t.Fatal(err)
	}
	h := startHub(t, []ServerConfig{{Name: "files", Command: []string{bin, dir}}}, Options{})
	waitReady(t, h, "files")
	read := mustTool(t, h, "files__read_text_file")
	args := fmt.Sprintf(`{"path":%q}`, notes)

	res, err := run(t, read, args)
	if err != nil {
		t.Fatal(err)
	}
	checkWrapped(t, res.Content, "mcp:files/read_text_file")
	if low := strings.ToLower(res.Content); strings.Contains(low, "ignore all previous instructions") || strings.Contains(low, "system:") {
		t.Errorf("the injection in the file arrived: %q", res.Content)
	}
	if !strings.Contains(res.Content, "Meeting notes, Tuesday.") || !strings.Contains(res.Content, "Action items: none.") {
		t.Errorf("the file's harmless text was lost: %q", res.Content)
	}

	res, err = run(t, mustTool(t, h, "files__list_directory"), fmt.Sprintf(`{"path":%q}`, dir))
	if err != nil || !strings.Contains(res.Content, "notes.txt") {
		t.Errorf("list_directory: %v %q", err, res.Content)
	}
	if _, err := run(t, read, `{"path":"/etc/hostname"}`); !errors.Is(err, ErrToolFailed) {
		t.Errorf("reading outside the allowed directory: %v", err)
	}

	// Kill the server in the middle of the session: it comes back and works.
	old := pidsWithArg(dir)
	if len(old) != 1 {
		t.Fatalf("found server processes %v for %s", old, dir)
	}
	if err := syscall.Kill(old[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the killed server was not restarted", func() bool {
		now := pidsWithArg(dir)
		return serverInfo(h, "files").State == StateReady && len(now) == 1 && now[0] != old[0]
	})
	res, err = run(t, read, args)
	if err != nil || !strings.Contains(res.Content, "Meeting notes, Tuesday.") {
		t.Errorf("read_text_file after the restart: %v %q", err, res.Content)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "the server outlived Close", func() bool { return len(pidsWithArg(dir)) == 0 })
}

func TestRealEverythingServerOverHTTP(t *testing.T) {
	bin := npmServer(t, "mcp-server-everything")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	waitFor(t, 30*time.Second, "the HTTP server never listened", func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	h := startHub(t, []ServerConfig{{Name: "remote", URL: "http://" + addr + "/mcp", Headers: map[string]string{"X-Client": "ai-lab-test"}}}, Options{})
	waitReady(t, h, "remote")
	res, err := run(t, mustTool(t, h, "remote__echo"), `{"message":"over http"}`)
	if err != nil {
		t.Fatal(err)
	}
	checkWrapped(t, res.Content, "mcp:remote/echo")
	if !strings.Contains(res.Content, "Echo: over http") {
		t.Errorf("echo answered %q", res.Content)
	}
}
