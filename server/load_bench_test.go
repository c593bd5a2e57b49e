package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/config"
	"github.com/ailab/ai-lab/llm"
	"github.com/ailab/ai-lab/llm/llmtest"
	"github.com/ailab/ai-lab/llm/openai"
	"github.com/ailab/ai-lab/server"
)

// cannedModel is an OpenAI-compatible endpoint on loopback that answers every
// request with the same plain reply after delay, without decoding it: what it
// costs is the model's, not the server's. When the request carries a marker
// (see markerRe), it records when the request had fully arrived and when the
// answer was written, so a benchmark can tell the server's time from the model's.
type cannedModel struct {
	url   string
	times sync.Map // marker -> [2]time.Time{arrived, answered}
}

// markerRe finds a benchmark's marker in a request body; the last one is the
// current turn's.
var markerRe = regexp.MustCompile(`marker-[0-9]+-[0-9]+`)

func newCannedModel(tb testing.TB, delay time.Duration, reply string) *cannedModel {
	body, _ := json.Marshal(llmtest.EncodeReply("fake", 1, llm.Message{Role: llm.RoleAssistant, Content: reply}))
	m := &cannedModel{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, _ := io.ReadAll(r.Body)
		arrived := time.Now()
		if delay > 0 {
			time.Sleep(delay)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
		if all := markerRe.FindAll(req, -1); len(all) > 0 {
			m.times.Store(string(all[len(all)-1]), [2]time.Time{arrived, time.Now()})
		}
	}))
	tb.Cleanup(srv.Close)
	m.url = srv.URL + "/v1"
	return m
}

// cannedModelURL is newCannedModel for benchmarks that need only the URL.
func cannedModelURL(tb testing.TB, delay time.Duration, reply string) string {
	return newCannedModel(tb, delay, reply).url
}

// benchServer starts the real App (SQLite state, real provider) against modelURL.
func benchServer(tb testing.TB, modelURL string) (url, token string) {
	dir := tb.TempDir()
	path := filepath.Join(dir, "config.yaml")
	yaml := fmt.Sprintf("server:\n  state_dir: %q\nllm:\n  base_url: %q\n  model: fake\n  timeout: 60s\nsafety:\n  preset: moderate\ntools:\n  workspace: %q\nweb:\n  search_endpoint: http://127.0.0.1:9/html/\n  search_lite_endpoint: http://127.0.0.1:9/lite/\n",
		filepath.Join(dir, "state"), modelURL, filepath.Join(dir, "ws"))
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		tb.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		tb.Fatal(err)
	}
	models := func(cfg *config.Config) llm.Provider {
		return openai.New(openai.Options{BaseURL: cfg.LLM.BaseURL, Model: cfg.LLM.Model, Timeout: cfg.LLM.Timeout})
	}
	app, err := server.Open(context.Background(), cfg, models, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(app.Handler())
	tb.Cleanup(func() { srv.Close(); app.Close() })
	return srv.URL, app.Token
}

// benchClient posts turns with a pooled client, as many TUIs would.
var benchClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 512, MaxIdleConns: 512}}

// turn posts one message and returns its session and latency.
func benchTurn(url, token, session, msg string) (string, time.Duration, error) {
	b, _ := json.Marshal(api.ChatRequest{Message: msg, SessionID: session})
	req, _ := http.NewRequest("POST", url+"/chat", bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+token)
	start := time.Now()
	resp, err := benchClient.Do(req)
	if err != nil {
		return session, 0, err
	}
	defer resp.Body.Close()
	var r api.ChatResponse
	err = json.NewDecoder(resp.Body).Decode(&r)
	d := time.Since(start)
	if err == nil && resp.StatusCode != 200 {
		err = fmt.Errorf("status %d", resp.StatusCode)
	}
	return r.SessionID, d, err
}

// percentile returns the p-th percentile (0..1) of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
}

// BenchmarkConcurrentSessions runs b.N turns spread over N sessions at once
// against a model that answers in 500 ms, and reports the server's overhead
// per model round at p50 and p99, and the errors. The overhead is the time
// from the client sending the turn to the model having the request, plus the
// time from the model's answer to the client having the reply: the model's own
// 500 ms (and the machine's wake-up from it) are not the server's. The sessions
// start spread over one model delay. The first case, one session and a model
// that answers at once, is the server's overhead with nothing idle in between.
// Run it with a count of turns, e.g. -benchtime=2000x.
func BenchmarkConcurrentSessions(b *testing.B) {
	for _, tc := range []struct {
		sessions int
		delay    time.Duration
	}{{1, 0}, {100, 500 * time.Millisecond}, {200, 500 * time.Millisecond}} {
		sessions, delay := tc.sessions, tc.delay
		b.Run(fmt.Sprintf("sessions=%d/model=%s", sessions, delay), func(b *testing.B) {
			model := newCannedModel(b, delay, "A short answer with no claims.")
			url, token := benchServer(b, model.url)
			var mu sync.Mutex
			var overheads []time.Duration
			var errs atomic.Int64
			var left atomic.Int64
			left.Store(int64(b.N))
			b.ResetTimer()
			var wg sync.WaitGroup
			for i := range sessions {
				wg.Add(1)
				go func() {
					defer wg.Done()
					// Sessions start spread over one model delay, as people
					// typing do, not all in the same millisecond.
					time.Sleep(time.Duration(i) * delay / time.Duration(sessions))
					session := ""
					for turn := 0; left.Add(-1) >= 0; turn++ {
						marker := fmt.Sprintf("marker-%d-%d", i, turn)
						sent := time.Now()
						s, _, err := benchTurn(url, token, session, "session asks a question "+marker)
						got := time.Now()
						v, ok := model.times.Load(marker)
						if err != nil || !ok {
							errs.Add(1)
							continue
						}
						session = s
						at := v.([2]time.Time)
						mu.Lock()
						overheads = append(overheads, at[0].Sub(sent)+got.Sub(at[1]))
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			slices.Sort(overheads)
			b.ReportMetric(float64(percentile(overheads, 0.50).Microseconds())/1000, "overhead-p50-ms")
			b.ReportMetric(float64(percentile(overheads, 0.99).Microseconds())/1000, "overhead-p99-ms")
			b.ReportMetric(float64(errs.Load()), "errors")
		})
	}
}

// BenchmarkLongSession plays 1,000 turns of one session (each message and
// answer a few hundred characters) and compares the server's time per turn
// around turn 10 and around turn 1,000: with llm.context_chars bounding what is
// sent and the history kept decoded in memory, a long session must not make
// each turn much slower. It reports both and their ratio; b.N repeats the
// last-turn measurement.
func BenchmarkLongSession(b *testing.B) {
	url, token := benchServer(b, cannedModelURL(b, 0, strings.Repeat("An answer of a few hundred characters. ", 8)))
	msg := strings.Repeat("A question of a few hundred characters. ", 8)
	session := ""
	var early, late []time.Duration
	for turn := 1; turn <= 1000; turn++ {
		s, d, err := benchTurn(url, token, session, msg)
		if err != nil {
			b.Fatalf("turn %d: %v", turn, err)
		}
		session = s
		if turn > 5 && turn <= 15 {
			early = append(early, d)
		}
		if turn > 990 {
			late = append(late, d)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		_, d, err := benchTurn(url, token, session, msg)
		if err != nil {
			b.Fatal(err)
		}
		late = append(late, d)
	}
	b.StopTimer()
	slices.Sort(early)
	slices.Sort(late)
	e, l := percentile(early, 0.5), percentile(late, 0.5)
	b.ReportMetric(float64(e.Microseconds())/1000, "turn10-ms")
	b.ReportMetric(float64(l.Microseconds())/1000, "turn1000-ms")
	b.ReportMetric(float64(l)/float64(e), "ratio")
}

// BenchmarkFirstToken measures the time from the model writing its first
// piece of text (a whole sentence of prose, which may be shown at once) to the
// client reading the first token event of the stream, over loopback through
// the real provider, and reports its p50 and p99.
func BenchmarkFirstToken(b *testing.B) {
	var sent atomic.Int64 // unix nanos when the fake flushed its first chunk
	chunk := func(text string) string {
		c, _ := json.Marshal(map[string]any{"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "fake",
			"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "content": text}}}})
		return "data: " + string(c) + "\n\n"
	}
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, chunk("The weather is fine today. "))
		sent.Store(time.Now().UnixNano())
		w.(http.Flusher).Flush()
		time.Sleep(20 * time.Millisecond)
		io.WriteString(w, chunk("Enjoy it."))
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	b.Cleanup(model.Close)
	url, token := benchServer(b, model.URL+"/v1")
	var lat []time.Duration
	for b.Loop() {
		body, _ := json.Marshal(api.ChatRequest{Message: "how is the weather?", Stream: true})
		req, _ := http.NewRequest("POST", url+"/chat", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := benchClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(resp.Body)
		first := true
		for sc.Scan() {
			if first && sc.Text() == "event: token" {
				lat = append(lat, time.Since(time.Unix(0, sent.Load())))
				first = false
			}
		}
		resp.Body.Close()
		if first {
			b.Fatal("no token event")
		}
	}
	slices.Sort(lat)
	b.ReportMetric(float64(percentile(lat, 0.5).Microseconds())/1000, "first-token-p50-ms")
	b.ReportMetric(float64(percentile(lat, 0.99).Microseconds())/1000, "first-token-p99-ms")
}
