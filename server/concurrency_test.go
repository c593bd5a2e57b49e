package server_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/llm/llmtest"
)

// A meeting is where model requests wait for a second request to be at the model
// while they are still in flight themselves.
type meeting struct {
	inflight atomic.Int32
	met      atomic.Bool
}

// step waits up to wait for two requests to be at the model at once.
func (m *meeting) step(wait time.Duration) llmtest.Step {
	return llmtest.Func(func(llmtest.Request) llmtest.Step {
		if m.inflight.Add(1) >= 2 {
			m.met.Store(true)
		}
		defer m.inflight.Add(-1)
		deadline := time.Now().Add(wait)
		for time.Now().Before(deadline) {
			if m.met.Load() {
				return llmtest.Text("met")
			}
			time.Sleep(5 * time.Millisecond)
		}
		return llmtest.Text("alone")
	})
}

func TestSessionsRunConcurrentlyAndOneSessionIsSerialized(t *testing.T) {
	t.Run("different sessions meet at the model", func(t *testing.T) {
		var m meeting
		h := newLoopHarness(t, "strict", m.step(10*time.Second), m.step(10*time.Second))
		var wg sync.WaitGroup
		replies := make([]string, 2)
		for i := range replies {
			wg.Add(1)
			go func() { defer wg.Done(); replies[i] = h.chat("", "hi").Response }()
		}
		wg.Wait()
		if replies[0] != "met" || replies[1] != "met" {
			t.Fatalf("replies %v: two sessions did not run at the same time", replies)
		}
	})
	t.Run("one session never has two turns at the model", func(t *testing.T) {
		var m meeting
		h := newLoopHarness(t, "strict", llmtest.Text("first"), m.step(300*time.Millisecond), m.step(300*time.Millisecond))
		id := h.chat("", "start").SessionID
		var wg sync.WaitGroup
		replies := make([]string, 2)
		for i := range replies {
			wg.Add(1)
			go func() { defer wg.Done(); replies[i] = h.chat(id, "again").Response }()
		}
		wg.Wait()
		if replies[0] != "alone" || replies[1] != "alone" {
			t.Fatalf("replies %v: one session ran two turns at once", replies)
		}
	})
}

func TestTraceRetentionRunsByItself(t *testing.T) {
	h := newLoopHarnessWith(t, setup{extra: "tracing:\n  retention_count: 1\n"}, llmtest.Text("one"), llmtest.Text("two"))
	h.chat("", "a")
	time.Sleep(5 * time.Millisecond) // traces are ordered by their start, in milliseconds
	second := h.chat("", "b")
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { h.app.RunRetention(ctx, time.Hour); close(stopped) }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var list []api.Trace
		h.do("GET", "/traces", nil, &list)
		if len(list) == 1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	<-stopped
	var list []api.Trace
	h.do("GET", "/traces", nil, &list)
	if len(list) != 1 || list[0].TraceID != second.TraceID {
		t.Fatalf("after retention: %+v", list)
	}
}

func TestChainsAreExportedOverOTLP(t *testing.T) {
	var posts atomic.Int32
	var body atomic.Value
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/traces" {
			b, _ := io.ReadAll(r.Body)
			body.Store(string(b))
			posts.Add(1)
		}
		w.WriteHeader(200)
	}))
	defer collector.Close()
	h := newLoopHarnessWith(t, setup{preset: "minimal", extra: "tracing:\n  otlp_endpoint: " + collector.URL + "\n"}, llmtest.Calls(llmtest.Call("c1", "list_directory", `{"path": "."}`)), llmtest.Text("done"))
	h.chat("", "list")
	h.stop() // flushes the exporter
	if posts.Load() == 0 {
		t.Fatal("no spans reached the OTLP collector")
	}
	if b, _ := body.Load().(string); !strings.Contains(b, "list_directory") {
		t.Fatalf("the exported spans do not name the tool")
	}
}
