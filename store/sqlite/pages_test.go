package sqlite

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/store"
)

// walFrames counts the pages in s's WAL. The background checkpointer is
// stopped first, so the WAL only grows (SQLite's own checkpoints are off).
func walFrames(t *testing.T, s *Store, path string) func() int64 {
	t.Helper()
	s.closeOnce.Do(func() { close(s.stopCkpt) })
	<-s.ckptDone
	return func() int64 {
		fi, err := os.Stat(path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		// A frame is a 24-byte header and a 4096-byte page after the
		// 32-byte file header.
		return (fi.Size() - 32) / (24 + 4096)
	}
}

// TestAChainsLaterSavesRewriteFewPages: a chain's later saves change only its
// duration and success, so they leave the trace's index entries on its start
// and session as they are. Every page a write touches is one more WAL frame
// (two system calls), and the answer of every turn is such a save.
func TestAChainsLaterSavesRewriteFewPages(t *testing.T) {
	ctx := context.Background()
	s, path := openTest(t)
	if err := s.CreateSession(ctx, "s_1", "t", t0); err != nil {
		t.Fatal(err)
	}
	o := store.NewOwner()
	if _, err := s.Acquire(ctx, "s_1", o, time.Now(), time.Hour); err != nil {
		t.Fatal(err)
	}
	frames := walFrames(t, s, path)
	tr := api.Trace{TraceID: "t_1", SessionID: "s_1", StartedAt: t0, Calls: []api.TraceCall{
		{CallID: "c1", Kind: api.CallModel, StartedAt: t0, DurationMS: 400, Success: true}}}
	if _, err := s.Save(ctx, store.Save{SessionID: "s_1", Owner: o, At: t0, Trace: &tr,
		Messages: raw(`{"role":"user","content":"hello"}`)}); err != nil {
		t.Fatal(err)
	}
	before := frames()
	tr.DurationMS, tr.Success = 900, true
	tr.Calls = append(tr.Calls, api.TraceCall{CallID: "c2", Kind: api.CallModel, StartedAt: t0, DurationMS: 400, Success: true})
	if _, err := s.Save(ctx, store.Save{SessionID: "s_1", Owner: o, At: t0.Add(time.Second), Trace: &tr, TraceFrom: 1,
		Messages: raw(`{"role":"assistant","content":"hi"}`)}); err != nil {
		t.Fatal(err)
	}
	// Measured on this schema: 5 pages, where the upsert that names the
	// chain's start and session wrote 7.
	if got := frames() - before; got > 5 {
		t.Errorf("the chain's later save wrote %d pages, want at most 5", got)
	}
	got, err := s.Trace(ctx, "t_1")
	if err != nil {
		t.Fatal(err)
	}
	if got.DurationMS != 900 || !got.Success || len(got.Calls) != 2 {
		t.Errorf("stored chain %+v, want 900 ms, success and two calls", got)
	}
	// A later save whose row is not as given (its start moved) is stored
	// whole, as the upsert stores it.
	tr.StartedAt = t0.Add(time.Hour)
	if _, err := s.Save(ctx, store.Save{SessionID: "s_1", Owner: o, At: t0.Add(2 * time.Second), Trace: &tr, TraceFrom: 2}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Trace(ctx, "t_1"); err != nil || !got.StartedAt.Equal(tr.StartedAt.Truncate(time.Millisecond)) {
		t.Errorf("after a later save with a moved start, the chain starts at %v (%v), want %v", got.StartedAt, err, tr.StartedAt)
	}
}
