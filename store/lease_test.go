package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
)

const term = 30 * time.Second

// TestLeaseOneOwnerAtATime: two stores on one file (two ai-server processes)
// race for one session's lease many times; each round exactly one wins, and the
// loser gets ErrBusy until the winner releases.
func TestLeaseOneOwnerAtATime(t *testing.T) {
	a, path := openTest(t)
	b, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	if err := a.CreateSession(ctx, "s_1", "t", t0); err != nil {
		t.Fatal(err)
	}
	oa, ob := NewOwner(), NewOwner()
	for round := range 50 {
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, c := range []struct {
			s *Store
			o Owner
		}{{a, oa}, {b, ob}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = c.s.Acquire(ctx, "s_1", c.o, time.Now(), term)
			}()
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, ErrBusy):
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d owners got the lease (%v)", round, won, errs)
		}
		for _, o := range []Owner{oa, ob} {
			if err := a.Release(ctx, "s_1", o); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestLeaseExpiresAndFencesTheOldOwner(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	if err := s.CreateSession(ctx, "s_1", "t", t0); err != nil {
		t.Fatal(err)
	}
	old, next := NewOwner(), NewOwner()
	now := time.Now()
	if _, err := s.Acquire(ctx, "s_1", old, now, time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Acquire(ctx, "s_1", next, now, term); !errors.Is(err, ErrBusy) {
		t.Fatalf("took a running lease: %v", err)
	}
	lease, err := s.Acquire(ctx, "s_1", next, now.Add(2*time.Second), term)
	if err != nil || !lease.TookOver {
		t.Fatalf("an expired lease was not taken over: %+v %v", lease, err)
	}
	// The old owner, waking up, can neither save nor start a run nor renew.
	if _, err := s.Save(ctx, Save{SessionID: "s_1", Owner: old, Messages: raw(`{"role":"user"}`), At: now}); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("stale owner's save: %v", err)
	}
	st := Start{Execution: sampleExecution("s_1"), CallKey: "t_1/c1/call_1", Owner: old}
	if err := s.StartExecution(ctx, st); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("stale owner's start: %v", err)
	}
	if err := s.Renew(ctx, "s_1", old, now.Add(term)); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("stale owner's renew: %v", err)
	}
	// Its release frees nothing.
	if err := s.Release(ctx, "s_1", old); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Save(ctx, Save{SessionID: "s_1", Owner: next, Messages: raw(`{"role":"user"}`), At: now}); err != nil {
		t.Errorf("the new owner's save after the old one's release: %v", err)
	}
	// A writer without a lease waits for the running one.
	if err := s.SaveTurn(ctx, "s_1", raw(`{"role":"user"}`), nil, now); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("an unleased save during a lease: %v", err)
	}
	if n := countRows(t, s, "messages"); n != 1 {
		t.Errorf("%d messages stored, want 1", n)
	}
}

// TestACallStartsOnce: the start record of one call key is written once; every
// later start, by the same owner or another after a takeover, is ErrCallStarted.
func TestACallStartsOnce(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	if err := s.CreateSession(ctx, "s_1", "t", t0); err != nil {
		t.Fatal(err)
	}
	o := NewOwner()
	if _, err := s.Acquire(ctx, "s_1", o, time.Now(), term); err != nil {
		t.Fatal(err)
	}
	e := sampleExecution("s_1")
	e.Decision = api.DecisionUser
	if err := s.StartExecution(ctx, Start{Execution: e, CallKey: "t_1/c1/call_1", Owner: o}); err != nil {
		t.Fatal(err)
	}
	again := e
	again.ExecutionID = "write_file_1763769600999_00000001"
	if err := s.StartExecution(ctx, Start{Execution: again, CallKey: "t_1/c1/call_1", Owner: o}); !errors.Is(err, ErrCallStarted) {
		t.Fatalf("second start of one call: %v", err)
	}
	got, outcome, err := s.CallOutcome(ctx, "t_1/c1/call_1")
	if err != nil || got.ExecutionID != e.ExecutionID || got.Completed || outcome != "" || got.Decision != api.DecisionUser {
		t.Fatalf("outcome before the end: %+v %q %v", got, outcome, err)
	}
	e.Completed, e.DurationMS = true, 12
	if err := s.FinishExecution(ctx, e, `{"result":"ok"}`); err != nil {
		t.Fatal(err)
	}
	got, outcome, err = s.CallOutcome(ctx, "t_1/c1/call_1")
	if err != nil || !got.Completed || outcome != `{"result":"ok"}` || got.DurationMS != 12 {
		t.Fatalf("outcome after the end: %+v %q %v", got, outcome, err)
	}
	if _, _, err := s.CallOutcome(ctx, "t_1/c1/call_2"); !errors.Is(err, ErrNotFound) {
		t.Errorf("a call that never started: %v", err)
	}
}

// leaseChildEnv makes the test binary the child of TestTakeOverFromAKilledProcess:
// it takes the lease, starts a run and waits to be killed.
const leaseChildEnv = "AILAB_STORE_TEST_LEASE_CHILD_DB"

// TestTakeOverFromAKilledProcess: a process SIGKILLed while it holds a lease
// and runs a call does not block the session until the lease expires; the next
// process takes over at once and finds the run marked interrupted, not running.
func TestTakeOverFromAKilledProcess(t *testing.T) {
	if path := os.Getenv(leaseChildEnv); path != "" {
		leaseChild(path)
		return
	}
	s, path := openTest(t)
	ctx := context.Background()
	if err := s.CreateSession(ctx, "s_1", "t", t0); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestTakeOverFromAKilledProcess$")
	cmd.Env = append(os.Environ(), leaseChildEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 7)
	if _, err := out.Read(buf); err != nil || string(buf) != "running" {
		cmd.Process.Kill()
		t.Fatalf("child said %q, %v", buf, err)
	}
	o := NewOwner()
	if _, err := s.Acquire(ctx, "s_1", o, time.Now(), term); !errors.Is(err, ErrBusy) {
		t.Fatalf("took the lease of a live process: %v", err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	lease, err := s.Acquire(ctx, "s_1", o, time.Now(), term)
	if err != nil || !lease.TookOver {
		t.Fatalf("no takeover from a killed process: %+v %v", lease, err)
	}
	got, _, err := s.CallOutcome(ctx, "t_1/c1/call_1")
	if err != nil || got.Completed || got.Error != Interrupted {
		t.Fatalf("the killed run is %+v, %v; want it marked %q", got, err, Interrupted)
	}
}

func leaseChild(path string) {
	s, err := Open(path)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	ctx := context.Background()
	o := NewOwner()
	if _, err := s.Acquire(ctx, "s_1", o, time.Now(), time.Hour); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	e := sampleExecution("s_1")
	if err := s.StartExecution(ctx, Start{Execution: e, CallKey: "t_1/c1/call_1", Owner: o}); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Print("running")
	time.Sleep(time.Minute)
	os.Exit(0)
}

// TestSaveAppendsTheTrace: saving a growing chain writes only its new calls,
// and the stored chain equals the whole one.
func TestSaveAppendsTheTrace(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	if err := s.CreateSession(ctx, "s_1", "t", t0); err != nil {
		t.Fatal(err)
	}
	tr := sampleTrace("t_a", "s_1", t0, 5, true, "web_search")
	saved := 0
	for round := range 3 {
		if round > 0 {
			tr.Calls = append(tr.Calls, api.TraceCall{CallID: fmt.Sprintf("x%d", round), Kind: api.CallTool, ToolName: "read_file",
				Arguments: json.RawMessage(`{}`), StartedAt: t0, Success: true})
		}
		tr.DurationMS = int64(10 * (round + 1))
		if _, err := s.Save(ctx, Save{SessionID: "s_1", At: t0, Trace: &tr, TraceFrom: saved}); err != nil {
			t.Fatal(err)
		}
		saved = len(tr.Calls)
	}
	got, err := s.Trace(ctx, "t_a")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Calls) != len(tr.Calls) || got.DurationMS != 30 || got.Calls[len(got.Calls)-1].CallID != "x2" {
		t.Fatalf("stored chain %+v, want %d calls", got, len(tr.Calls))
	}
	list, err := s.Traces(ctx, TraceFilter{Tool: "read_file"})
	if err != nil || len(list) != 1 {
		t.Fatalf("by tool: %v %v", traceIDs(list), err)
	}
}

func TestPruneExecutionsKeepsPausedSessions(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	for _, id := range []string{"s_done", "s_paused"} {
		if err := s.CreateSession(ctx, id, "t", t0); err != nil {
			t.Fatal(err)
		}
		e := sampleExecution(id)
		e.ExecutionID = "read_file_1763769600123_0000000" + id[2:3]
		if err := s.RecordExecution(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SaveTurn(ctx, "s_paused", nil, json.RawMessage(`{"calls":[]}`), t0); err != nil {
		t.Fatal(err)
	}
	n, err := s.PruneExecutions(ctx, t0.Add(time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("pruned %d, %v; want 1", n, err)
	}
	if _, err := s.Execution(ctx, "read_file_1763769600123_0000000p"); err != nil {
		t.Errorf("the paused session's record went: %v", err)
	}
	if n, _ := s.PruneExecutions(ctx, t0.Add(-time.Hour)); n != 0 {
		t.Errorf("pruned %d records younger than the bound", n)
	}
}
