package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client/clienttest"
)

func size(n int64) *int64 { return &n }

// twoWrites are the runs of two turns: turn 1 writes notes.txt over the
// user's file, turn 2 writes docs/report.md.
var twoWrites = []api.ToolUse{
	{ToolName: "write_file", Arguments: json.RawMessage(`{"path":"notes.txt","content":"turn one"}`), ToolCallID: "c1", ExecutionID: "write_file_1795309180504_18544cab", Status: "ok", DurationMS: 2, Decision: api.DecisionUser},
	{ToolName: "write_file", Arguments: json.RawMessage(`{"path":"docs/report.md","content":"report"}`), ToolCallID: "c1", ExecutionID: "write_file_1795309190504_9f86d081", Status: "ok", DurationMS: 3, Decision: api.DecisionUser},
}

// undoPreview is the server's preview of undoing turn 1, which takes turn 2 with it.
var undoPreview = api.UndoReply{Turns: []int{2, 1}, Preview: true, Files: []api.UndoFile{
	{Path: "docs/report.md", Action: api.UndoRemoved, Kind: "file", SizeNow: size(6)},
	{Path: "docs", Action: api.UndoRemoved, Kind: "dir"},
	{Path: "notes.txt", Action: api.UndoRestored, Kind: "file", SizeNow: size(8), SizeAfter: size(17),
		Diff: "--- notes.txt (now)\n+++ notes.txt (after)\n@@ -1 +1 @@\n-turn one\n+the user's notes\n"},
}}

// undoSession is a model after two turns that wrote files, on a server whose
// undo answers with answer (a preview, or what the undo did) and, once an
// undo is done, marks both runs undone in GET /sessions/s_1.
func undoSession(t *testing.T, w, h int, answer func(req api.UndoRequest) (int, any)) (*Model, *clienttest.Server) {
	t.Helper()
	srv := clienttest.New(t,
		clienttest.Final("s_1", "Wrote the notes.", twoWrites[0]),
		clienttest.Final("s_1", "Wrote the report.", twoWrites[1]))
	srv.Undo = func(session, verb string, req api.UndoRequest) (int, any) {
		status, body := answer(req)
		if status == 200 && !req.Preview {
			undone := []api.ToolUse{twoWrites[0], twoWrites[1]}
			undone[0].Undone, undone[1].Undone = true, true
			srv.Details[session] = api.SessionDetail{SessionID: session, Messages: []api.Message{
				{Role: "user", Content: "write the notes"}, {Role: "assistant", Content: "Wrote the notes.", ToolsUsed: undone[:1]},
				{Role: "user", Content: "write the report"}, {Role: "assistant", Content: "Wrote the report.", ToolsUsed: undone[1:]},
			}}
		}
		return status, body
	}
	m := newTestModel(t, srv, w, h)
	send(t, m, "write the notes")
	send(t, m, "write the report")
	return m, srv
}

// previewThenDone answers a preview with undoPreview and the undo with what it did.
func previewThenDone(req api.UndoRequest) (int, any) {
	if req.Preview {
		return 200, undoPreview
	}
	files := make([]api.UndoFile, len(undoPreview.Files))
	for i, f := range undoPreview.Files {
		files[i] = api.UndoFile{Path: f.Path, Action: f.Action}
	}
	return 200, api.UndoReply{Turns: undoPreview.Turns, Files: files}
}

// conflicted answers every undo not forced with a conflict on notes.txt.
func conflicted(req api.UndoRequest) (int, any) {
	if !req.Force {
		return 409, api.UndoConflictBody{
			Error: api.ErrorDetail{Code: api.CodeConflict, Message: "cannot undo: notes.txt changed since turn 1; nothing was changed"},
			Conflicts: []api.UndoConflict{{Path: "notes.txt", Why: "changed since turn 1",
				Diff: "--- notes.txt (as the turn left it)\n+++ notes.txt (now)\n@@ -1 +1,2 @@\n turn one\n+the user's line\n"}},
		}
	}
	return previewThenDone(req)
}

// TestUndoScreensGolden keeps the screens of /undo: the preview with its
// question, a conflict with its diff and f to force, and the marks of the
// undone runs, at 80x24 and 120x40.
func TestUndoScreensGolden(t *testing.T) {
	scenes := []goldenScene{
		{"undo_preview", func(t *testing.T, w, h int) *Model {
			m, _ := undoSession(t, w, h, previewThenDone)
			send(t, m, "/undo 1")
			return m
		}},
		{"undo_conflict", func(t *testing.T, w, h int) *Model {
			m, _ := undoSession(t, w, h, conflicted)
			send(t, m, "/undo 1")
			return m
		}},
		{"undone_marks", func(t *testing.T, w, h int) *Model {
			m, _ := undoSession(t, w, h, previewThenDone)
			send(t, m, "/undo 1")
			press(t, m, "y")
			return m
		}},
	}
	playGoldenScenes(t, scenes)
}

// TestUndoAsksThenUndoes: /undo 1 asks the server for a preview only; the
// preview says which turns go and what each file becomes; y undoes, and the
// runs of both turns are marked undone.
func TestUndoAsksThenUndoes(t *testing.T) {
	m, srv := undoSession(t, 120, 40, previewThenDone)
	send(t, m, "/undo 1")
	if got := srv.Undos(); len(got) != 1 || got[0] != `undo s_1 {"turn":1,"preview":true}` {
		t.Fatalf("requests %q", got)
	}
	v := plain(m)
	for _, want := range []string{
		"Undoing turn 1 also undoes turn 2, which came after it",
		"removed     docs/report.md  6 B → gone",
		"removed     docs/           folder",
		"restored    notes.txt       8 B → 17 B",
		"-turn one", "+the user's notes",
		"Undo these changes? y undoes them, n keeps everything as it is (n)",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("the preview lacks %q:\n%s", want, v)
		}
	}
	if m.mode != modeUndo || strings.Contains(v, "undone ·") {
		t.Fatalf("mode %d, screen:\n%s", m.mode, v)
	}
	press(t, m, "y")
	if got := srv.Undos(); len(got) != 2 || got[1] != `undo s_1 {"turn":1}` {
		t.Fatalf("requests %q", got)
	}
	v = plain(m)
	if m.mode != modeChat || !strings.Contains(v, "Undid turns 1 and 2: docs/report.md removed, docs removed, notes.txt restored.") ||
		strings.Count(v, "· undone · ") != 2 || !strings.Contains(v, "Ask something") {
		t.Fatalf("after y:\n%s", v)
	}
}

// TestUndoDeclined: n, Esc and Enter keep everything; nothing but the
// preview was asked of the server.
func TestUndoDeclined(t *testing.T) {
	for _, k := range []string{"n", "esc", "enter"} {
		t.Run(k, func(t *testing.T) {
			m, srv := undoSession(t, 80, 24, previewThenDone)
			send(t, m, "/undo")
			press(t, m, k)
			if got := srv.Undos(); len(got) != 1 || m.mode != modeChat || !strings.Contains(plain(m), "Nothing was changed.") {
				t.Fatalf("requests %q, mode %d:\n%s", got, m.mode, plain(m))
			}
		})
	}
}

// TestUndoConflictForcesOnlyWithF: a conflict shows the file and its diff;
// y and Enter never force, f does.
func TestUndoConflictForcesOnlyWithF(t *testing.T) {
	m, srv := undoSession(t, 120, 40, conflicted)
	send(t, m, "/undo 1")
	v := plain(m)
	for _, want := range []string{"Cannot undo: 1 file changed since the turn, so nothing was changed.", "notes.txt  changed since turn 1", "+the user's line",
		"Force the undo? f overwrites the changes shown above (they are lost), n keeps them (n)"} {
		if !strings.Contains(v, want) {
			t.Errorf("the conflict lacks %q:\n%s", want, v)
		}
	}
	press(t, m, "y")
	if m.mode != modeUndoForce || len(srv.Undos()) != 1 || !strings.Contains(plain(m), "y does not force") {
		t.Fatalf("y forced: mode %d, requests %q", m.mode, srv.Undos())
	}
	press(t, m, "f")
	if got := srv.Undos(); len(got) != 2 || got[1] != `undo s_1 {"turn":1,"force":true}` {
		t.Fatalf("requests %q", got)
	}
	if !strings.Contains(plain(m), "Undid turns 1 and 2") {
		t.Fatalf("after f:\n%s", plain(m))
	}

	m, srv = undoSession(t, 80, 24, conflicted)
	send(t, m, "/undo")
	press(t, m, "enter")
	if len(srv.Undos()) != 1 || m.mode != modeChat {
		t.Fatalf("Enter forced: requests %q", srv.Undos())
	}
}

// TestUndoNothingAndMistakes: nothing_to_undo shows the server's sentence;
// a bad turn, /redo N and /undo before any session say what to type.
func TestUndoNothingAndMistakes(t *testing.T) {
	m, _ := undoSession(t, 120, 40, func(api.UndoRequest) (int, any) {
		return 409, api.ErrorBody{Error: api.ErrorDetail{Code: api.CodeNothingToUndo, Message: "turn 1 can no longer be undone: the copies of its files that undo kept were evicted to keep the undo records within undo.max_bytes (256 MiB)"}}
	})
	send(t, m, "/undo 1")
	if !strings.Contains(plain(m), "Turn 1 can no longer be undone: the copies of its files that undo kept were evicted") || m.mode != modeChat {
		t.Fatalf("nothing to undo:\n%s", plain(m))
	}
	send(t, m, "/undo two")
	if !strings.Contains(m.status, "/undo N for turn N") {
		t.Errorf("status %q", m.status)
	}
	send(t, m, "/redo 2")
	if !strings.Contains(m.status, "/redo takes no turn") {
		t.Errorf("status %q", m.status)
	}
	fresh := newTestModel(t, clienttest.New(t), 80, 24)
	send(t, fresh, "/undo")
	if !strings.Contains(fresh.status, "no session yet") {
		t.Errorf("status %q", fresh.status)
	}
}

// TestRedoPreview: /redo previews the redo and y redoes it.
func TestRedoPreview(t *testing.T) {
	m, srv := undoSession(t, 120, 40, previewThenDone)
	send(t, m, "/redo")
	if !strings.Contains(plain(m), "Redo turns 1 and 2: the changes the last undo took back are made again.") || !strings.Contains(plain(m), "Redo these changes? y redoes them") {
		t.Fatalf("redo preview:\n%s", plain(m))
	}
	press(t, m, "y")
	if got := srv.Undos(); len(got) != 2 || got[0] != `redo s_1 {"preview":true}` || got[1] != `redo s_1 {}` {
		t.Fatalf("requests %q", got)
	}
	if !strings.Contains(plain(m), "Redid turns 1 and 2") {
		t.Fatalf("after y:\n%s", plain(m))
	}
}

// TestHelpListsUndo: /help names /undo, /undo N and /redo.
func TestHelpListsUndo(t *testing.T) {
	m := newTestModel(t, clienttest.New(t), 120, 60)
	send(t, m, "/help")
	for _, want := range []string{"/undo ", "/undo N", "/redo "} {
		if !strings.Contains(plain(m), want) {
			t.Errorf("/help lacks %q", want)
		}
	}
}

// TestMessagesShowTheTurnUndoTakes: each of the user's messages shows its
// turn number, the N of /undo N, in a live session and in a resumed one.
func TestMessagesShowTheTurnUndoTakes(t *testing.T) {
	m, srv := undoSession(t, 120, 40, previewThenDone)
	v := plain(m)
	if !strings.Contains(v, "You · turn 1") || !strings.Contains(v, "You · turn 2") || strings.Contains(v, "turn 3") {
		t.Fatalf("the conversation:\n%s", v)
	}
	send(t, m, "/undo 2")
	if got := srv.Undos(); len(got) != 1 || got[0] != `undo s_1 {"turn":2,"preview":true}` {
		t.Fatalf("requests %q", got)
	}
	r := resumeSession([]api.Message{
		{Role: "user", Content: "one"}, {Role: "assistant", Content: "a"},
		{Role: "user", Content: "two"}, {Role: "assistant", Content: "b"},
	}, false)
	var c conversation
	for _, e := range r.entries {
		c.add(e)
	}
	var turns []int
	for _, e := range c.entries {
		if e.kind == kindUser {
			turns = append(turns, e.turn)
		}
	}
	if fmt.Sprint(turns) != "[1 2]" {
		t.Fatalf("a resumed session's turns: %v", turns)
	}
}
