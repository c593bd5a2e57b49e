package sqlite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/store"
)

// TestSaveIsAllOrNothingInsideTheTransaction: a failure inside the
// transaction, after the session row and the first message were written,
// rolls all of it back (the contract suite cannot make a write fail midway).
func TestSaveIsAllOrNothingInsideTheTransaction(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	if err := s.CreateSession(ctx, "s_1", "t", t0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.conn.ExecContext(context.Background(), `CREATE TRIGGER boom BEFORE INSERT ON messages
		WHEN NEW.body = '"boom"' BEGIN SELECT RAISE(ABORT, 'boom'); END`); err != nil {
		t.Fatal(err)
	}
	tr := sampleTrace("t_1", "s_1", t0, 5, true, "read_file")
	_, err := s.Save(ctx, store.Save{SessionID: "s_1", Messages: raw(`{"a":1}`, `"boom"`), Pending: json.RawMessage(`{"p":1}`),
		At: t0.Add(time.Hour), Trace: &tr})
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("Save err = %v, want the trigger's", err)
	}
	for _, table := range []string{"messages", "traces", "trace_calls", "trace_tools"} {
		if n := countRows(t, s, table); n != 0 {
			t.Errorf("%d rows left behind in %s", n, table)
		}
	}
	sess, _ := s.Session(ctx, "s_1")
	if sess.PendingApproval || !sess.UpdatedAt.Equal(t0.Truncate(time.Millisecond)) {
		t.Errorf("session changed by a failed Save: %+v", sess)
	}
}

// TestTraceRowsDoNotLeak: replacing and pruning chains leaves no call or tool
// index rows behind, which no method would show.
func TestTraceRowsDoNotLeak(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	for i := range 6 {
		if err := s.saveTrace(ctx, sampleTrace(fmt.Sprintf("t_%d", i), "s_1", t0.Add(time.Duration(i)*time.Minute), 5, true, "read_file", "web_search")); err != nil {
			t.Fatal(err)
		}
	}
	// Saved again whole with fewer calls: the dropped call's rows go.
	if err := s.saveTrace(ctx, sampleTrace("t_5", "s_1", t0.Add(5*time.Minute), 5, true, "read_file")); err != nil {
		t.Fatal(err)
	}
	if n, m := countRows(t, s, "trace_calls"), countRows(t, s, "trace_tools"); n != 5*3+2 || m != 5*2+1 {
		t.Errorf("%d call rows and %d tool rows, want %d and %d", n, m, 5*3+2, 5*2+1)
	}
	if gone, err := s.PruneTraces(ctx, time.Time{}, 2); err != nil || gone != 4 {
		t.Fatalf("pruned %d, %v; want 4", gone, err)
	}
	if n, m := countRows(t, s, "trace_calls"), countRows(t, s, "trace_tools"); n != 3+2 || m != 2+1 {
		t.Errorf("after the prune: %d call rows and %d tool rows, want %d and %d", n, m, 3+2, 2+1)
	}
	if _, err := s.Trace(ctx, "t_0"); err == nil {
		t.Error("a pruned chain is still there")
	}
}

// TestFailedWritesLeaveNoTransactionOpen: the write connection is held for the
// Store's life and its transactions are begun and ended by statements, so a
// write that fails must end its transaction: one left open would take in the
// one-statement writes after it and make none of them durable. After each
// failing kind of write, a one-statement write is seen by another connection.
func TestFailedWritesLeaveNoTransactionOpen(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	if err := s.CreateSession(ctx, "s_1", "t", t0); err != nil {
		t.Fatal(err)
	}
	committed := func(step string) {
		t.Helper()
		id := "s_after_" + strings.ReplaceAll(step, " ", "_")
		if err := s.CreateSession(ctx, id, "t", t0); err != nil {
			t.Fatalf("after %s: %v", step, err)
		}
		var n int
		if err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM sessions WHERE id = ?`, id).Scan(&n); err != nil || n != 1 {
			t.Fatalf("after %s, a write is not seen by another connection (%d rows, %v): a transaction was left open", step, n, err)
		}
	}
	// A Save that fails inside its transaction.
	if _, err := s.conn.ExecContext(ctx, `CREATE TRIGGER boom BEFORE INSERT ON messages
		WHEN NEW.body = '"boom"' BEGIN SELECT RAISE(ABORT, 'boom'); END`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Save(ctx, store.Save{SessionID: "s_1", Messages: raw(`"boom"`), At: t0}); err == nil {
		t.Fatal("the trigger did not fail the Save")
	}
	committed("failed save")
	// An Acquire refused in its transaction (the lease is another's).
	holder, other := store.NewOwner(), store.NewOwner()
	if _, err := s.Acquire(ctx, "s_1", holder, time.Now(), time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Acquire(ctx, "s_1", other, time.Now(), time.Hour); !errors.Is(err, store.ErrBusy) {
		t.Fatalf("Acquire of a held lease: %v, want ErrBusy", err)
	}
	committed("refused acquire")
	// A start refused in its transaction (the lease is another's), with an
	// undo record riding on it.
	start := store.Start{Execution: api.Execution{ExecutionID: "exec_1", ToolName: "write_file", SessionID: "s_1", StartedAt: t0},
		CallKey: "k1", Owner: other, Undo: &store.UndoPut{Record: store.UndoRecord{Seq: 1, Data: []byte(`{}`)}}}
	if err := s.StartExecution(ctx, start); !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("a start without the lease: %v, want ErrLeaseLost", err)
	}
	committed("refused start")
	// A save without the lease, grouped with nothing.
	if _, err := s.Save(ctx, store.Save{SessionID: "s_1", Owner: other, Messages: raw(`"x"`), At: t0}); !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("a save without the lease: %v, want ErrLeaseLost", err)
	}
	committed("refused save")
}
