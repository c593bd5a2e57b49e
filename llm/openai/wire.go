package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"unsafe"

	"github.com/ailab/ai-lab/llm"
)

// The request body of a chat completion is encoded here rather than by the
// SDK: the SDK's encoder re-encodes every nested value through MarshalJSON and
// took about 2.5 ms for a 200 KB conversation, most of a long session's turn.
// A conversation is re-sent every round with one or two new messages, so each
// message's encoding is also kept (wireCache) and the body is mostly a copy.

type wireMessage struct {
	Role       string         `json:"role"`
	Content    *string        `json:"content,omitempty"`
	ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type wireToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type wireTool struct {
	Type     string         `json:"type"`
	Function wireDefinition `json:"function"`
}

type wireDefinition struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  map[string]any `json:"parameters"`
}

// encodeRequest encodes req as an OpenAI chat completions body for model,
// asking for server-sent events when stream is set. The body is assembled by
// hand around the messages' encodings: encoding/json would validate and
// compact every one of them again.
func encodeRequest(model string, req llm.Request, cache *wireCache, stream bool) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(cache.size(req))
	buf.WriteString(`{"model":`)
	if err := writeJSON(&buf, model); err != nil {
		return nil, err
	}
	if stream {
		// Ahead of the messages: the SDK sets "stream" again by searching the
		// body for the key, and finds it here without scanning the conversation.
		buf.WriteString(`,"stream":true`)
	}
	buf.WriteString(`,"messages":[`)
	for i, m := range req.Messages {
		raw, err := cache.encode(m)
		if err != nil {
			return nil, &llm.Error{Kind: llm.KindBadRequest, Message: fmt.Sprintf("message %d: %v", i, err)}
		}
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(raw)
	}
	buf.WriteByte(']')
	if len(req.Tools) > 0 {
		tools, err := cache.tools(req.Tools)
		if err != nil {
			return nil, &llm.Error{Kind: llm.KindBadRequest, Message: "the tools could not be encoded: " + err.Error()}
		}
		buf.WriteString(`,"tools":`)
		buf.Write(tools)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// writeJSON appends v's JSON to buf without HTML escaping or a newline.
func writeJSON(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // Encode's newline
	return nil
}

// encodeMessage encodes one message in the wire format.
func encodeMessage(m llm.Message) (json.RawMessage, error) {
	w := wireMessage{Role: m.Role}
	switch m.Role {
	case llm.RoleSystem, llm.RoleUser:
		w.Content = &m.Content
	case llm.RoleTool:
		w.Content, w.ToolCallID = &m.Content, m.ToolCallID
	case llm.RoleAssistant:
		// A turn that only calls tools carries no content, as OpenAI's own replies do.
		if m.Content != "" || len(m.ToolCalls) == 0 {
			w.Content = &m.Content
		}
		for _, c := range m.ToolCalls {
			w.ToolCalls = append(w.ToolCalls, wireToolCall{ID: c.ID, Type: "function", Function: wireFunction{Name: c.Name, Arguments: c.Arguments}})
		}
	default:
		return nil, fmt.Errorf("role %q is not one the model API knows", m.Role)
	}
	var buf bytes.Buffer
	if err := writeJSON(&buf, w); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// A wireCache keeps the encodings of recently sent messages. It is bounded:
// past maxCacheBytes it starts over, which costs one round of re-encoding.
// It also keeps the encoding of the last tool list: a server passes the same
// list (the same slice) every round until its tools change.
type wireCache struct {
	mu    sync.Mutex
	byKey map[wireKey]json.RawMessage
	byRef map[refKey]refEntry
	bytes int

	toolSpecs *llm.ToolSpec // the first element of the list lastTools encodes
	toolCount int
	lastTools []byte
}

// tools returns the encoding of specs.
func (c *wireCache) tools(specs []llm.ToolSpec) ([]byte, error) {
	if c != nil {
		c.mu.Lock()
		if c.toolSpecs == &specs[0] && c.toolCount == len(specs) {
			b := c.lastTools
			c.mu.Unlock()
			return b, nil
		}
		c.mu.Unlock()
	}
	tools := make([]wireTool, 0, len(specs))
	for _, t := range specs {
		schema := t.Parameters
		if schema == nil {
			// An explicit empty object schema is valid everywhere; a missing one may not be.
			schema = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		tools = append(tools, wireTool{Type: "function", Function: wireDefinition{Name: t.Name, Description: t.Description, Parameters: schema}})
	}
	var buf bytes.Buffer
	if err := writeJSON(&buf, tools); err != nil {
		return nil, err
	}
	if c != nil {
		c.mu.Lock()
		c.toolSpecs, c.toolCount, c.lastTools = &specs[0], len(specs), buf.Bytes()
		c.mu.Unlock()
	}
	return buf.Bytes(), nil
}

// wireKey identifies a message by everything its encoding depends on: a message
// not found by address (a text made anew, an equal copy) is found by content.
type wireKey struct {
	role, content, toolCallID, calls string
}

const maxCacheBytes = 32 << 20

func keyOf(m llm.Message) wireKey {
	k := wireKey{role: m.Role, content: m.Content, toolCallID: m.ToolCallID}
	if len(m.ToolCalls) > 0 {
		// Each part is prefixed by its length, so no two lists of calls share
		// a key; strconv instead of fmt, which was a fifth of a cached encode.
		var b []byte
		for _, c := range m.ToolCalls {
			for _, part := range [...]string{c.ID, c.Name, string(c.Arguments)} {
				b = strconv.AppendInt(b, int64(len(part)), 10)
				b = append(b, ':')
				b = append(b, part...)
			}
		}
		k.calls = string(b)
	}
	return k
}

func (c *wireCache) encode(m llm.Message) (json.RawMessage, error) {
	if c == nil {
		return encodeMessage(m)
	}
	ref := refOf(m)
	c.mu.Lock()
	e, ok := c.byRef[ref]
	c.mu.Unlock()
	if ok && sameCalls(m.ToolCalls, e.keep.ToolCalls) {
		return e.raw, nil
	}
	k := keyOf(m)
	c.mu.Lock()
	raw, ok := c.byKey[k]
	c.mu.Unlock()
	if ok {
		// Found by content at another address: most likely a text made anew
		// every round (the system prompt), whose address will not come
		// again, so it is not kept by this one.
		return raw, nil
	}
	raw, err := encodeMessage(m)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	// An entry by address keeps its message's strings: both count against
	// maxCacheBytes.
	kept := messageBytes(m)
	if c.byKey == nil || c.bytes+len(raw)+kept > maxCacheBytes {
		c.byKey, c.byRef, c.bytes = map[wireKey]json.RawMessage{}, map[refKey]refEntry{}, 0
	}
	c.byKey[k] = raw
	// The calls are copied: the entry must hold their strings even if the
	// caller later changes its slice in place.
	m.ToolCalls = slices.Clone(m.ToolCalls)
	c.byRef[ref] = refEntry{raw: raw, keep: m}
	c.bytes += len(raw) + kept
	return raw, nil
}

// The messages of a conversation are the same values round after round: the
// history keeps each message once and every request carries it again. So a
// message is first looked up by where its strings live (refKey), which costs a
// few words per message, and only then by what they hold (wireKey), which
// hashes and compares every byte of them, a tool call's arguments and a long
// tool result included: with a long history that was most of a cached
// request's encoding.
//
// Looking strings up by address is sound only while nothing else can live at
// that address: each entry keeps the message it was made for (refEntry.keep),
// so its strings stay allocated while the entry exists, Go never moves them, and
// a string's bytes never change.

// A strRef is where a string's bytes live and how many there are.
type strRef struct {
	p *byte
	n int
}

func refString(s string) strRef {
	if len(s) == 0 {
		return strRef{}
	}
	return strRef{unsafe.StringData(s), len(s)}
}

// A refKey identifies a message by its role and the addresses of its strings
// and of its tool calls. A message's calls are compared again on a hit (see
// sameCalls): the slice may have been changed in place.
type refKey struct {
	role                string
	content, toolCallID strRef
	calls               *llm.ToolCall
	ncalls              int
}

// A refEntry is a message's encoding and the message itself, its calls copied,
// kept so that its strings outlive the entry (see above).
type refEntry struct {
	raw  json.RawMessage
	keep llm.Message
}

// refOf returns m's refKey.
func refOf(m llm.Message) refKey {
	k := refKey{role: m.Role, content: refString(m.Content), toolCallID: refString(m.ToolCallID), ncalls: len(m.ToolCalls)}
	if len(m.ToolCalls) > 0 {
		k.calls = &m.ToolCalls[0]
	}
	return k
}

// sameCalls reports whether calls hold the very strings of kept.
func sameCalls(calls, kept []llm.ToolCall) bool {
	if len(calls) != len(kept) {
		return false
	}
	for i, c := range calls {
		k := kept[i]
		if refString(c.ID) != refString(k.ID) || refString(c.Name) != refString(k.Name) || refString(c.Arguments) != refString(k.Arguments) {
			return false
		}
	}
	return true
}

// messageBytes is what m's strings hold.
func messageBytes(m llm.Message) int {
	n := len(m.Role) + len(m.Content) + len(m.ToolCallID)
	for _, c := range m.ToolCalls {
		n += len(c.ID) + len(c.Name) + len(c.Arguments)
	}
	return n
}

// size estimates the encoded size of req, to allocate the body once.
func (c *wireCache) size(req llm.Request) int {
	n := 256
	for _, m := range req.Messages {
		n += len(m.Content) + len(m.ToolCallID) + 64
		for _, tc := range m.ToolCalls {
			n += len(tc.ID) + len(tc.Name) + len(tc.Arguments) + 64
		}
	}
	if len(req.Tools) == 0 {
		return n
	}
	// The tools' encoding is usually cached already, and its size known.
	if c != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.toolSpecs == &req.Tools[0] && c.toolCount == len(req.Tools) {
			return n + len(c.lastTools)
		}
	}
	return n + 1024*len(req.Tools)
}
