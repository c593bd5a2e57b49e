package openai_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ailab/ai-lab/llm"
	"github.com/ailab/ai-lab/llm/llmtest"
	"github.com/ailab/ai-lab/llm/openai"
)

// TestAFailureSentenceHoldsNoSecret: the sentence of a failed call quotes the
// base URL and the server's error body; both may carry a key, and the
// sentence reaches the user, the log and the trace, so it is masked. The
// cause keeps the rest for errors.Is.
func TestAFailureSentenceHoldsNoSecret(t *testing.T) {
	const key = "sk-abc123DEF456ghi789JKL012mno345PQR678stu"
	srv := llmtest.NewServer(t,
		llmtest.Status(400, `{"error":{"message":"key `+key+` is not valid for ?api_key=q9SECRET"}}`),
		llmtest.Status(404, `{"error":{"message":"model \"m\" not found"}}`))
	base := strings.Replace(srv.URL(), "http://", "http://lab:pw9SECRET@", 1)
	p := openai.New(openai.Options{BaseURL: base, Model: "m"})
	for _, want := range []string{"the model answered 400: key *** is not valid for ?api_key=***", "model m not found at http://lab:***@"} {
		_, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
		var e *llm.Error
		if !errors.As(err, &e) {
			t.Fatalf("error %v is not an *llm.Error", err)
		}
		for _, secret := range []string{key, "q9SECRET", "pw9SECRET"} {
			if strings.Contains(e.Error(), secret) {
				t.Errorf("the sentence shows %s: %q", secret, e.Error())
			}
		}
		if !strings.Contains(e.Error(), want) {
			t.Errorf("the sentence %q lacks %q", e.Error(), want)
		}
	}
}
