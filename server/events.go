package server

import (
	"bytes"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ailab/ai-lab/api"
)

// An eventSink receives the events of a turn as the loop makes them (CONTRACT
// section 10). The loop is one: the plain JSON answer uses a sink that keeps
// nothing, the streamed answer one that writes server-sent events.
type eventSink interface {
	// streaming reports whether events reach a client as they happen; when not,
	// the loop need not ask the model to stream.
	streaming() bool
	emit(name string, data any)
}

// noEvents is the sink of a plain JSON answer.
type noEvents struct{}

func (noEvents) streaming() bool  { return false }
func (noEvents) emit(string, any) {}

// An sseStream writes events to a client as server-sent events. The loop never
// waits for the client: emit queues (joining consecutive tokens, so a slow
// reader gets fewer, longer tokens and never loses text) and a writer
// goroutine drains the queue, sending a ping comment when the stream has been
// idle for pingEvery.
//
// Every write has a deadline (writeTimeout, from streamWriteTimeout): a client
// that keeps its connection open but takes nothing for that long is dropped.
// The failed write marks the stream dead, so nothing more is queued or
// written, and calls onDrop, which cancels the turn (answerStream sets it): the
// turn ends as a disconnected one does and the session is released when the
// handler returns. That does not rely on net/http cancelling the request's
// context on a failed write (it does, but that is its business).
type sseStream struct {
	w            http.ResponseWriter
	rc           *http.ResponseController
	pingEvery    time.Duration
	writeTimeout time.Duration

	mu     sync.Mutex
	queue  []queued
	wake   chan struct{}
	closed bool
	// dead is set once a write failed: the client went away or took nothing
	// for writeTimeout. Events are dropped from then on.
	dead bool
	done chan struct{}
	// onDrop is called once when the stream is dropped: it cancels the turn.
	onDrop   func()
	dropOnce sync.Once
}

// A queued event: a token's text, or any other event already encoded.
type queued struct {
	name  string
	token []byte
	data  []byte
}

// pingEvery is how often an idle stream gets a ": ping" comment.
const pingEvery = 15 * time.Second

// streamWriteTimeout is how long a streamed client may take to accept one
// write (a piece of at most sendPiece bytes, or a ping) before it is dropped
// as stalled. It is a variable so a test can shorten it; a stream reads it
// once, when it starts.
var streamWriteTimeout = 10 * time.Second

// sendPiece is the most written under one deadline: a large batch of joined
// tokens goes out in pieces, each with a fresh deadline, so a slow client that
// keeps reading is not dropped, while one that stopped reading is.
const sendPiece = 32 << 10

// startSSE answers 200 text/event-stream and starts the writer. onDrop (nil:
// nothing) is called once if the stream is dropped (see sseStream).
func startSSE(w http.ResponseWriter, ping time.Duration, onDrop func()) *sseStream {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // a proxy must not hold the stream back
	w.WriteHeader(http.StatusOK)
	s := &sseStream{w: w, rc: http.NewResponseController(w), pingEvery: ping, writeTimeout: streamWriteTimeout,
		wake: make(chan struct{}, 1), done: make(chan struct{}), onDrop: onDrop}
	s.deadline()
	if s.rc.Flush() != nil {
		s.drop()
	}
	go s.write()
	return s
}

// deadline gives the next write writeTimeout to complete. A writer without
// deadlines (http.ErrNotSupported) is written to without one.
func (s *sseStream) deadline() {
	if s.writeTimeout > 0 {
		_ = s.rc.SetWriteDeadline(time.Now().Add(s.writeTimeout))
	}
}

// send writes p to the client and flushes it, in pieces of at most sendPiece
// bytes each under its own deadline; it reports whether the client took it
// all. A failed write to the connection (a hang-up, or a deadline passed)
// makes net/http cancel the request's context.
func (s *sseStream) send(p []byte) bool {
	for len(p) > 0 {
		n := min(len(p), sendPiece)
		s.deadline()
		if _, err := s.w.Write(p[:n]); err != nil {
			return false
		}
		if s.rc.Flush() != nil {
			return false
		}
		p = p[n:]
	}
	return true
}

// drop marks the stream dead: what is queued is discarded and later events
// are never queued, so no write is attempted again; onDrop cancels the turn.
func (s *sseStream) drop() {
	s.mu.Lock()
	s.dead = true
	s.queue = nil
	s.mu.Unlock()
	if s.onDrop != nil {
		s.dropOnce.Do(s.onDrop)
	}
}

func (s *sseStream) streaming() bool { return true }

// emit queues an event; it never blocks on the client.
func (s *sseStream) emit(name string, data any) {
	s.mu.Lock()
	if s.closed || s.dead {
		s.mu.Unlock()
		return
	}
	if name == api.EventToken {
		text := data.(api.TokenEvent).Text
		if n := len(s.queue); n > 0 && s.queue[n-1].name == api.EventToken {
			s.queue[n-1].token = append(s.queue[n-1].token, text...)
		} else {
			s.queue = append(s.queue, queued{name: name, token: []byte(text)})
		}
	} else {
		// Tokens are the answer text (see shown.go); every other event is
		// masked here, the one door to the stream.
		b, err := marshalPlain(shownEvent(data))
		if err != nil {
			b = []byte(`{}`)
		}
		s.queue = append(s.queue, queued{name: name, data: b})
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// finish queues the last event, writes everything still queued and stops the
// writer.
func (s *sseStream) finish(name string, data any) {
	s.emit(name, data)
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	<-s.done
}

// write drains the queue to the client until finish. Once a write fails the
// stream is dead: the rest is discarded and nothing is written again, so a
// client that takes nothing holds finish for one writeTimeout at most.
func (s *sseStream) write() {
	defer close(s.done)
	ping := time.NewTimer(s.pingEvery)
	defer ping.Stop()
	var buf bytes.Buffer
	for {
		select {
		case <-s.wake:
		case <-ping.C:
			s.mu.Lock()
			dead := s.dead
			s.mu.Unlock()
			if !dead && !s.send([]byte(": ping\n\n")) {
				s.drop()
			}
			ping.Reset(s.pingEvery)
			continue
		}
		s.mu.Lock()
		batch := s.queue
		s.queue = nil
		closed, dead := s.closed, s.dead
		s.mu.Unlock()
		if len(batch) > 0 && !dead {
			buf.Reset()
			for i := range batch {
				q := &batch[i]
				data := q.data
				if q.name == api.EventToken {
					data, _ = marshalPlain(api.TokenEvent{Text: string(q.token)})
				}
				buf.WriteString("event: ")
				buf.WriteString(q.name)
				buf.WriteString("\ndata: ")
				buf.Write(data)
				buf.WriteString("\n\n")
			}
			// A failed write means the client hung up or stopped reading;
			// drop cancels the turn.
			if !s.send(buf.Bytes()) {
				s.drop()
			}
			if !ping.Stop() {
				select {
				case <-ping.C:
				default:
				}
			}
			ping.Reset(s.pingEvery)
		}
		if closed {
			s.mu.Lock()
			empty := len(s.queue) == 0
			s.mu.Unlock()
			if empty {
				// The last deadline stays: it bounds net/http's end of the
				// response too (at once on a dead stream, which closes the
				// connection), and net/http clears it before the connection
				// serves its next request.
				return
			}
		}
	}
}

// wantsStream reports whether a request asked for server-sent events: the
// body's "stream": true or an Accept header that names text/event-stream.
func wantsStream(r *http.Request, flag bool) bool {
	return flag || strings.Contains(r.Header.Get("Accept"), "text/event-stream")
}
