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
	"runtime/metrics"
	"slices"
	"strconv"
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
	url, token, _ = benchApp(tb, modelURL, "moderate")
	return url, token
}

// benchApp is benchServer under a safety preset, with the App.
func benchApp(tb testing.TB, modelURL, preset string) (url, token string, app *server.App) {
	dir := tb.TempDir()
	path := filepath.Join(dir, "config.yaml")
	yaml := fmt.Sprintf("server:\n  state_dir: %q\nllm:\n  base_url: %q\n  model: fake\n  timeout: 60s\nsafety:\n  preset: %s\ntools:\n  workspace: %q\nweb:\n  search_endpoint: http://127.0.0.1:9/html/\n  search_lite_endpoint: http://127.0.0.1:9/lite/\n",
		filepath.Join(dir, "state"), modelURL, preset, filepath.Join(dir, "ws"))
	if err := os.MkdirAll(filepath.Join(dir, "ws"), 0o755); err != nil {
		tb.Fatal(err)
	}
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
	app, err = server.Open(context.Background(), cfg, models, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(app.Handler())
	tb.Cleanup(func() { srv.Close(); app.Close() })
	return srv.URL, app.Token, app
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
	return llmtest.Percentile(sorted, p)
}

// benchModelDelay is the tool-round cases' model latency and its jitter:
// 50 ms ± 25 by default, so the default run stays short;
// AILAB_BENCH_MODEL_MS=500 gives the 500 ms ± 250 of a real model (the jitter
// is always half the delay). AILAB_BENCH_TOOL=list_directory makes the tool
// round a list_directory call instead of a write_file.
func benchModelDelay(tb testing.TB) (delay, jitter time.Duration) {
	ms := 50
	if v := os.Getenv("AILAB_BENCH_MODEL_MS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			tb.Fatalf("AILAB_BENCH_MODEL_MS=%q: want a number of milliseconds", v)
		}
		ms = n
	}
	delay = time.Duration(ms) * time.Millisecond
	return delay, delay / 2
}

// BenchmarkConcurrentSessions runs b.N turns spread over N sessions at once
// and reports the server's overhead per model round at p50 and p99, and the
// errors. The overhead of a turn is its time at the client less the model's
// time on each of its rounds (from the request having fully arrived to the
// answer written): the model's own latency (and the machine's wake-up from
// it) are not the server's. It is reported per model round (the turn's
// overhead divided by its rounds). The sessions start spread over one model
// delay.
//
// The first case, one session and a model that answers at once, is the
// server's overhead with nothing idle in between; the next two are turns with
// no tool round against a model that answers in 500 ms. The tool=1 cases play
// turns as real ones go: one tool round (a write_file under the minimal
// preset, so it runs without approval) and then a final answer citing it, the
// model answering in 50 ms ± 25 (AILAB_BENCH_MODEL_MS=500 gives 500 ms ± 250).
// They also report the process's CPU time per turn (server, client and fake
// model together: an upper bound of the server's) and the WAL's high-water
// mark during the run, sampled every 20 ms, and its size once idle (after
// up to 5 s without turns).
//
// Run it with a count of turns, e.g. -benchtime=1000x (10 turns for each of
// 100 sessions); the default 1 s benchtime plays few turns.
func BenchmarkConcurrentSessions(b *testing.B) {
	for _, tc := range []struct {
		sessions int
		delay    time.Duration
		tool     bool
	}{{1, 0, false}, {100, 500 * time.Millisecond, false}, {200, 500 * time.Millisecond, false}, {100, 0, true}, {200, 0, true}} {
		sessions, delay, tool := tc.sessions, tc.delay, tc.tool
		name := fmt.Sprintf("sessions=%d/model=%s", sessions, delay)
		var jitter time.Duration
		if tool {
			delay, jitter = benchModelDelay(b)
			name = fmt.Sprintf("sessions=%d/tool=1/model=%s±%s", sessions, delay, jitter)
		}
		b.Run(name, func(b *testing.B) {
			var times *sync.Map
			var url, token string
			var app *server.App
			rounds := 1
			if tool {
				tool := llmtest.RoundWriteFile
				if os.Getenv("AILAB_BENCH_TOOL") == "list_directory" {
					tool = llmtest.RoundListDirectory
				}
				model := llmtest.NewToolRoundModel(b, tool, delay, jitter)
				times, rounds = &model.Times, 2
				url, token, app = benchApp(b, model.URL, "minimal")
			} else {
				model := newCannedModel(b, delay, "A short answer with no claims.")
				times = &model.times
				url, token, app = benchApp(b, model.url, "moderate")
			}
			var invalid atomic.Int64
			var left atomic.Int64
			left.Store(int64(b.N))
			// The WAL's size is sampled while the turns run.
			stopWAL := make(chan struct{})
			walDone := make(chan struct{})
			go func() {
				defer close(walDone)
				t := time.NewTicker(20 * time.Millisecond)
				defer t.Stop()
				for {
					select {
					case <-stopWAL:
						return
					case <-t.C:
						app.WALBytes()
					}
				}
			}()
			b.ResetTimer()
			cpu0 := cpuTime()
			created0 := goroutinesCreated()
			sessionOf := make([]string, sessions)
			overheads, errs := llmtest.PlaySessions(sessions, delay, func() bool { return left.Add(-1) >= 0 }, func(i, n int) (time.Duration, error) {
				marker := fmt.Sprintf("marker-%d-%d", i, n)
				sent := time.Now()
				s, valid, err := benchTurnValid(url, token, sessionOf[i], "session asks a question "+marker)
				took := time.Since(sent)
				if err != nil {
					return 0, err
				}
				sessionOf[i] = s
				if !valid {
					invalid.Add(1)
				}
				key := func(r int) string { return marker }
				if tool {
					key = func(r int) string { return fmt.Sprintf("%s/%d", marker, r) }
				}
				d, ok := llmtest.Overhead(times, key, took, rounds)
				if !ok {
					return 0, fmt.Errorf("turn %s did not reach the model %d times", marker, rounds)
				}
				return d, nil
			})
			cpu := cpuTime() - cpu0
			created := goroutinesCreated() - created0
			b.StopTimer()
			close(stopWAL)
			<-walDone
			_, walPeak := app.WALBytes()
			// Idle, the WAL must go back to (nearly) nothing: wait for it up
			// to 5 s (the store truncates it after 2 s without writes).
			var walIdle int64
			if tool {
				for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
					if walIdle, _ = app.WALBytes(); walIdle == 0 || time.Now().After(deadline) {
						break
					}
				}
			}
			b.ReportMetric(float64(llmtest.Percentile(overheads, 0.50).Microseconds())/1000, "overhead-p50-ms")
			b.ReportMetric(float64(llmtest.Percentile(overheads, 0.99).Microseconds())/1000, "overhead-p99-ms")
			b.ReportMetric(float64(errs), "errors")
			if tool {
				b.ReportMetric(float64(invalid.Load()), "invalid")
				b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/turn")
				b.ReportMetric(float64(created)/float64(b.N), "goroutines/turn")
				b.ReportMetric(float64(walPeak)/(1<<20), "wal-peak-MB")
				b.ReportMetric(float64(walIdle)/(1<<20), "wal-idle-MB")
			}
		})
	}
}

// benchTurnValid is benchTurn that also says whether the reply passed validation.
func benchTurnValid(url, token, session, msg string) (string, bool, error) {
	b, _ := json.Marshal(api.ChatRequest{Message: msg, SessionID: session})
	req, _ := http.NewRequest("POST", url+"/chat", bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := benchClient.Do(req)
	if err != nil {
		return session, false, err
	}
	defer resp.Body.Close()
	var r api.ChatResponse
	err = json.NewDecoder(resp.Body).Decode(&r)
	if err == nil && resp.StatusCode != 200 {
		err = fmt.Errorf("status %d", resp.StatusCode)
	}
	return r.SessionID, r.Validation.Valid, err
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

// goroutinesCreated is how many goroutines the process has started, the
// server's, the fake model's and the client's together: each is a hand-off
// that costs a wake-up on a mostly idle machine.
func goroutinesCreated() uint64 {
	m := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(m)
	if m[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return m[0].Value.Uint64()
}
