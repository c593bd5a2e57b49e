package sqlite

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/store"
)

// queued waits until n writes wait behind the group's leader.
func queued(t *testing.T, s *Store, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.commits.mu.Lock()
		q := len(s.commits.queue)
		s.commits.mu.Unlock()
		if q == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d writes queued, want %d", q, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// groupStats returns how many groups were committed and how many writes they held.
func groupStats(s *Store) (groups, writes int) {
	s.commits.mu.Lock()
	defer s.commits.mu.Unlock()
	return s.commits.groups, s.commits.grouped
}

// holdWrites holds the Store's write lock, as a long write or a checkpoint
// does, so that the writes started meanwhile queue; release lets them go.
func holdWrites(s *Store) (release func()) {
	unlock := s.writing()
	var once sync.Once
	return func() { once.Do(unlock) }
}

// TestGroupCommitKeepsEachWritesOutcome: writes committed together each get
// their own outcome. A start of a call that started before, a save under a
// lease its caller does not hold and a write whose caller gave up fail alone,
// store nothing, and leave the others' writes whole.
func TestGroupCommitKeepsEachWritesOutcome(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	a, b := store.NewOwner(), store.NewOwner()
	for id, o := range map[string]store.Owner{"s_a": a, "s_b": b} {
		if err := s.CreateSession(ctx, id, "t", t0); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Acquire(ctx, id, o, time.Now(), time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	started := sampleExecution("s_a")
	started.ExecutionID = "write_file_1763769600123_00000001"
	if err := s.StartExecution(ctx, store.Start{Execution: started, CallKey: "tr/0/call_1", Owner: a}); err != nil {
		t.Fatal(err)
	}
	groups0, writes0 := groupStats(s)

	release := holdWrites(s)
	defer release()
	fresh := sampleExecution("s_a")
	fresh.ExecutionID = "write_file_1763769600123_00000002"
	again := sampleExecution("s_a")
	again.ExecutionID = "write_file_1763769600123_00000003"
	halfway := sampleExecution("s_a")
	halfway.ExecutionID = "write_file_1763769600123_00000004"
	never := sampleExecution("s_a")
	never.ExecutionID = "write_file_1763769600123_0000ffff"
	gone, giveUp := context.WithCancel(ctx)
	msg := raw(`{"role":"user","content":"hello"}`)
	calls := []struct {
		name string
		do   func() error
		want error
	}{
		{"a fresh start", func() error {
			return s.StartExecution(ctx, store.Start{Execution: fresh, CallKey: "tr/0/call_2", Owner: a,
				Undo: &store.UndoPut{Record: store.UndoRecord{Seq: 7, Data: []byte(`{"undo":7}`)}}})
		}, nil},
		{"a second start of one call", func() error {
			return s.StartExecution(ctx, store.Start{Execution: again, CallKey: "tr/0/call_1", Owner: a,
				Undo: &store.UndoPut{Record: store.UndoRecord{Seq: 8, Data: []byte(`{"undo":8}`)}}})
		}, store.ErrCallStarted},
		{"a start that fails halfway (an earlier end names a run that never started)", func() error {
			return s.StartExecution(ctx, store.Start{Execution: halfway, CallKey: "tr/0/call_4", Owner: a,
				Finished: []store.Finish{{Execution: never, Outcome: "{}"}}})
		}, store.ErrNotFound},
		{"a save by the lease holder", func() error {
			_, err := s.Save(ctx, store.Save{SessionID: "s_b", Owner: b, Messages: msg, At: t0})
			return err
		}, nil},
		{"a save under another's lease", func() error {
			_, err := s.Save(ctx, store.Save{SessionID: "s_b", Owner: a, Messages: msg, At: t0})
			return err
		}, store.ErrLeaseLost},
		{"a write whose caller gave up", func() error {
			_, err := s.Save(gone, store.Save{SessionID: "s_a", Owner: a, Messages: msg, At: t0})
			return err
		}, context.Canceled},
	}
	errs := make([]error, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.do()
		}()
	}
	// One of them leads and waits for the lock; the others queue behind it.
	queued(t, s, len(calls)-1)
	giveUp()
	release()
	wg.Wait()
	for i, c := range calls {
		if c.want == nil && errs[i] != nil || c.want != nil && !errors.Is(errs[i], c.want) {
			t.Errorf("%s: got %v, want %v", c.name, errs[i], c.want)
		}
	}
	groups, writes := groupStats(s)
	if groups-groups0 != 1 || writes-writes0 != len(calls) {
		t.Errorf("committed %d groups of %d writes in all, want 1 of %d", groups-groups0, writes-writes0, len(calls))
	}
	if _, err := s.Execution(ctx, fresh.ExecutionID); err != nil {
		t.Errorf("the fresh start was not kept: %v", err)
	}
	for _, e := range []api.Execution{again, halfway} {
		if _, err := s.Execution(ctx, e.ExecutionID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("the refused start %s left a record: %v", e.ExecutionID, err)
		}
	}
	recs, err := s.UndoRecords(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Seq != 7 {
		t.Errorf("undo records %+v, want only the fresh start's (7)", recs)
	}
	for id, want := range map[string]int{"s_a": 0, "s_b": 1} {
		got, err := s.Messages(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != want {
			t.Errorf("session %s has %d messages, want %d", id, len(got), want)
		}
	}
}

// TestGroupCommitRedoesWritesAloneWhenTheGroupIsLost: when SQLite rolls a
// shared transaction back under one failing write (a full disk, an I/O
// error; here the write ends the transaction itself), the writes made before
// it in the group are lost with it. Each write is then made again on its own:
// every other caller's write is stored exactly once, and the failing one
// reports its error.
func TestGroupCommitRedoesWritesAloneWhenTheGroupIsLost(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	owners := map[string]store.Owner{}
	for i := range 4 {
		id := fmt.Sprintf("s_%d", i)
		owners[id] = store.NewOwner()
		if err := s.CreateSession(ctx, id, "t", t0); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Acquire(ctx, id, owners[id], time.Now(), time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	release := holdWrites(s)
	defer release()
	lost := errors.New("the disk is full")
	var breaks int
	var wg sync.WaitGroup
	errs := make(map[string]error)
	var mu sync.Mutex
	for id, o := range owners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Save(ctx, store.Save{SessionID: id, Owner: o, At: t0,
				Messages: raw(`{"role":"user","content":"hello ` + id + `"}`)})
			mu.Lock()
			errs[id] = err
			mu.Unlock()
		}()
	}
	wg.Add(1)
	var breakErr error
	go func() {
		defer wg.Done()
		breakErr = s.grouped(ctx, false, nil, func(ctx context.Context, tx *writeTx) error {
			breaks++
			if _, err := tx.ExecContext(ctx, "ROLLBACK"); err != nil {
				return err
			}
			return lost
		})
	}()
	queued(t, s, len(owners))
	release()
	wg.Wait()
	if !errors.Is(breakErr, lost) {
		t.Errorf("the failing write reported %v, want its own error", breakErr)
	}
	if breaks != 2 {
		t.Errorf("the failing write was made %d times, want 2 (in the group, then alone)", breaks)
	}
	for id := range owners {
		if errs[id] != nil {
			t.Errorf("save of %s: %v", id, errs[id])
		}
		got, err := s.Messages(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 {
			t.Errorf("session %s has %d messages, want exactly 1", id, len(got))
		}
	}
}

// TestGroupCommitUnderManyWriters: turns of many sessions at once, their
// writes committed in groups, leave every session's record exactly as turns
// one after another would: every message, start and end once, each in its
// session, and every lease released.
func TestGroupCommitUnderManyWriters(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	const sessions, turns = 24, 6
	round := raw(`{"role":"user","content":"write"}`, `{"role":"tool","content":"ok"}`)
	answer := raw(`{"role":"assistant","content":"done"}`)
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	for n := range sessions {
		id := fmt.Sprintf("s_%02d", n)
		if err := s.CreateSession(ctx, id, "t", t0); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := store.NewOwner()
			for i := range turns {
				turn := int64(n*turns + i)
				if err := turnWrites(ctx, s, id, o, turn, turn+1, round, answer); err != nil {
					errs <- fmt.Errorf("session %s turn %d: %w", id, i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for n := range sessions {
		id := fmt.Sprintf("s_%02d", n)
		got, err := s.Messages(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != turns*(len(round)+len(answer)) {
			t.Errorf("session %s has %d messages, want %d", id, len(got), turns*(len(round)+len(answer)))
		}
		var runs, completed int
		if err := s.read.QueryRowContext(ctx, `SELECT count(*), sum(completed) FROM executions WHERE session_id = ?`, id).Scan(&runs, &completed); err != nil {
			t.Fatal(err)
		}
		if runs != turns || completed != turns {
			t.Errorf("session %s has %d runs, %d completed, want %d", id, runs, completed, turns)
		}
		// A new owner takes the session at once: the last turn released it.
		if _, err := s.Acquire(ctx, id, store.NewOwner(), time.Now(), time.Hour); err != nil {
			t.Errorf("session %s still held: %v", id, err)
		}
	}
	recs, err := s.UndoRecords(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != sessions*turns {
		t.Errorf("%d undo records, want %d", len(recs), sessions*turns)
	}
}

// groupCrashChildEnv, when set, makes the test binary the child of
// TestKilledDuringGroupCommits: it plays turns of many sessions at once and
// prints "ack SESSION TURN" once a turn's last write returned.
const groupCrashChildEnv = "AILAB_STORE_TEST_GROUP_CRASH_CHILD_DB"

// TestKilledDuringGroupCommits: a server killed (SIGKILL) while many
// sessions' writes are committed in groups loses none that returned, and
// tears none: every turn acknowledged before the kill is whole after it, and
// each session holds whole writes only (a turn saves 2 messages, then 1, so
// a count of 3k+1 would be half a write).
func TestKilledDuringGroupCommits(t *testing.T) {
	if path := os.Getenv(groupCrashChildEnv); path != "" {
		groupCrashChild(path)
		return
	}
	path := filepath.Join(t.TempDir(), "state", "ai-lab.db")
	cmd, out := startChild(t, "TestKilledDuringGroupCommits", groupCrashChildEnv, path)
	acked := map[string]int{} // session -> turns acknowledged
	enough := make(chan struct{})
	done := make(chan struct{})
	var mu sync.Mutex
	go func() {
		defer close(done)
		sc := bufio.NewScanner(out)
		n := 0
		for sc.Scan() {
			var id string
			var turn int
			if _, err := fmt.Sscanf(sc.Text(), "ack %s %d", &id, &turn); err != nil {
				continue
			}
			mu.Lock()
			acked[id] = max(acked[id], turn+1)
			mu.Unlock()
			if n++; n == 300 {
				close(enough)
			}
		}
	}()
	select {
	case <-enough:
	case <-time.After(60 * time.Second):
		t.Fatal("the child did not acknowledge 300 turns within 60 s")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	<-done

	s, err := Open(path)
	if err != nil {
		t.Fatalf("reopen after the kill: %v", err)
	}
	defer s.Close()
	mu.Lock()
	defer mu.Unlock()
	for n := range groupCrashSessions {
		id := fmt.Sprintf("s_%02d", n)
		msgs, err := s.Messages(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) < 3*acked[id] {
			t.Errorf("session %s: %d messages after the kill, but %d turns (%d messages) were acknowledged", id, len(msgs), acked[id], 3*acked[id])
		}
		if len(msgs)%3 == 1 {
			t.Errorf("session %s: %d messages, half of a save", id, len(msgs))
		}
	}
}

const groupCrashSessions = 32

// groupCrashChild plays turns of many sessions until it is killed.
func groupCrashChild(path string) {
	ctx := context.Background()
	s, err := Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	round := raw(`{"role":"user","content":"write"}`, `{"role":"tool","content":"ok"}`)
	answer := raw(`{"role":"assistant","content":"done"}`)
	var out sync.Mutex
	for n := range groupCrashSessions {
		id := fmt.Sprintf("s_%02d", n)
		if err := s.CreateSession(ctx, id, "t", t0); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		go func() {
			o := store.NewOwner()
			for i := 0; ; i++ {
				turn := int64(n)<<32 | int64(i)
				if err := turnWrites(ctx, s, id, o, turn, turn+1, round, answer); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(3)
				}
				out.Lock()
				fmt.Printf("ack %s %d\n", id, i)
				out.Unlock()
			}
		}()
	}
	time.Sleep(time.Hour)
}

// TestGroupCommitKeepsSavepointsInMemory: what a group's savepoints (and
// statements inside its transaction) would roll back stays in memory, not in
// a temporary file that every write of the group writes again (some 30 extra
// system calls a turn under load). SQLite spills it to an unnamed file
// (O_TMPFILE) past 64 KiB by default; the test looks for one while a write
// of a group holds far more than that.
func TestGroupCommitKeepsSavepointsInMemory(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("reads open files from /proc: Linux only")
	}
	ctx := context.Background()
	s, _ := openTest(t)
	o := store.NewOwner()
	if err := s.CreateSession(ctx, "s_1", "t", t0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Acquire(ctx, "s_1", o, time.Now(), time.Hour); err != nil {
		t.Fatal(err)
	}
	// 100 messages of 2 KB: some 50 pages that the savepoint below rewrites.
	body := strings.Repeat("x", 2000)
	var msgs []string
	for i := range 100 {
		msgs = append(msgs, fmt.Sprintf(`{"role":"user","content":"%d %s"}`, i, body))
	}
	if _, err := s.Save(ctx, store.Save{SessionID: "s_1", Owner: o, At: t0, Messages: raw(msgs...)}); err != nil {
		t.Fatal(err)
	}
	var spilled []string
	err := s.grouped(ctx, false, nil, func(ctx context.Context, tx *writeTx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE messages SET body = upper(body)`); err != nil {
			return err
		}
		fds, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			return err
		}
		for _, fd := range fds {
			target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
			if err == nil && strings.HasSuffix(target, " (deleted)") {
				spilled = append(spilled, target)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(spilled) > 0 {
		t.Errorf("a savepoint spilled to temporary files: %v", spilled)
	}
}
