package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
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

func TestOpenCreatesPrivateFilesInWALMode(t *testing.T) {
	s, path := openTest(t)
	for _, c := range []struct {
		name string
		path string
		mode os.FileMode
	}{
		{"state directory", filepath.Dir(path), 0o700},
		{"database file", path, 0o600},
		// Conversations reach the WAL before the database file; it must be as private.
		{"write-ahead log", path + "-wal", 0o600},
		{"shared-memory index", path + "-shm", 0o600},
	} {
		info, err := os.Stat(c.path)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := info.Mode().Perm(); got != c.mode {
			t.Errorf("%s mode = %o, want %o", c.name, got, c.mode)
		}
	}
	ctx := context.Background()
	var mode string
	if err := s.read.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" {
		t.Errorf("journal_mode = %q, want wal", mode)
	}
	for _, db := range []interface {
		QueryRowContext(context.Context, string, ...any) *sql.Row
	}{s.conn, s.read} {
		var fk, busy int
		if err := db.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&busy); err != nil {
			t.Fatal(err)
		}
		if fk != 1 || busy != busyTimeoutMS {
			t.Errorf("foreign_keys = %d, busy_timeout = %d; want 1 and %d", fk, busy, busyTimeoutMS)
		}
	}
	var version int
	if err := s.read.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if version != len(migrations) {
		t.Errorf("user_version = %d, want %d", version, len(migrations))
	}
}

func TestOpenPathWithURIMetacharacters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "odd dir?x=1#frag%20")
	path := filepath.Join(dir, "ai-lab.db")
	s, err := Open(path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	if err := s.CreateSession(context.Background(), "s_1", "hi", t0); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the database is not at the path given: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Errorf("Open created %d entries next to the state directory, want only it", len(entries))
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	s, path := openTest(t)
	if _, err := s.conn.ExecContext(context.Background(), fmt.Sprintf("PRAGMA user_version = %d", len(migrations)+1)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2, err := Open(path)
	if err == nil {
		s2.Close()
		t.Fatal("Open accepted a database from a newer schema")
	}
	if !strings.Contains(err.Error(), "newer ai-server") {
		t.Errorf("error %q does not tell the user to run a newer ai-server", err)
	}
}

func TestOpenRefusesAFileThatIsNotADatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ai-lab.db")
	if err := os.WriteFile(path, []byte(strings.Repeat("not a database, just notes\n", 40)), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path)
	if err == nil {
		s.Close()
		t.Fatal("Open accepted a text file as the database")
	}
	want := "the state database " + path + " is damaged or is not an SQLite database: stop ai-server, move it aside (mv " + path + " " + path + ".damaged)"
	advice, ok := store.DamageAdvice(err)
	if msg := err.Error(); !strings.HasPrefix(msg, want) || !errors.Is(err, store.ErrDamaged) || !ok || !strings.HasPrefix(advice, want) {
		t.Errorf("error %q (advice %q), want it to wrap store.ErrDamaged and start %q and say how to fix it", msg, advice, want)
	}
}

// TestOpenRefusesDamagedPages damages a real database in the middle of a table's
// pages: the quick check at Open finds it and the sentence says what to do,
// instead of a bare failure on some later request.
func TestOpenRefusesDamagedPages(t *testing.T) {
	s, path := openTest(t)
	ctx := context.Background()
	if err := s.CreateSession(ctx, "s_1", "t", t0); err != nil {
		t.Fatal(err)
	}
	var many []json.RawMessage
	for i := range 2000 {
		many = append(many, json.RawMessage(fmt.Sprintf(`{"role":"user","content":"message %d %s"}`, i, strings.Repeat("x", 200))))
	}
	if err := saveTurn(ctx, s, "s_1", many, nil, t0); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil { // checkpoints the WAL into the file
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 40*4096 {
		t.Fatalf("database only %d bytes", len(data))
	}
	// Overwrite pages 20..29 (not the header page) with garbage.
	for i := 20 * 4096; i < 30*4096; i++ {
		data[i] = byte(i * 7)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(path)
	if err == nil {
		s2.Close()
		t.Fatal("Open accepted a database with damaged pages")
	}
	if advice, _ := store.DamageAdvice(err); !errors.Is(err, store.ErrDamaged) || !strings.Contains(advice, "move it aside (mv "+path) {
		t.Fatalf("error %q does not say the database is damaged and what to do", err)
	}
}

// TestFreshTellsAnEmptiedFileFromAnUsedOne: a state file truncated to 0 bytes
// opens as a new database, and Fresh says so, so the server can warn instead of
// silently starting without its sessions and ledger.
func TestFreshTellsAnEmptiedFileFromAnUsedOne(t *testing.T) {
	s, path := openTest(t)
	if !s.Fresh() {
		t.Error("a new database is not Fresh")
	}
	s.Close()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Fresh() {
		t.Error("a reopened database with its schema is Fresh")
	}
	s.Close()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(path + suffix)
	}
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.Fresh() {
		t.Error("a database truncated to 0 bytes is not Fresh")
	}
}

func TestOpenUnwritableStateDir(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(filepath.Join(blocker, "state", "ai-lab.db"))
	if err == nil || !strings.Contains(err.Error(), "server.state_dir") {
		t.Errorf("Open under a regular file: err = %v, want one naming server.state_dir", err)
	}
}

// A server killed between an ApprovalRequiredResponse and the decision must find
// everything again when it starts on the same file.
func TestReopenSeesEverything(t *testing.T) {
	ctx := context.Background()
	s, path := openTest(t)
	msgs := []json.RawMessage{json.RawMessage(`{"role":"user","content":"delete a.txt"}`)}
	pending := json.RawMessage(`{"calls":[{"id":"call_1","name":"delete_file"}]}`)
	exec := api.Execution{ExecutionID: "read_file_1763769600123_0a1b2c3d", ToolName: "read_file",
		Arguments: json.RawMessage(`{"path":"a.txt"}`), SessionID: "s_1", StartedAt: t0, DurationMS: 3, Completed: true}
	trace := api.Trace{TraceID: "t_1", SessionID: "s_1", StartedAt: t0, DurationMS: 9, Success: true,
		Calls: []api.TraceCall{{CallID: "c1", Kind: api.CallModel, Arguments: json.RawMessage(`{}`), StartedAt: t0, Success: true}}}
	if err := s.CreateSession(ctx, "s_1", "delete a.txt", t0); err != nil {
		t.Fatal(err)
	}
	if err := saveTurn(ctx, s, "s_1", msgs, pending, t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := runOnce(ctx, s, exec, `{"result":"ok"}`); err != nil {
		t.Fatal(err)
	}
	if err := s.saveTrace(ctx, trace); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	s2, err := Open(path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s2.Close()
	sess, err := s2.Session(ctx, "s_1")
	if err != nil {
		t.Fatal(err)
	}
	if !sess.PendingApproval || !sess.UpdatedAt.Equal(t0.Add(time.Second).Truncate(time.Millisecond)) {
		t.Errorf("session after reopen = %+v", sess)
	}
	gotMsgs, err := s2.Messages(ctx, "s_1")
	if err != nil || len(gotMsgs) != 1 || string(gotMsgs[0]) != string(msgs[0]) {
		t.Errorf("messages after reopen = %s, %v", gotMsgs, err)
	}
	gotPending, err := s2.Pending(ctx, "s_1")
	if err != nil || string(gotPending) != string(pending) {
		t.Errorf("pending after reopen = %s, %v", gotPending, err)
	}
	gotExec, err := s2.Execution(ctx, exec.ExecutionID)
	if err != nil || gotExec.ToolName != "read_file" || !gotExec.Completed {
		t.Errorf("execution after reopen = %+v, %v", gotExec, err)
	}
	gotTrace, err := s2.Trace(ctx, "t_1")
	if err != nil || len(gotTrace.Calls) != 1 {
		t.Errorf("trace after reopen = %+v, %v", gotTrace, err)
	}
}

// Twenty goroutines write turns and ledger records on their own sessions at once,
// while others read; none may see "database is locked". Run with -race.
func TestConcurrentWritersNeverSeeLocked(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	const workers, turns = 20, 10
	for w := range workers {
		if err := s.CreateSession(ctx, fmt.Sprintf("s_%d", w), "t", t0); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers*turns*4)
	for w := range workers {
		wg.Go(func() {
			id := fmt.Sprintf("s_%d", w)
			for i := range turns {
				at := t0.Add(time.Duration(i) * time.Second)
				msg := json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))
				if err := saveTurn(ctx, s, id, []json.RawMessage{msg}, nil, at); err != nil {
					errs <- err
				}
				if err := runOnce(ctx, s, api.Execution{ExecutionID: fmt.Sprintf("read_file_%d_%d", w, i),
					ToolName: "read_file", SessionID: id, StartedAt: at, Completed: true}, "{}"); err != nil {
					errs <- err
				}
				if _, err := s.Messages(ctx, id); err != nil {
					errs <- err
				}
				if _, err := s.Sessions(ctx); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for w := range workers {
		msgs, err := s.Messages(ctx, fmt.Sprintf("s_%d", w))
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) != turns {
			t.Fatalf("session %d has %d messages, want %d", w, len(msgs), turns)
		}
		for i, m := range msgs {
			if want := fmt.Sprintf(`{"n":%d}`, i); string(m) != want {
				t.Errorf("session %d message %d = %s, want %s", w, i, m, want)
			}
		}
	}
}

// Two Stores on one file stand for two processes: SQLite's own locking with
// busy_timeout and immediate transactions must keep them from failing.
func TestTwoStoresOnOneFile(t *testing.T) {
	ctx := context.Background()
	a, path := openTest(t)
	b, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for i, s := range []*Store{a, b} {
		if err := s.CreateSession(ctx, fmt.Sprintf("s_%d", i), "t", t0); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i, s := range []*Store{a, b} {
		wg.Go(func() {
			for n := range 25 {
				if err := saveTurn(ctx, s, fmt.Sprintf("s_%d", i), []json.RawMessage{json.RawMessage(`{}`)}, nil, t0); err != nil {
					errs <- fmt.Errorf("store %d turn %d: %w", i, n, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for i := range 2 {
		msgs, err := a.Messages(ctx, fmt.Sprintf("s_%d", i))
		if err != nil || len(msgs) != 25 {
			t.Errorf("session %d: %d messages, %v; want 25", i, len(msgs), err)
		}
	}
}

func TestTimeRoundTrip(t *testing.T) {
	for _, c := range []struct {
		name string
		in   time.Time
	}{
		{"sub-millisecond digits in another zone", t0},
		{"the unix epoch", time.Unix(0, 0)},
		{"before the epoch", time.Date(1969, 7, 20, 20, 17, 40, 999_000_000, time.UTC)},
		{"the zero time", time.Time{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := fromMillis(millis(c.in))
			want := c.in.Truncate(time.Millisecond)
			if c.in.IsZero() {
				want = c.in
			}
			if !got.Equal(want) || got.Location() != time.UTC {
				t.Errorf("round trip of %v = %v (%v), want %v in UTC", c.in, got, got.Location(), want)
			}
		})
	}
}

// TestTheWALIsCheckpointedInTheBackground: commits go to the WAL and a
// background checkpoint copies them into the database file while the store is
// open (no commit pays for the checkpoint's fsync).
func TestTheWALIsCheckpointedInTheBackground(t *testing.T) {
	s, path := openTest(t)
	ctx := context.Background()
	if err := s.CreateSession(ctx, "s_1", "t", t0); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(path)
	var many []json.RawMessage
	for i := range 500 {
		many = append(many, json.RawMessage(fmt.Sprintf(`{"role":"user","content":"%d %s"}`, i, strings.Repeat("y", 300))))
	}
	if err := saveTurn(ctx, s, "s_1", many, nil, t0); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		after, _ := os.Stat(path)
		if after.Size() > before.Size()+100_000 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the database file stayed at %d bytes: the WAL was never checkpointed", after.Size())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestDamageFoundLaterIsADamageError: pages damaged while the store is open
// make the next read fail with a store.DamageError naming the file, not with
// SQLite's bare result code.
func TestDamageFoundLaterIsADamageError(t *testing.T) {
	s, path := openTest(t)
	ctx := context.Background()
	if err := s.CreateSession(ctx, "s_1", "t", t0); err != nil {
		t.Fatal(err)
	}
	var many []json.RawMessage
	for i := range 2000 {
		many = append(many, json.RawMessage(fmt.Sprintf(`{"role":"user","content":"message %d %s"}`, i, strings.Repeat("x", 200))))
	}
	if err := saveTurn(ctx, s, "s_1", many, nil, t0); err != nil {
		t.Fatal(err)
	}
	s.checkpoint("TRUNCATE") // the pages are in the file now, not in the WAL
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 20 * 4096; i < 30*4096; i++ {
		data[i] = byte(i * 7)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	s.read.SetMaxIdleConns(0) // no reader keeps the good pages in its cache
	_, err = s.Messages(ctx, "s_1")
	advice, ok := store.DamageAdvice(err)
	if !errors.Is(err, store.ErrDamaged) || !ok || !strings.Contains(advice, "move it aside (mv "+path) {
		t.Fatalf("reading damaged pages: %v (advice %q)", err, advice)
	}
}
