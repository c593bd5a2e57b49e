package llm

import (
	"io"
	"net/http"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

// AssembleStream reads a text/event-stream body through the SDK's decoder and
// the assembly Stream uses, so the external tests can feed it recorded bodies.
func AssembleStream(body io.Reader, onText func(string)) (Message, error) {
	res := &http.Response{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(body)}
	stream := ssestream.NewStream[openai.ChatCompletionChunk](ssestream.NewDecoder(res), nil)
	defer stream.Close()
	a := newStreamAssembler(onText)
	if err := a.read(stream); err != nil {
		return Message{}, err
	}
	msg, err := a.message()
	if err != nil {
		return Message{}, err
	}
	return msg, nil
}
