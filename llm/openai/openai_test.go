package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ailab/ai-lab/llm"
	"github.com/ailab/ai-lab/llm/llmtest"
	"github.com/ailab/ai-lab/llm/openai"
)

// noWait makes retries immediate so the tests stay fast.
func noWait(int) time.Duration { return 0 }

// dialingTo returns a client that connects to addr whatever the URL says, so a
// test can use Ollama's well-known base URL while talking to a loopback server.
func dialingTo(addr string) *http.Client {
	var d net.Dialer
	return &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		},
	}}
}

func TestOpenAIPlainAnswer(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("hello there"))
	p := openai.New(openai.Options{BaseURL: srv.URL(), Model: "m1", APIKey: "sk-test"})
	msg, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	want := llm.Message{Role: llm.RoleAssistant, Content: "hello there"}
	if !reflect.DeepEqual(msg, want) {
		t.Errorf("message = %+v, want %+v", msg, want)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("server saw %d requests, want 1", len(reqs))
	}
	if reqs[0].Model != "m1" || reqs[0].Authorization != "Bearer sk-test" || reqs[0].LastUser() != "hi" {
		t.Errorf("request = model %q, auth %q, user %q", reqs[0].Model, reqs[0].Authorization, reqs[0].LastUser())
	}
	if p.Model() != "m1" {
		t.Errorf("Model() = %q", p.Model())
	}
}

func TestOpenAIEmptyKeySendsPlaceholder(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("ok"))
	p := openai.New(openai.Options{BaseURL: srv.URL(), Model: "m"})
	if _, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if got := srv.Requests()[0].Authorization; got != "Bearer not-needed" {
		t.Errorf("Authorization = %q, want the placeholder", got)
	}
}

func TestOpenAIToolCallsRoundTrip(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply(llm.Message{
		Content: "deleting",
		ToolCalls: []llm.ToolCall{
			llmtest.Call("call_9", "delete_file", `{"path":"a.txt"}`),
			llmtest.Call("call_10", "list_directory", `{"path":"."}`),
		},
	}))
	p := openai.New(openai.Options{BaseURL: srv.URL(), Model: "m"})
	schema := map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []any{"path"}}
	req := llm.Request{
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "be careful"},
			{Role: llm.RoleUser, Content: "write then delete"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "write_file", Arguments: `{"path":"a.txt","content":"x"}`}}},
			{Role: llm.RoleTool, ToolCallID: "call_1", Content: `{"execution_id":"write_file_1763769600123_0a1b2c3d"}`},
		},
		Tools: []llm.ToolSpec{
			{Name: "delete_file", Description: "Delete a file.", Parameters: schema},
			{Name: "list_directory", Description: "List a directory."},
		},
	}
	msg, err := p.Complete(context.Background(), req)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	wantCalls := []llm.ToolCall{{ID: "call_9", Name: "delete_file", Arguments: `{"path":"a.txt"}`}, {ID: "call_10", Name: "list_directory", Arguments: `{"path":"."}`}}
	if msg.Content != "deleting" || !reflect.DeepEqual(msg.ToolCalls, wantCalls) {
		t.Errorf("message = %+v, want content %q and calls %+v", msg, "deleting", wantCalls)
	}

	got := srv.Requests()[0]
	if !reflect.DeepEqual(got.Messages, req.Messages) {
		t.Errorf("decoded messages = %+v\nwant %+v", got.Messages, req.Messages)
	}
	// The wire format itself, as an OpenAI-compatible server reads it.
	var wire struct {
		Messages []map[string]any `json:"messages"`
		Tools    []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(got.Raw, &wire); err != nil {
		t.Fatal(err)
	}
	roles := []string{}
	for _, m := range wire.Messages {
		roles = append(roles, m["role"].(string))
	}
	if strings.Join(roles, ",") != "system,user,assistant,tool" {
		t.Errorf("roles = %v", roles)
	}
	call := wire.Messages[2]["tool_calls"].([]any)[0].(map[string]any)
	fn := call["function"].(map[string]any)
	if call["id"] != "call_1" || call["type"] != "function" || fn["name"] != "write_file" || fn["arguments"] != `{"path":"a.txt","content":"x"}` {
		t.Errorf("assistant tool call on the wire = %v", call)
	}
	if _, has := wire.Messages[2]["content"]; has {
		t.Errorf("assistant message with only tool calls sent content %v; want it omitted", wire.Messages[2]["content"])
	}
	if wire.Messages[3]["tool_call_id"] != "call_1" {
		t.Errorf("tool message on the wire = %v", wire.Messages[3])
	}
	if len(wire.Tools) != 2 || wire.Tools[0]["type"] != "function" {
		t.Fatalf("tools on the wire = %v", wire.Tools)
	}
	f0 := wire.Tools[0]["function"].(map[string]any)
	if f0["name"] != "delete_file" || f0["description"] != "Delete a file." || !reflect.DeepEqual(f0["parameters"], schema) {
		t.Errorf("tool 0 on the wire = %v", f0)
	}
	f1 := wire.Tools[1]["function"].(map[string]any)
	if params, _ := f1["parameters"].(map[string]any); params["type"] != "object" {
		t.Errorf("tool without a schema got parameters %v, want an empty object schema", f1["parameters"])
	}
}

func TestOpenAIRetriesTransientFailures(t *testing.T) {
	tests := []struct {
		name  string
		steps []llmtest.Step
	}{
		{"429 then success", []llmtest.Step{llmtest.Status(429, `{"error":{"message":"slow down"}}`), llmtest.Text("ok")}},
		{"503 twice then success", []llmtest.Step{llmtest.Status(503, "busy"), llmtest.Status(502, "bad gateway"), llmtest.Text("ok")}},
		{"connection reset then success", []llmtest.Step{llmtest.Reset(), llmtest.Text("ok")}},
		{"reset then 500 then success", []llmtest.Step{llmtest.Reset(), llmtest.Status(500, ""), llmtest.Text("ok")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tc.steps...)
			var waits []int
			p := openai.New(openai.Options{BaseURL: srv.URL(), Model: "m", MaxRetries: 2, Backoff: func(n int) time.Duration {
				waits = append(waits, n)
				return 0
			}})
			msg, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if msg.Content != "ok" {
				t.Errorf("content = %q", msg.Content)
			}
			if got := len(srv.Requests()); got != len(tc.steps) {
				t.Errorf("server saw %d requests, want %d", got, len(tc.steps))
			}
			if len(waits) != len(tc.steps)-1 || waits[0] != 1 {
				t.Errorf("backoff called with %v", waits)
			}
		})
	}
}

func TestOpenAIHonorsRetryAfter(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Status(429, `{"error":{"message":"rate limited"}}`).WithHeader("Retry-After", "1"), llmtest.Text("ok"))
	p := openai.New(openai.Options{BaseURL: srv.URL(), Model: "m", MaxRetries: 1, Backoff: func(int) time.Duration {
		t.Error("Backoff was used although the server sent Retry-After")
		return 0
	}})
	start := time.Now()
	msg, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
	if err != nil || msg.Content != "ok" {
		t.Fatalf("Complete = %+v, %v", msg, err)
	}
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("retried after %v, want the server's 1s", waited)
	}
}

// openAIErrorCases are failures with the sentence, kind and retries they get;
// TestOpenAIErrorsStreamed plays them through Stream too.
var openAIErrorCases = []struct {
	name     string
	steps    []llmtest.Step
	opts     openai.Options // BaseURL and HTTPClient default to srv
	want     string         // exact sentence; "{URL}" stands for srv.URL()
	kind     llm.ErrorKind
	status   int
	requests int
}{
	{
		name:  "500 every time gives up after the retries",
		steps: []llmtest.Step{llmtest.Status(500, `{"error":{"message":"CUDA out of memory"}}`), llmtest.Status(500, `{"error":{"message":"CUDA out of memory"}}`), llmtest.Status(500, `{"error":{"message":"CUDA out of memory"}}`)},
		opts:  openai.Options{MaxRetries: 2},
		want:  "the model answered 500: CUDA out of memory", kind: llm.KindStatus, status: 500, requests: 3,
	},
	{
		name:  "a connection reset every time gives up after the retries",
		steps: []llmtest.Step{llmtest.Reset(), llmtest.Reset(), llmtest.Reset()},
		opts:  openai.Options{MaxRetries: 2},
		want:  "cannot reach the model at {URL} (connection reset): start the model server or set llm.base_url", kind: llm.KindUnreachable, requests: 3,
	},
	{
		name:  "plain text 500 body is quoted on one line",
		steps: []llmtest.Step{llmtest.Status(500, "internal\n  error")},
		want:  "the model answered 500: internal error", kind: llm.KindStatus, status: 500, requests: 1,
	},
	{
		name:  "empty 500 body names the status",
		steps: []llmtest.Step{llmtest.Status(500, "")},
		want:  "the model answered 500: Internal Server Error", kind: llm.KindStatus, status: 500, requests: 1,
	},
	{
		name:  "401 is not retried and names the key variable",
		steps: []llmtest.Step{llmtest.Status(401, `{"error":{"message":"Incorrect API key provided"}}`)},
		opts:  openai.Options{MaxRetries: 3, KeyEnvVar: "OPENAI_API_KEY"},
		want:  "the model answered 401: check OPENAI_API_KEY", kind: llm.KindAuth, status: 401, requests: 1,
	},
	{
		name:  "403 uses the configured key variable",
		steps: []llmtest.Step{llmtest.Status(403, `{"error":"forbidden"}`)},
		opts:  openai.Options{KeyEnvVar: "AILAB_LLM_API_KEY"},
		want:  "the model answered 403: check AILAB_LLM_API_KEY", kind: llm.KindAuth, status: 403, requests: 1,
	},
	{
		name:  "ollama model not found",
		steps: []llmtest.Step{llmtest.Status(404, `{"error":{"message":"model \"qwen2.5:7b-instruct\" not found, try pulling it first","type":"api_error"}}`)},
		opts:  openai.Options{BaseURL: "http://127.0.0.1:11434/v1", Model: "qwen2.5:7b-instruct", MaxRetries: 2},
		want:  "model qwen2.5:7b-instruct not found at http://127.0.0.1:11434/v1: pull it (ollama pull qwen2.5:7b-instruct) or set llm.model", kind: llm.KindModelNotFound, status: 404, requests: 1,
	},
	{
		name:  "openai model_not_found code",
		steps: []llmtest.Step{llmtest.Status(404, `{"error":{"message":"The model gpt-9 does not exist or you do not have access to it.","code":"model_not_found"}}`)},
		opts:  openai.Options{Model: "gpt-9"},
		want:  "model gpt-9 not found at {URL}: check the name or set llm.model", kind: llm.KindModelNotFound, status: 404, requests: 1,
	},
	{
		name:  "400 saying the model does not exist",
		steps: []llmtest.Step{llmtest.Status(400, `{"message":"The model x does not exist."}`)},
		opts:  openai.Options{Model: "x"},
		want:  "model x not found at {URL}: check the name or set llm.model", kind: llm.KindModelNotFound, status: 400, requests: 1,
	},
	{
		name:  "404 without a model means a wrong base url",
		steps: []llmtest.Step{llmtest.Status(404, "404 page not found")},
		want:  "the model server at {URL} has no chat completions endpoint (404): check llm.base_url (it usually ends in /v1)", kind: llm.KindEndpointNotFound, status: 404, requests: 1,
	},
	{
		name:  "other 400 quotes the server",
		steps: []llmtest.Step{llmtest.Status(400, `{"error":{"message":"tools are not supported by this model"}}`)},
		opts:  openai.Options{MaxRetries: 2},
		want:  "the model answered 400: tools are not supported by this model", kind: llm.KindStatus, status: 400, requests: 1,
	},
	{
		name:  "timeout names the limit",
		steps: []llmtest.Step{llmtest.Stall()},
		opts:  openai.Options{Timeout: 150 * time.Millisecond, MaxRetries: 2},
		want:  "the model did not answer within 150ms (llm.timeout): raise llm.timeout or use a smaller model", kind: llm.KindTimeout, requests: 1,
	},
	{
		name:  "no choices",
		steps: []llmtest.Step{llmtest.Status(200, `{"id":"x","object":"chat.completion","choices":[]}`)},
		want:  "the model answered with no choices: check that llm.base_url points to an OpenAI-compatible chat completions API", kind: llm.KindBadResponse, requests: 1,
	},
	{
		name:  "2xx that is not JSON",
		steps: []llmtest.Step{llmtest.Status(200, `<html>hello</html>`)},
		want:  "the model at {URL} gave an answer that is not an OpenAI-compatible chat completion: check llm.base_url", kind: llm.KindBadResponse, requests: 1,
	},
}

func TestOpenAIErrors(t *testing.T) {
	srv := llmtest.NewServer(t) // steps are added per case
	for _, tc := range openAIErrorCases {
		t.Run(tc.name, func(t *testing.T) {
			before := len(srv.Requests())
			srv.Add(tc.steps...)
			opts := tc.opts
			if opts.BaseURL == "" {
				opts.BaseURL = srv.URL()
			}
			if opts.Model == "" {
				opts.Model = "m"
			}
			opts.HTTPClient = dialingTo(strings.TrimSuffix(strings.TrimPrefix(srv.URL(), "http://"), "/v1"))
			opts.Backoff = noWait
			_, err := openai.New(opts).Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
			var le *llm.Error
			if !errors.As(err, &le) {
				t.Fatalf("err = %v (%T), want *llm.Error", err, err)
			}
			want := strings.ReplaceAll(tc.want, "{URL}", srv.URL())
			if le.Error() != want {
				t.Errorf("sentence =\n  %q\nwant\n  %q", le.Error(), want)
			}
			if le.Kind != tc.kind || le.Status != tc.status {
				t.Errorf("kind, status = %s, %d; want %s, %d", le.Kind, le.Status, tc.kind, tc.status)
			}
			if got := len(srv.Requests()) - before; got != tc.requests {
				t.Errorf("server saw %d requests, want %d", got, tc.requests)
			}
			if srv.Remaining() != 0 {
				t.Errorf("%d scripted steps were not played", srv.Remaining())
			}
		})
	}
}

func TestOpenAIConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()

	tests := []struct {
		name    string
		baseURL string
		want    string
	}{
		{"ollama port", "http://127.0.0.1:11434/v1", "cannot reach the model at http://127.0.0.1:11434/v1 (connection refused): start Ollama or set llm.base_url"},
		{"empty base url means openai", "", "cannot reach the model at https://api.openai.com/v1 (connection refused): check the network or set llm.base_url"},
		{"other server", "http://" + closed + "/v1", "cannot reach the model at http://" + closed + "/v1 (connection refused): start the model server or set llm.base_url"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			attempts := 0
			p := openai.New(openai.Options{BaseURL: tc.baseURL, Model: "m", MaxRetries: 3, HTTPClient: dialingTo(closed), Backoff: func(int) time.Duration { attempts++; return 0 }})
			_, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
			var le *llm.Error
			if !errors.As(err, &le) || le.Kind != llm.KindUnreachable {
				t.Fatalf("err = %v, want an unreachable *llm.Error", err)
			}
			if le.Error() != tc.want {
				t.Errorf("sentence =\n  %q\nwant\n  %q", le.Error(), tc.want)
			}
			if le.Unwrap() == nil {
				t.Error("the cause was dropped")
			}
			if attempts != 0 {
				t.Errorf("a refused connection was retried %d times", attempts)
			}
		})
	}
}

func TestOpenAICanceled(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Stall())
	p := openai.New(openai.Options{BaseURL: srv.URL(), Model: "m", MaxRetries: 2, Backoff: noWait})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := p.Complete(ctx, llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.KindCanceled {
		t.Fatalf("err = %v, want a canceled *llm.Error", err)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("errors.Is(err, context.Canceled) = false; cause %v", le.Cause)
	}
}

func TestOpenAIRejectsUnknownRole(t *testing.T) {
	srv := llmtest.NewServer(t)
	p := openai.New(openai.Options{BaseURL: srv.URL(), Model: "m"})
	_, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: "narrator", Content: "hi"}}})
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.KindBadRequest || !strings.Contains(le.Error(), `"narrator"`) {
		t.Fatalf("err = %v, want a bad request naming the role", err)
	}
	if len(srv.Requests()) != 0 {
		t.Error("a request with an unknown role was sent")
	}
}

func TestOpenAITLSMistakes(t *testing.T) {
	plain := llmtest.NewServer(t) // answers plain HTTP
	tlsSrv := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(tlsSrv.Close)
	tests := []struct {
		name    string
		baseURL string
		want    string
	}{
		{"https to a plain HTTP server", strings.Replace(plain.URL(), "http://", "https://", 1),
			"cannot reach the model at " + strings.Replace(plain.URL(), "http://", "https://", 1) + " (it does not speak HTTPS; use http://): fix llm.base_url"},
		{"untrusted certificate", tlsSrv.URL + "/v1",
			"cannot reach the model at " + tlsSrv.URL + "/v1 (its TLS certificate is not trusted): add its CA certificate to SSL_CERT_FILE or fix llm.base_url"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			retries := 0
			p := openai.New(openai.Options{BaseURL: tc.baseURL, Model: "m", MaxRetries: 2, Backoff: func(int) time.Duration { retries++; return 0 }})
			_, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
			var le *llm.Error
			if !errors.As(err, &le) || le.Kind != llm.KindUnreachable {
				t.Fatalf("err = %v, want an unreachable *llm.Error", err)
			}
			if le.Error() != tc.want {
				t.Errorf("sentence =\n  %q\nwant\n  %q", le.Error(), tc.want)
			}
			if retries != 0 {
				t.Errorf("a TLS mistake was retried %d times", retries)
			}
		})
	}
}
