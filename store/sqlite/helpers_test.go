package sqlite

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/store"
	"github.com/ailab/ai-lab/store/storetest"
)

// TestContract runs the store.Backend contract against a fresh SQLite file
// per test.
func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Backend {
		s, _ := openTest(t)
		return s
	})
}

var (
	t0              = storetest.T0
	raw             = storetest.Raw
	sampleExecution = storetest.SampleExecution
	sampleTrace     = storetest.SampleTrace
)

const term = 30 * time.Second

func openTest(t testing.TB) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state", "ai-lab.db")
	s, err := Open(path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

// countRows looks under the API, so a leak that no method would show is caught.
func countRows(t *testing.T, s *Store, table string) int {
	t.Helper()
	var n int
	if err := s.read.QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// runOnce records a whole run the way the server does: it takes the lease,
// starts the call, finishes it and releases the lease.
func runOnce(ctx context.Context, s *Store, e api.Execution, outcome string) error {
	o := store.NewOwner()
	if _, err := s.Acquire(ctx, e.SessionID, o, time.Now(), term); err != nil {
		return err
	}
	if err := s.StartExecution(ctx, store.Start{Execution: e, CallKey: e.ExecutionID, Owner: o}); err != nil {
		return err
	}
	if err := s.FinishExecution(ctx, o, e, outcome); err != nil {
		return err
	}
	return s.Release(ctx, e.SessionID, o)
}

// saveTurn appends messages and sets the pending state without a lease.
func saveTurn(ctx context.Context, s *Store, id string, msgs []json.RawMessage, pending json.RawMessage, at time.Time) error {
	_, err := s.Save(ctx, store.Save{SessionID: id, Messages: msgs, Pending: pending, At: at})
	return err
}
