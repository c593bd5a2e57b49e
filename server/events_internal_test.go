package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
)

// slowWriter is a ResponseWriter whose first Write blocks until released, as a
// client that stopped reading does.
type slowWriter struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	header  http.Header
	release chan struct{}
	once    sync.Once
}

func (w *slowWriter) Header() http.Header { return w.header }
func (w *slowWriter) WriteHeader(int)     {}
func (w *slowWriter) Flush()              {}
func (w *slowWriter) Write(p []byte) (int, error) {
	<-w.release
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// TestASlowReaderNeverBlocksTheLoopAndLosesNoText: while the client does not
// read, emitting thousands of tokens returns at once; when it reads again it
// gets every character, in order, in fewer, joined tokens.
func TestASlowReaderNeverBlocksTheLoopAndLosesNoText(t *testing.T) {
	w := &slowWriter{header: http.Header{}, release: make(chan struct{})}
	s := startSSE(w, time.Hour, nil)
	var want strings.Builder
	start := time.Now()
	s.emit(api.EventTurn, api.TurnEvent{SessionID: "s_1", TraceID: "t_1"})
	for i := range 5000 {
		piece := string(rune('a'+i%26)) + " "
		want.WriteString(piece)
		s.emit(api.EventToken, api.TokenEvent{Text: piece})
	}
	// Blocked, it would wait for the reader forever; 5 s leaves room for a
	// loaded machine.
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("emitting to a stalled client took %s", d)
	}
	close(w.release)
	s.finish(api.EventDone, api.ChatResponse{Response: want.String()})

	var got strings.Builder
	tokens := 0
	var names []string
	sc := bufio.NewScanner(bytes.NewReader(w.buf.Bytes()))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	name := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
			names = append(names, name)
		case strings.HasPrefix(line, "data: ") && name == api.EventToken:
			var tok api.TokenEvent
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &tok); err != nil {
				t.Fatal(err)
			}
			got.WriteString(tok.Text)
			tokens++
		}
	}
	if got.String() != want.String() {
		t.Fatalf("the joined tokens differ from what was emitted (%d vs %d characters)", got.Len(), want.Len())
	}
	if tokens >= 5000 || tokens == 0 {
		t.Errorf("%d token events for 5000 emits to a stalled client; they should be joined", tokens)
	}
	if names[0] != api.EventTurn || names[len(names)-1] != api.EventDone {
		t.Errorf("events %v", names)
	}
}

// TestAnIdleStreamIsPinged: a stream with nothing to say gets ": ping" lines.
func TestAnIdleStreamIsPinged(t *testing.T) {
	w := &slowWriter{header: http.Header{}, release: make(chan struct{})}
	close(w.release)
	s := startSSE(w, 20*time.Millisecond, nil)
	time.Sleep(150 * time.Millisecond)
	s.finish(api.EventDone, api.ChatResponse{})
	w.mu.Lock()
	out := w.buf.String()
	w.mu.Unlock()
	if n := strings.Count(out, ": ping\n\n"); n < 2 {
		t.Fatalf("%d pings in 150 ms at a 20 ms interval:\n%s", n, out)
	}
	if w.header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("content type %q", w.header.Get("Content-Type"))
	}
}
