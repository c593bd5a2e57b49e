package server_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/llm/llmtest"
)

// tree is the workspace as path=content lines, sorted (folders end in /).
func (h *harness) tree() string {
	h.t.Helper()
	var lines []string
	root := h.ws("")
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			lines = append(lines, rel+"/")
			return nil
		}
		b, _ := os.ReadFile(p)
		lines = append(lines, rel+"="+string(b))
		return nil
	})
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// undoBody posts to /sessions/{id}/VERB and returns the status and the raw
// answer.
func (h *harness) undoBody(session, verb string, req any) (int, []byte) {
	h.t.Helper()
	var raw json.RawMessage
	code := h.do("POST", "/sessions/"+session+"/"+verb, req, &raw)
	return code, raw
}

// withoutPreview is a preview's answer as the real undo would give it.
func withoutPreview(r api.UndoReply) string {
	files := make([]api.UndoFile, len(r.Files))
	for i, f := range r.Files {
		files[i] = api.UndoFile{Path: f.Path, Action: f.Action}
	}
	b, _ := json.Marshal(api.UndoReply{Turns: r.Turns, Files: files})
	return string(b)
}

// TestUndoPreviewOverTheAPI: a preview of an undo of turn 1 (turn 2 with it)
// changes nothing on disk, says what each file is now and will be, with the
// diff of the file that returns, and is exactly what the undo then does;
// the same holds for the redo.
func TestUndoPreviewOverTheAPI(t *testing.T) {
	h := newLoopHarness(t, "minimal",
		llmtest.Calls(llmtest.Call("c1", "write_file", `{"path": "notes.txt", "content": "turn one\n"}`),
			llmtest.Call("c2", "write_file", `{"path": "docs/report.md", "content": "report"}`)),
		citeResults("Wrote both."),
		llmtest.Calls(llmtest.Call("c1", "write_file", `{"path": "notes.txt", "content": "turn two\n"}`)),
		citeResults("Wrote it."),
	)
	if err := os.WriteFile(h.ws("notes.txt"), []byte("the user's notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sid := h.chatThrough("", "write the notes and the report").SessionID
	h.chatThrough(sid, "change the notes")
	before := h.tree()

	code, raw := h.undoBody(sid, "undo", api.UndoRequest{Turn: 1, Preview: true})
	if code != 200 {
		t.Fatalf("preview: %d %s", code, raw)
	}
	if got := h.tree(); got != before {
		t.Fatalf("the preview changed the workspace:\n%s\nwant:\n%s", got, before)
	}
	var pv api.UndoReply
	if err := json.Unmarshal(raw, &pv); err != nil {
		t.Fatal(err)
	}
	if !pv.Preview || len(pv.Turns) != 2 || pv.Turns[0] != 2 || pv.Turns[1] != 1 {
		t.Fatalf("preview %s", raw)
	}
	files := map[string]api.UndoFile{}
	for _, f := range pv.Files {
		files[f.Path] = f
	}
	n := files["notes.txt"]
	if n.Action != api.UndoRestored || n.Kind != "file" || n.SizeNow == nil || *n.SizeNow != 9 || n.SizeAfter == nil || *n.SizeAfter != 17 ||
		!strings.Contains(n.Diff, "-turn two") || !strings.Contains(n.Diff, "+the user's notes") {
		t.Errorf("notes.txt in the preview: %+v", n)
	}
	if r := files["docs/report.md"]; r.Action != api.UndoRemoved || r.SizeNow == nil || *r.SizeNow != 6 || r.SizeAfter != nil || r.Diff != "" {
		t.Errorf("docs/report.md in the preview: %+v", r)
	}
	if d := files["docs"]; d.Action != api.UndoRemoved || d.Kind != "dir" || d.SizeNow != nil {
		t.Errorf("docs in the preview: %+v", d)
	}

	code, out, e := h.undo(sid, api.UndoRequest{Turn: 1})
	if code != 200 {
		t.Fatalf("undo: %d %+v", code, e)
	}
	if got, want := withoutPreview(pv), withoutPreview(out); got != want {
		t.Errorf("the preview said %s, the undo did %s", got, want)
	}
	if got := h.read("notes.txt"); got != "the user's notes\n" {
		t.Errorf("notes.txt = %q after undo", got)
	}
	if out.Preview || out.Files[0].SizeNow != nil {
		t.Errorf("a real undo answers the plain reply: %+v", out)
	}

	undone := h.tree()
	code, raw = h.undoBody(sid, "redo", api.RedoRequest{Preview: true})
	if code != 200 {
		t.Fatalf("redo preview: %d %s", code, raw)
	}
	if got := h.tree(); got != undone {
		t.Fatalf("the redo preview changed the workspace:\n%s", got)
	}
	var rp api.UndoReply
	if err := json.Unmarshal(raw, &rp); err != nil {
		t.Fatal(err)
	}
	code, rr, e := h.redo(sid)
	if code != 200 {
		t.Fatalf("redo: %d %+v", code, e)
	}
	if got, want := withoutPreview(rp), withoutPreview(rr); got != want {
		t.Errorf("the redo preview said %s, the redo did %s", got, want)
	}
	if got := h.tree(); got != before {
		t.Errorf("after redo:\n%s\nwant:\n%s", got, before)
	}
}

// TestUndoPreviewConflict: a file changed since the turn answers the
// preview with the 409 conflict a real undo gives, files and diffs
// included, and changes nothing.
func TestUndoPreviewConflict(t *testing.T) {
	h := newLoopHarness(t, "minimal",
		llmtest.Calls(llmtest.Call("c1", "write_file", `{"path": "notes.txt", "content": "one\n"}`)),
		citeResults("Wrote it."),
	)
	sid := h.chatThrough("", "write the notes").SessionID
	if err := os.WriteFile(h.ws("notes.txt"), []byte("one\nmine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mine := h.tree()
	pcode, praw := h.undoBody(sid, "undo", api.UndoRequest{Preview: true})
	ucode, uraw := h.undoBody(sid, "undo", api.UndoRequest{})
	if pcode != 409 || ucode != 409 || string(praw) != string(uraw) {
		t.Fatalf("preview %d %s\nundo %d %s", pcode, praw, ucode, uraw)
	}
	var body api.UndoConflictBody
	if err := json.Unmarshal(praw, &body); err != nil {
		t.Fatal(err)
	}
	if body.Error.Code != api.CodeConflict || len(body.Conflicts) != 1 || body.Conflicts[0].Path != "notes.txt" || !strings.Contains(body.Conflicts[0].Diff, "+mine") {
		t.Fatalf("conflict %+v", body)
	}
	if got := h.tree(); got != mine {
		t.Fatalf("a refused preview changed the workspace: %s", got)
	}
	code, raw := h.undoBody(sid, "undo", api.UndoRequest{Preview: true, Force: true})
	var pv api.UndoReply
	_ = json.Unmarshal(raw, &pv)
	if code != 200 || len(pv.Files) != 1 || pv.Files[0].Action != api.UndoRemoved || pv.Files[0].SizeNow == nil || *pv.Files[0].SizeNow != 9 {
		t.Fatalf("forced preview: %d %s", code, raw)
	}
	if got := h.tree(); got != mine {
		t.Fatalf("a forced preview changed the workspace: %s", got)
	}
}

// TestUndoPreviewOfAnEvictedTurn: the preview answers nothing_to_undo with
// the sentence that the turn can no longer be undone.
func TestUndoPreviewOfAnEvictedTurn(t *testing.T) {
	h := newLoopHarnessWith(t, setup{preset: "minimal", extra: "undo:\n  max_bytes: 10\n"},
		llmtest.Calls(llmtest.Call("c1", "write_file", `{"path": "notes.txt", "content": "a longer text than ten bytes"}`)),
		citeResults("Wrote it."),
	)
	sid := h.chatThrough("", "write the notes").SessionID
	var out struct {
		Error api.ErrorDetail `json:"error"`
	}
	code := h.do("POST", "/sessions/"+sid+"/undo", api.UndoRequest{Preview: true}, &out)
	if code != 409 || out.Error.Code != api.CodeNothingToUndo || !strings.Contains(out.Error.Message, "turn 1 can no longer be undone") || !strings.Contains(out.Error.Message, "undo.max_bytes (10 bytes)") {
		t.Fatalf("preview: %d %+v", code, out.Error)
	}
}
