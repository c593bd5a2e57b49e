package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/llm"
	"github.com/ailab/ai-lab/llm/llmtest"
	"github.com/ailab/ai-lab/server"
)

// An sseEvent is one event of a streamed answer.
type sseEvent struct {
	name string
	data json.RawMessage
}

// readEvents parses a server-sent event stream; ": ping" comments are counted.
func readEvents(t *testing.T, body *bufio.Reader) (events []sseEvent, pings int) {
	t.Helper()
	var ev sseEvent
	for {
		line, err := body.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, ": ping"):
			pings++
		case strings.HasPrefix(line, "event: "):
			ev.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			ev.data = json.RawMessage(strings.TrimPrefix(line, "data: "))
		case line == "" && ev.name != "":
			events = append(events, ev)
			ev = sseEvent{}
		}
		if err != nil {
			return events, pings
		}
	}
}

// stream posts body to path asking for events and returns them all.
func (h *harness) stream(path string, body any) []sseEvent {
	h.t.Helper()
	return streamTo(h.t, h.http.URL, h.app.CurrentToken(), path, body)
}

func streamTo(t *testing.T, base, token, path string, body any) []sseEvent {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", base+path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("POST %s: %d %s", path, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events, _ := readEvents(t, bufio.NewReader(resp.Body))
	return events
}

// names lists the events' names, runs of tokens shown once as "token".
func names(events []sseEvent) string {
	var out []string
	for _, e := range events {
		if e.name == api.EventToken && len(out) > 0 && out[len(out)-1] == api.EventToken {
			continue
		}
		out = append(out, e.name)
	}
	return strings.Join(out, " ")
}

// shownText replays tokens and retracts as a client does: the text on screen at the end.
func shownText(t *testing.T, events []sseEvent) string {
	var shown strings.Builder
	for _, e := range events {
		switch e.name {
		case api.EventToken:
			var tok api.TokenEvent
			if err := json.Unmarshal(e.data, &tok); err != nil {
				t.Fatal(err)
			}
			shown.WriteString(tok.Text)
		case api.EventRetract:
			shown.Reset()
		}
	}
	return shown.String()
}

// allTokens joins every token ever sent, withdrawn or not.
func allTokens(t *testing.T, events []sseEvent) string {
	var all strings.Builder
	for _, e := range events {
		if e.name == api.EventToken {
			var tok api.TokenEvent
			json.Unmarshal(e.data, &tok)
			all.WriteString(tok.Text)
		}
	}
	return all.String()
}

func lastEvent[T any](t *testing.T, events []sseEvent, name string) T {
	t.Helper()
	var v T
	if len(events) == 0 || events[len(events)-1].name != name {
		t.Fatalf("the stream does not end with %s: %s", name, names(events))
	}
	if err := json.Unmarshal(events[len(events)-1].data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestStreamedEventsInOrder(t *testing.T) {
	answer := "Go 1.26 came out in February. It has several improvements to the runtime."
	t.Run("plain answer", func(t *testing.T) {
		h := newLoopHarness(t, "strict", llmtest.Chunked(llmtest.Text(answer), 3))
		ev := h.stream("/chat", api.ChatRequest{Message: "what is new in go?", Stream: true})
		if got := names(ev); got != "turn round token done" {
			t.Fatalf("events %s", got)
		}
		done := lastEvent[api.ChatResponse](t, ev, api.EventDone)
		if shownText(t, ev) != done.Response || done.Response != answer {
			t.Fatalf("tokens %q, response %q", shownText(t, ev), done.Response)
		}
	})
	t.Run("a tool round", func(t *testing.T) {
		h := newLoopHarness(t, "moderate",
			llmtest.Calls(llmtest.Call("call_l", "list_directory", `{"path": "."}`)),
			citeResults("The folder is empty"))
		ev := h.stream("/chat", api.ChatRequest{Message: "list files", Stream: true})
		if got := names(ev); got != "turn round tool_call tool_result round token done" {
			t.Fatalf("events %s", got)
		}
		done := lastEvent[api.ChatResponse](t, ev, api.EventDone)
		if shownText(t, ev) != done.Response || !done.Validation.Valid {
			t.Fatalf("tokens %q, response %+v", shownText(t, ev), done)
		}
	})
	t.Run("an approval, then a chained one", func(t *testing.T) {
		h := newLoopHarness(t, "strict",
			writeCall("call_1", "a.txt", "one"),
			writeCall("call_2", "b.txt", "two"),
			citeResults("Both written"))
		ev := h.stream("/chat", api.ChatRequest{Message: "write two files", Stream: true})
		if got := names(ev); got != "turn round tool_call approval_required" {
			t.Fatalf("first stream: %s", got)
		}
		var call api.ToolCallEvent
		json.Unmarshal(ev[2].data, &call)
		if !call.NeedsApproval || call.ToolCallID != "call_1" {
			t.Fatalf("tool_call %+v", call)
		}
		ar := lastEvent[api.ApprovalRequiredResponse](t, ev, api.EventApprovalRequired)
		ev = h.stream("/chat/approve", api.ApproveRequest{SessionID: ar.SessionID, Decisions: []api.Decision{approved("call_1")}, Stream: true})
		if got := names(ev); got != "turn tool_call tool_result round tool_call approval_required" {
			t.Fatalf("second stream: %s", got)
		}
		ev = h.stream("/chat/approve", api.ApproveRequest{SessionID: ar.SessionID, Decisions: []api.Decision{approved("call_2")}, Stream: true})
		if got := names(ev); got != "turn tool_call tool_result round token done" {
			t.Fatalf("third stream: %s", got)
		}
		done := lastEvent[api.ChatResponse](t, ev, api.EventDone)
		if shownText(t, ev) != done.Response || len(done.ToolsUsed) != 2 {
			t.Fatalf("done %+v", done)
		}
	})
	t.Run("a reply that fails validation is withdrawn and asked again", func(t *testing.T) {
		fake := "Sure thing. Here is what I found (execution_id: web_search_1763769600123_9f86d081)."
		h := newLoopHarness(t, "strict", llmtest.Chunked(llmtest.Text(fake), 2), llmtest.Text("I have not searched the web, so I cannot say."))
		ev := h.stream("/chat", api.ChatRequest{Message: "search", Stream: true})
		if got := names(ev); got != "turn round token retract round token done" {
			t.Fatalf("events %s", got)
		}
		if all := allTokens(t, ev); strings.Contains(all, "9f86d081") || strings.Contains(all, "execution_id") {
			t.Fatalf("a fabricated id was streamed: %q", all)
		}
		done := lastEvent[api.ChatResponse](t, ev, api.EventDone)
		if shownText(t, ev) != done.Response || done.Validation.Retries != 1 {
			t.Fatalf("tokens %q, done %+v", shownText(t, ev), done)
		}
	})
	t.Run("a model error mid-stream", func(t *testing.T) {
		h := newLoopHarness(t, "strict", llmtest.FailAfter(2, llmtest.Chunked(llmtest.Text(answer), 5)))
		ev := h.stream("/chat", api.ChatRequest{Message: "hi", Stream: true})
		e := lastEvent[api.ErrorDetail](t, ev, api.EventError)
		if e.Code != api.CodeModelError || ev[0].name != api.EventTurn {
			t.Fatalf("events %s, error %+v", names(ev), e)
		}
	})
}

// TestNoChunkingStreamsAClaim: replies that fabricate results are streamed in
// random chunks; no chunking lets an execution id or a JSON tool result into
// any token, and valid replies still stream whole.
func TestNoChunkingStreamsAClaim(t *testing.T) {
	claims := []string{
		"The answer is below (execution_id: web_search_1763769600123_9f86d081).",
		`Result: {"tool_name": "web_search", "result": {"title": "Go 1.27"}}`,
		"I searched the web with web_search and Go 1.27 shipped.",
		"Found it: web_search_1763769600123_9F86D081 says so.",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 24 {
		claim := claims[i%len(claims)]
		text := "Some prose first. " + claim + " And prose after."
		sizes := []int{}
		for n := 0; n < len(text); {
			k := 1 + rng.IntN(7)
			sizes = append(sizes, k)
			n += k
		}
		h := newLoopHarness(t, "strict", llmtest.Chunked(llmtest.Text(text), sizes...),
			llmtest.Text("I cannot verify that."), llmtest.Text("I cannot verify that."))
		ev := h.stream("/chat", api.ChatRequest{Message: "go", Stream: true})
		all := allTokens(t, ev)
		for _, bad := range []string{"1763769600123", "execution_id", `{"tool_name"`, "web_search"} {
			if strings.Contains(all, bad) {
				t.Fatalf("chunks %v let %q into a token: %q", sizes, bad, all)
			}
		}
		done := lastEvent[api.ChatResponse](t, ev, api.EventDone)
		if shownText(t, ev) != done.Response {
			t.Fatalf("shown %q, response %q", shownText(t, ev), done.Response)
		}
	}
}

// TestCancelAStreamedTurn: the cancel endpoint and a closed stream both stop
// the turn; the model request is aborted at once; the session keeps the
// user's message and the note, and a cancel with nothing running is 409.
func TestCancelAStreamedTurn(t *testing.T) {
	for _, how := range []string{"endpoint", "disconnect"} {
		t.Run(how, func(t *testing.T) {
			h := newHarness(t, "strict", llmtest.Stall())
			ctx, closeStream := context.WithCancel(context.Background())
			defer closeStream()
			b, _ := json.Marshal(api.ChatRequest{Message: "think", Stream: true})
			req, _ := http.NewRequestWithContext(ctx, "POST", h.http.URL+"/chat", bytes.NewReader(b))
			req.Header.Set("Authorization", "Bearer "+h.app.CurrentToken())
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			br := bufio.NewReader(resp.Body)
			line, _ := br.ReadString('\n')
			if line != "event: turn\n" {
				t.Fatalf("first line %q", line)
			}
			data, _ := br.ReadString('\n')
			var turn api.TurnEvent
			json.Unmarshal([]byte(strings.TrimPrefix(data, "data: ")), &turn)
			waitUntil(t, func() bool { return len(h.model.Requests()) == 1 })
			start := time.Now()
			if how == "endpoint" {
				if code := h.do("POST", "/sessions/"+turn.SessionID+"/cancel", nil, nil); code != 200 {
					t.Fatalf("cancel: %d", code)
				}
			} else {
				closeStream()
			}
			// Without the cancel the stalled model never answers; 5 s leaves
			// room for a loaded machine.
			select {
			case <-h.model.Aborted():
			case <-time.After(5 * time.Second):
				t.Fatal("the model request was not aborted within 5 s")
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("aborted after %s", d)
			}
			if how == "endpoint" {
				ev, _ := readEvents(t, br)
				e := lastEvent[api.ErrorDetail](t, ev, api.EventError)
				if e.Code != api.CodeCancelled {
					t.Fatalf("the stream ended with %+v", e)
				}
			}
			var d api.SessionDetail
			waitUntil(t, func() bool {
				h.do("GET", "/sessions/"+turn.SessionID, nil, &d)
				return len(d.Messages) == 2
			})
			if d.Messages[0].Content != "think" || !strings.Contains(d.Messages[1].Content, "cancelled") {
				t.Fatalf("session %+v", d.Messages)
			}
			// The turn lets go of the session just after its last save: once
			// it has, a cancel finds nothing running.
			var code int
			var e api.ErrorDetail
			waitUntil(t, func() bool {
				code, e = h.errorOf("POST", "/sessions/"+turn.SessionID+"/cancel", nil)
				return code != 200
			})
			if code != 409 || e.Code != api.CodeNothingRunning {
				t.Fatalf("a second cancel: %d %+v", code, e)
			}
		})
	}
}

// plainModel hides a provider's streaming, as a provider without it.
type plainModel struct{ llm.Provider }

// TestAStreamWithoutAStreamingModel falls back to one token for the reply,
// and Accept: text/event-stream asks for a stream as "stream": true does.
func TestAStreamWithoutAStreamingModel(t *testing.T) {
	dir := t.TempDir()
	var lists atomic.Int32
	r := newRig(t, dir, rigConfig(t, dir, "moderate", "http://127.0.0.1:9/v1"),
		server.Fixed(plainModel{llmtest.NewProvider(t, llmtest.Text("A plain reply."))}), nil,
		&countingTool{name: "list_directory", runs: &lists})
	b, _ := json.Marshal(api.ChatRequest{Message: "hi"})
	req, _ := http.NewRequest("POST", r.http.URL+"/chat", bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+r.token)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	ev, _ := readEvents(t, bufio.NewReader(resp.Body))
	done := lastEvent[api.ChatResponse](t, ev, api.EventDone)
	if names(ev) != "turn round token done" || shownText(t, ev) != "A plain reply." || done.Response != "A plain reply." {
		t.Fatalf("events %s: %q", names(ev), shownText(t, ev))
	}
}
