package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

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
	if _, err := s.write.Exec(`CREATE TRIGGER boom BEFORE INSERT ON messages
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
