package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/config"
	"github.com/ailab/ai-lab/llm"
	"github.com/ailab/ai-lab/llm/llmtest"
	"github.com/ailab/ai-lab/llm/openai"
	"github.com/ailab/ai-lab/server"
)

// A harness runs the real router on a real database and workspace in a temp dir,
// with the real OpenAI-compatible provider pointed at a scripted fake model.
type harness struct {
	t       *testing.T
	dir     string
	cfgPath string
	model   *llmtest.Server
	fake    *llmtest.Provider // when set, used in-process instead of model
	app     *server.App
	http    *httptest.Server
}

// A setup is what a test changes in the harness's config.yaml; zero fields keep
// the defaults.
type setup struct {
	preset         string // safety.preset; "" is strict
	window         string // tracking.window; "" is 5m
	searchEndpoint string // web.search_endpoint; "" is a closed loopback port, so no test reaches DuckDuckGo
	cacheTTL       string // web.cache_ttl; "" is 15m
	contextChars   string // llm.context_chars; "" is 200000
	extra          string // more YAML sections (tracing, sanitize)
	safety         string // more lines of the safety section (rules), indented
}

// newHarness starts a server on preset whose model is the scripted HTTP fake.
func newHarness(t *testing.T, preset string, steps ...llmtest.Step) *harness {
	return startHarness(t, setup{preset: preset}, nil, steps)
}

// newLoopHarness starts a server on preset whose model is the in-process fake.
func newLoopHarness(t *testing.T, preset string, steps ...llmtest.Step) *harness {
	return startHarness(t, setup{preset: preset}, llmtest.NewProvider(t, steps...), nil)
}

// newLoopHarnessWith is newLoopHarness with more of the config set.
func newLoopHarnessWith(t *testing.T, su setup, steps ...llmtest.Step) *harness {
	return startHarness(t, su, llmtest.NewProvider(t, steps...), nil)
}

func startHarness(t *testing.T, su setup, fake *llmtest.Provider, steps []llmtest.Step) *harness {
	t.Helper()
	or := func(v, def string) string {
		if v == "" {
			return def
		}
		return v
	}
	h := &harness{t: t, dir: t.TempDir(), model: llmtest.NewServer(t, steps...), fake: fake}
	h.cfgPath = filepath.Join(h.dir, "config.yaml")
	yaml := fmt.Sprintf(`# test config
server:
  state_dir: %q
llm:
  base_url: %q
  model: "fake-model"
  max_tool_rounds: 6
  context_chars: %s
safety:
  preset: %s   # the preset under test
%stools:
  workspace: %q
tracking:
  max_validation_retries: 2
  window: %s
web:
  search_endpoint: %q
  search_lite_endpoint: "http://127.0.0.1:9/lite/"
  search_interval: 1ms
  cache_ttl: %s
%s`, filepath.Join(h.dir, "state"), h.model.URL(), or(su.contextChars, "200000"), or(su.preset, "strict"), su.safety, filepath.Join(h.dir, "ws"),
		or(su.window, "5m"), or(su.searchEndpoint, "http://127.0.0.1:9/html/"), or(su.cacheTTL, "15m"), su.extra)
	if err := os.WriteFile(h.cfgPath, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	h.start()
	return h
}

// wireModels is the real OpenAI-compatible provider for the configured
// endpoint, for tests whose fake model speaks over HTTP.
func wireModels(timeout time.Duration) server.Models {
	return func(cfg *config.Config) llm.Provider {
		return openai.New(openai.Options{BaseURL: cfg.LLM.BaseURL, Model: cfg.LLM.Model, Timeout: timeout})
	}
}

// start opens the app on the harness's state (again, after stop: a restart).
func (h *harness) start() {
	h.t.Helper()
	cfg, err := config.Load(h.cfgPath)
	if err != nil {
		h.t.Fatal(err)
	}
	models := wireModels(5 * time.Second)
	if h.fake != nil {
		models = server.Fixed(h.fake)
	}
	app, err := server.Open(context.Background(), cfg, models, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		h.t.Fatal(err)
	}
	h.app = app
	h.http = httptest.NewServer(app.Handler())
	h.t.Cleanup(h.stop)
}

// stop closes the server and its database, as a killed server would leave them.
func (h *harness) stop() {
	if h.http != nil {
		h.http.Close()
		h.app.Close()
		h.http, h.app = nil, nil
	}
}

// do sends a request with the token and decodes the answer into out (when not nil).
func (h *harness) do(method, path string, in any, out any) int {
	h.t.Helper()
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			h.t.Fatal(err)
		}
		body = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, h.http.URL+path, body)
	req.Header.Set("Authorization", "Bearer "+h.app.CurrentToken())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			h.t.Fatalf("%s %s: %d %s: %v", method, path, resp.StatusCode, data, err)
		}
	}
	return resp.StatusCode
}

// chat sends a message and expects a 200.
func (h *harness) chat(session, msg string) api.TurnReply {
	h.t.Helper()
	var r api.TurnReply
	if code := h.do("POST", "/chat", api.ChatRequest{Message: msg, SessionID: session}, &r); code != 200 {
		h.t.Fatalf("POST /chat: status %d", code)
	}
	return r
}

// approve sends decisions and expects a 200.
func (h *harness) approve(session string, ds ...api.Decision) api.TurnReply {
	h.t.Helper()
	var r api.TurnReply
	if code := h.do("POST", "/chat/approve", api.ApproveRequest{SessionID: session, Decisions: ds}, &r); code != 200 {
		h.t.Fatalf("POST /chat/approve: status %d", code)
	}
	return r
}

// errorOf sends a request that must fail and returns its status and code.
func (h *harness) errorOf(method, path string, in any) (int, api.ErrorDetail) {
	h.t.Helper()
	var e api.ErrorBody
	code := h.do(method, path, in, &e)
	return code, e.Error
}

// ws is a path in the workspace.
func (h *harness) ws(name string) string { return filepath.Join(h.dir, "ws", name) }

var execIDRe = regexp.MustCompile(`"execution_id":"([^"]+)"`)

// toolMessages returns the tool messages of the model's latest request.
func toolMessages(req llmtest.Request) []llm.Message {
	var out []llm.Message
	for _, m := range req.Messages {
		if m.Role == llm.RoleTool {
			out = append(out, m)
		}
	}
	return out
}

// citeResults is a model step that answers by citing every execution id it was given.
func citeResults(prefix string) llmtest.Step {
	return llmtest.Func(func(req llmtest.Request) llmtest.Step {
		var ids []string
		for _, m := range req.Messages {
			if m.Role != llm.RoleTool && !strings.HasPrefix(m.Content, "Results of the tool calls") {
				continue
			}
			for _, sm := range execIDRe.FindAllStringSubmatch(m.Content, -1) {
				ids = append(ids, "(execution_id: "+sm[1]+")")
			}
		}
		return llmtest.Text(prefix + " " + strings.Join(ids, " "))
	})
}

func approved(id string) api.Decision { return api.Decision{ToolCallID: id, Approved: true} }
func denied(id, feedback string) api.Decision {
	return api.Decision{ToolCallID: id, Approved: false, Feedback: feedback}
}
