package clienttest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/ailab/ai-lab/api"
)

// A Beat is one step of a scripted stream: an event, a pause, raw bytes, or the end.
type Beat struct {
	event  string
	data   any
	raw    string
	pause  time.Duration
	until  <-chan struct{}
	hangup bool
}

// Event sends the event name with data encoded as JSON.
func Event(name string, data any) Beat { return Beat{event: name, data: data} }

// Text sends a token event.
func Text(text string) Beat { return Event(api.EventToken, api.TokenEvent{Text: text}) }

// Round sends a round event.
func Round(n int) Beat { return Event(api.EventRound, api.RoundEvent{Round: n}) }

// Retract sends a retract event.
func Retract(reason string) Beat { return Event(api.EventRetract, api.RetractEvent{Reason: reason}) }

// Running sends the tool_call event of a run that starts now.
func Running(tool, args, id string) Beat {
	return Event(api.EventToolCall, api.ToolCallEvent{ToolCallID: id, ToolName: tool, Arguments: json.RawMessage(args)})
}

// Ran sends the tool_result event of a run that ended.
func Ran(u api.ToolUse) Beat { return Event(api.EventToolResult, u) }

// Failure sends an error event, which ends the stream.
func Failure(code, message string) Beat {
	return Event(api.EventError, api.ErrorDetail{Code: code, Message: message})
}

// Pause waits d before the next beat.
func Pause(d time.Duration) Beat { return Beat{pause: d} }

// Until waits until ch is closed, so a test can hold the stream at a point.
func Until(ch <-chan struct{}) Beat { return Beat{until: ch} }

// Raw writes s as it is: pings, CRLF line ends, malformed events.
func Raw(s string) Beat { return Beat{raw: s} }

// Hangup ends the stream at once, without a final event.
func Hangup() Beat { return Beat{hangup: true} }

// Stream scripts the next streamed answer that has no script yet: after the turn
// event, the beats in order, then the final event of the scripted reply unless a beat
// ended the stream first (an error event, a done or approval_required, Hangup).
func (s *Server) Stream(beats ...Beat) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scripts = append(s.scripts, beats)
}

// defaultBeats streams a reply the way the real server would make it: its tool runs,
// then the answer word by word; or the calls that wait for approval.
func defaultBeats(t api.TurnReply) []Beat {
	var beats []Beat
	if t.ApprovalRequired {
		for _, p := range t.ToolsPending {
			beats = append(beats, Event(api.EventToolCall, api.ToolCallEvent{ToolCallID: p.ToolCallID, ToolName: p.ToolName, Arguments: p.Arguments, NeedsApproval: true}))
		}
		return beats
	}
	beats = append(beats, Round(1))
	for _, u := range t.ToolsUsed {
		if u.Status != api.StatusDenied {
			beats = append(beats, Running(u.ToolName, string(u.Arguments), u.ToolCallID))
		}
		beats = append(beats, Ran(u))
	}
	if len(t.ToolsUsed) > 0 {
		beats = append(beats, Round(2))
	}
	for _, w := range strings.SplitAfter(t.Response, " ") {
		if w != "" {
			beats = append(beats, Text(w))
		}
	}
	return beats
}

// final is the event that ends a stream of reply t.
func final(t api.TurnReply) Beat {
	if t.ApprovalRequired {
		return Event(api.EventApprovalRequired, api.ApprovalRequiredResponse{ApprovalRequired: true, SessionID: t.SessionID, ToolsPending: t.ToolsPending, Message: t.Message})
	}
	return Event(api.EventDone, api.ChatResponse{SessionID: t.SessionID, Response: t.Response, ToolsUsed: t.ToolsUsed, Validation: t.Validation, TraceID: t.TraceID})
}

// sendStream writes the stream of reply t. conn ends when the client goes away,
// turn when the turn is cancelled too (POST /sessions/{id}/cancel); end is called
// before the event that ends the stream is written.
func sendStream(w http.ResponseWriter, conn, turn context.Context, t api.TurnReply, beats []Beat, end func()) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	send := func(b Beat) {
		data, _ := json.Marshal(b.data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", b.event, data)
		flush()
	}
	// wait blocks until ch is ready, reporting false when the turn ended first.
	wait := func(ch <-chan struct{}, timer <-chan time.Time) bool {
		select {
		case <-ch:
		case <-timer:
		case <-turn.Done():
			return false
		}
		return true
	}
	cancelled := func() {
		end()
		if conn.Err() == nil {
			send(Failure(api.CodeCancelled, "The turn was cancelled."))
		}
	}
	send(Event(api.EventTurn, api.TurnEvent{SessionID: t.SessionID, TraceID: t.TraceID}))
	for _, b := range append(beats, final(t)) {
		if turn.Err() != nil {
			cancelled()
			return
		}
		switch {
		case b.hangup:
			return
		case b.pause > 0:
			if !wait(nil, time.After(b.pause)) {
				cancelled()
				return
			}
		case b.until != nil:
			if !wait(b.until, nil) {
				cancelled()
				return
			}
		case b.raw != "":
			io.WriteString(w, b.raw)
			flush()
		default:
			last := b.event == api.EventDone || b.event == api.EventApprovalRequired || b.event == api.EventError
			if last {
				end()
			}
			send(b)
			if last {
				return
			}
		}
	}
}
