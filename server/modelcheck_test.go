package server_test

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/ailab/ai-lab/api"
)

// TestModelCheckedAtStart: a wrong llm.base_url shows in GET /health before
// the first message, as model_status with the sentence that says what to
// fix, and so does a model the endpoint does not list.
func TestModelCheckedAtStart(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/v1"
	l.Close()
	t.Setenv("AILAB_LLM_BASE_URL", closed)
	h := newHarness(t, "moderate")
	var health api.Health
	h.do("GET", "/health", nil, &health)
	if health.ModelStatus != "unchecked" {
		t.Errorf("before the check: %+v", health)
	}
	status := h.app.CheckModel(context.Background())
	h.do("GET", "/health", nil, &health)
	if !strings.HasPrefix(status, "unreachable: cannot reach the model at "+closed+" (connection refused)") || health.ModelStatus != status {
		t.Fatalf("status %q, health %+v", status, health)
	}

	t.Setenv("AILAB_LLM_BASE_URL", "")
	fake := newHarness(t, "moderate") // the scripted fake lists one model, llmtest
	if got := fake.app.CheckModel(context.Background()); got != "unreachable: the model endpoint "+fake.model.URL()+" does not list the model fake-model (it lists llmtest): check the name or set llm.model" {
		t.Errorf("a model the endpoint does not list: %q", got)
	}
}
