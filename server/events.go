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
type sseStream struct {
	w         http.ResponseWriter
	rc        *http.ResponseController
	pingEvery time.Duration

	mu     sync.Mutex
	queue  []queued
	wake   chan struct{}
	closed bool
	done   chan struct{}
}

// A queued event: a token's text, or any other event already encoded.
type queued struct {
	name  string
	token []byte
	data  []byte
}

// pingEvery is how often an idle stream gets a ": ping" comment.
const pingEvery = 15 * time.Second

// startSSE answers 200 text/event-stream and starts the writer.
func startSSE(w http.ResponseWriter, ping time.Duration) *sseStream {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // a proxy must not hold the stream back
	w.WriteHeader(http.StatusOK)
	s := &sseStream{w: w, rc: http.NewResponseController(w), pingEvery: ping, wake: make(chan struct{}, 1), done: make(chan struct{})}
	_ = s.rc.Flush()
	go s.write()
	return s
}

func (s *sseStream) streaming() bool { return true }

// emit queues an event; it never blocks on the client.
func (s *sseStream) emit(name string, data any) {
	s.mu.Lock()
	if s.closed {
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
		b, err := marshalPlain(data)
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

// write drains the queue to the client until finish.
func (s *sseStream) write() {
	defer close(s.done)
	ping := time.NewTimer(s.pingEvery)
	defer ping.Stop()
	var buf bytes.Buffer
	broken := false
	for {
		select {
		case <-s.wake:
		case <-ping.C:
			if !broken {
				if _, err := s.w.Write([]byte(": ping\n\n")); err != nil || s.rc.Flush() != nil {
					broken = true
				}
			}
			ping.Reset(s.pingEvery)
			continue
		}
		s.mu.Lock()
		batch := s.queue
		s.queue = nil
		closed := s.closed
		s.mu.Unlock()
		if len(batch) > 0 && !broken {
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
			// A write error means the client went away; its request context
			// is cancelled by net/http, which ends the turn.
			if _, err := s.w.Write(buf.Bytes()); err != nil || s.rc.Flush() != nil {
				broken = true
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
