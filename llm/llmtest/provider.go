package llmtest

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ailab/ai-lab/llm"
)

// A Provider is an in-process scripted llm.Provider: each Complete consumes the
// next Step. A call beyond the script fails the test and returns an *llm.Error.
type Provider struct {
	t     testing.TB
	model string

	mu       sync.Mutex
	steps    []Step
	next     int
	requests []Request
}

var _ llm.Provider = (*Provider)(nil)

// NewProvider returns a Provider playing steps; Model() is "llmtest".
func NewProvider(t testing.TB, steps ...Step) *Provider {
	return &Provider{t: t, model: "llmtest", steps: steps}
}

// Model returns "llmtest".
func (p *Provider) Model() string { return p.model }

// Requests returns a copy of every request received so far, in order.
func (p *Provider) Requests() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.requests)
}

// Add appends steps to the script.
func (p *Provider) Add(steps ...Step) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.steps = append(p.steps, steps...)
}

// Remaining reports how many steps of the script have not been played.
func (p *Provider) Remaining() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.steps) - p.next
}

// Complete records req and plays the next step.
func (p *Provider) Complete(ctx context.Context, req llm.Request) (llm.Message, error) {
	// Deep-copy so a caller that later mutates its slices cannot rewrite history.
	rec := Request{Model: p.model, Messages: cloneMessages(req.Messages), Tools: slices.Clone(req.Tools)}
	p.mu.Lock()
	p.requests = append(p.requests, rec)
	n := len(p.requests)
	var step Step
	exhausted := p.next >= len(p.steps)
	if !exhausted {
		step = p.steps[p.next]
		p.next++
	}
	total := len(p.steps)
	p.mu.Unlock()

	if exhausted {
		msg := fmt.Sprintf("llmtest: script exhausted: request %d arrived but the script has only %d steps", n, total)
		p.t.Errorf("%s (last user message %q)", msg, rec.LastUser())
		return llm.Message{}, &llm.Error{Kind: llm.KindStatus, Status: http.StatusInternalServerError, Message: "the model answered 500: " + msg}
	}
	step, err := step.resolve(rec)
	if err != nil {
		p.t.Errorf("%v", err)
		return llm.Message{}, &llm.Error{Kind: llm.KindStatus, Status: http.StatusInternalServerError, Message: "the model answered 500: " + err.Error()}
	}
	if step.stall || step.delay > 0 {
		var timer <-chan time.Time
		if !step.stall {
			t := time.NewTimer(step.delay)
			defer t.Stop()
			timer = t.C
		}
		select {
		case <-ctx.Done():
			return llm.Message{}, &llm.Error{Kind: llm.KindCanceled, Message: "the request to the model was canceled before it answered", Cause: ctx.Err()}
		case <-timer:
		}
	}
	if step.reset {
		return llm.Message{}, &llm.Error{Kind: llm.KindUnreachable, Message: "cannot reach the model at llmtest (connection reset): start the model server or set llm.base_url"}
	}
	if step.reply == nil {
		return llm.Message{}, &llm.Error{
			Kind:    llm.KindStatus,
			Status:  step.status,
			Message: fmt.Sprintf("the model answered %d: %s", step.status, step.body),
		}
	}
	out := *step.reply
	out.ToolCalls = slices.Clone(out.ToolCalls)
	return out, nil
}

func cloneMessages(msgs []llm.Message) []llm.Message {
	out := slices.Clone(msgs)
	for i := range out {
		out[i].ToolCalls = slices.Clone(out[i].ToolCalls)
	}
	return out
}
