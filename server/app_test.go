package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/config"
	"github.com/ailab/ai-lab/llm/llmtest"
	"github.com/ailab/ai-lab/server"
)

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serveApp runs an App on a loopback listener the way ai-server does.
func serveApp(t *testing.T, h *harness, log *slog.Logger, steps ...llmtest.Step) (app *server.App, url string, cancel func(), done chan error) {
	t.Helper()
	cfg, err := config.Load(h.cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	app, err = server.Open(context.Background(), cfg, server.Fixed(llmtest.NewProvider(t, steps...)), log)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done = make(chan error, 1)
	go func() { done <- app.Serve(ctx, ln, 5*time.Second) }()
	t.Cleanup(func() { cancel(); app.Close() })
	return app, "http://" + ln.Addr().String(), cancel, done
}

func post(t *testing.T, url, token string, body any) (*http.Response, []byte) {
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", url, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	out.ReadFrom(resp.Body)
	return resp, out.Bytes()
}

func TestShutdownDrainsInFlightRequests(t *testing.T) {
	h := newHarness(t, "strict")
	h.stop()
	arrived := make(chan struct{})
	app, url, cancel, done := serveApp(t, h, slog.New(slog.NewTextHandler(&syncBuffer{}, nil)),
		llmtest.Func(func(llmtest.Request) llmtest.Step {
			close(arrived)
			return llmtest.Delay(400*time.Millisecond, llmtest.Text("finished after the signal"))
		}))
	got := make(chan string, 1)
	go func() {
		resp, body := post(t, url+"/chat", app.Token, api.ChatRequest{Message: "slow"})
		var r api.ChatResponse
		json.Unmarshal(body, &r)
		got <- resp.Status + " " + r.Response
	}()
	<-arrived // the turn is in flight
	cancel()  // SIGINT
	select {
	case s := <-got:
		if s != "200 OK finished after the signal" {
			t.Fatalf("in-flight request: %s", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the in-flight request never finished")
	}
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

func TestLogsCarryRequestIDsAndNoSecrets(t *testing.T) {
	h := newHarness(t, "minimal")
	h.stop()
	var buf syncBuffer
	app, url, _, _ := serveApp(t, h, slog.New(slog.NewTextHandler(&buf, nil)),
		llmtest.Calls(llmtest.Call("c1", "write_file", `{"path": "p.txt", "content": "FILE-CONTENT-42"}`)),
		llmtest.Text("done"))
	resp, _ := post(t, url+"/chat", app.Token, api.ChatRequest{Message: "MESSAGE-TEXT-17 write it"})
	if resp.StatusCode != 200 || resp.Header.Get("X-Request-ID") == "" {
		t.Fatalf("status %d, request id %q", resp.StatusCode, resp.Header.Get("X-Request-ID"))
	}
	logs := buf.String()
	for _, secret := range []string{"FILE-CONTENT-42", "MESSAGE-TEXT-17", app.Token} {
		if strings.Contains(logs, secret) {
			t.Errorf("the log shows %q:\n%s", secret, logs)
		}
	}
	lines := 0
	for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
		if strings.Contains(line, "msg=request") || strings.Contains(line, "tool run") {
			lines++
			if !strings.Contains(line, "request_id="+resp.Header.Get("X-Request-ID")) {
				t.Errorf("line without the request id: %s", line)
			}
		}
	}
	if lines < 2 {
		t.Fatalf("expected request and tool lines:\n%s", logs)
	}
}

func TestDisabledSanitizationIsLoggedOnceAtStart(t *testing.T) {
	for _, c := range []struct {
		yaml  string
		warns int
	}{
		{"sanitize:\n  enabled: false\n", 1},
		{"sanitize:\n  enabled: true\n", 0},
	} {
		h := newLoopHarnessWith(t, setup{extra: c.yaml})
		h.stop()
		var buf syncBuffer
		serveApp(t, h, slog.New(slog.NewTextHandler(&buf, nil)))
		if n := strings.Count(buf.String(), "sanitization is disabled"); n != c.warns {
			t.Errorf("%q: %d warnings at start, want %d:\n%s", c.yaml, n, c.warns, buf.String())
		}
	}
}
