package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/store"
)

// Bounds of TestTheWALStaysBounded: the goals for 100 concurrent sessions.
const (
	walBusyBound = 64 << 20 // never larger, under load
	walIdleBound = 8 << 20  // back under this once the load stops
)

// TestTheWALStaysBounded hammers one store for a few seconds with 100 writers
// (each on its own session: leased saves with a message and a trace, ledger
// starts and ends) and 16 readers that never pause, then stops. The WAL must
// stay under walBusyBound the whole time and fall under walIdleBound once the
// store is idle: with only PASSIVE checkpoints the readers keep the WAL from
// restarting and it grows for as long as the load lasts.
func TestTheWALStaysBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("a load test of several seconds")
	}
	const (
		writers = 100
		readers = 16
		load    = 4 * time.Second
	)
	s, _ := openTest(t)
	ctx := context.Background()
	for w := range writers {
		if err := s.CreateSession(ctx, fmt.Sprintf("s_%03d", w), "t", t0); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.CreateSession(ctx, "s_read", "t", t0); err != nil {
		t.Fatal(err)
	}
	if err := saveTurn(ctx, s, "s_read", raw(`{"role":"user","content":"hi"}`), nil, t0); err != nil {
		t.Fatal(err)
	}

	var peak atomic.Int64
	sample := func() int64 {
		now, _ := s.WALBytes()
		for {
			p := peak.Load()
			if now <= p || peak.CompareAndSwap(p, now) {
				return now
			}
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var saves, reads atomic.Int64
	errs := make(chan error, writers+readers)
	body := strings.Repeat("lorem ipsum ", 300) // about 3.6 kB a message
	for w := range writers {
		wg.Go(func() {
			id := fmt.Sprintf("s_%03d", w)
			o := store.NewOwner()
			if _, err := s.Acquire(ctx, id, o, time.Now(), time.Hour); err != nil {
				errs <- err
				return
			}
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				e := api.Execution{ExecutionID: fmt.Sprintf("read_file_%s_%d", id, i), ToolName: "read_file",
					Arguments: json.RawMessage(`{"path":"a.txt"}`), SessionID: id, StartedAt: time.Now()}
				if err := s.StartExecution(ctx, store.Start{Execution: e, CallKey: e.ExecutionID, Owner: o}); err != nil {
					errs <- err
					return
				}
				e.Completed, e.DurationMS = true, 1
				if err := s.FinishExecution(ctx, o, e, `{"result":"`+body[:200]+`"}`); err != nil {
					errs <- err
					return
				}
				tr := sampleTrace(fmt.Sprintf("t_%s_%d", id, i), id, time.Now(), 3, true, "read_file")
				msg := json.RawMessage(fmt.Sprintf(`{"role":"assistant","content":"%d %s"}`, i, body))
				if _, err := s.Save(ctx, store.Save{SessionID: id, Owner: o, Messages: []json.RawMessage{msg},
					At: time.Now(), Trace: &tr}); err != nil {
					errs <- err
					return
				}
				saves.Add(1)
			}
		})
	}
	for r := range readers {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				var err error
				switch (r + i) % 4 {
				case 0:
					_, err = s.Sessions(ctx)
				case 1:
					_, err = s.Messages(ctx, "s_read")
				case 2:
					_, err = s.Traces(ctx, store.TraceFilter{Tool: "read_file", Limit: 5})
				case 3:
					_, err = s.Pending(ctx, fmt.Sprintf("s_%03d", i%writers))
				}
				if err != nil {
					errs <- err
					return
				}
				reads.Add(1)
			}
		})
	}
	sampler := make(chan struct{})
	go func() {
		defer close(sampler)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				sample()
			}
		}
	}()
	time.Sleep(load)
	close(stop)
	wg.Wait()
	<-sampler
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	_, storePeak := s.WALBytes()
	high := max(peak.Load(), storePeak)
	t.Logf("%d saves and %d reads in %v; WAL high-water mark %.1f MB", saves.Load(), reads.Load(), load, float64(high)/(1<<20))
	// The goal is walBusyBound; the checkpointer should keep well inside it,
	// at walLimitBytes and what is written before it takes the write lock
	// (this load writes some 1.5 MB a second).
	if high >= walBusyBound || high >= 6*walLimitBytes {
		t.Errorf("the WAL reached %.1f MB under load, want under %d MB (six times the checkpoint threshold)",
			float64(high)/(1<<20), min(walBusyBound, 6*walLimitBytes)>>20)
	}
	stopped := time.Now()
	deadline := stopped.Add(idleAfter + 5*time.Second)
	for {
		now := sample()
		if now < walIdleBound {
			t.Logf("the WAL was %.1f MB %v after the load stopped", float64(now)/(1<<20), time.Since(stopped).Round(10*time.Millisecond))
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the WAL is still %.1f MB %v after the load stopped, want under %d MB", float64(now)/(1<<20),
				time.Since(stopped).Round(time.Second), walIdleBound>>20)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestAnIdleWALIsTruncated: a WAL that no later write restarts (a RESTART
// checkpoint copies it but leaves the file as it is) still goes back to
// (almost) nothing once the store is idle, without any
// further write to restart it.
func TestAnIdleWALIsTruncated(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	if err := s.CreateSession(ctx, "s_1", "t", t0); err != nil {
		t.Fatal(err)
	}
	// One save, so no later write restarts the WAL (and cuts it back to
	// journal_size_limit) before the store is idle.
	body := strings.Repeat("y", 4000)
	var many []json.RawMessage
	for j := range 2500 {
		many = append(many, json.RawMessage(fmt.Sprintf(`{"n":"%d %s"}`, j, body)))
	}
	if err := saveTurn(ctx, s, "s_1", many, nil, t0); err != nil {
		t.Fatal(err)
	}
	before, _ := s.WALBytes()
	if before < walKeepBytes*2 {
		t.Fatalf("the WAL is %d bytes after the writes; the test needs it over %d", before, walKeepBytes*2)
	}
	written := time.Now()
	deadline := written.Add(idleAfter + 5*time.Second)
	for {
		now, _ := s.WALBytes()
		if now < walKeepBytes {
			t.Logf("the WAL went from %.1f MB to %.1f MB after %v idle", float64(before)/(1<<20), float64(now)/(1<<20),
				time.Since(written).Round(10*time.Millisecond))
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the WAL of an idle store is still %d bytes", now)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestAnIdleStoreSleepsUntilItWrites: once the WAL is empty and the store has
// not written for idleAfter, the checkpointer stops looking four times a second
// (an idle server on a laptop should not wake for nothing), and the first
// write after that wakes it, so that WAL is emptied again as soon as it idles.
func TestAnIdleStoreSleepsUntilItWrites(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	waitFor := func(what string, within time.Duration, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(within)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within %v", what, within)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	for round := range 2 {
		if err := s.CreateSession(ctx, fmt.Sprintf("s_%d", round), "t", t0); err != nil {
			t.Fatal(err)
		}
		if wal, _ := s.WALBytes(); wal == 0 {
			t.Fatalf("round %d: the WAL is empty after a write", round)
		}
		waitFor(fmt.Sprintf("round %d: the WAL emptied once idle", round), idleAfter+3*time.Second, func() bool {
			wal, _ := s.WALBytes()
			return wal == 0
		})
		waitFor(fmt.Sprintf("round %d: the checkpointer dormant", round), idleAfter+3*time.Second, s.dormant.Load)
		before := s.looks.Load()
		time.Sleep(4 * checkpointEvery)
		if n := s.looks.Load() - before; n > 1 {
			t.Fatalf("round %d: a dormant checkpointer looked at the WAL %d times in %v", round, n, 4*checkpointEvery)
		}
	}
}

// TestADormantStoreEmptiesAWALLeftByAnotherProcess: a server that sleeps still
// looks now and then, so the WAL of another server on the same file that died
// without checkpointing (here: a plain connection that writes with automatic
// checkpoints off and goes away) is emptied without a write of this one.
func TestADormantStoreEmptiesAWALLeftByAnotherProcess(t *testing.T) {
	old := dormantEvery
	dormantEvery = 300 * time.Millisecond
	t.Cleanup(func() { dormantEvery = old })
	s, path := openTest(t)
	ctx := context.Background()
	if err := s.CreateSession(ctx, "s_1", "t", t0); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(idleAfter + 3*time.Second)
	for !s.dormant.Load() {
		if time.Now().After(deadline) {
			t.Fatal("the checkpointer did not go dormant")
		}
		time.Sleep(20 * time.Millisecond)
	}
	other, err := sql.Open("sqlite", dsn(path, url.Values{"_pragma": {"busy_timeout(5000)", "wal_autocheckpoint(0)"}}))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		if _, err := other.Exec(`INSERT INTO sessions (id, title, created_at, updated_at) VALUES (?, 't', 0, 0)`, fmt.Sprintf("s_other_%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	left, _ := s.WALBytes()
	if left == 0 {
		t.Fatal("the other connection left no WAL; the test needs one")
	}
	left2 := time.Now()
	deadline = left2.Add(dormantEvery + idleAfter + 3*time.Second)
	for {
		if wal, _ := s.WALBytes(); wal == 0 {
			t.Logf("the %d-byte WAL left behind was emptied after %v", left, time.Since(left2).Round(10*time.Millisecond))
			return
		}
		if time.Now().After(deadline) {
			wal, _ := s.WALBytes()
			t.Fatalf("the WAL left behind is still %d bytes after %v", wal, time.Since(left2).Round(time.Second))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
