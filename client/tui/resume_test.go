package tui

import (
	"encoding/json"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client"
	"github.com/ailab/ai-lab/client/clienttest"
)

const (
	idA = "write_file_1795309180504_18544cab"
	idC = "write_file_1795309180999_0a1b2c3d"
)

// grantSession is two turns as the live TUI plays them and as the server stores
// them: a batch where write_file is granted for the session and delete_file denied
// with a reason, then a write that the grant lets through.
func grantSession() (live []api.TurnReply, stored []api.Message) {
	write := offering(clienttest.Call("write_file", `{"path":"notes/a.txt","content":"alpha"}`, "c1"))
	del := clienttest.Call("delete_file", `{"path":"old.txt"}`, "c2")
	usedA := api.ToolUse{ToolName: "write_file", Arguments: write.Arguments, ToolCallID: "c1", ExecutionID: idA, Status: "ok", DurationMS: 3, Decision: api.DecisionUser}
	denied := api.ToolUse{ToolName: "delete_file", Arguments: del.Arguments, ToolCallID: "c2", Status: "denied"}
	usedC := api.ToolUse{ToolName: "write_file", Arguments: json.RawMessage(`{"path":"notes/c.txt","content":"gamma"}`), ToolCallID: "c3", ExecutionID: idC, Status: "ok", DurationMS: 2, Decision: api.DecisionGrant}
	first := clienttest.Final("s_1", "Wrote notes/a.txt ("+idA+"); old.txt stays.", usedA, denied)
	first.TraceID = "t_1"
	second := clienttest.Final("s_1", "Wrote notes/c.txt ("+idC+").", usedC)
	second.TraceID = "t_2"
	live = []api.TurnReply{clienttest.Pending("s_1", write, del), first, second}
	valid := &api.Validation{Valid: true, Issues: []string{}}
	stored = []api.Message{
		{Role: "user", Content: "write notes and delete old.txt"},
		{Role: "assistant", ToolCalls: []api.ToolCall{{ID: "c1", Name: "write_file", Arguments: write.Arguments}, {ID: "c2", Name: "delete_file", Arguments: del.Arguments}}},
		{Role: "tool", ToolCallID: "c1", Content: `{"execution_id":"` + idA + `","tool_name":"write_file","executed_at":"2026-11-21T23:00:00Z","result":{"path":"notes/a.txt","bytes":5}}`},
		{Role: "tool", ToolCallID: "c2", Content: `{"tool_name":"delete_file","status":"denied","message":"The user denied this tool call.","feedback":"keep it"}`},
		{Role: "assistant", Content: first.Response, ToolsUsed: first.ToolsUsed, Validation: valid, TraceID: "t_1"},
		{Role: "user", Content: "write more"},
		{Role: "assistant", ToolCalls: []api.ToolCall{{ID: "c3", Name: "write_file", Arguments: usedC.Arguments}}},
		{Role: "tool", ToolCallID: "c3", Content: `{"execution_id":"` + idC + `","tool_name":"write_file","executed_at":"2026-11-21T23:00:01Z","result":{"path":"notes/c.txt","bytes":5}}`},
		{Role: "assistant", Content: second.Response, ToolsUsed: second.ToolsUsed, Validation: valid, TraceID: "t_2"},
	}
	return live, stored
}

// turnsOf is the conversation without its notes (help, grants given, "Resumed
// session"), which are about this window, not the session.
func turnsOf(m *Model) string {
	var out []string
	for i := range m.conv.entries {
		e := &m.conv.entries[i]
		if e.kind != kindNote {
			out = append(out, m.conv.renderEntry(e, m.width))
		}
	}
	return strings.Join(out, "\n\n")
}

// A resumed session reads exactly as it did live: decisions with their reasons,
// runs with their marks ("(granted)" for a grant's), "verified", and /trace.
func TestResumedSessionReadsAsLive(t *testing.T) {
	live, stored := grantSession()
	srv := clienttest.New(t, live...)
	srv.Details["s_1"] = api.SessionDetail{SessionID: "s_1", Messages: stored}
	m := newTestModel(t, srv, 100, 40)
	send(t, m, "write notes and delete old.txt")
	press(t, m, "s", "y", "n")
	typeText(t, m, "keep it")
	press(t, m, "enter")
	send(t, m, "write more")
	want := turnsOf(m)

	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(termenv.Ascii)
	resumed := New(Options{Client: client.New(srv.URL, clienttest.Token, nil), SessionID: "s_1", Renderer: r, Now: m.now})
	resumed.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
	drive(t, resumed, resumed.Init())
	got := turnsOf(resumed)
	if got != want {
		t.Fatalf("resumed session differs from the live one\nlive:\n%s\n\nresumed:\n%s", want, got)
	}
	for _, s := range []string{"⊘ denied delete_file(path=old.txt) — reason: keep it", "✓ approved write_file(path=notes/a.txt, content=alpha)", "(granted) · 2ms · " + idC, "verified"} {
		if !strings.Contains(got, s) {
			t.Errorf("resumed session lacks %q", s)
		}
	}
	if resumed.lastTrace != "t_2" {
		t.Errorf("lastTrace = %q, want t_2 so /trace works after a resume", resumed.lastTrace)
	}
}

// A session resumed while it waits for approval shows the runs its turn has made so
// far above the table, as the live screen did.
func TestResumedPendingTurnShowsItsRuns(t *testing.T) {
	srv := clienttest.New(t)
	next := clienttest.Call("delete_file", `{"path":"a.txt"}`, "c2")
	srv.Details["s_1"] = api.SessionDetail{SessionID: "s_1", ToolsPending: []api.PendingTool{next}, Messages: []api.Message{
		{Role: "user", Content: "write a.txt then delete it"},
		{Role: "assistant", ToolCalls: []api.ToolCall{{ID: "c1", Name: "write_file", Arguments: json.RawMessage(`{"path":"a.txt","content":"x"}`)}}},
		{Role: "tool", ToolCallID: "c1", Content: `{"execution_id":"` + idA + `","tool_name":"write_file","result":{}}`},
		{Role: "assistant", ToolCalls: []api.ToolCall{{ID: "c2", Name: "delete_file", Arguments: next.Arguments}}},
	}}
	m := newTestModel(t, srv, 100, 30)
	send(t, m, "/resume s_1")
	v := plain(m)
	if m.mode != modeApproval || !strings.Contains(v, "write a.txt then delete it") || !strings.Contains(v, "✓ write_file path=a.txt, content=x · "+idA) || !strings.Contains(v, "Approve delete_file(path=a.txt)") {
		t.Fatalf("resumed approval screen:\n%s", v)
	}
	if strings.Contains(v, "→ write_file") || strings.Contains(v, "0ms") {
		t.Fatalf("the run is shown as a bare call or with a made-up duration:\n%s", v)
	}
}

// A turn stored without marks (an older server, a cancelled turn) still shows how
// each call ended, read from its tool message, and claims no verification.
func TestResumedTurnWithoutMarks(t *testing.T) {
	msgs := []api.Message{
		{Role: "user", Content: "write and search"},
		{Role: "assistant", ToolCalls: []api.ToolCall{
			{ID: "c1", Name: "write_file", Arguments: json.RawMessage(`{"path":"a.txt"}`)},
			{ID: "c2", Name: "web_search", Arguments: json.RawMessage(`{"query":"go"}`)},
			{ID: "c3", Name: "read_file", Arguments: json.RawMessage(`{"path":"b.txt"}`)}}},
		{Role: "tool", ToolCallID: "c1", Content: `{"execution_id":"` + idA + `","tool_name":"write_file","result":{}}`},
		{Role: "tool", ToolCallID: "c2", Content: `{"tool_name":"web_search","status":"denied","message":"The user denied this tool call."}`},
		{Role: "tool", ToolCallID: "c3", Content: `{"tool_name":"read_file","error":"not run: the turn was cancelled"}`},
		{Role: "assistant", Content: "The user cancelled this turn before it finished."},
	}
	r := resumeSession(msgs, false)
	if len(r.entries) != 2 || r.entries[1].kind != kindAssistant || r.entries[1].validation != nil {
		t.Fatalf("entries = %+v", r.entries)
	}
	var lines []string
	for _, u := range r.entries[1].tools {
		lines = append(lines, toolLine(u, 100))
	}
	got := strings.Join(lines, "\n")
	for _, want := range []string{"  ✓ write_file path=a.txt · " + idA, "  ⊘ web_search query=go · denied", "  ✗ read_file path=b.txt · error: not run: the turn was cancelled"} {
		if !strings.Contains(got, want) {
			t.Errorf("runs lack %q:\n%s", want, got)
		}
	}
}
