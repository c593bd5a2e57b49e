package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client"
	"github.com/ailab/ai-lab/client/clienttest"
)

// script is a turn with two pending calls, then a chained single call, then the answer.
func script() []api.TurnReply {
	return []api.TurnReply{
		clienttest.Pending("s_1",
			clienttest.Call("web_search", `{"query":"latest AI","max_results":5}`, "c1"),
			clienttest.Call("write_file", `{"path":"a.txt","content":"hi"}`, "c2")),
		clienttest.Pending("s_1", clienttest.Call("delete_file", `{"path":"old.txt"}`, "c3")),
		clienttest.Final("s_1", "All done.", api.ToolUse{ToolName: "web_search", Arguments: json.RawMessage(`{}`), ToolCallID: "c1", ExecutionID: "web_search_1763769600123_9f86d081", Status: "ok", DurationMS: 12}),
	}
}

func TestOnceApprovalFlows(t *testing.T) {
	tests := []struct {
		name    string
		approve string
		stdin   string
		want    [][]api.Decision
	}{
		{"ask y then n with reason, then default", client.ApproveAsk, "y\nn\nnot that file\n\n",
			[][]api.Decision{{{ToolCallID: "c1", Approved: true}, {ToolCallID: "c2", Feedback: "not that file"}}, {{ToolCallID: "c3", Approved: true}}}},
		{"ask a then d", client.ApproveAsk, "a\nd\n",
			[][]api.Decision{{{ToolCallID: "c1", Approved: true}, {ToolCallID: "c2", Approved: true}}, {{ToolCallID: "c3"}}}},
		{"ask n skipping the reason, bad answer re-asked", client.ApproveAsk, "n\n\nwhat\ny\nY\n",
			[][]api.Decision{{{ToolCallID: "c1"}, {ToolCallID: "c2", Approved: true}}, {{ToolCallID: "c3", Approved: true}}}},
		{"all", client.ApproveAll, "",
			[][]api.Decision{{{ToolCallID: "c1", Approved: true}, {ToolCallID: "c2", Approved: true}}, {{ToolCallID: "c3", Approved: true}}}},
		{"none", client.ApproveNone, "",
			[][]api.Decision{{{ToolCallID: "c1"}, {ToolCallID: "c2"}}, {{ToolCallID: "c3"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := clienttest.New(t, script()...)
			var out, prompt bytes.Buffer
			o := client.Once{Message: "do it", Approve: tt.approve, In: strings.NewReader(tt.stdin), Out: &out, Prompt: &prompt}
			if err := o.Run(context.Background(), client.New(srv.URL, clienttest.Token, nil)); err != nil {
				t.Fatalf("Run: %v\nprompt:\n%s", err, prompt.String())
			}
			if out.String() != "All done.\n" {
				t.Fatalf("stdout = %q, want only the answer", out.String())
			}
			var got [][]api.Decision
			for _, a := range srv.Approvals() {
				if a.SessionID != "s_1" {
					t.Fatalf("approve for session %q", a.SessionID)
				}
				got = append(got, a.Decisions)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("decisions sent = %+v\nwant %+v", got, tt.want)
			}
			if tt.approve == client.ApproveAsk {
				for _, s := range []string{"⚠ Tool Approval Required", "│ Tools Requesting Approval", "(1 of 2) Approve web_search(query=latest AI, max_results=5)? [y/n/a/d] (y): ", "Approve delete_file(path=old.txt)?"} {
					if !strings.Contains(prompt.String(), s) {
						t.Errorf("prompt output lacks %q:\n%s", s, prompt.String())
					}
				}
				if strings.Contains(prompt.String(), "\x1b[") {
					t.Errorf("ask output has colour codes:\n%q", prompt.String())
				}
			}
		})
	}
}

// Answers piped in are echoed after their questions, so the transcript reads as a
// dialogue instead of questions run together on one line.
func TestOnceEchoesPipedAnswers(t *testing.T) {
	tests := []struct {
		name string
		echo bool
		want string
	}{
		{"echo", true, "(1 of 2) Approve web_search(query=latest AI, max_results=5)? [y/n/a/d] (y): n\nReason for the model (Enter skips): too broad\n(2 of 2) Approve"},
		{"terminal echoes by itself", false, "(1 of 2) Approve web_search(query=latest AI, max_results=5)? [y/n/a/d] (y): Reason for the model (Enter skips): (2 of 2) Approve"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := clienttest.New(t, script()...)
			var out, prompt bytes.Buffer
			o := client.Once{Message: "do it", Approve: client.ApproveAsk, In: strings.NewReader("n\ntoo broad\ny\ny\n"), Out: &out, Prompt: &prompt, Echo: tt.echo}
			if err := o.Run(context.Background(), client.New(srv.URL, clienttest.Token, nil)); err != nil {
				t.Fatalf("Run: %v", err)
			}
			if !strings.Contains(prompt.String(), tt.want) {
				t.Fatalf("prompt output lacks %q:\n%s", tt.want, prompt.String())
			}
		})
	}
}

// An answer printed to a terminal cannot drive it; a pipe gets it byte for byte.
func TestOnceEscapesTheAnswerOnlyForATerminal(t *testing.T) {
	answer := "done\x1b[2J \u202etxt.exe\n\tnext line"
	tests := []struct {
		name     string
		terminal bool
		want     string
	}{
		{"terminal", true, "done\\x1b[2J \\u202etxt.exe\n\tnext line\n"},
		{"pipe", false, answer + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := clienttest.New(t, clienttest.Final("s_1", answer))
			var out bytes.Buffer
			o := client.Once{Message: "hi", Approve: client.ApproveNone, Out: &out, OutIsTerminal: tt.terminal}
			if err := o.Run(context.Background(), client.New(srv.URL, clienttest.Token, nil)); err != nil {
				t.Fatalf("Run: %v", err)
			}
			if out.String() != tt.want {
				t.Fatalf("stdout = %q, want %q", out.String(), tt.want)
			}
		})
	}
}

func TestOnceJSONPrintsTheFinalChatResponse(t *testing.T) {
	srv := clienttest.New(t, script()...)
	var out bytes.Buffer
	o := client.Once{Message: "do it", Approve: client.ApproveAll, JSON: true, Out: &out}
	if err := o.Run(context.Background(), client.New(srv.URL, clienttest.Token, nil)); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out.String())
	}
	if got["response"] != "All done." || got["session_id"] != "s_1" || got["trace_id"] != "t_s_1" {
		t.Fatalf("JSON = %v", got)
	}
	if _, ok := got["approval_required"]; ok {
		t.Fatalf("final JSON carries approval_required: %v", got)
	}
	tu := got["tools_used"].([]any)[0].(map[string]any)
	if tu["execution_id"] != "web_search_1763769600123_9f86d081" || tu["status"] != "ok" {
		t.Fatalf("tools_used = %v", tu)
	}
}

func TestOnceFailures(t *testing.T) {
	tests := []struct {
		name    string
		approve string
		stdin   string
		fail    func(s *clienttest.Server)
		want    error
		text    string // the whole message, when it matters
	}{
		{"stdin ends mid batch", client.ApproveAsk, "y\n", nil, client.ErrInputEnded, ""},
		{"409 on the chained approve", client.ApproveAll, "", func(s *clienttest.Server) { s.FailOn(3, 409, api.CodeNoPendingApproval) }, client.ErrNoPendingApproval, ""},
		{"model error on chat", client.ApproveAll, "", func(s *clienttest.Server) { s.FailOn(1, 502, api.CodeModelError) }, client.ErrModel, ""},
		{"session waits for decisions", client.ApproveAll, "", func(s *clienttest.Server) { s.FailOn(1, 409, api.CodeApprovalPending) }, client.ErrApprovalPending,
			"session s_9 waits for decisions on earlier tool calls; decide them in `ai-client --session s_9`, or leave out --session to start a new one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := clienttest.New(t, script()...)
			if tt.fail != nil {
				tt.fail(srv)
			}
			o := client.Once{Message: "do it", SessionID: "s_9", Approve: tt.approve, In: strings.NewReader(tt.stdin), Out: &bytes.Buffer{}}
			err := o.Run(context.Background(), client.New(srv.URL, clienttest.Token, nil))
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if tt.text != "" && err.Error() != tt.text {
				t.Fatalf("message %q, want %q", err, tt.text)
			}
		})
	}
}

func TestOnceRefusesUnknownPolicy(t *testing.T) {
	err := client.Once{Message: "x", Approve: "maybe"}.Run(context.Background(), client.New("http://127.0.0.1:1", "", nil))
	if err == nil || !strings.Contains(err.Error(), "ask, all or none") {
		t.Fatalf("err = %v", err)
	}
}
