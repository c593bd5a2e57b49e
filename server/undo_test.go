package server_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/llm"
	"github.com/ailab/ai-lab/llm/llmtest"
)

// chatThrough sends a message and approves every call it asks for, until
// the turn ends.
func (h *harness) chatThrough(session, msg string) api.TurnReply {
	h.t.Helper()
	r := h.chat(session, msg)
	for r.ApprovalRequired {
		var ds []api.Decision
		for _, p := range r.ToolsPending {
			ds = append(ds, approved(p.ToolCallID))
		}
		r = h.approve(r.SessionID, ds...)
	}
	return r
}

func (h *harness) read(name string) string {
	h.t.Helper()
	b, err := os.ReadFile(h.ws(name))
	if os.IsNotExist(err) {
		return "<none>"
	}
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}

func (h *harness) undo(session string, req any) (int, api.UndoReply, api.ErrorDetail) {
	h.t.Helper()
	var out struct {
		api.UndoReply
		Error api.ErrorDetail `json:"error"`
	}
	code := h.do("POST", "/sessions/"+session+"/undo", req, &out)
	return code, out.UndoReply, out.Error
}

func (h *harness) redo(session string) (int, api.UndoReply, api.ErrorDetail) {
	h.t.Helper()
	var out struct {
		api.UndoReply
		Error api.ErrorDetail `json:"error"`
	}
	code := h.do("POST", "/sessions/"+session+"/redo", nil, &out)
	return code, out.UndoReply, out.Error
}

// TestUndoRedoOverTheAPI: two turns change files, the server restarts, the
// user undoes turn 1 (turn 2 first), the session marks the runs undone and
// the model's next turn is told; redo puts the changes back.
func TestUndoRedoOverTheAPI(t *testing.T) {
	var told string
	h := newLoopHarness(t, "minimal",
		llmtest.Calls(llmtest.Call("c1", "write_file", `{"path": "notes.txt", "content": "turn one"}`),
			llmtest.Call("c2", "write_file", `{"path": "report.md", "content": "report"}`)),
		citeResults("Wrote both."),
		llmtest.Calls(llmtest.Call("c1", "write_file", `{"path": "notes.txt", "content": "turn two"}`)),
		citeResults("Wrote it."),
		llmtest.Func(func(req llmtest.Request) llmtest.Step {
			for _, m := range req.Messages {
				if m.Role == llm.RoleUser && strings.Contains(m.Content, "The user undid") {
					told = m.Content
				}
			}
			return llmtest.Text("Understood.")
		}),
	)
	if err := os.WriteFile(h.ws("notes.txt"), []byte("the user's notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := h.chatThrough("", "write the notes and the report")
	sid := r.SessionID
	h.chatThrough(sid, "change the notes")
	if got := h.read("notes.txt"); got != "turn two" {
		t.Fatalf("notes.txt = %q before undo", got)
	}

	h.stop()
	h.start()

	code, out, e := h.undo(sid, api.UndoRequest{Turn: 1})
	if code != 200 {
		t.Fatalf("undo: %d %+v", code, e)
	}
	if got := h.read("notes.txt"); got != "the user's notes" {
		t.Errorf("notes.txt = %q after undo", got)
	}
	if got := h.read("report.md"); got != "<none>" {
		t.Errorf("report.md = %q after undo", got)
	}
	if len(out.Turns) != 2 || out.Turns[0] != 2 || out.Turns[1] != 1 {
		t.Errorf("turns %v, want [2 1]", out.Turns)
	}
	actions := map[string]string{}
	for _, f := range out.Files {
		actions[f.Path] = f.Action
	}
	if actions["notes.txt"] != api.UndoRestored || actions["report.md"] != api.UndoRemoved {
		t.Errorf("files %+v", out.Files)
	}

	var detail api.SessionDetail
	h.do("GET", "/sessions/"+sid, nil, &detail)
	undone := 0
	for _, m := range detail.Messages {
		for _, u := range m.ToolsUsed {
			if u.Undone {
				undone++
			}
		}
	}
	if undone != 3 {
		t.Errorf("%d runs marked undone, want 3", undone)
	}

	h.chatThrough(sid, "what changed?")
	if !strings.Contains(told, "turns 2, 1") || !strings.Contains(told, "report.md removed") {
		t.Errorf("the model was told %q", told)
	}

	if code, _, e := h.redo(sid); code != 200 {
		t.Fatalf("redo: %d %+v", code, e)
	}
	if got := h.read("notes.txt"); got != "turn two" {
		t.Errorf("notes.txt = %q after redo", got)
	}
	if got := h.read("report.md"); got != "report" {
		t.Errorf("report.md = %q after redo", got)
	}
	if code, _, e := h.redo(sid); code != 409 || e.Code != api.CodeNothingToUndo {
		t.Errorf("second redo: %d %+v", code, e)
	}

	// The session's log keeps both, with who asked, the runs and the files.
	var logged api.SessionDetail
	h.do("GET", "/sessions/"+sid, nil, &logged)
	if len(logged.UndoLog) != 2 {
		t.Fatalf("undo log %+v, want the undo and the redo", logged.UndoLog)
	}
	u, r2 := logged.UndoLog[0], logged.UndoLog[1]
	if u.Kind != "undo" || r2.Kind != "redo" || len(u.Runs) != 3 || !slices.Equal(u.Turns, []int{2, 1}) ||
		!strings.HasPrefix(u.By, "api client") || len(u.Files) != 2 || u.At.IsZero() {
		t.Errorf("undo log entry %+v", u)
	}
	// The redo puts the runs back oldest first, the undo took them newest first.
	if !slices.Equal(slices.Sorted(slices.Values(r2.Runs)), slices.Sorted(slices.Values(u.Runs))) {
		t.Errorf("the redo put back runs %v, the undo took back %v", r2.Runs, u.Runs)
	}
}

func TestUndoConflictThenForce(t *testing.T) {
	h := newLoopHarness(t, "minimal",
		llmtest.Calls(llmtest.Call("c1", "write_file", `{"path": "notes.txt", "content": "one\n"}`)),
		citeResults("Wrote it."),
	)
	sid := h.chatThrough("", "write the notes").SessionID
	if err := os.WriteFile(h.ws("notes.txt"), []byte("one\nmine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, e := h.undo(sid, nil)
	if code != 409 || e.Code != api.CodeConflict || !strings.Contains(e.Message, "notes.txt changed since turn 1") || !strings.Contains(e.Message, "+mine") {
		t.Fatalf("undo: %d %+v", code, e)
	}
	if got := h.read("notes.txt"); got != "one\nmine\n" {
		t.Fatalf("a refused undo changed notes.txt: %q", got)
	}
	if code, _, e := h.undo(sid, api.UndoRequest{Force: true}); code != 200 {
		t.Fatalf("forced undo: %d %+v", code, e)
	}
	if got := h.read("notes.txt"); got != "<none>" {
		t.Errorf("notes.txt = %q", got)
	}
}

func TestUndoNothing(t *testing.T) {
	h := newLoopHarness(t, "minimal", llmtest.Text("Hello."))
	sid := h.chatThrough("", "hi").SessionID
	if code, _, e := h.undo(sid, nil); code != 409 || e.Code != api.CodeNothingToUndo {
		t.Fatalf("undo: %d %+v", code, e)
	}
	if code, _, e := h.undo("nope", nil); code != 404 || e.Code != api.CodeSessionNotFound {
		t.Fatalf("undo of an unknown session: %d %+v", code, e)
	}
}

// TestUndoWhileATurnRuns: 409 session_busy, and nothing changes.
func TestUndoWhileATurnRuns(t *testing.T) {
	inside, release := make(chan struct{}), make(chan struct{})
	h := newLoopHarness(t, "minimal",
		llmtest.Calls(llmtest.Call("c1", "write_file", `{"path": "notes.txt", "content": "one"}`)),
		citeResults("Wrote it."),
		llmtest.Func(func(llmtest.Request) llmtest.Step {
			close(inside)
			<-release
			return llmtest.Text("Done.")
		}),
	)
	sid := h.chatThrough("", "write the notes").SessionID
	done := make(chan struct{})
	go func() {
		defer close(done)
		var r api.TurnReply
		h.do("POST", "/chat", api.ChatRequest{Message: "think", SessionID: sid}, &r)
	}()
	<-inside
	code, _, e := h.undo(sid, nil)
	close(release)
	<-done
	if code != 409 || e.Code != api.CodeSessionBusy {
		t.Fatalf("undo while a turn runs: %d %+v", code, e)
	}
	if got := h.read("notes.txt"); got != "one" {
		t.Errorf("notes.txt = %q", got)
	}
}

// TestPendingCallSaysItCannotBeUndone: a write over a file bigger than
// undo.max_file_bytes says so in the approval table.
func TestPendingCallSaysItCannotBeUndone(t *testing.T) {
	h := newLoopHarnessWith(t, setup{preset: "strict", extra: "undo:\n  max_file_bytes: 10\n"},
		llmtest.Calls(llmtest.Call("c1", "write_file", `{"path": "big.txt", "content": "small"}`)),
		citeResults("Wrote it."),
	)
	if err := os.WriteFile(h.ws("big.txt"), []byte(strings.Repeat("x", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := h.chat("", "shrink big.txt")
	if !r.ApprovalRequired || len(r.ToolsPending) != 1 {
		t.Fatalf("reply %+v", r)
	}
	pv := r.ToolsPending[0].Preview
	if pv == nil || !strings.Contains(pv.NotUndoable, "cannot be undone: big.txt is 100 bytes, over undo.max_file_bytes") {
		t.Fatalf("preview %+v", pv)
	}
}

// TestUndoEvicted: a turn whose records went to stay within undo.max_bytes
// answers nothing_to_undo saying so.
func TestUndoEvicted(t *testing.T) {
	h := newLoopHarnessWith(t, setup{preset: "minimal", extra: "undo:\n  max_bytes: 10\n"},
		llmtest.Calls(llmtest.Call("c1", "write_file", `{"path": "notes.txt", "content": "a longer text than ten bytes"}`)),
		citeResults("Wrote it."),
	)
	if err := os.WriteFile(h.ws("notes.txt"), []byte("the user's notes, longer than ten bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	sid := h.chatThrough("", "write the notes").SessionID
	code, _, e := h.undo(sid, api.UndoRequest{Turn: 1})
	if code != 409 || e.Code != api.CodeNothingToUndo || !strings.Contains(e.Message, "evicted") {
		t.Fatalf("undo: %d %+v", code, e)
	}
}

// TestUndoDoesNotFollowAPlantedLink: a symbolic link put where the turn's
// file was is a conflict, and forcing replaces the link, never the file it
// points to outside the workspace.
func TestUndoDoesNotFollowAPlantedLink(t *testing.T) {
	h := newLoopHarness(t, "minimal",
		llmtest.Calls(llmtest.Call("c1", "write_file", `{"path": "notes.txt", "content": "new"}`)),
		citeResults("Wrote it."),
	)
	if err := os.WriteFile(h.ws("notes.txt"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	sid := h.chatThrough("", "write the notes").SessionID
	outside := h.dir + "/outside.txt"
	if err := os.WriteFile(outside, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(h.ws("notes.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, h.ws("notes.txt")); err != nil {
		t.Fatal(err)
	}
	if code, _, e := h.undo(sid, nil); code != 409 || e.Code != api.CodeConflict {
		t.Fatalf("undo: %d %+v", code, e)
	}
	if code, _, e := h.undo(sid, api.UndoRequest{Force: true}); code != 200 {
		t.Fatalf("forced undo: %d %+v", code, e)
	}
	if b, _ := os.ReadFile(outside); string(b) != "secret" {
		t.Fatalf("the file outside was written: %q", b)
	}
	if fi, err := os.Lstat(h.ws("notes.txt")); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("notes.txt is not a regular file again: %v %v", fi, err)
	}
	if got := h.read("notes.txt"); got != "old" {
		t.Errorf("notes.txt = %q", got)
	}
}
