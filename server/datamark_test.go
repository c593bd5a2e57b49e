package server_test

import (
	"strings"
	"testing"

	"github.com/ailab/ai-lab/llm"
	"github.com/ailab/ai-lab/llm/llmtest"
	"github.com/ailab/ai-lab/sanitize"
)

// TestDatamarkTellsTheModel: with sanitize.datamark on, the system prompt says what
// the marks mean; off (the default), and with the sanitizer off, it does not.
func TestDatamarkTellsTheModel(t *testing.T) {
	for _, c := range []struct {
		yaml string
		want bool
	}{
		{"", false},
		{"sanitize:\n  datamark: true\n", true},
		{"sanitize:\n  enabled: false\n  datamark: true\n", false},
	} {
		h := startHarness(t, setup{extra: c.yaml}, nil, []llmtest.Step{llmtest.Text("Hello.")})
		h.chat("", "hi")
		reqs := h.model.Requests()
		if len(reqs) == 0 || len(reqs[0].Messages) == 0 || reqs[0].Messages[0].Role != llm.RoleSystem {
			t.Fatalf("%q: no system message sent: %+v", c.yaml, reqs)
		}
		if got := strings.Contains(reqs[0].Messages[0].Content, sanitize.DatamarkNote); got != c.want {
			t.Errorf("%q: system prompt has the datamark note: %v, want %v", c.yaml, got, c.want)
		}
	}
}
