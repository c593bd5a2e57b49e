package sqlite

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
)

// crashChildEnv, when set, makes the test binary the child of
// TestKilledProcessLosesNoCommittedTurn: it writes to the database it names,
// reports "saved" and then waits to be killed, never calling Close.
const crashChildEnv = "AILAB_STORE_TEST_CRASH_CHILD_DB"

// TestKilledProcessLosesNoCommittedTurn is the crash the restart guarantee of
// CONTRACT section 4 rests on: a server killed (SIGKILL, no Close, no WAL
// checkpoint) right after Save returned must find the turn, its pending
// approval and its ledger record when a new process opens the same file.
func TestKilledProcessLosesNoCommittedTurn(t *testing.T) {
	if path := os.Getenv(crashChildEnv); path != "" {
		crashChild(path)
		return
	}
	path := filepath.Join(t.TempDir(), "state", "ai-lab.db")
	cmd, out := startChild(t, "TestKilledProcessLosesNoCommittedTurn", crashChildEnv, path)
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if sc.Text() == "saved" {
				ready <- sc.Text()
				return
			}
		}
		ready <- "child exited: " + fmt.Sprint(sc.Err())
	}()
	select {
	case msg := <-ready:
		if msg != "saved" {
			t.Fatal(msg)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the child did not save within 30 s")
	}
	// The commits must still be in the WAL only, or this test would not be
	// exercising recovery from it.
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() == 0 {
		t.Fatalf("no WAL content while the child runs: %v", err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait() // "signal: killed" is the point

	s, err := Open(path)
	if err != nil {
		t.Fatalf("reopen after the kill: %v", err)
	}
	defer s.Close()
	ctx := context.Background()
	msgs, err := s.Messages(ctx, "s_crash")
	if err != nil || len(msgs) != 2 || string(msgs[1]) != `{"role":"assistant","tool_calls":[{"id":"call_1"}]}` {
		t.Errorf("messages after the kill = %s, %v", msgs, err)
	}
	pending, err := s.Pending(ctx, "s_crash")
	if err != nil || string(pending) != `{"calls":[{"id":"call_1","name":"write_file"}]}` {
		t.Errorf("pending after the kill = %s, %v", pending, err)
	}
	if e, err := s.Execution(ctx, "read_file_1763769600123_0a1b2c3d"); err != nil || !e.Completed {
		t.Errorf("ledger record after the kill = %+v, %v", e, err)
	}
}

// startChild runs this test binary's test named test as a child process, with
// env set to the database path, and returns it with its standard output; the
// child is killed when the test ends.
func startChild(t *testing.T, test, env, path string) (*exec.Cmd, io.Reader) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), env+"="+path)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return cmd, out
}

// crashChild writes one turn and one ledger record, says so, and blocks until
// the parent kills it.
func crashChild(path string) {
	ctx := context.Background()
	s, err := Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	msgs := []json.RawMessage{
		json.RawMessage(`{"role":"user","content":"write a.txt"}`),
		json.RawMessage(`{"role":"assistant","tool_calls":[{"id":"call_1"}]}`),
	}
	steps := []error{
		s.CreateSession(ctx, "s_crash", "write a.txt", t0),
		runOnce(ctx, s, api.Execution{ExecutionID: "read_file_1763769600123_0a1b2c3d", ToolName: "read_file",
			Arguments: json.RawMessage(`{"path":"a.txt"}`), SessionID: "s_crash", StartedAt: t0, DurationMS: 1, Completed: true}, "{}"),
		saveTurn(ctx, s, "s_crash", msgs, json.RawMessage(`{"calls":[{"id":"call_1","name":"write_file"}]}`), t0),
	}
	for _, err := range steps {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
	}
	fmt.Println("saved")
	// A sleep, not select {}: the runtime would call an empty select with no
	// other goroutine a deadlock and exit on its own.
	time.Sleep(time.Hour)
}
