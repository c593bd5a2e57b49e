package llmtest

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/ailab/ai-lab/llm"
)

// A Provider is an in-process scripted llm.Provider: each Complete consumes the
// next Step. A call beyond the script fails the test and returns an *llm.Error.
type Provider struct {
	script
	t     testing.TB
	model string
}

var _ llm.Provider = (*Provider)(nil)

// NewProvider returns a Provider playing steps; Model() is "llmtest".
func NewProvider(t testing.TB, steps ...Step) *Provider {
	return &Provider{script: script{steps: steps}, t: t, model: "llmtest"}
}

// Model returns "llmtest".
func (p *Provider) Model() string { return p.model }

// Complete records req and plays the next step.
func (p *Provider) Complete(ctx context.Context, req llm.Request) (llm.Message, error) {
	// Deep-copy so a caller that later mutates its slices cannot rewrite history.
	rec := Request{Model: p.model, Messages: cloneMessages(req.Messages), Tools: slices.Clone(req.Tools)}
	step, _, err := p.take(rec)
	if err != nil {
		p.t.Errorf("%v (last user message %q)", err, rec.LastUser())
		return llm.Message{}, &llm.Error{Kind: llm.KindStatus, Status: http.StatusInternalServerError, Message: "the model answered 500: " + err.Error()}
	}
	step, err = step.resolve(rec)
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
