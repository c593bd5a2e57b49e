package verify_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/llm"
	"github.com/ailab/ai-lab/server/verify"
	"github.com/ailab/ai-lab/tools"
)

// TestDemoAnswersPassValidation holds the demo model (CONTRACT section 8) to
// the rule every model is held to: its answers cite only real runs of the
// session, report failures as failures, and announce nothing. Quoted output that
// reads like an announcement must not make the server refuse an honest answer.
func TestDemoAnswersPassValidation(t *testing.T) {
	started := time.Date(2026, 11, 21, 23, 0, 0, 0, time.UTC)
	type run struct {
		tool, args string
		result     any    // nil with err set: a failed run
		err        string // the run's error
		denied     bool   // no run at all: the user said no
	}
	cases := []struct {
		name    string
		request string
		runs    []run
	}{
		{"search with results", "search the web for go", []run{{tool: tools.WebSearch, args: `{"query":"go"}`, result: map[string]any{
			"query": "go", "results": []any{map[string]any{"title": "Let me search the web for you", "url": "https://go.dev", "snippet": "I'll read that page."}}}}}},
		{"page whose text announces tools", "read https://example.com", []run{{tool: tools.ReadWebpage, args: `{"url":"https://example.com"}`, result: map[string]any{
			"url": "https://example.com", "final_url": "https://example.com", "title": "Example", "length": 60, "truncated": false,
			"content": `<webpage_content source="https://example.com">I'll search the web for cats. Let me read the file notes.txt.</webpage_content>`}}}},
		{"file whose text announces tools", "read the file plan.txt", []run{{tool: tools.ReadFile, args: `{"path":"plan.txt"}`, result: map[string]any{
			"path": "plan.txt", "content": "I'll search the web for cats tomorrow.\nThen I will delete it.", "bytes": 60}}}},
		{"write then a failed delete", "create a file named a.txt with hi and delete b.txt", []run{
			{tool: tools.WriteFile, args: `{"path":"a.txt","content":"hi"}`, result: map[string]any{"path": "a.txt", "bytes": 2}},
			{tool: tools.DeleteFile, args: `{"path":"b.txt"}`, err: "b.txt does not exist in the workspace"}}},
		{"denied", "delete a.txt", []run{{tool: tools.DeleteFile, args: `{"path":"a.txt"}`, denied: true}}},
		{"directory listing", "list files", []run{{tool: tools.ListDirectory, args: `{"path":"."}`, result: map[string]any{
			"path": ".", "entries": []any{map[string]any{"name": "notes.txt", "type": "file"}}}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ledger := runs{}
			var turn []verify.Run // what the server passes as Validator.Turn
			msgs := []llm.Message{{Role: llm.RoleUser, Content: tc.request}}
			assistant := llm.Message{Role: llm.RoleAssistant}
			var results []llm.Message
			for i, r := range tc.runs {
				callID := fmt.Sprintf("call_%d", i+1)
				assistant.ToolCalls = append(assistant.ToolCalls, llm.ToolCall{ID: callID, Name: r.tool, Arguments: r.args})
				msg := map[string]any{"tool_name": r.tool}
				if r.denied {
					msg["status"], msg["message"] = "denied", "The user denied this tool call."
					turn = append(turn, verify.Run{ToolName: r.tool, Status: api.StatusDenied})
				} else {
					at := started.Add(time.Duration(i) * time.Second)
					id := tools.NewExecutionID(r.tool, at)
					ledger[id] = verify.Record{ExecutionID: id, ToolName: r.tool, SessionID: "s_1", StartedAt: at, Completed: r.err == "", Error: r.err}
					msg["execution_id"], msg["executed_at"] = id, at.Format("2006-01-02T15:04:05.000Z")
					run := verify.Run{ToolName: r.tool, ExecutionID: id, Status: api.StatusOK}
					if r.err != "" {
						msg["error"] = r.err
						run.Status = api.StatusError
					} else {
						msg["result"] = r.result
						if content, ok := r.result.(map[string]any)["content"].(string); ok && r.tool == tools.ReadFile {
							run.Result = content
						}
					}
					turn = append(turn, run)
				}
				b, err := json.Marshal(msg)
				if err != nil {
					t.Fatal(err)
				}
				results = append(results, llm.Message{Role: llm.RoleTool, ToolCallID: callID, Content: string(b)})
			}
			msgs = append(append(msgs, assistant), results...)

			answer, err := llm.NewDemo().Complete(context.Background(), llm.Request{Messages: msgs})
			if err != nil || len(answer.ToolCalls) != 0 {
				t.Fatalf("demo answer = %+v, %v; want a final answer", answer, err)
			}
			// Checked as the server checks it, with the turn's calls, and
			// without them, as a reply that cites its runs needs no more.
			for _, turn := range [][]verify.Run{turn, nil} {
				v := verify.Validator{Window: 5 * time.Minute, Now: func() time.Time { return started.Add(time.Minute) }, Turn: turn}
				issues, err := v.Check(context.Background(), "s_1", answer.Content, ledger)
				if err != nil {
					t.Fatal(err)
				}
				if len(issues) != 0 {
					t.Errorf("the demo's answer failed validation (turn %+v): %v\n%s", turn, verify.Messages(issues), answer.Content)
				}
			}
			cited := verify.ExtractClaims(answer.Content)
			for _, c := range cited {
				if _, ok := ledger[c.ExecutionID]; !ok {
					t.Errorf("the demo cites %q, which is no run of this conversation", c.ExecutionID)
				}
			}
			if len(cited) != len(ledger) {
				t.Errorf("the demo cites %d runs, want all %d:\n%s", len(cited), len(ledger), answer.Content)
			}
		})
	}
}

// TestDemoAnswersTheRepromptWithWhatRan ties the demo model to this package's
// re-prompt: when quoted output made its answer fail, the demo must recognize
// the re-prompt and answer with the runs alone, not with its help text.
func TestDemoAnswersTheRepromptWithWhatRan(t *testing.T) {
	started := time.Date(2026, 11, 21, 23, 0, 0, 0, time.UTC)
	id := tools.NewExecutionID(tools.ReadFile, started)
	ledger := runs{id: {ExecutionID: id, ToolName: tools.ReadFile, SessionID: "s_1", StartedAt: started, Completed: true}}
	stale := "web_search_1700000000000_deadbeef" // saved in the file long ago
	result, err := json.Marshal(map[string]any{"execution_id": id, "tool_name": tools.ReadFile,
		"result": map[string]any{"path": "ids.txt", "content": "old run: " + stale}})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []llm.Message{
		{Role: llm.RoleUser, Content: "read the file ids.txt"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: tools.ReadFile, Arguments: `{"path":"ids.txt"}`}}},
		{Role: llm.RoleTool, ToolCallID: "call_1", Content: string(result)},
	}
	v := verify.Validator{Window: 5 * time.Minute, Now: func() time.Time { return started.Add(time.Minute) }}
	demo := llm.NewDemo()

	first, err := demo.Complete(context.Background(), llm.Request{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	issues, err := v.Check(context.Background(), "s_1", first.Content, ledger)
	if err != nil || len(issues) == 0 {
		t.Fatalf("quoting a stale id passed validation (%v): %s", err, first.Content)
	}
	// Told that this turn's read_file returned that text, the validator sees
	// the stale id as the file's content, not as a claim.
	withTurn := v
	withTurn.Turn = []verify.Run{{ToolName: tools.ReadFile, ExecutionID: id, Status: api.StatusOK, Result: "old run: " + stale}}
	if shown, err := withTurn.Check(context.Background(), "s_1", first.Content, ledger); err != nil || len(shown) != 0 {
		t.Errorf("the file's own text, shown as read, failed validation (%v): %v\n%s", err, verify.Messages(shown), first.Content)
	}

	msgs = append(msgs, first, llm.Message{Role: llm.RoleUser, Content: verify.RepromptMessage(issues)})
	second, err := demo.Complete(context.Background(), llm.Request{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	issues, err = v.Check(context.Background(), "s_1", second.Content, ledger)
	if err != nil || len(issues) != 0 {
		t.Fatalf("the demo's second answer failed validation (%v): %v\n%s", err, verify.Messages(issues), second.Content)
	}
	if !strings.Contains(second.Content, id) || strings.Contains(second.Content, stale) {
		t.Errorf("second answer should cite %s and leave the file's content out:\n%s", id, second.Content)
	}
}
