package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/ailab/ai-lab/llm"
)

// DefaultChunkRunes is how many runes of content or arguments a streamed
// chunk carries when the step does not say (about one token of English).
const DefaultChunkRunes = 4

// streaming is how a step's reply is streamed when the request asks for it.
type streaming struct {
	sizes      []int    // piece sizes in runes, used in turn over and over
	pieces     []string // the content's pieces as given by Pieces
	pace       time.Duration
	failAfter  int // chunks sent before the connection drops, when fails
	fails      bool
	unstreamed bool
}

// inherit takes the settings of outer, a Func step, that s leaves unset.
func (s *streaming) inherit(outer streaming) {
	if s.sizes == nil {
		s.sizes = outer.sizes
	}
	if s.pace == 0 {
		s.pace = outer.pace
	}
	if !s.fails {
		s.failAfter, s.fails = outer.failAfter, outer.fails
	}
	s.unstreamed = s.unstreamed || outer.unstreamed
}

// Pieces answers a text message whose content is pieces joined; a stream
// request gets one chunk per piece, so a test can put chunk boundaries
// exactly where it wants them (inside "<think>", say).
func Pieces(pieces ...string) Step {
	var content bytes.Buffer
	for _, p := range pieces {
		content.WriteString(p)
	}
	s := Text(content.String())
	s.stream.pieces = append([]string(nil), pieces...)
	return s
}

// Chunked streams step's reply with its content and each tool call's arguments
// cut into pieces of sizes runes (never inside a character, as real servers
// hold back incomplete UTF-8), the sizes used in turn over and over; a size
// below 1 counts as 1. Without Chunked a piece is DefaultChunkRunes runes.
//
// A streamed reply is the OpenAI sequence of chat.completion.chunk events:
// the content pieces, then one chunk per tool call with its index, id, name
// and first piece of arguments, then the remaining argument pieces of all
// calls interleaved by index (the hardest order the API allows), then a chunk
// with the finish_reason, then "data: [DONE]". The first chunk also carries
// the role.
func Chunked(step Step, sizes ...int) Step {
	step.stream.sizes = append([]int{}, sizes...)
	return step
}

// Paced pauses d before every chunk of step's streamed reply but the first,
// so a test can act while a reply is being written. The server stops early
// when its client goes away (Aborted sees it); the Provider when ctx ends.
func Paced(d time.Duration, step Step) Step {
	step.stream.pace = d
	return step
}

// FailAfter streams the first n chunks of step's reply and then drops the
// connection without ending the response, as a crashing server does: the
// client sees the body end early. The Provider delivers the text of n chunks
// and returns an *llm.Error of kind llm.KindUnreachable. n may exceed the
// chunks of the reply; then only "data: [DONE]" is missing. A request that
// does not stream gets the step's whole reply.
func FailAfter(n int, step Step) Step {
	step.stream.failAfter, step.stream.fails = max(n, 0), true
	return step
}

// Unstreamed answers a stream request with one JSON chat completion, as a
// server that cannot stream does when it ignores "stream": true. The Provider
// delivers the content in one piece.
func Unstreamed(step Step) Step {
	step.stream.unstreamed = true
	return step
}

// A chunk is one event of a streamed reply.
type chunk struct {
	text   string // a piece of content
	call   int    // the tool call this chunk carries a piece of, or -1
	head   bool   // the call's first chunk, which names it
	args   string // a piece of the call's arguments
	finish string // the finish_reason, on the last chunk only
}

// chunks cuts msg into the events that stream it.
func (s streaming) chunks(msg llm.Message) []chunk {
	var out []chunk
	content := s.pieces
	if content == nil {
		content = cut(msg.Content, s.sizes)
	}
	for _, p := range content {
		out = append(out, chunk{text: p, call: -1})
	}
	args := make([][]string, len(msg.ToolCalls))
	for i, c := range msg.ToolCalls {
		args[i] = cut(c.Arguments, s.sizes)
		if len(args[i]) == 0 {
			args[i] = []string{""}
		}
		out = append(out, chunk{call: i, head: true, args: args[i][0]})
	}
	for k, more := 1, true; more; k++ {
		more = false
		for i := range args {
			if k < len(args[i]) {
				out = append(out, chunk{call: i, args: args[i][k]})
				more = true
			}
		}
	}
	finish := "stop"
	if len(msg.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	return append(out, chunk{call: -1, finish: finish})
}

// cut splits s into pieces of sizes runes, used in turn.
func cut(s string, sizes []int) []string {
	if len(sizes) == 0 {
		sizes = []int{DefaultChunkRunes}
	}
	var out []string
	for i := 0; s != ""; i++ {
		n, end := max(sizes[i%len(sizes)], 1), 0
		for r := 0; r < n && end < len(s); r++ {
			_, w := utf8.DecodeRuneInString(s[end:])
			end += w
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

// event encodes c as the "data:" event of completion n, the first event of
// its reply when first.
func (c chunk) event(model string, n int, msg llm.Message, first bool) []byte {
	delta := map[string]any{}
	if first {
		delta["role"] = "assistant"
	}
	switch {
	case c.finish != "":
	case c.call < 0:
		delta["content"] = c.text
	case c.head:
		tc := msg.ToolCalls[c.call]
		delta["tool_calls"] = []any{map[string]any{
			"index": c.call, "id": tc.ID, "type": "function",
			"function": map[string]any{"name": tc.Name, "arguments": c.args},
		}}
	default:
		delta["tool_calls"] = []any{map[string]any{"index": c.call, "function": map[string]any{"arguments": c.args}}}
	}
	if first && len(delta) == 1 {
		delta["content"] = "" // OpenAI's first chunk of an empty reply
	}
	var finish any
	if c.finish != "" {
		finish = c.finish
	}
	body, err := json.Marshal(map[string]any{
		"id":      fmt.Sprintf("chatcmpl-llmtest-%d", n),
		"object":  "chat.completion.chunk",
		"created": 1763769600,
		"model":   model,
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
	})
	if err != nil {
		panic(err) // strings, ints and maps of them always encode
	}
	return fmt.Appendf(nil, "data: %s\n\n", body)
}

// doneEvent ends every complete stream.
var doneEvent = []byte("data: [DONE]\n\n")

// EncodeStream returns the text/event-stream body that streams msg as
// completion n, cut as Chunked(Reply(msg), sizes...) cuts it, ending with
// "data: [DONE]".
func EncodeStream(model string, n int, msg llm.Message, sizes ...int) []byte {
	var out []byte
	for i, c := range (streaming{sizes: sizes}).chunks(msg) {
		out = append(out, c.event(model, n, msg, i == 0)...)
	}
	return append(out, doneEvent...)
}
