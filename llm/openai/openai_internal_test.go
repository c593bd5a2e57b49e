package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ailab/ai-lab/llm"
	"io"
	"net"
	"net/url"
	"os"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	sdk "github.com/openai/openai-go/v3"
)

func TestNetworkReason(t *testing.T) {
	op := func(err error) error {
		return &url.Error{Op: "Post", URL: "http://x/v1/chat/completions", Err: &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: err}}}
	}
	tests := []struct {
		name      string
		err       error
		reason    string
		retryable bool
	}{
		{"refused", op(syscall.ECONNREFUSED), "connection refused", false},
		{"reset is retried", op(syscall.ECONNRESET), "connection reset", true},
		{"eof is retried", &url.Error{Op: "Post", URL: "u", Err: io.EOF}, "connection closed before an answer", true},
		{"unknown host", &url.Error{Op: "Post", URL: "u", Err: &net.OpError{Op: "dial", Err: &net.DNSError{Name: "llm.invalid", Err: "no such host"}}}, "unknown host llm.invalid", false},
		{"no route", op(syscall.EHOSTUNREACH), "no route to host", false},
		{"other net error", &url.Error{Op: "Post", URL: "u", Err: errors.New("tls: bad certificate")}, "network error", true},
		{"not a network error", errors.New("decode: unexpected token"), "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reason, retryable := networkReason(tc.err)
			if reason != tc.reason || retryable != tc.retryable {
				t.Errorf("networkReason = %q, %v; want %q, %v", reason, retryable, tc.reason, tc.retryable)
			}
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	tests := []struct {
		name string
		v    string
		want time.Duration
	}{
		{"absent", "", 0},
		{"seconds", "3", 3 * time.Second},
		{"capped", "3600", maxRetryAfter},
		{"past date", "Mon, 02 Jan 2006 15:04:05 GMT", 0},
		{"garbage", "soon", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseRetryAfter(tc.v); got != tc.want {
				t.Errorf("parseRetryAfter(%q) = %v, want %v", tc.v, got, tc.want)
			}
		})
	}
}

func TestExponentialBackoff(t *testing.T) {
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second}
	for i, w := range want {
		if got := exponentialBackoff(i + 1); got != w {
			t.Errorf("exponentialBackoff(%d) = %v, want %v", i+1, got, w)
		}
	}
}

func TestServerMessage(t *testing.T) {
	tests := []struct {
		name string
		body string
		want string
	}{
		{"openai shape", `{"error":{"message":"Rate limit reached","type":"requests"}}`, "Rate limit reached"},
		{"string error", `{"error":"model is loading"}`, "model is loading"},
		{"message field", `{"message":"busy"}`, "busy"},
		{"detail field", `{"detail":"Not Found"}`, "Not Found"},
		{"plain text over lines", "upstream\n\tconnect error", "upstream connect error"},
		{"long text is cut", strings.Repeat("a", 300), strings.Repeat("a", 200) + "…"},
		{"empty", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := serverMessage([]byte(tc.body)); got != tc.want {
				t.Errorf("serverMessage(%q) = %q, want %q", tc.body, got, tc.want)
			}
		})
	}
}

func TestFromCompletion(t *testing.T) {
	tests := []struct {
		name string
		body string
		want llm.Message
	}{
		{"text", `{"choices":[{"message":{"role":"assistant","content":"hi"}}]}`, llm.Message{Role: llm.RoleAssistant, Content: "hi"}},
		{"thinking block is dropped", `{"choices":[{"message":{"role":"assistant","content":"<think>\nLet me search the web.\n</think>\n\nGo 1.26 is out."}}]}`, llm.Message{Role: llm.RoleAssistant, Content: "Go 1.26 is out."}},
		{"unclosed thinking block is kept", `{"choices":[{"message":{"role":"assistant","content":"<think>hmm"}}]}`, llm.Message{Role: llm.RoleAssistant, Content: "<think>hmm"}},
		{"think tag later in the answer is kept", `{"choices":[{"message":{"role":"assistant","content":"Use <think>x</think> tags."}}]}`, llm.Message{Role: llm.RoleAssistant, Content: "Use <think>x</think> tags."}},
		{"refusal", `{"choices":[{"message":{"role":"assistant","content":"","refusal":"I can't"}}]}`, llm.Message{Role: llm.RoleAssistant, Content: "I can't"}},
		{"missing call id gets one", `{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"type":"function","function":{"name":"read_file","arguments":"{}"}}]}}]}`,
			llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "read_file", Arguments: "{}"}}}},
		{"custom call is ignored", `{"choices":[{"message":{"role":"assistant","tool_calls":[{"id":"x","type":"custom","custom":{"name":"c","input":"i"}}]}}]}`,
			llm.Message{Role: llm.RoleAssistant}},
		{"legacy function_call", `{"choices":[{"message":{"role":"assistant","function_call":{"name":"list_directory","arguments":"{\"path\":\".\"}"}}}]}`,
			llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "list_directory", Arguments: `{"path":"."}`}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c sdk.ChatCompletion
			if err := json.Unmarshal([]byte(tc.body), &c); err != nil {
				t.Fatal(err)
			}
			got, err := fromCompletion(&c)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// FuzzFromCompletion feeds arbitrary reply bodies through the SDK's decoder and
// our conversion: nothing may panic, and every tool call must be answerable.
func FuzzFromCompletion(f *testing.F) {
	f.Add(`{"choices":[{"message":{"role":"assistant","content":"hi"}}]}`)
	f.Add(`{"choices":[{"message":{"tool_calls":[{"id":"","type":"function","function":{"name":"a","arguments":"{"}}]}}]}`)
	f.Add(`{"choices":[]}`)
	f.Add(`{"choices":[{"message":{"function_call":{"name":"x","arguments":null}}}]}`)
	f.Add(`null`)
	f.Fuzz(func(t *testing.T, body string) {
		var c sdk.ChatCompletion
		if json.Unmarshal([]byte(body), &c) != nil {
			return
		}
		msg, err := fromCompletion(&c)
		if err != nil {
			if err.Kind != llm.KindBadResponse || err.Error() == "" {
				t.Fatalf("unexpected error %#v", err)
			}
			return
		}
		if msg.Role != llm.RoleAssistant {
			t.Fatalf("role = %q", msg.Role)
		}
		for _, tc := range msg.ToolCalls {
			if tc.ID == "" || tc.Name == "" {
				t.Fatalf("tool call without id or name: %+v", tc)
			}
		}
	})
}

// FuzzServerMessage: whatever a server answers, the user's sentence gets one short line.
func FuzzServerMessage(f *testing.F) {
	f.Add(`{"error":{"message":"x"}}`)
	f.Add(`{"error":"y"}`)
	f.Add("plain\ntext")
	f.Add(`{"error":{"message":"` + strings.Repeat("é", 300) + `"}}`)
	f.Fuzz(func(t *testing.T, body string) {
		got := serverMessage([]byte(body))
		if strings.ContainsAny(got, "\n\r\t") {
			t.Fatalf("message has a line break: %q", got)
		}
		if n := utf8.RuneCountInString(got); n > 201 {
			t.Fatalf("message has %d runes", n)
		}
	})
}

func BenchmarkFromCompletion(b *testing.B) {
	var calls []string
	for i := range 8 {
		calls = append(calls, fmt.Sprintf(`{"id":"call_%d","type":"function","function":{"name":"write_file","arguments":"{\"path\":\"f%d.txt\",\"content\":\"%s\"}"}}`, i, i, strings.Repeat("x", 200)))
	}
	body := []byte(`{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":"ok","tool_calls":[` + strings.Join(calls, ",") + `]}}]}`)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var c sdk.ChatCompletion
		if err := json.Unmarshal(body, &c); err != nil {
			b.Fatal(err)
		}
		if _, err := fromCompletion(&c); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeRequest measures the body of one round of a 150-message
// conversation: cold (every message encoded) and warm (the encodings of the
// messages sent before are kept, as in a session's next round).
func BenchmarkEncodeRequest(b *testing.B) {
	req := llm.Request{Tools: []llm.ToolSpec{{Name: "write_file", Parameters: map[string]any{"type": "object"}}}}
	for i := range 50 {
		req.Messages = append(req.Messages,
			llm.Message{Role: llm.RoleUser, Content: strings.Repeat("word ", 40)},
			llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: fmt.Sprint("call_", i), Name: "write_file", Arguments: `{"path":"a"}`}}},
			llm.Message{Role: llm.RoleTool, ToolCallID: fmt.Sprint("call_", i), Content: `{"execution_id":"write_file_1763769600123_0a1b2c3d","result":{}}`},
		)
	}
	for _, warm := range []bool{false, true} {
		b.Run(fmt.Sprintf("warm=%v", warm), func(b *testing.B) {
			var cache *wireCache
			if warm {
				cache = &wireCache{}
			}
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				body, err := encodeRequest("m", req, cache, false)
				if err != nil {
					b.Fatal(err)
				}
				n = len(body)
			}
			b.SetBytes(int64(n))
			b.ReportMetric(float64(len(req.Messages)), "msgs/op")
		})
	}
}

// TestEncodeRequestWireFormat pins the body the model gets, and that the
// encoding cache never serves one message's encoding for another that differs
// only in a tool_call_id or a call.
func TestEncodeRequestWireFormat(t *testing.T) {
	cache := &wireCache{}
	req := llm.Request{
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "sys <b>"},
			{Role: llm.RoleUser, Content: "hi"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "read_file", Arguments: `{"path":"a"}`}}},
			{Role: llm.RoleTool, ToolCallID: "call_1", Content: "same"},
			{Role: llm.RoleTool, ToolCallID: "call_2", Content: "same"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "read_file", Arguments: `{"path":"b"}`}}},
			{Role: llm.RoleAssistant, Content: "done", Origin: llm.OriginRefused},
		},
		Tools: []llm.ToolSpec{{Name: "read_file", Description: "reads", Parameters: map[string]any{"type": "object"}}, {Name: "x"}},
	}
	want := `{"model":"m","messages":[{"role":"system","content":"sys <b>"},{"role":"user","content":"hi"},` +
		`{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a\"}"}}]},` +
		`{"role":"tool","content":"same","tool_call_id":"call_1"},{"role":"tool","content":"same","tool_call_id":"call_2"},` +
		`{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"b\"}"}}]},` +
		`{"role":"assistant","content":"done"}],` +
		`"tools":[{"type":"function","function":{"name":"read_file","description":"reads","parameters":{"type":"object"}}},` +
		`{"type":"function","function":{"name":"x","parameters":{"properties":{},"type":"object"}}}]}`
	for round := range 2 { // the second round comes from the cache
		got, err := encodeRequest("m", req, cache, false)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Fatalf("round %d:\n got %s\nwant %s", round, got, want)
		}
	}
	if _, err := encodeRequest("m", llm.Request{Messages: []llm.Message{{Role: "robot"}}}, cache, false); err == nil {
		t.Error("an unknown role was encoded")
	}
}

// TestWireCacheSeesCallsChangedInPlace: a message is looked up by where its
// strings live, and a history whose tool call is rewritten in its own slice (the
// message's strings and the slice's address unchanged) must be encoded anew, not
// served the encoding of the call it replaced.
func TestWireCacheSeesCallsChangedInPlace(t *testing.T) {
	cache := &wireCache{}
	msgs := []llm.Message{
		{Role: llm.RoleUser, Content: "write it"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "write_file", Arguments: `{"path":"a"}`}}},
	}
	body := func() string {
		b, err := encodeRequest("m", llm.Request{Messages: msgs}, cache, false)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	first := body()
	if !strings.Contains(first, `{\"path\":\"a\"}`) {
		t.Fatalf("first body %s", first)
	}
	msgs[1].ToolCalls[0].Arguments = `{"path":"b"}`
	if got := body(); !strings.Contains(got, `{\"path\":\"b\"}`) || strings.Contains(got, `{\"path\":\"a\"}`) {
		t.Errorf("after the call was changed in place, the body is %s", got)
	}
	msgs[1].ToolCalls = append(msgs[1].ToolCalls[:1:1], llm.ToolCall{ID: "call_2", Name: "read_file", Arguments: `{}`})
	if got := body(); !strings.Contains(got, `"call_2"`) {
		t.Errorf("after a call was added, the body is %s", got)
	}
}

// FuzzWireCache plays rounds of a conversation whose messages are kept, edited
// in place, replaced by equal copies or by new text, and checks that the cached
// body of every round is the body encoded from scratch.
func FuzzWireCache(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{3, 3, 3, 7, 7, 1, 200, 14, 99})
	f.Fuzz(func(t *testing.T, ops []byte) {
		cache := &wireCache{}
		texts := []string{"a", "b", "a longer text", `{"path":"x"}`, ""}
		var msgs []llm.Message
		for i, op := range ops {
			text := texts[int(op>>4)%len(texts)]
			switch op % 6 {
			case 0: // a new message
				msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: text})
			case 1: // a new tool call and its result
				id := fmt.Sprint("call_", i)
				msgs = append(msgs,
					llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: id, Name: "write_file", Arguments: text}}},
					llm.Message{Role: llm.RoleTool, ToolCallID: id, Content: text})
			case 2: // a call's arguments rewritten in place
				for j := range msgs {
					if len(msgs[j].ToolCalls) > 0 {
						msgs[j].ToolCalls[0].Arguments = strings.Clone(text + fmt.Sprint(i))
						break
					}
				}
			case 3: // a message replaced by an equal copy at another address
				if len(msgs) > 0 {
					j := i % len(msgs)
					msgs[j].Content = strings.Clone(msgs[j].Content)
				}
			case 4: // a message's text replaced
				if len(msgs) > 0 {
					msgs[i%len(msgs)].Content = strings.Clone(text + "!")
				}
			case 5: // the oldest message left out, as the window does
				if len(msgs) > 0 {
					msgs = msgs[1:]
				}
			}
			req := llm.Request{Messages: msgs}
			got, err := encodeRequest("m", req, cache, false)
			if err != nil {
				t.Fatal(err)
			}
			want, err := encodeRequest("m", req, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("op %d: cached body\n%s\nwant\n%s", i, got, want)
			}
		}
	})
}

// TestWireCacheStaysBounded: every new message adds an entry by content and
// one by address, and the one by address keeps the message's strings alive; all
// that the cache keeps counts against its bound, however many rounds are sent.
// A system prompt made anew every round (as the server's is) is found by
// content and adds nothing.
func TestWireCacheStaysBounded(t *testing.T) {
	cache := &wireCache{}
	prompt := strings.Repeat("You are a careful assistant. ", 40)
	for i := range 2 * maxCacheBytes / (2 * len(prompt)) {
		req := llm.Request{Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: strings.Clone(prompt)},
			{Role: llm.RoleUser, Content: fmt.Sprint(i, prompt)},
		}}
		if _, err := encodeRequest("m", req, cache, false); err != nil {
			t.Fatal(err)
		}
		if i%256 != 0 {
			continue
		}
		held := 0
		for _, raw := range cache.byKey {
			held += len(raw)
		}
		for _, e := range cache.byRef {
			held += messageBytes(e.keep)
		}
		if held > maxCacheBytes {
			t.Fatalf("after %d rounds the cache holds %d bytes, over its bound of %d", i+1, held, maxCacheBytes)
		}
	}
	if n := len(cache.byRef); n > maxCacheBytes/(2*len(prompt)) {
		t.Errorf("%d entries by address, more than the new messages that fit", n)
	}
}

// TestEncodeRequestSizesTheBodyByItsCachedTools: once the tools' encoding is
// cached, the body is allocated at about its size, not at a guess of a
// kilobyte a tool (a dozen tools made every request's buffer 12 KB too large).
func TestEncodeRequestSizesTheBodyByItsCachedTools(t *testing.T) {
	cache := &wireCache{}
	var tools []llm.ToolSpec
	for i := range 12 {
		tools = append(tools, llm.ToolSpec{Name: fmt.Sprint("tool_", i), Parameters: map[string]any{"type": "object"}})
	}
	req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}, Tools: tools}
	for round := range 2 {
		body, err := encodeRequest("m", req, cache, false)
		if err != nil {
			t.Fatal(err)
		}
		if slack := cap(body) - len(body); round == 1 && slack > 512 {
			t.Errorf("the body of %d bytes was allocated with %d bytes to spare", len(body), slack)
		}
	}
}
