package server_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/llm/llmtest"
	"github.com/ailab/ai-lab/server"
	"github.com/ailab/ai-lab/store/sqlite"
)

// TestUndoRecordsTravelWithTheLedger: a run's undo record is written with its
// start record, and what it left with its end record, so the two never
// disagree and a file-changing run costs no write of its own. The store fails
// a chosen write; whatever fails, a run the ledger shows ended has a finished
// undo record, a run that never started has none, and the turn undoes.
func TestUndoRecordsTravelWithTheLedger(t *testing.T) {
	for _, tc := range []struct {
		name   string
		failAt map[string]int
		// ran: the runs that happened; undoWrites: the undo records written on
		// their own (not carried by a ledger write).
		ran, undoWrites int
	}{
		{"no fault", nil, 2, 0},
		{"the save carrying the last end fails", map[string]int{"Save": 1}, 2, 1},
		{"the second start fails", map[string]int{"StartExecution": 2}, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rig := newTwoWritesRig(t, tc.failAt)
			h, db, fs, ws := rig.h, rig.db, rig.fs, rig.ws
			fs.mu.Lock()
			undoWrites := fs.calls["PutUndoRecord"]
			fs.mu.Unlock()
			if undoWrites != tc.undoWrites {
				t.Errorf("undo records written on their own: %d, want %d", undoWrites, tc.undoWrites)
			}

			recs, err := db.UndoRecords(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != tc.ran {
				t.Fatalf("%d undo records for %d runs", len(recs), tc.ran)
			}
			for _, sr := range recs {
				var rec struct {
					ExecutionID string `json:"execution_id"`
					Finished    bool   `json:"finished"`
				}
				if err := json.Unmarshal(sr.Data, &rec); err != nil {
					t.Fatal(err)
				}
				e, err := db.Execution(context.Background(), rec.ExecutionID)
				if err != nil {
					t.Fatalf("undo record %d names run %s, which the ledger lacks: %v", sr.Seq, rec.ExecutionID, err)
				}
				if !rec.Finished || !e.Completed {
					t.Errorf("run %s: undo record finished %v, ledger completed %v", rec.ExecutionID, rec.Finished, e.Completed)
				}
			}

			var undone api.UndoReply
			if code := doJSON(t, h.URL, "rig-token", "POST", "/sessions/"+rig.session+"/undo", api.UndoRequest{}, &undone); code != 200 {
				t.Fatalf("undo: %d %+v", code, undone)
			}
			if got, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(got) != "old a\n" {
				t.Errorf("a.txt after undo: %q", got)
			}
			if _, err := os.Stat(filepath.Join(ws, "b.txt")); !os.IsNotExist(err) {
				t.Errorf("b.txt after undo: %v", err)
			}
		})
	}
}

// A twoWritesRig is a server over a store that fails the chosen writes
// (faultStore), whose model asks for two write_file runs in one round
// (a.txt, which holds "old a\n", and b.txt, new), after one turn "write both"
// has been played.
type twoWritesRig struct {
	h       *httptest.Server
	db      *sqlite.Store
	fs      *faultStore
	ws      string // the workspace
	session string // the turn's session
}

func newTwoWritesRig(t *testing.T, failAt map[string]int) twoWritesRig {
	t.Helper()
	return newWritesRig(t, failAt, `{"path": "a.txt", "content": "new a\n"}`)
}

// newWritesRig is newTwoWritesRig with the first call's arguments given (the
// second writes b.txt).
func newWritesRig(t *testing.T, failAt map[string]int, firstArgs string) twoWritesRig {
	t.Helper()
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("old a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	model := llmtest.NewServer(t, llmtest.Calls(
		llmtest.Call("call_a", "write_file", firstArgs),
		llmtest.Call("call_b", "write_file", `{"path": "b.txt", "content": "new b\n"}`),
	), honestResults(), honestResults())
	cfg := rigConfig(t, dir, "minimal", model.URL())
	db, err := sqlite.Open(filepath.Join(dir, "state", server.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	fs := &faultStore{Store: db, failAt: failAt}
	srv, err := server.New(server.Options{Config: cfg, Models: wireModels(30 * time.Second), Store: fs, Toolbox: server.NewToolbox(nil),
		Token: "rig-token", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	h := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { h.Close(); srv.Close(); db.Close() })

	var reply api.TurnReply
	doJSON(t, h.URL, "rig-token", "POST", "/chat", api.ChatRequest{Message: "write both"}, &reply)
	sessions, err := db.Sessions(context.Background())
	if err != nil || len(sessions) != 1 {
		t.Fatalf("sessions: %+v %v", sessions, err)
	}
	return twoWritesRig{h: h, db: db, fs: fs, ws: ws, session: sessions[0].ID}
}
