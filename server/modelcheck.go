package server

import (
	"context"
	"errors"

	"github.com/ailab/ai-lab/config"
	"github.com/ailab/ai-lab/llm"
)

// A modelCheck is the outcome of asking the model endpoint, for the llm.*
// settings it was asked with.
type modelCheck struct {
	llm    config.LLMConfig
	status string // "ok", "unchecked", or "unreachable: <sentence>"
}

// Values of api.Health.ModelStatus besides "unreachable: ...".
const (
	ModelOK        = "ok"
	ModelUnchecked = "unchecked"
)

// CheckModel asks the model endpoint in force, once, whether it answers and
// lists llm.model, so a wrong llm.base_url or llm.model shows at start
// instead of after the first message: a problem is logged as a warning with
// the sentence that says how to fix it, and GET /health reports it as
// model_status. A provider that cannot be asked (the demo model) is
// "unchecked". It returns the status.
func (s *Server) CheckModel(ctx context.Context) string {
	cfg := s.cfg.Load()
	status := ModelUnchecked
	if c, ok := s.model().(llm.Checker); ok {
		switch err := c.Check(ctx); {
		case err == nil:
			status = ModelOK
		case errors.Is(err, llm.ErrCannotCheck):
			s.log.Info("the model endpoint does not list its models, so the model could not be checked at start", "base_url", cfg.LLM.BaseURL, "model", cfg.LLM.Model)
		default:
			status = "unreachable: " + err.Error()
			s.log.Warn("model unreachable: "+err.Error(), "base_url", cfg.LLM.BaseURL, "model", cfg.LLM.Model)
		}
	}
	s.modelCheck.Store(&modelCheck{llm: cfg.LLM, status: status})
	return status
}

// modelStatus is the last check's status while llm.* is as it was checked;
// after a change, "unchecked" until CheckModel runs again.
func (s *Server) modelStatus() string {
	mc := s.modelCheck.Load()
	if mc == nil || mc.llm != s.cfg.Load().LLM {
		return ModelUnchecked
	}
	return mc.status
}
