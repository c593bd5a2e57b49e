package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/ailab/ai-lab/store"
)

// TestLeaseOneOwnerAtATime: two stores on one file (two ai-server processes)
// race for one session's lease many times; each round exactly one wins, and the
// loser gets store.ErrBusy until the winner releases.
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
	oa, ob := store.NewOwner(), store.NewOwner()
	for round := range 50 {
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, c := range []struct {
			s *Store
			o store.Owner
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
			case !errors.Is(err, store.ErrBusy):
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d owners got the lease (%v)", round, won, errs)
		}
		for _, o := range []store.Owner{oa, ob} {
			if err := a.Release(ctx, "s_1", o); err != nil {
				t.Fatal(err)
			}
		}
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
	cmd, out := startChild(t, "TestTakeOverFromAKilledProcess", leaseChildEnv, path)
	buf := make([]byte, 7)
	if _, err := out.Read(buf); err != nil || string(buf) != "running" {
		cmd.Process.Kill()
		t.Fatalf("child said %q, %v", buf, err)
	}
	o := store.NewOwner()
	if _, err := s.Acquire(ctx, "s_1", o, time.Now(), term); !errors.Is(err, store.ErrBusy) {
		t.Fatalf("took the lease of a live process: %v", err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	lease, err := s.Acquire(ctx, "s_1", o, time.Now(), term)
	if err != nil || !lease.TookOver {
		t.Fatalf("no takeover from a killed process: %+v %v", lease, err)
	}
	got, _, err := s.CallOutcome(ctx, "t_1/c1/call_1")
	if err != nil || got.Completed || got.Error != store.Interrupted {
		t.Fatalf("the killed run is %+v, %v; want it marked %q", got, err, store.Interrupted)
	}
}

func leaseChild(path string) {
	s, err := Open(path)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	ctx := context.Background()
	o := store.NewOwner()
	if _, err := s.Acquire(ctx, "s_1", o, time.Now(), time.Hour); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	e := sampleExecution("s_1")
	if err := s.StartExecution(ctx, store.Start{Execution: e, CallKey: "t_1/c1/call_1", Owner: o}); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Print("running")
	time.Sleep(time.Minute)
	os.Exit(0)
}

// TestACallStartsOnceAcrossProcesses: two stores on one file race to start
// the same call many times; each time exactly one start is recorded.
func TestACallStartsOnceAcrossProcesses(t *testing.T) {
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
	o := store.NewOwner()
	if _, err := a.Acquire(ctx, "s_1", o, time.Now(), term); err != nil {
		t.Fatal(err)
	}
	for round := range 50 {
		var wg sync.WaitGroup
		errs := make([]error, 2)
		start := make(chan struct{})
		for i, s := range []*Store{a, b} {
			wg.Go(func() {
				e := sampleExecution("s_1")
				e.ExecutionID = fmt.Sprintf("web_search_1763769600123_%04d%04d", round, i)
				<-start
				errs[i] = s.StartExecution(ctx, store.Start{Execution: e, CallKey: fmt.Sprintf("t_1/r%d/call_1", round), Owner: o})
			})
		}
		close(start)
		wg.Wait()
		if (errs[0] == nil) == (errs[1] == nil) {
			t.Fatalf("round %d: %v", round, errs)
		}
		for _, err := range errs {
			if err != nil && !errors.Is(err, store.ErrCallStarted) {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
}
