package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/llm/llmtest"
)

// Secrets the tests plant; none of them is real.
const (
	plantedOpenAI = "sk-abc123DEF456ghi789JKL012mno345PQR678stu"
	plantedGitHub = "ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1eF3hJ5"
	plantedQuery  = "SECRETQ7x9"
	plantedPW     = "SECRETPW42"
)

// leaks names the planted secrets found in what a surface showed.
func leaks(shown string, secrets ...string) []string {
	var out []string
	for _, s := range secrets {
		if strings.Contains(shown, s) {
			out = append(out, s)
		}
	}
	return out
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestConfigMasksSecretsInURLsAndCommandLines: GET /config masked a URL's
// password only; a key in llm.base_url's query, in an MCP server's url and
// in its command line showed as written.
func TestConfigMasksSecretsInURLsAndCommandLines(t *testing.T) {
	t.Setenv("AILAB_LLM_BASE_URL", "http://127.0.0.1:9/v1?api-key="+plantedQuery)
	h := newLoopHarnessWith(t, setup{extra: "mcp:\n  servers:\n" +
		"    - {name: remote, url: 'http://127.0.0.1:9/mcp?api_key=" + plantedPW + "&team=lab'}\n" +
		"    - {name: local, command: ['/nonexistent/mcp-server', '--token', '" + plantedGitHub + "', '--password', 'hunter2x', '--port', '8']}\n"})
	var cfg map[string]any
	if code := h.do("GET", "/config", nil, &cfg); code != 200 {
		t.Fatalf("GET /config: %d", code)
	}
	shown := jsonText(t, cfg)
	if l := leaks(shown, plantedQuery, plantedPW, plantedGitHub, "hunter2x"); len(l) > 0 {
		t.Errorf("GET /config shows %v: %s", l, shown)
	}
	for _, kept := range []string{`"base_url":"http://127.0.0.1:9/v1?api-key=***"`, `team=lab`, `"--token","***","--password","***","--port","8"`} {
		if !strings.Contains(strings.ReplaceAll(shown, `\u0026`, "&"), kept) {
			t.Errorf("GET /config lost %s: %s", kept, shown)
		}
	}
}

// TestAModelErrorIsMaskedForTheClient: a model's error quoted the base URL
// (with its password) and the upstream's error body (with a key) in the
// ChatResponse error and the SSE error event; the trace's copy was masked.
func TestAModelErrorIsMaskedForTheClient(t *testing.T) {
	h := newHarness(t, "strict",
		llmtest.Status(404, `{"error":{"message":"model \"fake-model\" not found"}}`),
		llmtest.Status(400, `{"error":{"message":"invalid key `+plantedOpenAI+` for https://up.example/v1?key=`+plantedQuery+`"}}`))
	// The base URL with a password, as llm.base_url may be written.
	raw, err := os.ReadFile(h.cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	withPW := strings.Replace(string(raw), "http://127.0.0.1", "http://lab:"+plantedPW+"@127.0.0.1", 1)
	if err := os.WriteFile(h.cfgPath, []byte(withPW), 0o600); err != nil {
		t.Fatal(err)
	}
	h.stop()
	h.start()

	code, e := h.errorOf("POST", "/chat", api.ChatRequest{Message: "hello"})
	if code != 502 || e.Code != api.CodeModelError {
		t.Fatalf("POST /chat: %d %+v", code, e)
	}
	if l := leaks(e.Message, plantedPW); len(l) > 0 || !strings.Contains(e.Message, "lab:***@127.0.0.1") {
		t.Errorf("the error shows %v or lost the URL: %q", l, e.Message)
	}

	events := h.stream("/chat", map[string]any{"message": "hello again", "stream": true})
	last := events[len(events)-1]
	if last.name != api.EventError {
		t.Fatalf("the stream ended with %s: %s", last.name, last.data)
	}
	if l := leaks(string(last.data), plantedOpenAI, plantedQuery); len(l) > 0 || !strings.Contains(string(last.data), "invalid key ***") {
		t.Errorf("the SSE error shows %v or lost the upstream's words: %s", l, last.data)
	}
}

// TestToolRunsAreMaskedOnEverySurface: a run's arguments and error, the
// validation issues that quote them, the session's marks and title, and
// the SSE events showed keys that /executions and /traces masked. The tool
// still runs with its exact arguments, and the model is not sent the key an
// error quotes.
func TestToolRunsAreMaskedOnEverySurface(t *testing.T) {
	page := "http://127.0.0.1:9/page?api_key=" + plantedQuery
	content := "OPENAI_API_KEY=" + plantedOpenAI + "\n"
	var toolErrors []string
	steps := func() []llmtest.Step {
		return []llmtest.Step{
			llmtest.Calls(
				llmtest.Call("call_w", "write_file", `{"path":"app.env","content":"OPENAI_API_KEY=`+plantedOpenAI+`\n"}`),
				llmtest.Call("call_r", "read_webpage", `{"url":"`+page+`"}`)),
			// Citing the failed read as a result fails validation every time:
			// the issue quotes the run's error.
			llmtest.Func(func(req llmtest.Request) llmtest.Step {
				for _, m := range toolMessages(req) {
					toolErrors = append(toolErrors, m.Content)
				}
				return citeResults("Saved, and the page says hello")
			}),
			// Asked again, the model is told why, without the key.
			llmtest.Func(func(req llmtest.Request) llmtest.Step {
				toolErrors = append(toolErrors, req.LastUser())
				return citeResults("Saved, and the page says hello")
			}),
			citeResults("Saved, and the page says hello"),
		}
	}
	secrets := []string{plantedOpenAI, plantedQuery, "swordfish"}
	for _, stream := range []bool{false, true} {
		name := map[bool]string{false: "JSON", true: "SSE"}[stream]
		t.Run(name, func(t *testing.T) {
			toolErrors = nil
			h := newLoopHarness(t, "minimal", steps()...)
			msg := "my password is swordfish; save my key and read the page"
			var reply api.ChatResponse
			if stream {
				events := h.stream("/chat", map[string]any{"message": msg, "stream": true})
				var shown strings.Builder
				for _, ev := range events {
					if ev.name != api.EventToken {
						shown.WriteString(ev.name + " " + string(ev.data) + "\n")
					}
				}
				if l := leaks(shown.String(), secrets...); len(l) > 0 {
					t.Errorf("the events show %v:\n%s", l, shown.String())
				}
				if !strings.Contains(shown.String(), "tool_call ") || !strings.Contains(shown.String(), "tool_result ") {
					t.Fatalf("no tool_call or tool_result event:\n%s", shown.String())
				}
				last := events[len(events)-1]
				if last.name != api.EventDone || json.Unmarshal(last.data, &reply) != nil {
					t.Fatalf("the stream ended with %s %s", last.name, last.data)
				}
			} else {
				r := h.chat("", msg)
				reply = api.ChatResponse{SessionID: r.SessionID, ToolsUsed: r.ToolsUsed, Validation: r.Validation}
			}
			shown := jsonText(t, reply)
			if l := leaks(shown, secrets...); len(l) > 0 {
				t.Errorf("the ChatResponse shows %v: %s", l, shown)
			}
			if len(reply.ToolsUsed) != 2 || reply.ToolsUsed[1].Status != api.StatusError || reply.Validation.Valid || len(reply.Validation.Issues) == 0 {
				t.Fatalf("the turn did not go as scripted: %s", shown)
			}
			if !strings.Contains(shown, "OPENAI_API_KEY=***") || !strings.Contains(shown, "api_key=***") {
				t.Errorf("the ChatResponse lost what is around the secrets: %s", shown)
			}
			if !strings.Contains(strings.Join(reply.Validation.Issues, " "), "api_key=***") {
				t.Errorf("the issues do not quote the masked error: %q", reply.Validation.Issues)
			}

			// The tool ran with its exact arguments.
			if got, err := os.ReadFile(h.ws("app.env")); err != nil || string(got) != content {
				t.Errorf("app.env = %q, %v; want the exact content", got, err)
			}
			// The model got the error, and the issue quoting it, without the key.
			if l := leaks(strings.Join(toolErrors, "\n"), plantedQuery); len(l) > 0 || len(toolErrors) != 3 || !strings.Contains(toolErrors[2], "api_key=***") {
				t.Errorf("the model was sent %v in %q", l, toolErrors)
			}

			var detail api.SessionDetail
			h.do("GET", "/sessions/"+reply.SessionID, nil, &detail)
			if l := leaks(jsonText(t, detail), secrets...); len(l) > 0 {
				t.Errorf("GET /sessions/{id} shows %v: %s", l, jsonText(t, detail))
			}
			var marked bool
			for _, m := range detail.Messages {
				marked = marked || len(m.ToolsUsed) == 2
			}
			if !marked {
				t.Errorf("GET /sessions/{id} has no marks: %s", jsonText(t, detail))
			}
			var list []api.SessionSummary
			h.do("GET", "/sessions", nil, &list)
			if len(list) != 1 || list[0].Title != "my password is ***; save my key and read the page" {
				t.Errorf("GET /sessions = %s", jsonText(t, list))
			}
		})
	}
}

// TestApprovalShowsTheExactArguments: the calls the user decides on keep
// their exact arguments in tools_pending (the client notes what looks like a
// secret), while the tool_call event of the same call is masked, and so is
// the preview of the file it overwrites, whose old key the server read.
func TestApprovalShowsTheExactArguments(t *testing.T) {
	h := newLoopHarness(t, "strict",
		llmtest.Calls(llmtest.Call("call_w", "write_file", `{"path":"app.env","content":"TOKEN=`+plantedGitHub+`"}`)))
	if err := os.MkdirAll(h.ws(""), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.ws("app.env"), []byte("OLD_TOKEN="+plantedOpenAI+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	events := h.stream("/chat", map[string]any{"message": "save it", "stream": true})
	var pending api.ApprovalRequiredResponse
	for _, ev := range events {
		switch ev.name {
		case api.EventToolCall:
			if strings.Contains(string(ev.data), plantedGitHub) {
				t.Errorf("the tool_call event shows the key: %s", ev.data)
			}
		case api.EventApprovalRequired:
			if err := json.Unmarshal(ev.data, &pending); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(pending.ToolsPending) != 1 || !strings.Contains(string(pending.ToolsPending[0].Arguments), plantedGitHub) {
		t.Fatalf("tools_pending does not show the exact arguments: %+v", pending)
	}
	pv := pending.ToolsPending[0].Preview
	if pv == nil || !strings.Contains(pv.Diff, "OLD_TOKEN=***") {
		t.Fatalf("the preview does not show the old file masked: %+v", pv)
	}
	var detail api.SessionDetail
	h.do("GET", "/sessions/"+pending.SessionID, nil, &detail)
	if l := leaks(jsonText(t, detail.ToolsPending), plantedOpenAI); len(l) > 0 || len(detail.ToolsPending) != 1 ||
		!strings.Contains(string(detail.ToolsPending[0].Arguments), plantedGitHub) {
		t.Errorf("GET /sessions/{id} tools_pending: %s", jsonText(t, detail.ToolsPending))
	}
}

// TestToolListMasksOutsideText: an MCP server's tool description is outside
// text; GET /tools shows a key in it masked (its status is masked the same
// way; mcp's TestAServersStatusMasksSecrets makes a status quote one).
func TestToolListMasksOutsideText(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "get_note", Description: "Returns a note. Call with --token " + plantedGitHub + ".", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	h := newLoopHarnessWith(t, setup{extra: "mcp:\n  servers:\n    - {name: notes, url: '" + hs.URL + "/mcp'}\n"})
	var list []api.ToolInfo
	waitUntil(t, func() bool {
		h.do("GET", "/tools", nil, &list)
		return strings.Contains(jsonText(t, list), "notes__get_note")
	})
	shown := jsonText(t, list)
	if l := leaks(shown, plantedGitHub); len(l) > 0 || !strings.Contains(shown, "Call with --token ***") {
		t.Errorf("GET /tools shows %v: %s", l, shown)
	}
}

// TestHealthMasksTheModelStatus: GET /health, which needs no token, reported
// the start-up check's sentence with the base URL's password in it.
func TestHealthMasksTheModelStatus(t *testing.T) {
	t.Setenv("AILAB_LLM_BASE_URL", "http://lab:"+plantedPW+"@127.0.0.1:9/v1")
	h := newHarness(t, "strict")
	status := h.app.CheckModel(context.Background())
	if !strings.HasPrefix(status, "unreachable: ") {
		t.Fatalf("the check gave %q", status)
	}
	var health api.Health
	if code := h.do("GET", "/health", nil, &health); code != 200 {
		t.Fatalf("GET /health: %d", code)
	}
	if l := leaks(health.ModelStatus, plantedPW); len(l) > 0 || !strings.Contains(health.ModelStatus, "lab:***@127.0.0.1:9") {
		t.Errorf("model_status = %q", health.ModelStatus)
	}
}
