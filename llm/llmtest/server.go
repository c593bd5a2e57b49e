package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ailab/ai-lab/llm"
)

// A Server is a scripted OpenAI-compatible HTTP server on loopback. Each
// POST /v1/chat/completions consumes the next Step of its script, answering a
// reply as one chat completion, or as chat.completion.chunk events when the
// request has "stream": true (see Chunked); GET /v1/models lists one model. A
// request beyond the script is answered 500 and fails the test.
type Server struct {
	script
	t         testing.TB
	srv       *httptest.Server
	stalled   chan struct{}
	closeOnce sync.Once
	aborted   chan struct{} // one token per request its client gave up on
}

// NewServer starts a Server playing steps; it is closed when the test ends.
func NewServer(t testing.TB, steps ...Step) *Server {
	t.Helper()
	s := &Server{script: script{steps: steps}, t: t, stalled: make(chan struct{}), aborted: make(chan struct{}, 1024)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.complete)
	mux.HandleFunc("GET /v1/models", s.models)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("llmtest: no route for %s %s", r.Method, r.URL.Path))
	})
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// URL is the base URL to configure as llm.base_url, e.g. http://127.0.0.1:PORT/v1.
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Close releases stalled requests and shuts the server down. It is safe to call twice.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.stalled) })
	s.srv.Close()
}

func (s *Server) complete(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "llmtest: cannot read body: "+err.Error())
		return
	}
	req, err := DecodeRequest(raw)
	if err != nil {
		s.t.Errorf("llmtest: request is not valid chat completions JSON: %v", err)
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	req.Authorization = r.Header.Get("Authorization")

	step, n, err := s.take(req)
	if err != nil {
		s.t.Errorf("%v (last user message %q)", err, req.LastUser())
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	step, err = step.resolve(req)
	if err != nil {
		s.t.Errorf("%v", err)
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if !s.wait(r, step) {
		return
	}
	if step.reset {
		s.hangUp(w)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if step.reply != nil && req.Stream && !step.stream.unstreamed {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
	}
	// After the defaults, so a test can send a misleading Content-Type.
	for k, v := range step.header {
		w.Header().Set(k, v)
	}
	switch {
	case step.reply == nil:
		w.WriteHeader(step.status)
		_, _ = io.WriteString(w, step.body)
	case req.Stream && !step.stream.unstreamed:
		s.stream(w, r, req.Model, n, step)
	default:
		_ = json.NewEncoder(w).Encode(EncodeReply(req.Model, n, *step.reply))
	}
}

// stream writes step's reply as server-sent events, flushing each chunk so
// the client gets it at once.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, model string, n int, step Step) {
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	chunks := step.stream.chunks(*step.reply)
	for i, c := range chunks {
		if step.stream.fails && i == step.stream.failAfter {
			s.drop(w)
			return
		}
		if i > 0 && !s.pause(r, step.stream.pace) {
			return
		}
		if _, err := w.Write(c.event(model, n, *step.reply, i == 0)); err != nil {
			s.abort()
			return
		}
		if err := rc.Flush(); err != nil {
			s.abort()
			return
		}
	}
	if step.stream.fails {
		s.drop(w)
		return
	}
	_, _ = w.Write(doneEvent)
}

// pause waits d between chunks; false means the client or server gave up.
func (s *Server) pause(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-r.Context().Done():
		s.abort()
		return false
	case <-s.stalled:
		return false
	case <-t.C:
		return true
	}
}

// drop closes the connection in the middle of a response, after what was
// written so far has gone out, so the client reads every chunk and then an
// unexpected end of the body.
func (s *Server) drop(w http.ResponseWriter) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		s.t.Errorf("llmtest: cannot drop the connection: %v", err)
		return
	}
	_ = buf.Flush()
	_ = conn.Close()
}

// Aborted returns a channel that receives once for every request whose client
// gave up (closed the connection) while the server stalled, delayed or paced
// it, so a test can see that a cancelled turn really aborted its model request.
func (s *Server) Aborted() <-chan struct{} { return s.aborted }

// abort records a request its client gave up on.
func (s *Server) abort() {
	select {
	case s.aborted <- struct{}{}:
	default:
	}
}

// wait plays a step's delay or stall; false means the client or server gave up.
func (s *Server) wait(r *http.Request, step Step) bool {
	if step.stall {
		select {
		case <-r.Context().Done():
			s.abort()
		case <-s.stalled:
		}
		return false
	}
	if step.delay > 0 {
		t := time.NewTimer(step.delay)
		defer t.Stop()
		select {
		case <-r.Context().Done():
			s.abort()
			return false
		case <-s.stalled:
			return false
		case <-t.C:
		}
	}
	return true
}

// hangUp closes the connection at once with an RST (SO_LINGER 0), so the
// client sees "connection reset by peer" rather than a clean close.
func (s *Server) hangUp(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		s.t.Errorf("llmtest: cannot drop the connection: %v", err)
		return
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = conn.Close()
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	model := s.lastModel()
	if model == "" {
		model = "llmtest"
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"object": "list",
		"data":   []any{map[string]any{"id": model, "object": "model", "created": 0, "owned_by": "llmtest"}},
	})
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "llmtest_error"}})
}

// The OpenAI wire types, only as far as AI Lab uses them. Hand-written because the
// SDK's types are client-side (params out, responses in) and this is the server side.
type wireRequest struct {
	Model    string        `json:"model"`
	Messages []wireMessage `json:"messages"`
	Tools    []wireTool    `json:"tools"`
	Stream   bool          `json:"stream"`
}

type wireMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content,omitempty"`
	ToolCalls  []wireToolCall  `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

type wireToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type wireTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		Parameters  map[string]any `json:"parameters"`
	} `json:"function"`
}

// DecodeRequest decodes a chat completions request body. Message content may be a
// string, null, or an array of content parts (their text parts are joined).
func DecodeRequest(raw []byte) (Request, error) {
	var w wireRequest
	if err := json.Unmarshal(raw, &w); err != nil {
		return Request{}, fmt.Errorf("llmtest: decode chat completions request: %w", err)
	}
	req := Request{Model: w.Model, Raw: raw, Stream: w.Stream}
	for i, m := range w.Messages {
		content, err := decodeContent(m.Content)
		if err != nil {
			return Request{}, fmt.Errorf("llmtest: message %d: %w", i, err)
		}
		msg := llm.Message{Role: m.Role, Content: content, ToolCallID: m.ToolCallID}
		for _, c := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
		}
		req.Messages = append(req.Messages, msg)
	}
	for _, t := range w.Tools {
		req.Tools = append(req.Tools, llm.ToolSpec{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	return req, nil
}

func decodeContent(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("content is neither a string nor content parts: %w", err)
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// EncodeReply returns the chat completion response body (as a JSON-ready value)
// for msg; n numbers the completion id.
func EncodeReply(model string, n int, msg llm.Message) map[string]any {
	message := map[string]any{"role": "assistant", "content": msg.Content}
	finish := "stop"
	if len(msg.ToolCalls) > 0 {
		finish = "tool_calls"
		if msg.Content == "" {
			message["content"] = nil
		}
		calls := make([]any, len(msg.ToolCalls))
		for i, c := range msg.ToolCalls {
			calls[i] = map[string]any{
				"id":       c.ID,
				"type":     "function",
				"function": map[string]any{"name": c.Name, "arguments": c.Arguments},
			}
		}
		message["tool_calls"] = calls
	}
	return map[string]any{
		"id":      fmt.Sprintf("chatcmpl-llmtest-%d", n),
		"object":  "chat.completion",
		"created": 1763769600,
		"model":   model,
		"choices": []any{map[string]any{"index": 0, "message": message, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
	}
}
