package server_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/llm/llmtest"
)

func writeCall(id, path, content string) llmtest.Step {
	args, _ := json.Marshal(map[string]string{"path": path, "content": content})
	return llmtest.Calls(llmtest.Call(id, "write_file", string(args)))
}

func TestApproveRunsTheCallAndAnswers(t *testing.T) {
	h := newHarness(t, "strict", writeCall("call_1", "a.txt", "hello"), citeResults("Wrote a.txt"))
	r := h.chat("", "create a.txt")
	if !r.ApprovalRequired || len(r.ToolsPending) != 1 || r.ToolsPending[0].ToolCallID != "call_1" || r.ToolsPending[0].ToolName != "write_file" {
		t.Fatalf("want one pending write_file, got %+v", r)
	}
	if r.Message != "The AI wants to use 1 tool that needs your approval." {
		t.Errorf("message = %q", r.Message)
	}
	if _, err := os.Stat(h.ws("a.txt")); !os.IsNotExist(err) {
		t.Fatal("the file was written before the decision")
	}
	r = h.approve(r.SessionID, approved("call_1"))
	if r.ApprovalRequired {
		t.Fatalf("unexpected second approval: %+v", r)
	}
	if data, err := os.ReadFile(h.ws("a.txt")); err != nil || string(data) != "hello" {
		t.Fatalf("file: %q, %v", data, err)
	}
	if len(r.ToolsUsed) != 1 || r.ToolsUsed[0].Status != "ok" || r.ToolsUsed[0].ExecutionID == "" {
		t.Fatalf("tools_used = %+v", r.ToolsUsed)
	}
	if !strings.Contains(r.Response, r.ToolsUsed[0].ExecutionID) || !r.Validation.Valid || r.TraceID == "" {
		t.Fatalf("reply = %+v", r)
	}
	// The model saw one tool message of CONTRACT section 5.
	reqs := h.model.Requests()
	tm := toolMessages(reqs[len(reqs)-1])
	if len(tm) != 1 || tm[0].ToolCallID != "call_1" {
		t.Fatalf("tool messages = %+v", tm)
	}
	var msg map[string]any
	if err := json.Unmarshal([]byte(tm[0].Content), &msg); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"execution_id", "tool_name", "executed_at", "result"} {
		if _, ok := msg[k]; !ok {
			t.Errorf("tool message lacks %q: %s", k, tm[0].Content)
		}
	}
	// The ledger has the run.
	var e api.Execution
	if code := h.do("GET", "/executions/"+r.ToolsUsed[0].ExecutionID, nil, &e); code != 200 || !e.Completed || e.SessionID != r.SessionID || e.ToolName != "write_file" {
		t.Fatalf("ledger record: %d %+v", code, e)
	}
	if string(e.Arguments) != `{"content":"hello","path":"a.txt"}` || e.StartedAt.IsZero() || e.Error != "" {
		t.Fatalf("ledger record: %+v (arguments %s)", e, e.Arguments)
	}
	status, ee := h.errorOf("GET", "/executions/write_file_1763769600123_00000000", nil)
	if status != 404 || ee.Code != "not_found" {
		t.Fatalf("unknown execution: %d %+v", status, ee)
	}
}

func TestDenyTellsTheModelWithFeedback(t *testing.T) {
	h := newHarness(t, "strict", writeCall("call_1", "a.txt", "hello"), llmtest.Text("Understood, I did not write the file."))
	r := h.chat("", "create a.txt")
	r = h.approve(r.SessionID, denied("call_1", "not in this folder"))
	if _, err := os.Stat(h.ws("a.txt")); !os.IsNotExist(err) {
		t.Fatal("a denied write happened")
	}
	if len(r.ToolsUsed) != 1 || r.ToolsUsed[0].Status != "denied" || r.ToolsUsed[0].ExecutionID != "" {
		t.Fatalf("tools_used = %+v", r.ToolsUsed)
	}
	reqs := h.model.Requests()
	tm := toolMessages(reqs[len(reqs)-1])
	var msg map[string]any
	if len(tm) != 1 || json.Unmarshal([]byte(tm[0].Content), &msg) != nil {
		t.Fatalf("tool messages = %+v", tm)
	}
	if msg["status"] != "denied" || msg["feedback"] != "not in this folder" || msg["message"] != "The user denied this tool call." || msg["execution_id"] != nil {
		t.Fatalf("denied message = %v", msg)
	}
}

func TestChainedApprovalsOverTwoRounds(t *testing.T) {
	h := newHarness(t, "strict",
		writeCall("call_1", "a.txt", "one"),
		writeCall("call_2", "b.txt", "two"),
		citeResults("Wrote both"))
	r := h.chat("", "write two files")
	r = h.approve(r.SessionID, approved("call_1"))
	if !r.ApprovalRequired || r.ToolsPending[0].ToolCallID != "call_2" {
		t.Fatalf("want the second approval, got %+v", r)
	}
	if _, err := os.Stat(h.ws("a.txt")); err != nil {
		t.Fatal("the first approved call did not run before the second approval")
	}
	r = h.approve(r.SessionID, approved("call_2"))
	if r.ApprovalRequired || len(r.ToolsUsed) != 2 || !r.Validation.Valid {
		t.Fatalf("final = %+v", r)
	}
	if _, err := os.Stat(h.ws("b.txt")); err != nil {
		t.Fatal(err)
	}
}

func TestMixedTurnRunsNothingBeforeTheDecision(t *testing.T) {
	h := newHarness(t, "moderate",
		llmtest.Calls(
			llmtest.Call("call_1", "list_directory", `{"path": "."}`),
			llmtest.Call("call_2", "write_file", `{"path": "x.txt", "content": "x"}`),
			llmtest.Call("call_3", "read_file", `{"path": "x.txt"}`)),
		citeResults("Done"))
	r := h.chat("", "list, write, read")
	if !r.ApprovalRequired || len(r.ToolsPending) != 1 || r.ToolsPending[0].ToolCallID != "call_2" {
		t.Fatalf("want only write_file pending, got %+v", r)
	}
	if n := len(h.model.Requests()); n != 1 {
		t.Fatalf("model asked %d times before the decision", n)
	}
	var traces []api.Trace
	h.do("GET", "/traces?tool=list_directory", nil, &traces)
	if len(traces) != 0 {
		t.Fatalf("an auto-approved call ran before the decision: %+v", traces)
	}
	r = h.approve(r.SessionID, approved("call_2"))
	var order []string
	for _, u := range r.ToolsUsed {
		order = append(order, u.ToolName+":"+u.Status)
	}
	if strings.Join(order, ",") != "list_directory:ok,write_file:ok,read_file:ok" {
		t.Fatalf("runs in order %v, want the model's order", order)
	}
}

func TestInvalidDecisions(t *testing.T) {
	h := newHarness(t, "strict", llmtest.Calls(
		llmtest.Call("call_a", "write_file", `{"path": "a", "content": "1"}`),
		llmtest.Call("call_b", "delete_file", `{"path": "b"}`)))
	r := h.chat("", "two risky calls")
	cases := []struct {
		name      string
		req       api.ApproveRequest
		status    int
		code      string
		mentioned string
	}{
		{"missing", api.ApproveRequest{SessionID: r.SessionID, Decisions: []api.Decision{approved("call_a")}}, 400, "invalid_decisions", `missing "call_b"`},
		{"unknown", api.ApproveRequest{SessionID: r.SessionID, Decisions: []api.Decision{approved("call_a"), approved("call_b"), approved("call_zz")}}, 400, "invalid_decisions", `unknown "call_zz"`},
		{"repeated", api.ApproveRequest{SessionID: r.SessionID, Decisions: []api.Decision{approved("call_a"), approved("call_b"), approved("call_a")}}, 400, "invalid_decisions", `repeated "call_a"`},
		{"none", api.ApproveRequest{SessionID: r.SessionID}, 400, "invalid_decisions", `missing "call_a", "call_b"`},
		{"unknown session", api.ApproveRequest{SessionID: "s_nope", Decisions: []api.Decision{approved("call_a")}}, 404, "session_not_found", "s_nope"},
		{"no session id", api.ApproveRequest{Decisions: []api.Decision{approved("call_a")}}, 400, "invalid_request", "session_id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, e := h.errorOf("POST", "/chat/approve", c.req)
			if status != c.status || e.Code != c.code || !strings.Contains(e.Message, c.mentioned) {
				t.Fatalf("got %d %s %q, want %d %s mentioning %q", status, e.Code, e.Message, c.status, c.code, c.mentioned)
			}
		})
	}
	if _, err := os.Stat(h.ws("a")); !os.IsNotExist(err) {
		t.Fatal("a refused decision ran a tool")
	}
	// A new message while decisions are awaited is refused.
	status, e := h.errorOf("POST", "/chat", api.ChatRequest{SessionID: r.SessionID, Message: "hello?"})
	if status != 409 || e.Code != "approval_pending" {
		t.Fatalf("chat while pending: %d %+v", status, e)
	}
}

func TestReplayedApprovalRunsNothingTwice(t *testing.T) {
	h := newHarness(t, "strict", writeCall("call_1", "a.txt", "hello"), citeResults("Done"))
	r := h.chat("", "create a.txt")
	h.approve(r.SessionID, approved("call_1"))
	requests := len(h.model.Requests())
	status, e := h.errorOf("POST", "/chat/approve", api.ApproveRequest{SessionID: r.SessionID, Decisions: []api.Decision{approved("call_1")}})
	if status != 409 || e.Code != "no_pending_approval" {
		t.Fatalf("replay: %d %+v", status, e)
	}
	if len(h.model.Requests()) != requests {
		t.Fatal("the replay reached the model")
	}
	var d api.SessionDetail
	h.do("GET", "/sessions/"+r.SessionID, nil, &d)
	runs := 0
	for _, m := range d.Messages {
		if m.Role == "tool" {
			runs++
		}
	}
	if runs != 1 {
		t.Fatalf("the tool ran %d times", runs)
	}
}

func TestRestartBetweenApprovalAndDecisionFinishesTheTurn(t *testing.T) {
	h := newHarness(t, "strict", writeCall("call_1", "a.txt", "survived"), citeResults("Wrote it"))
	r := h.chat("", "create a.txt")
	h.stop() // the server dies with the approval pending
	h.start()
	var sessions []api.SessionSummary
	h.do("GET", "/sessions", nil, &sessions)
	if len(sessions) != 1 || !sessions[0].PendingApproval {
		t.Fatalf("sessions after restart: %+v", sessions)
	}
	r = h.approve(r.SessionID, approved("call_1"))
	if r.ApprovalRequired || !r.Validation.Valid || len(r.ToolsUsed) != 1 {
		t.Fatalf("after restart: %+v", r)
	}
	if data, _ := os.ReadFile(h.ws("a.txt")); string(data) != "survived" {
		t.Fatalf("file = %q", data)
	}
}
