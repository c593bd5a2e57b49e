package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ailab/ai-lab/llm"
	"github.com/ailab/ai-lab/llm/llmtest"
	"github.com/ailab/ai-lab/llm/openai"
)

var hi = llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}

// stream runs s.Stream and returns what it delivered too.
func stream(ctx context.Context, s llm.Streamer, req llm.Request) (llm.Message, []string, error) {
	var pieces []string
	msg, err := s.Stream(ctx, req, func(text string) { pieces = append(pieces, text) })
	return msg, pieces, err
}

func TestOpenAIStreamMatchesComplete(t *testing.T) {
	calls := []llm.ToolCall{
		llmtest.Call("call_1", "write_file", `{"path":"notes/a.txt","content":"héllo, wörld"}`),
		llmtest.Call("call_2", "web_search", `{"query":"bubble tea"}`),
	}
	tests := []struct {
		name      string
		step      llmtest.Step
		minPieces int
		never     string // text that must not reach onText
	}{
		{name: "text in pieces", step: llmtest.Chunked(llmtest.Text("The quick brown fox jumps over the lazy dog."), 3), minPieces: 10},
		{name: "characters never split", step: llmtest.Chunked(llmtest.Text("héllo wörld — ✓ 日本語"), 1, 2), minPieces: 10},
		{name: "default pieces", step: llmtest.Text("a reply of a few words"), minPieces: 5},
		{name: "text and two interleaved calls", step: llmtest.Chunked(llmtest.Reply(llm.Message{Content: "running two tools", ToolCalls: calls}), 2, 1, 5), minPieces: 5},
		{name: "only calls", step: llmtest.Chunked(llmtest.Calls(calls...), 3)},
		{name: "empty reply", step: llmtest.Text("")},
		{
			name:      "think block cut anywhere",
			step:      llmtest.Pieces("\n<thi", "nk>The user wants web_search", ", so I will call web_search now.</th", "ink>\n", "\nHello", ", world"),
			minPieces: 2, never: "web_search",
		},
		{name: "think block in one piece", step: llmtest.Pieces("<think>call web_search</think>", "Hi"), minPieces: 1, never: "web_search"},
		{name: "think later in the text is the answer", step: llmtest.Chunked(llmtest.Text("So: <think>x</think> is a tag."), 2), minPieces: 5},
		{name: "a text that only looks like the start of a think block", step: llmtest.Pieces("<th", "ree> items"), minPieces: 1},
		{name: "unclosed think block is the reply", step: llmtest.Chunked(llmtest.Text("<think>still thinking"), 3), minPieces: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tc.step, tc.step)
			p := openai.New(openai.Options{BaseURL: srv.URL(), Model: "m"})
			want, err := p.Complete(context.Background(), hi)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			got, pieces, err := stream(context.Background(), p, hi)
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Stream = %+v\nComplete = %+v", got, want)
			}
			if joined := strings.Join(pieces, ""); joined != want.Content {
				t.Errorf("pieces %q join to %q, want the content %q", pieces, joined, want.Content)
			}
			if len(pieces) < tc.minPieces {
				t.Errorf("got %d pieces %q, want at least %d", len(pieces), pieces, tc.minPieces)
			}
			for _, piece := range pieces {
				if piece == "" || (tc.never != "" && strings.Contains(piece, tc.never)) {
					t.Errorf("delivered %q", piece)
				}
			}
			if reqs := srv.Requests(); reqs[0].Stream || !reqs[1].Stream {
				t.Errorf("stream flags sent = %v, %v; want false, true", reqs[0].Stream, reqs[1].Stream)
			}
		})
	}
}

// TestOpenAIStreamDeliversAsWritten: a piece reaches onText while the server
// is still writing the rest, not when the reply is complete.
func TestOpenAIStreamDeliversAsWritten(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Paced(300*time.Millisecond, llmtest.Chunked(llmtest.Text("one two"), 4)))
	p := openai.New(openai.Options{BaseURL: srv.URL(), Model: "m"})
	start := time.Now()
	var first time.Duration
	msg, err := p.Stream(context.Background(), hi, func(string) {
		if first == 0 {
			first = time.Since(start)
		}
	})
	total := time.Since(start)
	if err != nil || msg.Content != "one two" {
		t.Fatalf("Stream = %+v, %v", msg, err)
	}
	if total < 300*time.Millisecond || first > total-250*time.Millisecond {
		t.Errorf("first piece after %v of %v; want it before the pause of 300ms", first, total)
	}
}

// TestOpenAIStreamUnstreamedAnswer: a server that ignores "stream": true and
// answers one JSON completion still works, and so does one whose Content-Type
// says neither JSON nor events (the body tells which it is).
func TestOpenAIStreamUnstreamedAnswer(t *testing.T) {
	calls := []llm.ToolCall{llmtest.Call("c1", "list_directory", `{"path":"."}`)}
	tests := []struct {
		name string
		step llmtest.Step
		want llm.Message
	}{
		{"json", llmtest.Unstreamed(llmtest.Text("hello there")), llm.Message{Content: "hello there"}},
		{"json with calls", llmtest.Unstreamed(llmtest.Reply(llm.Message{Content: "ok", ToolCalls: calls})), llm.Message{Content: "ok", ToolCalls: calls}},
		{"json with only calls", llmtest.Unstreamed(llmtest.Calls(calls...)), llm.Message{ToolCalls: calls}},
		{"json with a think block", llmtest.Unstreamed(llmtest.Text("<think>hmm</think>\nhi")), llm.Message{Content: "hi"}},
		{"json labelled text/plain", llmtest.Unstreamed(llmtest.Text("sniffed")).WithHeader("Content-Type", "text/plain; charset=utf-8"), llm.Message{Content: "sniffed"}},
		{"json without a content type", llmtest.Unstreamed(llmtest.Text("sniffed")).WithHeader("Content-Type", ""), llm.Message{Content: "sniffed"}},
		{"events labelled text/plain", llmtest.Chunked(llmtest.Text("streamed anyway"), 3).WithHeader("Content-Type", "text/plain"), llm.Message{Content: "streamed anyway"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tc.step)
			p := openai.New(openai.Options{BaseURL: srv.URL(), Model: "m"})
			got, pieces, err := stream(context.Background(), p, hi)
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			tc.want.Role = llm.RoleAssistant
			if !reflect.DeepEqual(got, tc.want) || strings.Join(pieces, "") != tc.want.Content {
				t.Errorf("Stream = %+v with pieces %q; want %+v", got, pieces, tc.want)
			}
			if tc.want.Content == "" && len(pieces) > 0 {
				t.Errorf("delivered %q for a reply without text", pieces)
			}
		})
	}
}

func TestOpenAIStreamFailures(t *testing.T) {
	const overloaded = `data: {"error":{"message":"engine overloaded","type":"server_error"}}` + "\n\n"
	const hel = `data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hel"}}]}` + "\n\n"
	events := func(body string) llmtest.Step {
		return llmtest.Status(200, body).WithHeader("Content-Type", "text/event-stream")
	}
	tests := []struct {
		name       string
		steps      []llmtest.Step
		wantPieces []string
		want       string // the content on success
		wantErr    string // the sentence on failure; {URL} stands for the base URL
		kind       llm.ErrorKind
		requests   int
	}{
		{
			name:       "dropped after text is not retried",
			steps:      []llmtest.Step{llmtest.FailAfter(3, llmtest.Chunked(llmtest.Text("one two three four"), 2)), llmtest.Text("unused")},
			wantPieces: []string{"on", "e ", "tw"},
			wantErr:    "the connection to the model at {URL} broke in the middle of its answer (connection closed): try again, and check the model server if it keeps happening",
			kind:       llm.KindUnreachable, requests: 1,
		},
		{
			name:       "dropped after the reply but before [DONE] is not retried",
			steps:      []llmtest.Step{llmtest.FailAfter(99, llmtest.Text("all of it")), llmtest.Text("unused")},
			wantPieces: []string{"all ", "of i", "t"},
			wantErr:    "the connection to the model at {URL} broke in the middle of its answer (connection closed): try again, and check the model server if it keeps happening",
			kind:       llm.KindUnreachable, requests: 1,
		},
		{
			name:       "dropped before any chunk is retried",
			steps:      []llmtest.Step{llmtest.FailAfter(0, llmtest.Text("hi there")), llmtest.Text("hi there")},
			wantPieces: []string{"hi t", "here"}, want: "hi there", requests: 2,
		},
		{
			name:       "dropped while only think text had come is retried",
			steps:      []llmtest.Step{llmtest.FailAfter(2, llmtest.Pieces("<think>", "hmm", "</think>Hi")), llmtest.Pieces("<think>", "hmm", "</think>Hi")},
			wantPieces: []string{"Hi"}, want: "Hi", requests: 2,
		},
		{
			name:       "an error event before text is retried",
			steps:      []llmtest.Step{events(overloaded), llmtest.Chunked(llmtest.Text("ok"), 9)},
			wantPieces: []string{"ok"}, want: "ok", requests: 2,
		},
		{
			name:       "an error event after text is not retried",
			steps:      []llmtest.Step{events(hel + overloaded), llmtest.Text("unused")},
			wantPieces: []string{"Hel"},
			wantErr:    "the model stopped its answer with an error: engine overloaded",
			kind:       llm.KindStatus, requests: 1,
		},
		{
			name:    "an event that is not a chunk",
			steps:   []llmtest.Step{events("data: {nope\n\n")},
			wantErr: "the model at {URL} gave an answer that is not an OpenAI-compatible chat completion: check llm.base_url",
			kind:    llm.KindBadResponse, requests: 1,
		},
		{
			name:    "a stream without choices",
			steps:   []llmtest.Step{events("data: [DONE]\n\n")},
			wantErr: "the model answered with no choices: check that llm.base_url points to an OpenAI-compatible chat completions API",
			kind:    llm.KindBadResponse, requests: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tc.steps...)
			p := openai.New(openai.Options{BaseURL: srv.URL(), Model: "m", MaxRetries: 2, Backoff: noWait})
			msg, pieces, err := stream(context.Background(), p, hi)
			if !reflect.DeepEqual(pieces, tc.wantPieces) {
				t.Errorf("pieces = %q, want %q", pieces, tc.wantPieces)
			}
			if tc.wantErr == "" {
				if err != nil || msg.Content != tc.want {
					t.Errorf("Stream = %+v, %v; want content %q", msg, err, tc.want)
				}
			} else {
				var le *llm.Error
				if !errors.As(err, &le) {
					t.Fatalf("err = %v (%T), want *llm.Error", err, err)
				}
				if want := strings.ReplaceAll(tc.wantErr, "{URL}", srv.URL()); le.Error() != want || le.Kind != tc.kind {
					t.Errorf("error = %s %q\nwant    %s %q", le.Kind, le.Error(), tc.kind, want)
				}
			}
			if got := len(srv.Requests()); got != tc.requests {
				t.Errorf("server saw %d requests, want %d", got, tc.requests)
			}
		})
	}
}

// TestOpenAIStreamHTTP2Reset: an HTTP/2 stream reset in the middle of the
// answer, which names no syscall error, still reads as a broken connection.
func TestOpenAIStreamHTTP2Reset(t *testing.T) {
	first := llmtest.EncodeStream("m", 1, llm.Message{Content: "Hello"}, 9)
	first = first[:bytes.Index(first, []byte("\n\n"))+2]
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(first)
		_ = http.NewResponseController(w).Flush()
		panic(http.ErrAbortHandler) // resets the stream, leaving the connection up
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	p := openai.New(openai.Options{BaseURL: srv.URL, Model: "m", MaxRetries: 2, Backoff: noWait, HTTPClient: srv.Client()})
	_, pieces, err := stream(context.Background(), p, hi)
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.KindUnreachable || !strings.Contains(le.Error(), "broke in the middle of its answer (connection lost)") {
		t.Fatalf("err = %v, want a broken connection", err)
	}
	if !reflect.DeepEqual(pieces, []string{"Hello"}) {
		t.Errorf("pieces = %q", pieces)
	}
}

func TestOpenAIStreamCanceled(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Paced(time.Hour, llmtest.Chunked(llmtest.Text("a b c d"), 2)))
	p := openai.New(openai.Options{BaseURL: srv.URL(), Model: "m", MaxRetries: 2, Backoff: noWait})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var canceledAt time.Time
	var pieces []string
	_, err := p.Stream(ctx, hi, func(text string) {
		pieces = append(pieces, text)
		canceledAt = time.Now()
		cancel()
	})
	if took := time.Since(canceledAt); took > time.Second {
		t.Errorf("Stream returned %v after the cancel", took)
	}
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.KindCanceled || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want a canceled *llm.Error", err)
	}
	if !reflect.DeepEqual(pieces, []string{"a "}) {
		t.Errorf("pieces = %q", pieces)
	}
	select {
	case <-srv.Aborted():
	case <-time.After(2 * time.Second):
		t.Fatal("the server never saw the request aborted")
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}

// TestOpenAIStreamTimeoutMidAnswer: llm.timeout bounds the whole answer, as
// it does for Complete, and a timed-out stream is not retried after text.
func TestOpenAIStreamTimeoutMidAnswer(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Paced(time.Hour, llmtest.Chunked(llmtest.Text("a b"), 2)))
	p := openai.New(openai.Options{BaseURL: srv.URL(), Model: "m", Timeout: 150 * time.Millisecond, MaxRetries: 2, Backoff: noWait})
	_, pieces, err := stream(context.Background(), p, hi)
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.KindTimeout {
		t.Fatalf("err = %v, want a timeout *llm.Error", err)
	}
	if len(pieces) != 1 || len(srv.Requests()) != 1 {
		t.Errorf("pieces %q, %d requests; want 1 piece and no retry", pieces, len(srv.Requests()))
	}
}

// readRecording returns a recorded body and the message it must assemble to.
func readRecording(t testing.TB, name string) ([]byte, llm.Message) {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", "stream", name+".sse"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join("testdata", "stream", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var want llm.Message
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	return body, want
}

func recordings(t testing.TB) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "stream", "*.sse"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no recordings: %v", err)
	}
	var names []string
	for _, p := range paths {
		names = append(names, strings.TrimSuffix(filepath.Base(p), ".sse"))
	}
	return names
}

// TestOpenAIStreamRecordings plays the bodies of testdata/stream through the
// real provider over loopback, each in pieces of 7 bytes.
func TestOpenAIStreamRecordings(t *testing.T) {
	for _, name := range recordings(t) {
		t.Run(name, func(t *testing.T) {
			body, want := readRecording(t, name)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				for len(body) > 0 {
					n := min(7, len(body))
					_, _ = w.Write(body[:n])
					http.NewResponseController(w).Flush()
					body = body[n:]
				}
			}))
			defer srv.Close()
			p := openai.New(openai.Options{BaseURL: srv.URL, Model: "m"})
			got, pieces, err := stream(context.Background(), p, hi)
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
			if strings.Join(pieces, "") != want.Content {
				t.Errorf("pieces %q do not join to %q", pieces, want.Content)
			}
		})
	}
}

// TestOpenAIErrorsStreamed: every failure of TestOpenAIErrors gets the same
// sentence, kind and retries from Stream as from Complete.
func TestOpenAIErrorsStreamed(t *testing.T) {
	for _, tc := range openAIErrorCases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tc.steps...)
			opts := tc.opts
			if opts.BaseURL == "" {
				opts.BaseURL = srv.URL()
			}
			if opts.Model == "" {
				opts.Model = "m"
			}
			opts.HTTPClient = dialingTo(strings.TrimSuffix(strings.TrimPrefix(srv.URL(), "http://"), "/v1"))
			opts.Backoff = noWait
			_, pieces, err := stream(context.Background(), openai.New(opts), hi)
			var le *llm.Error
			if !errors.As(err, &le) {
				t.Fatalf("err = %v (%T), want *llm.Error", err, err)
			}
			if want := strings.ReplaceAll(tc.want, "{URL}", srv.URL()); le.Error() != want {
				t.Errorf("sentence =\n  %q\nwant\n  %q", le.Error(), want)
			}
			if le.Kind != tc.kind || le.Status != tc.status {
				t.Errorf("kind, status = %s, %d; want %s, %d", le.Kind, le.Status, tc.kind, tc.status)
			}
			if got := len(srv.Requests()); got != tc.requests {
				t.Errorf("server saw %d requests, want %d", got, tc.requests)
			}
			if len(pieces) != 0 {
				t.Errorf("a failed request delivered %q", pieces)
			}
		})
	}
}

func assemble(body io.Reader) (llm.Message, []string, string) {
	var pieces []string
	msg, err := openai.AssembleStream(body, func(s string) { pieces = append(pieces, s) })
	errText := ""
	if err != nil {
		errText = err.Error()
	}
	return msg, pieces, errText
}

// FuzzStreamAssembly: a streamed reply assembles to the same message and the
// same text however the body is cut into reads, never panics, delivers text
// that joins to the content, and yields only answerable tool calls.
func FuzzStreamAssembly(f *testing.F) {
	calls := []llm.ToolCall{
		llmtest.Call("call_1", "write_file", `{"path":"a.txt","content":"x\ny"}`),
		llmtest.Call("call_2", "web_search", `{"query":"héllo"}`),
	}
	for _, seed := range []struct {
		msg   llm.Message
		sizes []int
	}{
		{llm.Message{Content: "Hello there, world."}, []int{3}},
		{llm.Message{Content: "<think>call web_search</think>\n\nHello"}, []int{2, 5}},
		{llm.Message{Content: "ok", ToolCalls: calls}, []int{1, 4, 2}},
		{llm.Message{ToolCalls: calls}, nil},
	} {
		f.Add(llmtest.EncodeStream("m", 1, seed.msg, seed.sizes...), []byte{0, 3, 200, 7})
	}
	for _, name := range recordings(f) {
		body, _ := readRecording(f, name)
		f.Add(body, []byte{1})
	}
	f.Fuzz(func(t *testing.T, body, cuts []byte) {
		want, wantPieces, wantErr := assemble(bytes.NewReader(body))
		got, pieces, gotErr := assemble(&cutReader{body: body, cuts: cuts})
		if gotErr != wantErr || !reflect.DeepEqual(got, want) || strings.Join(pieces, "") != strings.Join(wantPieces, "") {
			t.Fatalf("cut into reads: %+v %q %q\nwhole: %+v %q %q", got, pieces, gotErr, want, wantPieces, wantErr)
		}
		if gotErr != "" {
			return
		}
		if joined := strings.Join(pieces, ""); joined != got.Content {
			t.Fatalf("pieces join to %q, content is %q", joined, got.Content)
		}
		for _, p := range pieces {
			if p == "" {
				t.Fatal("an empty piece was delivered")
			}
		}
		for _, c := range got.ToolCalls {
			if c.ID == "" || c.Name == "" {
				t.Fatalf("tool call without id or name: %+v", c)
			}
		}
	})
}

// longAnswer is about 64 KB of prose, streamed four runes to a chunk as a
// model streams about a token to a chunk.
func longAnswer() (llm.Message, []byte) {
	var b strings.Builder
	for i := 0; b.Len() < 64<<10; i++ {
		fmt.Fprintf(&b, "Sentence %d of a long answer, with some **markdown** and a [link](https://example.com/%d).\n", i, i)
	}
	msg := llm.Message{Role: llm.RoleAssistant, Content: b.String()}
	return msg, llmtest.EncodeStream("m", 1, msg)
}

// BenchmarkStreamAssembly measures reading and assembling a long streamed
// answer: MB/s of event-stream body, and of the answer's text.
func BenchmarkStreamAssembly(b *testing.B) {
	msg, body := longAnswer()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		got, err := openai.AssembleStream(bytes.NewReader(body), func(string) {})
		if err != nil || len(got.Content) != len(msg.Content) {
			b.Fatalf("assembled %d bytes, %v", len(got.Content), err)
		}
	}
	b.ReportMetric(float64(len(msg.Content))*float64(b.N)/b.Elapsed().Seconds()/1e6, "text-MB/s")
}

// BenchmarkStreamFirstText measures the time from the server writing the
// first chunk to loopback to the first onText call: the latency streaming
// adds on top of the model's own.
func BenchmarkStreamFirstText(b *testing.B) {
	_, body := longAnswer()
	events := bytes.SplitAfter(body[:4096], []byte("\n\n"))
	events = events[:len(events)-1] // the last is cut
	sent := make(chan time.Time, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		for i, e := range events {
			if i == 0 {
				sent <- time.Now()
			}
			_, _ = w.Write(e)
			_ = rc.Flush()
		}
		_, _ = w.Write([]byte("data: [DONE]\n\n"))
	}))
	defer srv.Close()
	p := openai.New(openai.Options{BaseURL: srv.URL, Model: "m"})
	var total time.Duration
	for b.Loop() {
		var first time.Time
		_, err := p.Stream(context.Background(), hi, func(string) {
			if first.IsZero() {
				first = time.Now()
			}
		})
		if err != nil {
			b.Fatal(err)
		}
		total += first.Sub(<-sent)
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs-to-first-text")
}

// cutReader returns its body in reads of the sizes cuts gives, in turn.
type cutReader struct {
	body []byte
	cuts []byte
	i    int
}

func (r *cutReader) Read(p []byte) (int, error) {
	if len(r.body) == 0 {
		return 0, io.EOF
	}
	n := len(r.body)
	if len(r.cuts) > 0 {
		n = int(r.cuts[r.i%len(r.cuts)]) + 1
		r.i++
	}
	n = min(n, len(p), len(r.body))
	copy(p, r.body[:n])
	r.body = r.body[n:]
	return n, nil
}
