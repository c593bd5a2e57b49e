package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/llm/llmtest"
	"github.com/ailab/ai-lab/server"
)

// stallTimeout is the write deadline of streams in these tests.
const stallTimeout = 300 * time.Millisecond

// A writeWatch is the server's listener, watched: it tells when a write to a
// client's connection has been waiting for the client to read, and when the
// first write that failed began.
type writeWatch struct {
	net.Listener
	mu      sync.Mutex
	writing map[*watchedConn]time.Time // when each write in progress began
	failed  time.Time
}

type watchedConn struct {
	net.Conn
	w *writeWatch
}

func (w *writeWatch) Accept() (net.Conn, error) {
	c, err := w.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &watchedConn{Conn: c, w: w}, nil
}

func (c *watchedConn) Write(p []byte) (int, error) {
	start := time.Now()
	c.w.mu.Lock()
	c.w.writing[c] = start
	c.w.mu.Unlock()
	n, err := c.Conn.Write(p)
	c.w.mu.Lock()
	delete(c.w.writing, c)
	if err != nil && c.w.failed.IsZero() {
		c.w.failed = start
	}
	c.w.mu.Unlock()
	return n, err
}

// failedWrite returns when the first write that failed began, or fails the
// test when none did.
func (w *writeWatch) failedWrite(t *testing.T) time.Time {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.failed.IsZero() {
		t.Fatal("no write to a client failed: the stalled stream was not dropped")
	}
	return w.failed
}

// watchWrites serves the harness's app on a watched listener from now on.
func watchWrites(h *harness) *writeWatch {
	srv := httptest.NewUnstartedServer(h.app.Handler())
	w := &writeWatch{Listener: srv.Listener, writing: map[*watchedConn]time.Time{}}
	srv.Listener = w
	srv.Start()
	h.http.Close()
	h.http = srv
	return w
}

// stuck waits until a write has waited at least d for its client and
// returns when that write began.
func (w *writeWatch) stuck(t *testing.T, d time.Duration) time.Time {
	t.Helper()
	limit := time.Now().Add(30 * time.Second)
	for time.Now().Before(limit) {
		w.mu.Lock()
		for _, since := range w.writing {
			if time.Since(since) >= d {
				w.mu.Unlock()
				return since
			}
		}
		w.mu.Unlock()
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatal("no write of the server waited for its client within 30 s")
	return time.Time{}
}

// longReply streams about 6 MB of text at once, more than the kernel buffers
// of a loopback connection hold (the server's send buffer grows to 4 MB), and
// then a sentence every 2 ms for about ten seconds more: a turn still running
// long after its client stopped reading.
func longReply() llmtest.Step {
	big := strings.Repeat(strings.Repeat("lorem ipsum dolor sit amet ", 40)+"the end. ", (256<<10)/1089)
	var pieces []string
	for range 24 {
		pieces = append(pieces, big)
	}
	for range 5000 {
		pieces = append(pieces, "And more. ")
	}
	return llmtest.Paced(2*time.Millisecond, llmtest.Pieces(pieces...))
}

// A stalledClient is a streamed /chat over a raw TCP connection that read
// the first events and then stopped reading, its socket left open.
type stalledClient struct {
	conn    net.Conn
	body    *bufio.Reader
	session string
}

// stallStream posts msg for a streamed answer over a connection with a small
// receive buffer, reads up to the first token event and stops reading.
func stallStream(t *testing.T, h *harness, msg string) *stalledClient {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(h.http.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	// Closed before the harness stops, so a server that never drops the
	// stream fails the test instead of hanging it.
	t.Cleanup(func() { conn.Close() })
	if err := conn.(*net.TCPConn).SetReadBuffer(64 << 10); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(api.ChatRequest{Message: msg, Stream: true})
	req, _ := http.NewRequest("POST", h.http.URL+"/chat", bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+h.app.CurrentToken())
	if err := req.Write(conn); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("POST /chat: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	c := &stalledClient{conn: conn, body: bufio.NewReader(resp.Body)}
	for {
		line, err := c.body.ReadString('\n')
		if err != nil {
			t.Fatalf("the stream ended before its first token: %v", err)
		}
		if strings.HasPrefix(line, "data: ") && c.session == "" {
			var turn api.TurnEvent
			json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &turn)
			c.session = turn.SessionID
		}
		if line == "event: token\n" {
			break
		}
	}
	if c.session == "" {
		t.Fatal("no session id in the turn event")
	}
	conn.SetReadDeadline(time.Time{})
	return c
}

// rest reads what is left of the stream and reports whether the server ended
// it (rather than leaving it open) and whether it ended with done.
func (c *stalledClient) rest(t *testing.T) (ended, done bool) {
	t.Helper()
	c.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	ev, _ := readEvents(t, c.body)
	_, err := c.conn.Read(make([]byte, 1))
	var ne net.Error
	timedOut := errors.As(err, &ne) && ne.Timeout() || errors.Is(err, os.ErrDeadlineExceeded)
	return !timedOut, len(ev) > 0 && ev[len(ev)-1].name == api.EventDone
}

// chatWithin posts a plain /chat on session and gives up after limit.
func chatWithin(t *testing.T, h *harness, session, msg string, limit time.Duration) (api.ChatResponse, error) {
	t.Helper()
	b, _ := json.Marshal(api.ChatRequest{Message: msg, SessionID: session})
	req, _ := http.NewRequest("POST", h.http.URL+"/chat", bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+h.app.CurrentToken())
	resp, err := (&http.Client{Timeout: limit}).Do(req)
	if err != nil {
		return api.ChatResponse{}, err
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var r api.ChatResponse
	if resp.StatusCode != 200 || json.Unmarshal(data, &r) != nil {
		t.Fatalf("POST /chat: %d %s", resp.StatusCode, data)
	}
	return r, nil
}

// checkCancelled fails the test unless the session holds the stalled turn as
// a cancelled one (the user's message and the note, as a disconnect leaves
// it), then the second turn.
func checkCancelled(t *testing.T, h *harness, session, first string) {
	t.Helper()
	var d api.SessionDetail
	h.do("GET", "/sessions/"+session, nil, &d)
	if len(d.Messages) != 4 || d.Messages[0].Content != first || !strings.Contains(d.Messages[1].Content, "cancelled") ||
		d.Messages[3].Content != "The second answer." {
		for _, m := range d.Messages {
			t.Logf("%s: %.80q", m.Role, m.Content)
		}
		t.Fatalf("the session has %d messages; want the first message, the cancelled note, the second turn", len(d.Messages))
	}
}

// TestAStalledStreamIsDropped: a client that keeps its socket open but stops
// reading a long streamed reply is dropped once a write waits the deadline:
// the turn is cancelled as a disconnect cancels it (the model request is
// aborted, the session keeps the message and the note), the connection is
// closed, and the session answers the next /chat at once.
func TestAStalledStreamIsDropped(t *testing.T) {
	defer server.SetStreamWriteTimeout(stallTimeout)()
	h := newHarness(t, "strict", longReply(), llmtest.Text("The second answer."))
	ww := watchWrites(h)
	c := stallStream(t, h, "write a long essay")
	stalled := time.Now()

	r, err := chatWithin(t, h, c.session, "again", 15*time.Second)
	if err != nil {
		t.Fatalf("the session stayed held by the stalled stream: %v", err)
	}
	free := time.Now()
	failed := ww.failedWrite(t)
	t.Logf("the write that failed began %s after the client stopped reading; the session was free %s after it began (deadline %s)",
		failed.Sub(stalled).Round(time.Millisecond), free.Sub(failed).Round(time.Millisecond), stallTimeout)
	if limit := stallTimeout + time.Second; free.Sub(failed) > limit {
		t.Errorf("the session was free %s after the stuck write began, over %s", free.Sub(failed), limit)
	}
	if r.Response != "The second answer." {
		t.Fatalf("second turn %+v", r)
	}
	select {
	case <-h.model.Aborted():
	case <-time.After(time.Second):
		t.Fatal("the model request of the stalled turn was not aborted")
	}
	checkCancelled(t, h, c.session, "write a long essay")
	if ended, done := c.rest(t); !ended || done {
		t.Fatalf("the stalled stream: ended %v, with done %v; want it cut off", ended, done)
	}
}

// TestCancelAStalledStream: POST /sessions/{id}/cancel on a turn whose client
// stopped reading cancels it at once (the model request is aborted before
// the write deadline), and the session is free once the stuck write's
// deadline passes.
func TestCancelAStalledStream(t *testing.T) {
	const timeout = 3 * stallTimeout // room to cancel while the write is stuck
	defer server.SetStreamWriteTimeout(timeout)()
	h := newHarness(t, "strict", longReply(), llmtest.Text("The second answer."))
	ww := watchWrites(h)
	c := stallStream(t, h, "write a long essay")
	stuck := ww.stuck(t, timeout/3)

	cancelled := time.Now()
	if code := h.do("POST", "/sessions/"+c.session+"/cancel", nil, nil); code != 200 {
		t.Fatalf("cancel: %d", code)
	}
	select {
	case <-h.model.Aborted():
	case <-time.After(timeout / 3):
		t.Fatal("the cancel did not reach the turn: its model request runs on")
	}
	aborted := time.Since(cancelled)
	r, err := chatWithin(t, h, c.session, "again", 15*time.Second)
	if err != nil {
		t.Fatalf("the session stayed held after the cancel: %v", err)
	}
	free := time.Now()
	failed := ww.failedWrite(t)
	t.Logf("cancelled %s into a stuck write; model aborted %s after the cancel; session free %s after the write that failed began (deadline %s)",
		cancelled.Sub(stuck).Round(time.Millisecond), aborted.Round(time.Millisecond), free.Sub(failed).Round(time.Millisecond), timeout)
	if limit := timeout + time.Second; free.Sub(failed) > limit {
		t.Errorf("the session was free %s after the stuck write began, over %s", free.Sub(failed), limit)
	}
	if r.Response != "The second answer." {
		t.Fatalf("second turn %+v", r)
	}
	checkCancelled(t, h, c.session, "write a long essay")
	if ended, done := c.rest(t); !ended || done {
		t.Fatalf("the stalled stream: ended %v, with done %v; want it cut off", ended, done)
	}
}
