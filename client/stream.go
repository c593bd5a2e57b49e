package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"

	"github.com/ailab/ai-lab/api"
)

// An Event is one event of a streamed turn before its final one (CONTRACT section
// 10), decoded: Name says which of the other fields is set.
type Event struct {
	Name       string            // api.EventTurn, EventRound, EventToken, EventRetract, EventToolCall or EventToolResult
	Turn       api.TurnEvent     // EventTurn: the session and trace of the turn
	Round      api.RoundEvent    // EventRound: a new model round begins
	Token      api.TokenEvent    // EventToken: the next piece of the answer
	Retract    api.RetractEvent  // EventRetract: the text since the last round is withdrawn
	ToolCall   api.ToolCallEvent // EventToolCall: a call waits for approval or starts to run
	ToolResult api.ToolUse       // EventToolResult: a run ended
}

// ChatStream is Chat with the answer streamed: on (if not nil) gets each event as it
// arrives, and the result is the turn's final approval_required or done, as Chat
// returns it. An error event is the *APIError Chat would return. A server that does
// not stream answers in JSON, which is accepted the same way; on is then not called.
func (c *Client) ChatStream(ctx context.Context, message, sessionID string, on func(Event)) (api.TurnReply, error) {
	return c.streamTurn(ctx, "/chat", api.ChatRequest{Message: message, SessionID: sessionID, Stream: true}, on)
}

// ApproveStream is Approve with the answer streamed, as ChatStream is Chat.
func (c *Client) ApproveStream(ctx context.Context, sessionID string, decisions []api.Decision, on func(Event)) (api.TurnReply, error) {
	return c.streamTurn(ctx, "/chat/approve", api.ApproveRequest{SessionID: sessionID, Decisions: decisions, Stream: true}, on)
}

// Cancel asks the server to cancel the session's running turn; the turn's stream
// then ends with an error event (ErrCancelled). A session with nothing running
// gives ErrNothingRunning.
func (c *Client) Cancel(ctx context.Context, sessionID string) error {
	return c.do(ctx, http.MethodPost, "/sessions/"+url.PathEscape(sessionID)+"/cancel", nil, nil)
}

func (c *Client) streamTurn(ctx context.Context, path string, in any, on func(Event)) (api.TurnReply, error) {
	// application/json too: a server without streaming still answers, in JSON.
	resp, err := c.send(ctx, http.MethodPost, path, in, "text/event-stream, application/json")
	if err != nil {
		return api.TurnReply{}, err
	}
	defer resp.Body.Close()
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); resp.StatusCode >= 300 || mt != "text/event-stream" {
		var r api.TurnReply
		err := c.decode(resp, http.MethodPost, path, &r)
		return r, err
	}
	if on == nil {
		on = func(Event) {}
	}
	events := newSSEReader(resp.Body, maxAnswer)
	for {
		ev, err := events.next()
		if err != nil {
			return api.TurnReply{}, c.streamBroke(ctx, path, err)
		}
		e := Event{Name: ev.name}
		var into any
		switch ev.name {
		case api.EventTurn:
			into = &e.Turn
		case api.EventRound:
			into = &e.Round
		case api.EventToken:
			into = &e.Token
		case api.EventRetract:
			into = &e.Retract
		case api.EventToolCall:
			into = &e.ToolCall
		case api.EventToolResult:
			into = &e.ToolResult
		case api.EventDone, api.EventApprovalRequired:
			var r api.TurnReply
			if err := c.eventData(ev, path, &r); err != nil {
				return api.TurnReply{}, err
			}
			r.ApprovalRequired = ev.name == api.EventApprovalRequired
			return r, nil
		case api.EventError:
			var d api.ErrorDetail
			if err := c.eventData(ev, path, &d); err != nil {
				return api.TurnReply{}, err
			}
			if d.Message == "" {
				d.Message = fmt.Sprintf("ai-server ended the turn with error %q", d.Code)
			}
			return api.TurnReply{}, c.apiError(resp.StatusCode, d)
		default:
			continue // a later server's event this client does not know yet
		}
		if err := c.eventData(ev, path, into); err != nil {
			return api.TurnReply{}, err
		}
		on(e)
	}
}

func (c *Client) eventData(ev sseEvent, path string, into any) error {
	if err := json.Unmarshal(ev.data, into); err != nil {
		return fmt.Errorf("%w: the %s event of POST %s is not the expected JSON (%v); are ai-server and ai-client the same version?", ErrServer, ev.name, path, err)
	}
	return nil
}

// streamBroke is the error for a stream that stopped before its final event.
func (c *Client) streamBroke(ctx context.Context, path string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err() // the caller stopped reading: not the server's doing
	}
	const after = "; the turn may not have finished, so look at the session before sending again"
	if errors.Is(err, io.EOF) {
		return &streamError{"ai-server's answer to POST " + path + " ended before the turn's final event (done, approval_required or error)" + after}
	}
	return &streamError{fmt.Sprintf("the answer of ai-server at %s to POST %s broke off (%v)%s", c.baseURL, path, err, after)}
}

// A streamError is ErrStreamEnded with the one sentence the user sees.
type streamError struct{ msg string }

func (e *streamError) Error() string { return e.msg }
func (e *streamError) Unwrap() error { return ErrStreamEnded }
