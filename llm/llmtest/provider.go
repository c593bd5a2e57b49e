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

// A Provider is an in-process scripted llm.Streamer: each Complete or Stream
// consumes the next Step. A call beyond the script fails the test and returns
// an *llm.Error.
type Provider struct {
	script
	t     testing.TB
	model string
}

var _ llm.Streamer = (*Provider)(nil)

// NewProvider returns a Provider playing steps; Model() is "llmtest".
func NewProvider(t testing.TB, steps ...Step) *Provider {
	return &Provider{script: script{steps: steps}, t: t, model: "llmtest"}
}

// Model returns "llmtest".
func (p *Provider) Model() string { return p.model }

// Complete records req and plays the next step.
func (p *Provider) Complete(ctx context.Context, req llm.Request) (llm.Message, error) {
	step, err := p.play(ctx, req, false)
	if err != nil {
		return llm.Message{}, err
	}
	return reply(step), nil
}

// Stream records req and plays the next step, delivering its reply's content
// in the chunks the llmtest Server would stream (see Chunked), paced as the
// step says. The content is delivered as scripted: a think block in it is
// not removed, as Complete does not remove it either.
func (p *Provider) Stream(ctx context.Context, req llm.Request, onText func(text string)) (llm.Message, error) {
	step, err := p.play(ctx, req, true)
	if err != nil {
		return llm.Message{}, err
	}
	out := reply(step)
	if step.stream.unstreamed {
		if out.Content != "" {
			onText(out.Content)
		}
		return out, nil
	}
	chunks := step.stream.chunks(out)
	for i, c := range chunks {
		if step.stream.fails && i == step.stream.failAfter {
			return llm.Message{}, errReset()
		}
		if i > 0 {
			if err := pause(ctx, step.stream.pace); err != nil {
				return llm.Message{}, err
			}
		}
		if c.text != "" {
			onText(c.text)
		}
	}
	if step.stream.fails {
		return llm.Message{}, errReset()
	}
	return out, nil
}

// errReset is what the real provider makes of a dropped connection.
func errReset() error {
	return &llm.Error{Kind: llm.KindUnreachable, Message: "cannot reach the model at llmtest (connection reset): start the model server or set llm.base_url"}
}

// play records req and plays the next step up to its reply: the step is
// returned when it has one, and its failure otherwise.
func (p *Provider) play(ctx context.Context, req llm.Request, stream bool) (Step, error) {
	// Deep-copy so a caller that later mutates its slices cannot rewrite history.
	rec := Request{Model: p.model, Messages: cloneMessages(req.Messages), Tools: slices.Clone(req.Tools), Stream: stream}
	step, _, err := p.take(rec)
	if err != nil {
		p.t.Errorf("%v (last user message %q)", err, rec.LastUser())
		return Step{}, &llm.Error{Kind: llm.KindStatus, Status: http.StatusInternalServerError, Message: "the model answered 500: " + err.Error()}
	}
	step, err = step.resolve(rec)
	if err != nil {
		p.t.Errorf("%v", err)
		return Step{}, &llm.Error{Kind: llm.KindStatus, Status: http.StatusInternalServerError, Message: "the model answered 500: " + err.Error()}
	}
	if step.stall {
		<-ctx.Done()
		return Step{}, canceled(ctx)
	}
	if err := pause(ctx, step.delay); err != nil {
		return Step{}, err
	}
	if step.reset {
		return Step{}, errReset()
	}
	if step.reply == nil {
		return Step{}, &llm.Error{
			Kind:    llm.KindStatus,
			Status:  step.status,
			Message: fmt.Sprintf("the model answered %d: %s", step.status, step.body),
		}
	}
	return step, nil
}

// reply is a copy of step's reply that the caller may change.
func reply(step Step) llm.Message {
	out := *step.reply
	out.ToolCalls = slices.Clone(out.ToolCalls)
	return out
}

// pause waits d, or returns the canceled *llm.Error when ctx ends first.
func pause(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return canceled(ctx)
	case <-t.C:
		return nil
	}
}

func canceled(ctx context.Context) error {
	return &llm.Error{Kind: llm.KindCanceled, Message: "the request to the model was canceled before it answered", Cause: ctx.Err()}
}

func cloneMessages(msgs []llm.Message) []llm.Message {
	out := slices.Clone(msgs)
	for i := range out {
		out[i].ToolCalls = slices.Clone(out[i].ToolCalls)
	}
	return out
}
