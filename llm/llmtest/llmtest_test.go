package llmtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ailab/ai-lab/llm"
)

// recordingTB keeps the failures a fake reports instead of failing the real test,
// so the tests can check that script exhaustion is reported.
type recordingTB struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, strings.TrimSpace(fmt.Sprintf(format, args...)))
}

func (r *recordingTB) failures() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errors...)
}

func TestDecodeRequest(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		want    Request
		wantErr string
	}{
		{
			name: "string, null and part contents",
			body: `{"model":"m","messages":[
				{"role":"system","content":"sys"},
				{"role":"user","content":[{"type":"text","text":"hel"},{"type":"text","text":"lo"}]},
				{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"write_file","arguments":"{\"path\":\"a\"}"}}]},
				{"role":"tool","content":"{\"ok\":true}","tool_call_id":"call_1"}
			],"tools":[{"type":"function","function":{"name":"write_file","description":"Write.","parameters":{"type":"object"}}}]}`,
			want: Request{
				Model: "m",
				Messages: []llm.Message{
					{Role: "system", Content: "sys"},
					{Role: "user", Content: "hello"},
					{Role: "assistant", ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "write_file", Arguments: `{"path":"a"}`}}},
					{Role: "tool", Content: `{"ok":true}`, ToolCallID: "call_1"},
				},
				Tools: []llm.ToolSpec{{Name: "write_file", Description: "Write.", Parameters: map[string]any{"type": "object"}}},
			},
		},
		{name: "not json", body: `{"model":`, wantErr: "decode chat completions request"},
		{name: "content of the wrong type", body: `{"messages":[{"role":"user","content":42}]}`, wantErr: "message 0: content is neither"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeRequest([]byte(tc.body))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got.Raw) != tc.body {
				t.Error("Raw is not the body as sent")
			}
			got.Raw = nil
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestEncodeReply(t *testing.T) {
	tests := []struct {
		name   string
		msg    llm.Message
		want   map[string]any // the choice's message
		finish string
	}{
		{"text", llm.Message{Content: "hi"}, map[string]any{"role": "assistant", "content": "hi"}, "stop"},
		{"tool calls only", llm.Message{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "n", Arguments: "{}"}}}, map[string]any{
			"role": "assistant", "content": nil,
			"tool_calls": []any{map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": "n", "arguments": "{}"}}},
		}, "tool_calls"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := json.Marshal(EncodeReply("m", 3, tc.msg))
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				ID      string `json:"id"`
				Model   string `json:"model"`
				Choices []struct {
					Message      map[string]any `json:"message"`
					FinishReason string         `json:"finish_reason"`
				} `json:"choices"`
			}
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			if got.ID != "chatcmpl-llmtest-3" || got.Model != "m" || len(got.Choices) != 1 {
				t.Fatalf("reply = %s", raw)
			}
			if !reflect.DeepEqual(got.Choices[0].Message, tc.want) || got.Choices[0].FinishReason != tc.finish {
				t.Errorf("choice = %+v (%s), want %+v (%s)", got.Choices[0].Message, got.Choices[0].FinishReason, tc.want, tc.finish)
			}
		})
	}
}

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	res, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func TestServerPlaysScriptThenFailsTheTest(t *testing.T) {
	rec := &recordingTB{TB: t}
	var seen string
	srv := NewServer(rec,
		Text("one"),
		Func(func(req Request) Step {
			seen = req.LastUser()
			return Status(429, `{"error":{"message":"slow"}}`)
		}),
	)
	body := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	tests := []struct {
		name       string
		method     string
		path       string
		wantStatus int
		wantBody   string
	}{
		{"first step", "POST", "/chat/completions", 200, `"content":"one"`},
		{"unknown route consumes nothing", "POST", "/completions", 404, "no route"},
		{"func step", "POST", "/chat/completions", 429, `"slow"`},
		{"models", "GET", "/models", 200, `"id":"m"`},
		{"exhausted", "POST", "/chat/completions", 500, "script exhausted: request 3 arrived but the script has only 2 steps"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var status int
			var got string
			if tc.method == "GET" {
				res, err := http.Get(srv.URL() + tc.path)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(res.Body)
				res.Body.Close()
				status, got = res.StatusCode, string(b)
			} else {
				status, got = post(t, srv.URL()+tc.path, body)
			}
			if status != tc.wantStatus || !strings.Contains(got, tc.wantBody) {
				t.Errorf("%s %s = %d %s, want %d with %q", tc.method, tc.path, status, got, tc.wantStatus, tc.wantBody)
			}
		})
	}
	if seen != "hi" {
		t.Errorf("Func step saw user message %q", seen)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("recorded %d requests, want 3", n)
	}
	fails := rec.failures()
	if len(fails) != 1 || !strings.Contains(fails[0], "script exhausted") || !strings.Contains(fails[0], `"hi"`) {
		t.Errorf("failures reported = %q, want one about the exhausted script", fails)
	}
}

func TestServerStallReleasedByClient(t *testing.T) {
	srv := NewServer(t, Stall(), Delay(10*time.Millisecond, Text("late")))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL()+"/chat/completions", strings.NewReader(`{"messages":[]}`))
	if _, err := http.DefaultClient.Do(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("stalled request ended with %v, want the client's deadline", err)
	}
	if status, body := post(t, srv.URL()+"/chat/completions", `{"messages":[]}`); status != 200 || !strings.Contains(body, "late") {
		t.Errorf("delayed step = %d %s", status, body)
	}
}

func TestProvider(t *testing.T) {
	rec := &recordingTB{TB: t}
	p := NewProvider(rec,
		Calls(Call("call_1", "write_file", `{"path":"a.txt","content":"x"}`)),
		Status(503, "overloaded"),
		Reset(),
		Func(func(req Request) Step { return Text("you said " + req.LastUser()) }),
	)
	msgs := []llm.Message{{Role: llm.RoleUser, Content: "go"}}
	tools := []llm.ToolSpec{{Name: "write_file"}}

	tests := []struct {
		name     string
		want     llm.Message
		wantKind llm.ErrorKind
		wantErr  string
	}{
		{name: "calls", want: llm.Message{Role: "assistant", ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "write_file", Arguments: `{"path":"a.txt","content":"x"}`}}}},
		{name: "status", wantKind: llm.KindStatus, wantErr: "the model answered 503: overloaded"},
		{name: "reset", wantKind: llm.KindUnreachable, wantErr: "cannot reach the model at llmtest (connection reset): start the model server or set llm.base_url"},
		{name: "func", want: llm.Message{Role: "assistant", Content: "you said go"}},
		{name: "exhausted", wantKind: llm.KindStatus, wantErr: "the model answered 500: llmtest: script exhausted: request 5 arrived but the script has only 4 steps"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := p.Complete(context.Background(), llm.Request{Messages: msgs, Tools: tools})
			if tc.wantErr != "" {
				var le *llm.Error
				if !errors.As(err, &le) || le.Kind != tc.wantKind || le.Error() != tc.wantErr {
					t.Fatalf("err = %v, want %s error %q", err, tc.wantKind, tc.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
	msgs[0].Content = "changed later"
	reqs := p.Requests()
	if len(reqs) != 5 || reqs[0].LastUser() != "go" || !reflect.DeepEqual(reqs[0].ToolNames(), []string{"write_file"}) {
		t.Errorf("recorded requests = %+v", reqs)
	}
	if fails := rec.failures(); len(fails) != 1 || !strings.Contains(fails[0], "script exhausted") {
		t.Errorf("failures = %q", fails)
	}
	if p.Remaining() != 0 || p.Model() != "llmtest" {
		t.Errorf("Remaining() = %d, Model() = %q", p.Remaining(), p.Model())
	}
}

func TestProviderStallHonorsContext(t *testing.T) {
	p := NewProvider(t, Stall())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := p.Complete(ctx, llm.Request{})
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.KindCanceled || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a canceled *llm.Error wrapping the deadline", err)
	}
}

// FuzzDecodeRequest: any body either decodes or gives an error, never a panic,
// and a decoded request re-encodes as a reply without failing.
func FuzzDecodeRequest(f *testing.F) {
	f.Add(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	f.Add(`{"messages":[{"role":"assistant","content":[{"type":"text","text":"a"}],"tool_calls":[{"id":"1","function":{"name":"n","arguments":"{}"}}]}],"tools":[{"function":{"name":"t","parameters":{}}}]}`)
	f.Add(`{"messages":[{"content":null}]}`)
	f.Fuzz(func(t *testing.T, body string) {
		req, err := DecodeRequest([]byte(body))
		if err != nil {
			return
		}
		for _, m := range req.Messages {
			if _, err := json.Marshal(EncodeReply(req.Model, 1, m)); err != nil {
				t.Fatalf("cannot encode a reply from %+v: %v", m, err)
			}
		}
	})
}
