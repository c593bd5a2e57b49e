// Package llmtest provides scripted fake models for tests: an httptest server that
// speaks the OpenAI chat completions wire format (for end-to-end tests through the
// real provider) and an in-process Provider (for unit tests of the tool loop). Both
// play the same script of Steps and record every request. It must never be imported
// by non-test code paths, and it never touches the network beyond loopback.
package llmtest

import (
	"fmt"
	"time"

	"github.com/ailab/ai-lab/llm"
)

// A Request is one request the fake received, decoded into provider-neutral form.
type Request struct {
	Model    string
	Messages []llm.Message
	Tools    []llm.ToolSpec
	// Raw is the JSON body as sent (nil for the in-process Provider).
	Raw []byte
	// Authorization is the Authorization header as sent ("" for the in-process Provider).
	Authorization string
	// Stream is whether the request asked for the reply as it is written
	// ("stream": true, or a Stream call on the in-process Provider).
	Stream bool
}

// LastUser returns the content of the last user message, or "".
func (r Request) LastUser() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == llm.RoleUser {
			return r.Messages[i].Content
		}
	}
	return ""
}

// ToolNames lists the names of the offered tools in order.
func (r Request) ToolNames() []string {
	names := make([]string, len(r.Tools))
	for i, t := range r.Tools {
		names[i] = t.Name
	}
	return names
}

// A Step is what the fake does with one request: answer a message, answer an HTTP
// error status, stall, drop the connection, or decide from the request. Build
// Steps with Text, Pieces, Calls, Reply, Status, Stall, Reset and Func, and
// shape how a reply is streamed with Chunked, Paced, FailAfter and Unstreamed.
type Step struct {
	reply  *llm.Message
	status int
	body   string
	stall  bool
	reset  bool
	delay  time.Duration
	header map[string]string
	fn     func(Request) Step
	stream streaming
}

// WithHeader returns the step with a response header added (for example
// Retry-After on a 429). The in-process Provider ignores headers.
func (s Step) WithHeader(key, value string) Step {
	h := make(map[string]string, len(s.header)+1)
	for k, v := range s.header {
		h[k] = v
	}
	h[key] = value
	s.header = h
	return s
}

// Text answers a plain assistant message.
func Text(content string) Step {
	return Reply(llm.Message{Role: llm.RoleAssistant, Content: content})
}

// Calls answers an assistant message asking for the given tool calls.
func Calls(calls ...llm.ToolCall) Step {
	return Reply(llm.Message{Role: llm.RoleAssistant, ToolCalls: calls})
}

// Call builds one tool call for Calls; arguments is the raw JSON text.
func Call(id, name, arguments string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Arguments: arguments}
}

// Reply answers msg as is (text and tool calls together, for instance).
func Reply(msg llm.Message) Step {
	if msg.Role == "" {
		msg.Role = llm.RoleAssistant
	}
	return Step{reply: &msg}
}

// Status answers the HTTP status code with body. The in-process Provider returns
// an *llm.Error of kind llm.KindStatus instead.
func Status(code int, body string) Step {
	return Step{status: code, body: body}
}

// Stall never answers: the server holds the request until the client gives up or
// the server closes; the Provider blocks until the context ends. For timeout tests.
func Stall() Step { return Step{stall: true} }

// Reset drops the connection without an answer, as a crashing or overloaded
// server does: the client sees a connection reset. The in-process Provider
// returns an *llm.Error of kind llm.KindUnreachable instead.
func Reset() Step { return Step{reset: true} }

// Delay answers step after waiting d (or until the client gives up).
func Delay(d time.Duration, step Step) Step {
	step.delay = d
	return step
}

// Func decides the step from the decoded request; it may return another Func
// step. What Chunked, Paced, FailAfter and Unstreamed set on a Func step
// applies to the step it returns, unless that step sets it itself.
func Func(fn func(req Request) Step) Step { return Step{fn: fn} }

// resolve runs a Func step against req (nested Funcs are resolved too, up to a
// small depth so a buggy script cannot loop forever).
func (s Step) resolve(req Request) (Step, error) {
	for depth := 0; s.fn != nil; depth++ {
		if depth == 8 {
			return Step{}, fmt.Errorf("llmtest: Func steps nested more than 8 deep")
		}
		outer := s.stream
		s = s.fn(req)
		s.stream.inherit(outer)
	}
	return s, nil
}
