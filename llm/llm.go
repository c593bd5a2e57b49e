// Package llm is how AI Lab talks to a model: a small Provider interface with
// provider-neutral message types and the offline demo model. The OpenAI-compatible
// provider is llm/openai, apart so that ai-client (whose --demo server only runs
// the demo model) does not link the OpenAI SDK. It must never import server/ or
// tools/: tools reach it only as ToolSpecs, and the tool loop lives in server/.
package llm

import (
	"context"
	"errors"
	"strings"
	"time"
)

// Roles of a Message.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// A ToolCall is one native tool call the model asked for.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"` // raw JSON text as the model wrote it
}

// A Message is one chat message in provider-neutral form.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"` // set on RoleTool messages
	// Origin marks a message the server wrote itself (a re-prompt, the results
	// of calls written as text, a refused reply, a cancellation note), so it is
	// told apart by this field and never by its wording. Empty: the user's or
	// the model's own message. Providers do not send it.
	Origin string `json:"origin,omitempty"`
}

// Origins of messages the server writes itself.
const (
	OriginReprompt    = "reprompt"     // the server asks the model again after a failed validation
	OriginRefused     = "refused"      // a model reply that failed validation and was never shown
	OriginTextResults = "text_results" // results of calls the model wrote as text
	OriginCancelled   = "cancelled"    // the note that ends a cancelled turn
	OriginUnverified  = "unverified"   // the reply shown instead of one that kept failing validation
	OriginNotice      = "notice"       // the server's own words that end a turn (a round limit, an empty answer)
)

// A ToolSpec describes a tool to the model.
type ToolSpec struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"` // JSON Schema of the arguments object
}

// A Request is one round of the conversation sent to the model.
type Request struct {
	Messages []Message
	// Tools are the tools offered. A provider may keep what it made of a list
	// it was given before, so a changed tool list must be a new slice, never
	// the old one edited in place.
	Tools []ToolSpec
}

// A Provider answers one round: the assistant message, possibly with tool calls.
type Provider interface {
	// Complete sends the conversation and returns the assistant's message.
	// Errors are *Error values whose Error() is one sentence a user can act on.
	Complete(ctx context.Context, req Request) (Message, error)
	// Model names the model, as /health shows it ("demo" for the demo model).
	Model() string
}

// A Checker is a Provider that can tell, without a conversation, whether its
// endpoint answers and knows the configured model, so a wrong llm.base_url or
// llm.model shows at start rather than after the first message.
type Checker interface {
	Provider
	// Check asks the endpoint once. Its error is an *Error whose Error() is
	// one sentence saying what is wrong and how to fix it; ErrCannotCheck
	// means the endpoint offers no way to ask (not a problem in itself).
	Check(ctx context.Context) error
}

// ErrCannotCheck is Check's answer for an endpoint that does not list its
// models (some servers do not implement GET /models).
var ErrCannotCheck = errors.New("the endpoint does not list its models")

// A Streamer is a Provider that can deliver the reply's text as it is written.
type Streamer interface {
	Provider
	// Stream sends the conversation like Complete and calls onText with each
	// new piece of the reply's content text, in order, as it arrives (never
	// with text of a <think> block). It returns the complete message exactly as
	// Complete would have (content with the think block removed, tool calls
	// assembled). onText is called from Stream's goroutine; it must not block long.
	//
	// When Stream succeeds, the pieces joined equal the returned content; a
	// <think> block that never closes is, as in Complete, the whole reply and
	// is delivered when the reply ends. A Stream that fails may have
	// delivered pieces already: they belong to no message.
	Stream(ctx context.Context, req Request, onText func(text string)) (Message, error)
}

// Sleep waits d, or until ctx is done (then it returns ctx's error). Providers
// use it to pace a stream or to wait before a retry.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// OneLine collapses the whitespace of s and cuts it to at most n runes, marking
// the cut: how outside text (a server's error, a tool's output) fits a sentence.
func OneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
