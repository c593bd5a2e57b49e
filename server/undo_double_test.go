package server_test

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/llm/llmtest"
	"github.com/ailab/ai-lab/server"
	"github.com/ailab/ai-lab/store/sqlite"
)

// TestUndoAfterTheResultOfARunWasLost: the save that carries a run's end and
// undo record fails, and so does the undo record's own write after it. The
// store then holds the record as the run began, with what the run left
// unknown. Undo in the same process must read it as the store holds it (as a
// restart would): it refuses without force, naming the file that may be half
// written, instead of restoring the other run's file and reporting the turn
// undone while the lost run's file stays; with force it takes back both.
func TestUndoAfterTheResultOfARunWasLost(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("old a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	model := llmtest.NewServer(t, llmtest.Calls(
		llmtest.Call("call_a", "write_file", `{"path": "a.txt", "content": "new a\n"}`),
		llmtest.Call("call_b", "write_file", `{"path": "b.txt", "content": "new b\n"}`),
	), honestResults(), honestResults())
	cfg := rigConfig(t, dir, "minimal", model.URL())
	db, err := sqlite.Open(filepath.Join(dir, "state", server.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	fs := &faultStore{Store: db, failAt: map[string]int{"Save": 1, "PutUndoRecord": 1}}
	srv, err := server.New(server.Options{Config: cfg, Models: wireModels(30 * time.Second), Store: fs, Toolbox: server.NewToolbox(nil),
		Token: "rig-token", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	h := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { h.Close(); srv.Close(); db.Close() })

	var reply api.TurnReply
	doJSON(t, h.URL, "rig-token", "POST", "/chat", api.ChatRequest{Message: "write both"}, &reply)
	if got, _ := os.ReadFile(filepath.Join(ws, "b.txt")); string(got) != "new b\n" {
		t.Fatalf("the second run did not write b.txt: %q", got)
	}
	sessions, err := db.Sessions(t.Context())
	if err != nil || len(sessions) != 1 {
		t.Fatalf("sessions: %+v %v", sessions, err)
	}
	id := sessions[0].ID

	var refused api.ErrorBody
	if code := doJSON(t, h.URL, "rig-token", "POST", "/sessions/"+id+"/undo", api.UndoRequest{}, &refused); code != 409 ||
		refused.Error.Code != api.CodeConflict || !strings.Contains(refused.Error.Message, "b.txt") {
		t.Fatalf("undo without force: %d %+v, want a 409 conflict naming b.txt", code, refused)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(got) != "new a\n" {
		t.Errorf("a refused undo changed a.txt: %q", got)
	}
	var undone api.UndoReply
	if code := doJSON(t, h.URL, "rig-token", "POST", "/sessions/"+id+"/undo", api.UndoRequest{Force: true}, &undone); code != 200 {
		t.Fatalf("undo with force: %d %+v", code, undone)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(got) != "old a\n" {
		t.Errorf("a.txt after undo: %q", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "b.txt")); !os.IsNotExist(err) {
		t.Errorf("b.txt after undo: %v", err)
	}
}
