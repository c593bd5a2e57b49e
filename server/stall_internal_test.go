package server

import (
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
)

// stalledWriter is a ResponseWriter with write deadlines whose client never
// reads: a write waits for its deadline and fails as a connection's does; a
// write without a deadline waits a second and fails the test.
type stalledWriter struct {
	t        *testing.T
	header   http.Header
	mu       sync.Mutex
	deadline time.Time
	writes   int
}

func (w *stalledWriter) Header() http.Header { return w.header }
func (w *stalledWriter) WriteHeader(int)     {}
func (w *stalledWriter) Flush()              {}

func (w *stalledWriter) SetWriteDeadline(d time.Time) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.deadline = d
	return nil
}

func (w *stalledWriter) Write([]byte) (int, error) {
	w.mu.Lock()
	d := w.deadline
	w.writes++
	w.mu.Unlock()
	if d.IsZero() {
		w.t.Error("a write without a deadline")
		time.Sleep(time.Second)
	} else {
		time.Sleep(time.Until(d))
	}
	return 0, os.ErrDeadlineExceeded
}

func (w *stalledWriter) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writes
}

// TestAPingToAStalledClientHasADeadline: an idle stream's ping to a client
// that reads nothing fails at the write deadline; the stream is then dead:
// events are no longer queued, nothing is written again and finish returns
// at once.
func TestAPingToAStalledClientHasADeadline(t *testing.T) {
	defer SetStreamWriteTimeout(50 * time.Millisecond)()
	w := &stalledWriter{t: t, header: http.Header{}}
	s := startSSE(w, 10*time.Millisecond, nil)
	deadline := time.Now().Add(2 * time.Second)
	for {
		s.mu.Lock()
		dead := s.dead
		s.mu.Unlock()
		if dead {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a ping stalled for 2 s did not make the stream dead")
		}
		time.Sleep(5 * time.Millisecond)
	}
	s.emit(api.EventToken, api.TokenEvent{Text: "lost"})
	s.mu.Lock()
	queued := len(s.queue)
	s.mu.Unlock()
	if queued != 0 {
		t.Errorf("%d events queued on a dead stream", queued)
	}
	s.finish(api.EventDone, api.ChatResponse{}) // writes nothing: counted below
	time.Sleep(50 * time.Millisecond)           // a ping would be due again by now
	if n := w.count(); n != 1 {
		t.Errorf("%d writes; want the one ping that failed", n)
	}
}

// TestAStalledEventWriteEndsTheStream: a batch of events that the client does
// not take within the deadline ends the stream, so finish waits one deadline
// at most.
func TestAStalledEventWriteEndsTheStream(t *testing.T) {
	defer SetStreamWriteTimeout(50 * time.Millisecond)()
	w := &stalledWriter{t: t, header: http.Header{}}
	s := startSSE(w, time.Hour, nil)
	start := time.Now()
	for range 1000 {
		s.emit(api.EventToken, api.TokenEvent{Text: "word "})
	}
	s.finish(api.EventDone, api.ChatResponse{})
	// Without the dead flag each of the 1000 events would wait its own 50 ms
	// deadline (50 s); 5 s leaves room for a loaded machine.
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("finish took %s with a 50 ms write deadline", d)
	}
	if n := w.count(); n != 1 {
		t.Errorf("%d writes; want the one that failed", n)
	}
}

// TestADroppedStreamCallsOnDrop: the stream that drops a stalled client
// calls its onDrop (which answerStream sets to cancel the turn) once, and
// does not rely on net/http cancelling the request.
func TestADroppedStreamCallsOnDrop(t *testing.T) {
	defer SetStreamWriteTimeout(50 * time.Millisecond)()
	w := &stalledWriter{t: t, header: http.Header{}}
	var mu sync.Mutex
	drops := 0
	s := startSSE(w, 10*time.Millisecond, func() { mu.Lock(); drops++; mu.Unlock() })
	s.emit(api.EventToken, api.TokenEvent{Text: "word"})
	s.finish(api.EventDone, api.ChatResponse{})
	s.drop() // a second drop does not call it again
	mu.Lock()
	defer mu.Unlock()
	if drops != 1 {
		t.Errorf("onDrop called %d times; want once", drops)
	}
}
