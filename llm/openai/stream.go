package openai

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ailab/ai-lab/llm"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

var _ llm.Streamer = (*Provider)(nil)

// Stream sends one round like Complete and delivers the reply's text to onText
// as the model writes it. A failure before any text was delivered is retried
// like Complete's; a failure after is not, since the caller has shown the text.
func (p *Provider) Stream(ctx context.Context, req llm.Request, onText func(text string)) (llm.Message, error) {
	body, err := encodeRequest(p.opts.Model, req, &p.wire, true)
	if err != nil {
		return llm.Message{}, err
	}
	delivered := false
	emit := func(text string) {
		delivered = true
		onText(text)
	}
	for attempt := 0; ; attempt++ {
		msg, failure := p.attemptStream(ctx, body, emit)
		if failure == nil {
			return msg, nil
		}
		if delivered || !failure.retryable || attempt >= p.opts.MaxRetries {
			return llm.Message{}, shown(failure.err)
		}
		if err := p.waitToRetry(ctx, attempt, failure); err != nil {
			return llm.Message{}, p.canceled(err)
		}
	}
}

func (p *Provider) attemptStream(ctx context.Context, body []byte, emit func(string)) (llm.Message, *failure) {
	actx, cancel := context.WithTimeout(ctx, p.opts.Timeout)
	defer cancel()
	var answer *httpAnswer
	var whole io.ReadCloser // the body, when the server answered one completion instead of events
	var events *watchedBody // the body, when it is events
	watch := option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		res, err := next(r)
		if err != nil || res == nil {
			return res, err
		}
		if res.StatusCode >= 400 {
			answer = keepErrorBody(res)
			return res, nil
		}
		if isWholeCompletion(res) {
			// The SDK would read a JSON body as an empty event stream.
			whole, res.Body = res.Body, http.NoBody
			return res, nil
		}
		events = &watchedBody{ReadCloser: res.Body}
		res.Body = events
		return res, nil
	})
	stream := p.client.Chat.Completions.NewStreaming(actx, sdk.ChatCompletionNewParams{},
		option.WithRequestBody("application/json", body), watch)
	defer stream.Close()
	if whole != nil {
		defer whole.Close()
	}
	if err := stream.Err(); err != nil {
		return llm.Message{}, p.classify(ctx, actx, err, answer)
	}
	if whole != nil {
		msg, err := readWholeCompletion(whole)
		if err != nil {
			if le, ok := err.(*llm.Error); ok {
				return llm.Message{}, &failure{err: le}
			}
			return llm.Message{}, p.classify(ctx, actx, err, nil)
		}
		if msg.Content != "" {
			emit(msg.Content)
		}
		return msg, nil
	}
	a := newStreamAssembler(emit)
	if err := a.read(stream); err != nil {
		var readErr error
		if events != nil {
			readErr = events.err
		}
		return llm.Message{}, p.classifyStream(ctx, actx, err, readErr, a.chunks > 0)
	}
	msg, convErr := a.message()
	if convErr != nil {
		return llm.Message{}, &failure{err: convErr}
	}
	return msg, nil
}

// isWholeCompletion reports whether a 2xx answer to a stream request is one
// JSON chat completion: servers that do not stream ignore "stream": true.
// A body with neither type is sniffed, keeping what was read for the reader.
func isWholeCompletion(res *http.Response) bool {
	media, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	switch {
	case media == "text/event-stream":
		return false
	case strings.Contains(media, "json"):
		return true
	}
	br := bufio.NewReader(res.Body)
	res.Body = struct {
		io.Reader
		io.Closer
	}{br, res.Body}
	for i := 1; i <= 512; i++ {
		b, err := br.Peek(i)
		if err != nil {
			return false
		}
		switch b[i-1] {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return true
		}
		return false
	}
	return false
}

// readWholeCompletion decodes a JSON completion as the SDK does for Complete,
// so the message and every error are the same as Complete's.
func readWholeCompletion(body io.Reader) (llm.Message, error) {
	raw, err := io.ReadAll(body)
	if err != nil {
		return llm.Message{}, err
	}
	var c sdk.ChatCompletion
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(&c); err != nil {
		return llm.Message{}, fmt.Errorf("error parsing response json: %w", err)
	}
	msg, convErr := fromCompletion(&c)
	if convErr != nil {
		return llm.Message{}, convErr
	}
	return msg, nil
}

// A watchedBody keeps the error that reading the events failed with, so a
// broken connection is told apart from events that cannot be decoded, which
// the SDK's stream reports alike.
type watchedBody struct {
	io.ReadCloser
	err error
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		b.err = err
	}
	return n, err
}

// classifyStream turns a failure while reading events into the user's
// sentence: readErr is the body's own error, if any. Before the first chunk
// it is Complete's; after it, a broken connection says that the answer broke
// off, since the model was reachable.
func (p *Provider) classifyStream(ctx, actx context.Context, err, readErr error, started bool) *failure {
	var se *ssestream.StreamError
	if errors.As(err, &se) && ctx.Err() == nil {
		msg := serverMessage(se.Event.Data)
		if msg == "" {
			msg = "no reason given"
		}
		// Servers report overload and crashes this way once the 200 is out,
		// so it is worth a retry as a 5xx is.
		return &failure{retryable: true, err: &llm.Error{
			Kind:    llm.KindStatus,
			Message: "the model stopped its answer with an error: " + msg,
			Cause:   err,
		}}
	}
	if readErr == nil || ctx.Err() != nil || actx.Err() != nil || isTimeout(readErr) {
		return p.classify(ctx, actx, err, nil)
	}
	reason, retryable := networkReason(readErr)
	switch {
	case started && errors.Is(readErr, io.ErrUnexpectedEOF):
		reason = "connection closed"
	case reason == "":
		// An HTTP/2 stream reset, say: no syscall error to name.
		reason, retryable = "connection lost", true
	}
	if !started {
		return p.unreachable(reason, retryable, err)
	}
	return &failure{retryable: retryable, err: &llm.Error{
		Kind:    llm.KindUnreachable,
		Message: fmt.Sprintf("the connection to the model at %s broke in the middle of its answer (%s): try again, and check the model server if it keeps happening", p.opts.BaseURL, reason),
		Cause:   err,
	}}
}

// A streamAssembler builds the assistant message from the chunks of a
// streamed reply, passing content text on as it arrives. Chunks are the
// model's output relayed by a server we do not control, so nothing in them is
// trusted: indices may be sparse, negative or repeated, and fields may be
// missing or repeated in every delta.
type streamAssembler struct {
	text    thinkFilter
	content strings.Builder // all content as sent, think block included
	refusal strings.Builder
	calls   []*streamCall
	byIndex map[int64]int // a tool call index to the newest call in calls with it
	// The deprecated single function call, still sent by some older servers.
	fnName string
	fnArgs strings.Builder

	chunks int  // events decoded
	choice bool // a chunk carried choice 0
}

type streamCall struct {
	index    int64
	id, name string
	args     strings.Builder
}

func newStreamAssembler(emit func(string)) *streamAssembler {
	return &streamAssembler{text: thinkFilter{emit: emit}, byIndex: map[int64]int{}}
}

// read consumes the stream to its end.
func (a *streamAssembler) read(stream *ssestream.Stream[sdk.ChatCompletionChunk]) error {
	for stream.Next() {
		a.chunks++
		chunk := stream.Current()
		a.add(&chunk)
	}
	return stream.Err()
}

func (a *streamAssembler) add(chunk *sdk.ChatCompletionChunk) {
	for i := range chunk.Choices {
		c := &chunk.Choices[i]
		if c.Index != 0 {
			continue // we ask for one choice; Complete reads the first
		}
		a.choice = true
		d := &c.Delta
		if d.Content != "" {
			a.content.WriteString(d.Content)
			a.text.write(d.Content)
		}
		a.refusal.WriteString(d.Refusal)
		for j := range d.ToolCalls {
			a.addCall(&d.ToolCalls[j])
		}
		if a.fnName == "" {
			a.fnName = d.FunctionCall.Name
		}
		a.fnArgs.WriteString(d.FunctionCall.Arguments)
	}
}

// addCall adds one tool call delta. The id and name come in the first delta
// of an index and the arguments in pieces; a server that repeats the id and
// name in every delta is understood too, and one that numbers every call 0
// but gives each its own id gets each its own call.
func (a *streamAssembler) addCall(d *sdk.ChatCompletionChunkChoiceDeltaToolCall) {
	pos, ok := a.byIndex[d.Index]
	if !ok || (d.ID != "" && a.calls[pos].id != "" && d.ID != a.calls[pos].id) {
		pos = len(a.calls)
		a.calls = append(a.calls, &streamCall{index: d.Index})
		a.byIndex[d.Index] = pos
	}
	c := a.calls[pos]
	if c.id == "" {
		c.id = d.ID
	}
	if c.name == "" {
		c.name = d.Function.Name
	}
	c.args.WriteString(d.Function.Arguments)
}

// message returns the assembled reply, exactly as fromCompletion makes it from
// the same reply sent whole, and delivers the text still held back.
func (a *streamAssembler) message() (llm.Message, *llm.Error) {
	if !a.choice {
		return llm.Message{}, errNoChoices()
	}
	a.text.flush()
	out := llm.Message{Role: llm.RoleAssistant, Content: withoutThinking(a.content.String())}
	if out.Content == "" && a.refusal.Len() > 0 {
		out.Content = a.refusal.String()
		a.text.emit(out.Content)
	}
	calls := slices.Clone(a.calls)
	slices.SortStableFunc(calls, func(x, y *streamCall) int { return cmp.Compare(x.index, y.index) })
	for i, c := range calls {
		if c.name == "" {
			continue
		}
		id := c.id
		if id == "" {
			id = fmt.Sprintf("call_%d", i+1)
		}
		out.ToolCalls = append(out.ToolCalls, llm.ToolCall{ID: id, Name: c.name, Arguments: c.args.String()})
	}
	if len(out.ToolCalls) == 0 && a.fnName != "" {
		out.ToolCalls = []llm.ToolCall{{ID: "call_1", Name: a.fnName, Arguments: a.fnArgs.String()}}
	}
	return out, nil
}

// A thinkFilter passes streamed content on as it arrives, except a leading
// <think>...</think> block and the blank space after it, which it drops as
// withoutThinking does for a whole reply: what it passes on, joined, equals
// withoutThinking of everything written. Text that may still turn out to be
// the start of such a block is held until it is clear.
type thinkFilter struct {
	emit  func(string)
	state thinkState
	held  strings.Builder
	// searched is how much of held is known to hold no "</think>" (inside the
	// block) or to be blank (before it), so held is scanned once.
	searched int
}

type thinkState int

const (
	thinkUndecided thinkState = iota // only blank space or a prefix of "<think>" so far
	thinkInside                      // inside the block: everything is held
	thinkAfter                       // the block closed: blank space is dropped
	thinkPassing                     // the answer: text passes on at once
)

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
	blank      = " \t\r\n"
)

func (f *thinkFilter) write(s string) {
	if f.state == thinkPassing {
		f.emit(s)
		return
	}
	f.held.WriteString(s)
	for {
		h := f.held.String()
		switch f.state {
		case thinkUndecided:
			rest := strings.TrimLeft(h[f.searched:], blank)
			f.searched = len(h) - len(rest)
			switch {
			case strings.HasPrefix(rest, thinkOpen):
				f.state = thinkInside
				f.searched += len(thinkOpen)
				continue
			case strings.HasPrefix(thinkOpen, rest):
				return // blank, or "<thi" that may go on to be "<think>"
			}
			f.pass(h)
		case thinkInside:
			end := strings.Index(h[f.searched:], thinkClose)
			if end < 0 {
				// The tail may be the start of "</think>".
				f.searched = max(f.searched, len(h)-len(thinkClose)+1)
				return
			}
			f.held.Reset()
			f.held.WriteString(h[f.searched+end+len(thinkClose):])
			f.state = thinkAfter
			continue
		case thinkAfter:
			rest := strings.TrimLeft(h, blank)
			f.held.Reset()
			if rest != "" {
				f.pass(rest)
			}
		}
		return
	}
}

// pass delivers s and lets all later text through.
func (f *thinkFilter) pass(s string) {
	f.held.Reset()
	f.state = thinkPassing
	f.emit(s)
}

// flush delivers what is held when the reply ends: an unfinished start or an
// unclosed block is the reply itself, as withoutThinking keeps it.
func (f *thinkFilter) flush() {
	if (f.state == thinkUndecided || f.state == thinkInside) && f.held.Len() > 0 {
		f.pass(f.held.String())
	}
}
