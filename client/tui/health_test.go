package tui

import (
	"strings"
	"testing"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client/clienttest"
)

// TestModelUnreachableShowsInTheHeader: a server that found its model
// endpoint unreachable at start says so in GET /health; the header says
// "model unreachable" and the status line gives the sentence saying what to
// fix, before the first message is sent. A model that is fine shows neither.
func TestModelUnreachableShowsInTheHeader(t *testing.T) {
	m := newTestModel(t, clienttest.New(t), 130, 24)
	why := "cannot reach the model at http://127.0.0.1:11434/v1 (connection refused): start Ollama or set llm.base_url"
	m.Update(HealthMsg{Health: api.Health{Status: "ok", Model: "qwen2.5:7b-instruct", ModelStatus: "unreachable: " + why}})
	view := m.View()
	if !strings.Contains(view, "model qwen2.5:7b-instruct (model unreachable)") || !strings.Contains(view, "start Ollama or set llm.base_url") {
		t.Fatalf("the header or status does not say the model is unreachable:\n%s", view)
	}
	ok := newTestModel(t, clienttest.New(t), 100, 24)
	ok.Update(HealthMsg{Health: api.Health{Status: "ok", Model: "qwen2.5:7b-instruct", ModelStatus: "ok"}})
	if v := ok.View(); strings.Contains(v, "unreachable") {
		t.Fatalf("a reachable model is shown as unreachable:\n%s", v)
	}
}
