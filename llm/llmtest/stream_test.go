package llmtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ailab/ai-lab/llm"
)

func TestCut(t *testing.T) {
	tests := []struct {
		s     string
		sizes []int
		want  []string
	}{
		{"", []int{3}, nil},
		{"abcdefgh", nil, []string{"abcd", "efgh"}},
		{"abcdefgh", []int{1, 3}, []string{"a", "bcd", "e", "fgh"}},
		{"héllo", []int{2}, []string{"hé", "ll", "o"}},
		{"日本語", []int{0, -4}, []string{"日", "本", "語"}},
	}
	for _, tc := range tests {
		if got := cut(tc.s, tc.sizes); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("cut(%q, %v) = %q, want %q", tc.s, tc.sizes, got, tc.want)
		}
	}
}

const streamBody = `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`

// events reads an event-stream body into its data lines.
func events(t *testing.T, body io.Reader) (data []string, err error) {
	t.Helper()
	sc := bufio.NewScanner(body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		d, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("line %q is not a data line", line)
		}
		data = append(data, d)
	}
	return data, sc.Err()
}

type wireChunk struct {
	Object  string `json:"object"`
	Choices []struct {
		Delta struct {
			Role      string  `json:"role"`
			Content   *string `json:"content"`
			ToolCalls []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
}

func TestServerStreams(t *testing.T) {
	msg := llm.Message{Role: llm.RoleAssistant, Content: "héllo", ToolCalls: []llm.ToolCall{
		Call("call_1", "read_file", `{"path":"a.txt"}`),
		Call("call_2", "web_search", `{"q":"x"}`),
	}}
	srv := NewServer(t, Chunked(Reply(msg), 2, 3), Chunked(Reply(msg), 2, 3))
	res, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(streamBody))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type = %q", ct)
	}
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if want := EncodeStream("m", 1, msg, 2, 3); !bytes.Equal(body, want) {
		t.Errorf("body =\n%s\nwant EncodeStream's\n%s", body, want)
	}
	data, _ := events(t, bytes.NewReader(body))
	if data[len(data)-1] != "[DONE]" {
		t.Fatalf("last event %q, want [DONE]", data[len(data)-1])
	}
	var content strings.Builder
	args := map[int]string{}
	var order []int // the index of each tool call delta
	var finish string
	for i, d := range data[:len(data)-1] {
		var c wireChunk
		if err := json.Unmarshal([]byte(d), &c); err != nil || c.Object != "chat.completion.chunk" || len(c.Choices) != 1 {
			t.Fatalf("event %d = %s (%v)", i, d, err)
		}
		ch := c.Choices[0]
		if (i == 0) != (ch.Delta.Role == "assistant") {
			t.Errorf("event %d has role %q; only the first carries it", i, ch.Delta.Role)
		}
		if ch.Delta.Content != nil {
			content.WriteString(*ch.Delta.Content)
		}
		for _, tc := range ch.Delta.ToolCalls {
			order = append(order, tc.Index)
			args[tc.Index] += tc.Function.Arguments
			if (tc.ID != "") != (tc.Function.Name != "") {
				t.Errorf("event %d: id %q and name %q must come together", i, tc.ID, tc.Function.Name)
			}
		}
		if ch.FinishReason != nil {
			if i != len(data)-2 {
				t.Errorf("finish_reason on event %d of %d", i, len(data)-1)
			}
			finish = *ch.FinishReason
		}
	}
	if content.String() != msg.Content || args[0] != msg.ToolCalls[0].Arguments || args[1] != msg.ToolCalls[1].Arguments || finish != "tool_calls" {
		t.Errorf("reassembled %q, %v, finish %q", content.String(), args, finish)
	}
	if want := []int{0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0}; !reflect.DeepEqual(order, want) {
		t.Errorf("tool call deltas by index %v, want the calls interleaved %v", order, want)
	}

	// The same step to a request that does not stream is one completion.
	status, got := post(t, srv.URL()+"/chat/completions", `{"model":"m","messages":[]}`)
	if status != 200 || !strings.Contains(got, `"object":"chat.completion"`) {
		t.Errorf("non-stream answer = %d %s", status, got)
	}
	if reqs := srv.Requests(); !reqs[0].Stream || reqs[1].Stream {
		t.Errorf("recorded Stream = %v, %v; want true, false", reqs[0].Stream, reqs[1].Stream)
	}
}

func TestServerStreamSteps(t *testing.T) {
	tests := []struct {
		name       string
		step       Step
		wantType   string
		wantEvents int  // data lines, [DONE] included
		wantCut    bool // the body ends early
	}{
		{"fail after two chunks", FailAfter(2, Chunked(Text("abcdef"), 1)), "text/event-stream", 2, true},
		{"fail after more chunks than there are", FailAfter(50, Text("abc")), "text/event-stream", 2, true},
		{"fail before any chunk", FailAfter(0, Text("abc")), "text/event-stream", 0, true},
		{"unstreamed", Unstreamed(Text("abc")), "application/json", 0, false},
		{"pieces", Pieces("a", "", "bc"), "text/event-stream", 5, false},
		{"a func step takes the chunking around it", Chunked(Func(func(Request) Step { return Text("abcdef") }), 3), "text/event-stream", 4, false},
		{"an empty reply", Text(""), "text/event-stream", 2, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := NewServer(t, tc.step)
			res, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(streamBody))
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			if ct := res.Header.Get("Content-Type"); ct != tc.wantType {
				t.Fatalf("Content-Type = %q, want %q", ct, tc.wantType)
			}
			if tc.wantType != "text/event-stream" {
				return
			}
			data, err := events(t, res.Body)
			if tc.wantCut != errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("read error %v; want the body cut: %v", err, tc.wantCut)
			}
			if len(data) != tc.wantEvents {
				t.Errorf("%d events %q, want %d", len(data), data, tc.wantEvents)
			}
		})
	}
}

func TestServerPacedStreamAbortedByClient(t *testing.T) {
	srv := NewServer(t, Paced(time.Hour, Chunked(Text("abcdef"), 2)))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL()+"/chat/completions", strings.NewReader(streamBody))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	line, err := bufio.NewReader(res.Body).ReadString('\n')
	if err != nil || !strings.Contains(line, `"content":"ab"`) {
		t.Fatalf("first line %q, %v", line, err)
	}
	cancel()
	select {
	case <-srv.Aborted():
	case <-time.After(2 * time.Second):
		t.Fatal("the server did not see the client go away")
	}
}

func TestProviderStream(t *testing.T) {
	calls := []llm.ToolCall{Call("c1", "read_file", `{"path":"a"}`)}
	tests := []struct {
		name       string
		step       Step
		wantPieces []string
		wantErr    llm.ErrorKind
	}{
		{name: "chunked", step: Chunked(Text("abcdefg"), 2, 3), wantPieces: []string{"ab", "cde", "fg"}},
		{name: "default chunks", step: Text("abcdefghij"), wantPieces: []string{"abcd", "efgh", "ij"}},
		{name: "pieces as given", step: Pieces("<think>", "x</think>", "y"), wantPieces: []string{"<think>", "x</think>", "y"}},
		{name: "calls only", step: Calls(calls...)},
		{name: "text and calls", step: Chunked(Reply(llm.Message{Content: "ok", ToolCalls: calls}), 1), wantPieces: []string{"o", "k"}},
		{name: "unstreamed", step: Unstreamed(Text("abcdefg")), wantPieces: []string{"abcdefg"}},
		{name: "fails after two chunks", step: FailAfter(2, Chunked(Text("abcdef"), 2)), wantPieces: []string{"ab", "cd"}, wantErr: llm.KindUnreachable},
		{name: "fails after the last chunk", step: FailAfter(9, Text("ab")), wantPieces: []string{"ab"}, wantErr: llm.KindUnreachable},
		{name: "status", step: Status(503, "busy"), wantErr: llm.KindStatus},
		{name: "reset", step: Reset(), wantErr: llm.KindUnreachable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := NewProvider(t, tc.step, tc.step)
			want, wantErr := p.Complete(context.Background(), llm.Request{})
			var pieces []string
			got, err := p.Stream(context.Background(), llm.Request{}, func(s string) { pieces = append(pieces, s) })
			if !reflect.DeepEqual(pieces, tc.wantPieces) {
				t.Errorf("pieces = %q, want %q", pieces, tc.wantPieces)
			}
			if tc.wantErr != "" {
				var le *llm.Error
				if !errors.As(err, &le) || le.Kind != tc.wantErr {
					t.Errorf("err = %v, want a %s *llm.Error", err, tc.wantErr)
				}
				return
			}
			if err != nil || wantErr != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("Stream = %+v, %v; Complete = %+v, %v", got, err, want, wantErr)
			}
			if reqs := p.Requests(); reqs[0].Stream || !reqs[1].Stream {
				t.Errorf("recorded Stream = %v, %v; want false, true", reqs[0].Stream, reqs[1].Stream)
			}
		})
	}
}

func TestProviderStreamPaceHonorsContext(t *testing.T) {
	p := NewProvider(t, Paced(time.Hour, Chunked(Text("abcd"), 1)))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var pieces []string
	_, err := p.Stream(ctx, llm.Request{}, func(s string) {
		pieces = append(pieces, s)
		cancel()
	})
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.KindCanceled || !reflect.DeepEqual(pieces, []string{"a"}) {
		t.Fatalf("err = %v after %q, want canceled after one piece", err, pieces)
	}

	p = NewProvider(t, Paced(30*time.Millisecond, Chunked(Text("abc"), 1)))
	start := time.Now()
	if _, err := p.Stream(context.Background(), llm.Request{}, func(string) {}); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 60*time.Millisecond {
		t.Errorf("three paced chunks took %v, want at least two pauses of 30ms", took)
	}
}
