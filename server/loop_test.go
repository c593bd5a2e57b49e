package server_test

import (
	"strings"
	"testing"

	"github.com/ailab/ai-lab/llm/llmtest"
)

// TestLoop drives the tool loop with the in-process fake model, one case per rule.
func TestLoop(t *testing.T) {
	same := llmtest.Calls(llmtest.Call("", "list_directory", `{"path": "."}`))
	cases := []struct {
		name     string
		preset   string
		steps    []llmtest.Step
		status   int    // of POST /chat
		response string // contained in the reply (or the error message)
		tools    []string
		valid    bool
	}{
		{
			name: "plain answer", preset: "strict",
			steps:  []llmtest.Step{llmtest.Text("Hello there.")},
			status: 200, response: "Hello there.", valid: true,
		},
		{
			name: "tool error goes back to the model", preset: "minimal",
			steps: []llmtest.Step{
				llmtest.Calls(llmtest.Call("c1", "read_file", `{"path": "missing.txt"}`)),
				llmtest.Func(func(req llmtest.Request) llmtest.Step {
					last := req.Messages[len(req.Messages)-1]
					if last.Role != "tool" || !strings.Contains(last.Content, `"error"`) {
						return llmtest.Text("no tool error seen")
					}
					return llmtest.Text("The file does not exist.")
				}),
			},
			status: 200, response: "The file does not exist.", tools: []string{"read_file:error"}, valid: true,
		},
		{
			name: "unknown tool is a tool error listing the tools", preset: "minimal",
			steps: []llmtest.Step{
				llmtest.Calls(llmtest.Call("c1", "run_speed_test", `{}`)),
				llmtest.Func(func(req llmtest.Request) llmtest.Step {
					last := req.Messages[len(req.Messages)-1]
					if !strings.Contains(last.Content, "available tools") {
						return llmtest.Text("no list")
					}
					return llmtest.Text("That tool does not exist.")
				}),
			},
			status: 200, response: "That tool does not exist.", tools: []string{"run_speed_test:error"}, valid: true,
		},
		{
			name: "bad argument JSON is a tool error", preset: "minimal",
			steps: []llmtest.Step{
				llmtest.Calls(llmtest.Call("c1", "read_file", `{"path": `)),
				llmtest.Text("The call was malformed."),
			},
			status: 200, response: "The call was malformed.", tools: []string{"read_file:error"}, valid: true,
		},
		{
			name: "identical call three times stops the turn", preset: "minimal",
			steps:  []llmtest.Step{same, same, same, llmtest.Text("never asked")},
			status: 200, response: "same arguments 3 times", tools: []string{"list_directory:ok", "list_directory:ok"}, valid: true,
		},
		{
			name: "max tool rounds stops the turn", preset: "minimal",
			steps: []llmtest.Step{
				llmtest.Calls(llmtest.Call("", "list_directory", `{"path": "."}`)),
				llmtest.Calls(llmtest.Call("", "create_directory", `{"path": "a"}`)),
				llmtest.Calls(llmtest.Call("", "create_directory", `{"path": "b"}`)),
				llmtest.Calls(llmtest.Call("", "create_directory", `{"path": "c"}`)),
				llmtest.Calls(llmtest.Call("", "create_directory", `{"path": "d"}`)),
				llmtest.Calls(llmtest.Call("", "create_directory", `{"path": "e"}`)),
				llmtest.Text("never asked"),
			},
			status: 200, response: "llm.max_tool_rounds", valid: true,
			tools: []string{"list_directory:ok", "create_directory:ok", "create_directory:ok", "create_directory:ok", "create_directory:ok", "create_directory:ok"},
		},
		{
			name: "an empty answer says so", preset: "strict",
			steps:  []llmtest.Step{llmtest.Text("  ")},
			status: 200, response: "The model gave an empty answer", valid: true,
		},
		{
			name: "model failure is a 502 with the provider's sentence", preset: "strict",
			steps:  []llmtest.Step{llmtest.Status(401, `{"error": {"message": "bad key"}}`)},
			status: 502, response: "401",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newLoopHarness(t, c.preset, c.steps...)
			if c.status != 200 {
				status, e := h.errorOf("POST", "/chat", map[string]string{"message": "go"})
				if status != c.status || !strings.Contains(e.Message, c.response) {
					t.Fatalf("got %d %+v, want %d containing %q", status, e, c.status, c.response)
				}
				return
			}
			r := h.chat("", "go")
			if !strings.Contains(r.Response, c.response) {
				t.Fatalf("response %q does not contain %q", r.Response, c.response)
			}
			var got []string
			for _, u := range r.ToolsUsed {
				got = append(got, u.ToolName+":"+u.Status)
			}
			if strings.Join(got, ",") != strings.Join(c.tools, ",") {
				t.Fatalf("tools %v, want %v", got, c.tools)
			}
			if r.Validation.Valid != c.valid {
				t.Fatalf("validation %+v", r.Validation)
			}
		})
	}
}

func TestConversationContinuesInTheSession(t *testing.T) {
	h := newLoopHarness(t, "strict",
		llmtest.Text("first"),
		llmtest.Func(func(req llmtest.Request) llmtest.Step {
			var users []string
			for _, m := range req.Messages {
				if m.Role == "user" {
					users = append(users, m.Content)
				}
			}
			if req.Messages[0].Role != "system" || !strings.Contains(req.Messages[0].Content, "execution_id") {
				return llmtest.Text("no protocol in the system prompt")
			}
			return llmtest.Text(strings.Join(users, "|"))
		}))
	r := h.chat("", "one")
	r = h.chat(r.SessionID, "two")
	if r.Response != "one|two" {
		t.Fatalf("second turn saw %q", r.Response)
	}
}
