package server_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/llm/llmtest"
	"github.com/ailab/ai-lab/tools"
)

// outsideWriter stands in for an MCP server's write tool (the official
// filesystem server's write_file): absolute paths, its own identity.
type outsideWriter struct{ name string }

func (w outsideWriter) Name() string               { return w.name }
func (w outsideWriter) Description() string        { return "writes a file (an MCP tool)" }
func (w outsideWriter) Parameters() map[string]any { return map[string]any{"type": "object"} }
func (w outsideWriter) Source() string             { return "mcp:files" }
func (w outsideWriter) Identity() tools.Identity {
	return tools.Identity{Name: w.name, Source: "mcp:files", Server: "files", Action: tools.NameAction("write_file"),
		Object: tools.ObjectNone, Destructive: true, OpenWorld: true}
}
func (w outsideWriter) Run(_ context.Context, args json.RawMessage) (any, error) {
	var a struct{ Path, Content string }
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, err
	}
	return map[string]any{"written": a.Path}, os.WriteFile(a.Path, []byte(a.Content), 0o644)
}

// TestAnMCPWriteInsideTheWorkspaceIsUndone: an MCP tool whose identity says
// it writes, called with an absolute path under the workspace, is recorded
// like write_file, and /undo puts the file back; the same tool writing
// outside the workspace is not recorded, so there is nothing to undo.
func TestAnMCPWriteInsideTheWorkspaceIsUndone(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(ws)
	target := filepath.Join(real, "notes.txt")
	if err := os.WriteFile(target, []byte("the user's notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(dir, "elsewhere.txt")
	args := func(p string) string {
		b, _ := json.Marshal(map[string]string{"path": p, "content": "overwritten"})
		return string(b)
	}
	model := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call("c1", "files__write_file", args(target))), citeResults("Wrote it."),
		llmtest.Calls(llmtest.Call("c2", "files__write_file", args(elsewhere))), citeResults("Wrote it."))
	cfg := rigConfig(t, dir, "minimal", model.URL())
	models := wireModels(30 * time.Second)
	r := newRig(t, dir, cfg, models, nil, outsideWriter{name: "files__write_file"})
	chat := func(session, msg string) api.TurnReply {
		var reply api.TurnReply
		if code := r.call("POST", "/chat", api.ChatRequest{SessionID: session, Message: msg}, &reply); code != 200 {
			var e map[string]any
			r.call("POST", "/chat", api.ChatRequest{SessionID: session, Message: msg}, &e)
			t.Fatalf("chat: %d %v", code, e)
		}
		for reply.ApprovalRequired {
			var ds []api.Decision
			for _, p := range reply.ToolsPending {
				ds = append(ds, approved(p.ToolCallID))
			}
			sid := reply.SessionID
			reply = api.TurnReply{}
			r.call("POST", "/chat/approve", api.ApproveRequest{SessionID: sid, Decisions: ds}, &reply)
		}
		return reply
	}
	first := chat("", "overwrite the notes")
	if got, _ := os.ReadFile(target); string(got) != "overwritten" {
		t.Fatalf("the MCP tool did not write: %q (%+v)", got, first)
	}
	var out struct {
		api.UndoReply
		Error api.ErrorDetail `json:"error"`
	}
	if code := r.call("POST", "/sessions/"+first.SessionID+"/undo", map[string]any{}, &out); code != 200 {
		t.Fatalf("undo: %d %+v", code, out.Error)
	}
	if got, _ := os.ReadFile(target); string(got) != "the user's notes" {
		t.Errorf("notes.txt after the undo: %q", got)
	}

	second := chat("", "write elsewhere")
	if got, _ := os.ReadFile(elsewhere); string(got) != "overwritten" {
		t.Fatalf("the MCP tool did not write elsewhere: %q (%+v)", got, second)
	}
	out.Error = api.ErrorDetail{}
	if code := r.call("POST", "/sessions/"+second.SessionID+"/undo", map[string]any{}, &out); code != 409 || out.Error.Code != api.CodeNothingToUndo {
		t.Errorf("undo of a write outside the workspace: %d %+v", code, out.Error)
	}
}
