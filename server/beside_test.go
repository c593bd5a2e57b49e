package server_test

import (
	"os"
	"strings"
	"testing"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/llm"
	"github.com/ailab/ai-lab/llm/llmtest"
)

// TestTextBesideToolCallsIsValidated: the text a model writes alongside its
// tool calls is checked like a final reply before it is kept: a claim of a
// run that never happened is not kept in the session, nor sent to the model
// again, while an honest announcement of the call it makes is kept.
func TestTextBesideToolCallsIsValidated(t *testing.T) {
	h := newLoopHarness(t, "minimal",
		llmtest.Reply(llm.Message{Role: llm.RoleAssistant, Content: "I deleted notes.txt for you.",
			ToolCalls: []llm.ToolCall{llmtest.Call("w", "write_file", writeArgs("a.txt", "a"))}}),
		citeResults("Wrote a.txt"),
		llmtest.Reply(llm.Message{Role: llm.RoleAssistant, Content: "Let me list the files in the workspace.",
			ToolCalls: []llm.ToolCall{llmtest.Call("l", "list_directory", `{}`)}}),
		citeResults("Listed"),
		llmtest.Text("Nothing more."))
	r := h.chat("", "write a")
	if r.ApprovalRequired || !r.Validation.Valid {
		t.Fatalf("%+v", r)
	}
	r = h.chat(r.SessionID, "list")
	var d api.SessionDetail
	h.do("GET", "/sessions/"+r.SessionID, nil, &d)
	var kept []string
	for _, m := range d.Messages {
		if m.Role == "assistant" && len(m.ToolCalls) > 0 {
			kept = append(kept, m.Content)
		}
	}
	if len(kept) != 2 || kept[0] != "" || kept[1] != "Let me list the files in the workspace." {
		t.Fatalf("texts kept beside tool calls: %q", kept)
	}
	h.chat(r.SessionID, "anything else?")
	reqs := h.fake.Requests()
	for _, m := range reqs[len(reqs)-1].Messages {
		if strings.Contains(m.Content, "I deleted notes.txt") {
			t.Fatalf("the refused text was sent to the model again: %q", m.Content)
		}
	}
}

// TestTooManyCallsInOneRoundStopTheTurn: a round asking for more calls than
// llm.max_tool_calls_per_round runs none of them and ends the turn saying why.
func TestTooManyCallsInOneRoundStopTheTurn(t *testing.T) {
	t.Setenv("AILAB_LLM_MAX_TOOL_CALLS_PER_ROUND", "2")
	h := newLoopHarness(t, "minimal", llmtest.Calls(
		llmtest.Call("a", "write_file", writeArgs("a.txt", "a")),
		llmtest.Call("b", "write_file", writeArgs("b.txt", "b")),
		llmtest.Call("c", "write_file", writeArgs("c.txt", "c"))))
	r := h.chat("", "write three files")
	if r.ApprovalRequired || len(r.ToolsUsed) != 0 || !strings.Contains(r.Response, "3 tool calls in one round, more than llm.max_tool_calls_per_round (2)") {
		t.Fatalf("%+v", r)
	}
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		if _, err := os.Stat(h.ws(f)); err == nil {
			t.Errorf("%s was written", f)
		}
	}
}
