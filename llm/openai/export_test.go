package openai

import (
	"github.com/ailab/ai-lab/llm"
	"io"
	"net/http"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

// AssembleStream reads a text/event-stream body through the SDK's decoder and
// the assembly Stream uses, so the external tests can feed it recorded bodies.
func AssembleStream(body io.Reader, onText func(string)) (llm.Message, error) {
	res := &http.Response{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(body)}
	stream := ssestream.NewStream[sdk.ChatCompletionChunk](ssestream.NewDecoder(res), nil)
	defer stream.Close()
	a := newStreamAssembler(onText)
	if err := a.read(stream); err != nil {
		return llm.Message{}, err
	}
	msg, err := a.message()
	if err != nil {
		return llm.Message{}, err
	}
	return msg, nil
}
