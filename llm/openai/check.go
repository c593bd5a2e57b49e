package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/ailab/ai-lab/llm"
)

var _ llm.Checker = (*Provider)(nil)

// checkTimeout bounds the start-up check: it must not hold the server's start.
const checkTimeout = 5 * time.Second

// Check asks GET {base_url}/models once whether the endpoint answers and
// lists the configured model. It is a plain request rather than the SDK's
// paginated list: servers answer the one page in their own shapes (Ollama,
// llama.cpp and vLLM list {"data": [{"id"}]}; some list nothing), and a
// server that has no such route is ErrCannotCheck, not a problem.
func (p *Provider) Check(ctx context.Context) error {
	err := p.check(ctx)
	var e *llm.Error
	if errors.As(err, &e) {
		shown(e)
	}
	return err
}

func (p *Provider) check(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(p.opts.BaseURL, "/")+"/models", nil)
	if err != nil {
		return &llm.Error{Kind: llm.KindUnreachable, Message: fmt.Sprintf("llm.base_url %s is not a URL the model can be reached at: fix llm.base_url", p.opts.BaseURL), Cause: err}
	}
	if p.opts.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+p.opts.APIKey)
	}
	resp, err := p.opts.HTTPClient.Do(req)
	if err != nil {
		reason, _ := networkReason(err)
		if reason == "" {
			reason = "no answer"
			if isTimeout(err) {
				reason = "no answer within " + checkTimeout.String()
			}
		}
		return p.unreachable(reason, false, err).err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return &llm.Error{Kind: llm.KindAuth, Status: resp.StatusCode, Message: fmt.Sprintf("the model endpoint %s answered %d: check %s", p.opts.BaseURL, resp.StatusCode, p.opts.KeyEnvVar)}
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed:
		return llm.ErrCannotCheck
	case resp.StatusCode != http.StatusOK:
		return &llm.Error{Kind: llm.KindStatus, Status: resp.StatusCode, Message: fmt.Sprintf("the model endpoint %s answered %d to GET /models: check llm.base_url", p.opts.BaseURL, resp.StatusCode)}
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if json.Unmarshal(body, &list) != nil || len(list.Data) == 0 {
		return llm.ErrCannotCheck
	}
	var ids []string
	for _, m := range list.Data {
		ids = append(ids, m.ID)
	}
	// Ollama lists "qwen2.5:7b-instruct" for a model pulled as such, and
	// "name:latest" for one pulled without a tag.
	if slices.Contains(ids, p.opts.Model) || slices.Contains(ids, p.opts.Model+":latest") {
		return nil
	}
	shown := ids
	if len(shown) > 8 {
		shown = append(slices.Clone(shown[:8]), "…")
	}
	return &llm.Error{Kind: llm.KindModelNotFound, Message: fmt.Sprintf("the model endpoint %s does not list the model %s (it lists %s): %s or set llm.model",
		p.opts.BaseURL, p.opts.Model, strings.Join(shown, ", "), p.pullHint())}
}
