package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client"
	"github.com/ailab/ai-lab/client/clienttest"
)

// describe is one line per event, for comparing what a stream delivered.
func describe(e client.Event) string {
	switch e.Name {
	case api.EventTurn:
		return "turn " + e.Turn.SessionID + " " + e.Turn.TraceID
	case api.EventRound:
		return fmt.Sprintf("round %d", e.Round.Round)
	case api.EventToken:
		return "token " + e.Token.Text
	case api.EventRetract:
		return "retract " + e.Retract.Reason
	case api.EventToolCall:
		return fmt.Sprintf("tool_call %s %s %s %v", e.ToolCall.ToolCallID, e.ToolCall.ToolName, e.ToolCall.Arguments, e.ToolCall.NeedsApproval)
	case api.EventToolResult:
		return fmt.Sprintf("tool_result %s %s %s", e.ToolResult.ToolCallID, e.ToolResult.Status, e.ToolResult.ExecutionID)
	}
	return "unexpected " + e.Name
}

// recorder collects the events a stream delivers; on may run on another goroutine.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) on(e client.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, describe(e))
}

func (r *recorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...)
}

func TestChatStreamDeliversEveryEventInOrder(t *testing.T) {
	use := api.ToolUse{ToolName: "read_file", Arguments: json.RawMessage(`{"path":"a.txt"}`), ToolCallID: "c1", ExecutionID: "read_file_1763769600123_9f86d081", Status: "ok", DurationMS: 4}
	srv := clienttest.New(t, clienttest.Final("s_1", "It says hi.", use))
	srv.Stream(
		clienttest.Raw(": ping\n\n"),
		clienttest.Round(1),
		clienttest.Running("read_file", `{"path":"a.txt"}`, "c1"),
		clienttest.Ran(use),
		clienttest.Round(2),
		clienttest.Text("Not"),
		clienttest.Retract("the reply failed validation"),
		clienttest.Raw("event: token\r\ndata: {\"text\":\r\ndata: \"It \"}\r\n\r\n"), // CRLF, data on two lines
		clienttest.Raw("event: mood\ndata: {\"happy\":true}\n\n"),                    // unknown: ignored
		clienttest.Raw(":ping\r\r"),                                                  // a comment, CR line ends
		clienttest.Text("says hi."),
	)
	var rec recorder
	r, err := client.New(srv.URL, clienttest.Token, nil).ChatStream(context.Background(), "what does a.txt say?", "", rec.on)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"turn s_1 t_s_1",
		"round 1",
		`tool_call c1 read_file {"path":"a.txt"} false`,
		"tool_result c1 ok read_file_1763769600123_9f86d081",
		"round 2",
		"token Not",
		"retract the reply failed validation",
		"token It ",
		"token says hi.",
	}
	if got := rec.got(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if r.ApprovalRequired || r.Response != "It says hi." || r.SessionID != "s_1" || r.TraceID != "t_s_1" || len(r.ToolsUsed) != 1 || !r.Validation.Valid {
		t.Fatalf("reply = %+v", r)
	}
	if c := srv.Chats(); len(c) != 1 || !c[0].Stream {
		t.Fatalf("the request did not ask for a stream: %+v", c)
	}
}

func TestStreamEndings(t *testing.T) {
	tests := []struct {
		name   string
		reply  api.TurnReply
		beats  []clienttest.Beat
		check  func(t *testing.T, r api.TurnReply, err error)
		failAt int // FailOn this request with 502 model_error, before any stream
	}{
		{name: "done", reply: clienttest.Final("s_1", "Hi."), check: func(t *testing.T, r api.TurnReply, err error) {
			if err != nil || r.Response != "Hi." || r.ApprovalRequired {
				t.Fatalf("%+v, %v", r, err)
			}
		}},
		{name: "approval_required", reply: clienttest.Pending("s_1", clienttest.Call("write_file", `{"path":"a"}`, "c1")), check: func(t *testing.T, r api.TurnReply, err error) {
			if err != nil || !r.ApprovalRequired || len(r.ToolsPending) != 1 || r.ToolsPending[0].ToolCallID != "c1" || r.SessionID != "s_1" {
				t.Fatalf("%+v, %v", r, err)
			}
		}},
		{name: "error event is the typed error", reply: clienttest.Final("s_1", "never"), beats: []clienttest.Beat{clienttest.Text("Par"), clienttest.Failure(api.CodeModelError, "The model endpoint failed.")},
			check: func(t *testing.T, r api.TurnReply, err error) {
				var ae *client.APIError
				if !errors.Is(err, client.ErrModel) || !errors.As(err, &ae) || ae.Code != api.CodeModelError || ae.Message != "The model endpoint failed." {
					t.Fatalf("err = %#v", err)
				}
			}},
		{name: "cancelled event", reply: clienttest.Final("s_1", "never"), beats: []clienttest.Beat{clienttest.Failure(api.CodeCancelled, "The turn was cancelled.")},
			check: func(t *testing.T, r api.TurnReply, err error) {
				if !errors.Is(err, client.ErrCancelled) {
					t.Fatalf("err = %v", err)
				}
			}},
		{name: "error before the stream", reply: clienttest.Final("s_1", "never"), failAt: 1,
			check: func(t *testing.T, r api.TurnReply, err error) {
				var ae *client.APIError
				if !errors.Is(err, client.ErrModel) || !errors.As(err, &ae) || ae.Status != 502 {
					t.Fatalf("err = %#v", err)
				}
			}},
		{name: "stream ends without a final event", reply: clienttest.Final("s_1", "never"), beats: []clienttest.Beat{clienttest.Text("Hal"), clienttest.Hangup()},
			check: func(t *testing.T, r api.TurnReply, err error) {
				if !errors.Is(err, client.ErrStreamEnded) || !strings.Contains(err.Error(), "ended before the turn's final event (done, approval_required or error)") {
					t.Fatalf("err = %v", err)
				}
			}},
		{name: "event cut before its blank line", reply: clienttest.Final("s_1", "never"), beats: []clienttest.Beat{clienttest.Raw("event: done\ndata: {\"response\":\"x\"}\n"), clienttest.Hangup()},
			check: func(t *testing.T, r api.TurnReply, err error) {
				if !errors.Is(err, client.ErrStreamEnded) {
					t.Fatalf("a cut-off done was taken: %+v, %v", r, err)
				}
			}},
		{name: "final event that is not JSON", reply: clienttest.Final("s_1", "never"), beats: []clienttest.Beat{clienttest.Raw("event: done\ndata: {oops\n\n")},
			check: func(t *testing.T, r api.TurnReply, err error) {
				if !errors.Is(err, client.ErrServer) || !strings.Contains(err.Error(), "the done event of POST /chat is not the expected JSON") {
					t.Fatalf("err = %v", err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := clienttest.New(t, tt.reply)
			if tt.beats != nil {
				srv.Stream(tt.beats...)
			}
			if tt.failAt > 0 {
				srv.FailOn(tt.failAt, 502, api.CodeModelError)
			}
			r, err := client.New(srv.URL, clienttest.Token, nil).ChatStream(context.Background(), "hi", "", nil)
			tt.check(t, r, err)
		})
	}
}

// A server from before streaming answers a stream request in JSON; that answer is
// the turn's result, for a chat and for the approve that follows it.
func TestStreamFallsBackToAJSONAnswer(t *testing.T) {
	srv := clienttest.New(t, clienttest.Pending("s_1", clienttest.Call("write_file", `{"path":"a"}`, "c1")), clienttest.Final("s_1", "Wrote a."))
	srv.NoStreaming = true
	c := client.New(srv.URL, clienttest.Token, nil)
	var rec recorder
	r, err := c.ChatStream(context.Background(), "write a", "", rec.on)
	if err != nil || !r.ApprovalRequired || r.ToolsPending[0].ToolCallID != "c1" {
		t.Fatalf("chat: %+v, %v", r, err)
	}
	r, err = c.ApproveStream(context.Background(), "s_1", []api.Decision{{ToolCallID: "c1", Approved: true}}, rec.on)
	if err != nil || r.ApprovalRequired || r.Response != "Wrote a." {
		t.Fatalf("approve: %+v, %v", r, err)
	}
	if len(rec.got()) != 0 {
		t.Fatalf("events from a JSON answer: %v", rec.got())
	}
	if a := srv.Approvals(); len(a) != 1 || !a[0].Stream {
		t.Fatalf("the approve did not ask for a stream: %+v", a)
	}
}

func TestCancel(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	srv := clienttest.New(t, clienttest.Final("s_1", "never"))
	srv.Stream(clienttest.Text("Work"), clienttest.Until(hold))
	c := client.New(srv.URL, clienttest.Token, nil)
	started := make(chan struct{})
	var once sync.Once
	done := make(chan error, 1)
	go func() {
		_, err := c.ChatStream(context.Background(), "long job", "", func(e client.Event) {
			if e.Name == api.EventToken {
				once.Do(func() { close(started) })
			}
		})
		done <- err
	}()
	<-started
	if err := c.Cancel(context.Background(), "s_1"); err != nil {
		t.Fatalf("Cancel: %v", err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, client.ErrCancelled) {
			t.Fatalf("stream ended with %v, want ErrCancelled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the stream did not end after the cancel")
	}
	if err := c.Cancel(context.Background(), "s_1"); !errors.Is(err, client.ErrNothingRunning) {
		t.Fatalf("second Cancel = %v, want ErrNothingRunning", err)
	}
	if got := srv.Cancels(); len(got) != 2 || got[0] != "s_1" {
		t.Fatalf("cancels = %v", got)
	}
}

// Cancelling the context ends the read at once with the context's error, not a
// sentence about a broken server.
func TestStreamContextCancelled(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	srv := clienttest.New(t, clienttest.Final("s_1", "never"))
	srv.Stream(clienttest.Text("Work"), clienttest.Until(hold))
	ctx, cancel := context.WithCancel(context.Background())
	_, err := client.New(srv.URL, clienttest.Token, nil).ChatStream(ctx, "long job", "", func(e client.Event) {
		if e.Name == api.EventToken {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}
