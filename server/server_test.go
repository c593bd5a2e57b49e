package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/config"
	"github.com/ailab/ai-lab/llm/llmtest"
)

func TestAuth(t *testing.T) {
	h := newHarness(t, "strict")
	cases := []struct {
		name, path, header string
		status             int
	}{
		{"health needs no token", "/health", "", 200},
		{"sessions without token", "/sessions", "", 401},
		{"wrong token", "/sessions", "Bearer nope", 401},
		{"not bearer", "/sessions", h.app.Token, 401},
		{"right token", "/sessions", "Bearer " + h.app.Token, 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", h.http.URL+c.path, nil)
			if c.header != "" {
				req.Header.Set("Authorization", c.header)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, c.status)
			}
			if c.status == 401 {
				var e api.ErrorBody
				json.NewDecoder(resp.Body).Decode(&e)
				if e.Error.Code != "unauthorized" || e.Error.Message == "" {
					t.Fatalf("error body %+v", e)
				}
			}
		})
	}
	// The generated token is stored with mode 0600.
	fi, err := os.Stat(filepath.Join(h.dir, "state", "token"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}
}

func TestEveryPathEscapeIsRefused(t *testing.T) {
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret"), 0o600)
	paths := []string{"/etc/passwd", "../secret.txt", "a/../../secret.txt", "link/secret.txt", "linkfile"}
	var calls []llmtest.Step
	for i, p := range paths {
		args, _ := json.Marshal(map[string]string{"path": p})
		calls = append(calls, llmtest.Calls(llmtest.Call(fmt.Sprintf("call_%d", i), "read_file", string(args))))
	}
	h := newHarness(t, "minimal", append(calls, llmtest.Text("none of them worked"))...)
	os.MkdirAll(h.ws(""), 0o755)
	if err := os.Symlink(outside, h.ws("link")); err != nil {
		t.Fatal(err)
	}
	os.Symlink(filepath.Join(outside, "secret.txt"), h.ws("linkfile"))
	r := h.chat("", "read them all")
	if len(r.ToolsUsed) != len(paths) {
		t.Fatalf("tools_used = %+v", r.ToolsUsed)
	}
	for i, u := range r.ToolsUsed {
		if u.Status != "error" || u.Error == "" || strings.Contains(u.Error, "secret\"") {
			t.Errorf("path %q: %+v", paths[i], u)
		}
	}
	// The model got tool errors, never file contents.
	for _, req := range h.model.Requests() {
		for _, m := range toolMessages(req) {
			if strings.Contains(m.Content, `"result"`) || !strings.Contains(m.Content, `"error"`) {
				t.Errorf("tool message %s", m.Content)
			}
		}
	}
}

func TestPresetChangeByPUTTakesEffect(t *testing.T) {
	h := newHarness(t, "strict", writeCall("call_1", "a.txt", "x"), citeResults("ok"))
	var cfg map[string]any
	if code := h.do("PUT", "/config/safety", api.SafetyUpdate{Preset: "minimal"}, &cfg); code != 200 {
		t.Fatalf("PUT: %d %v", code, cfg)
	}
	if s := cfg["safety"].(map[string]any); s["preset"] != "minimal" || s["approval_mode"] != false {
		t.Fatalf("answer: %v", s)
	}
	if cfg["written"] != h.cfgPath {
		t.Fatalf("the answer says it wrote %v, want %s", cfg["written"], h.cfgPath)
	}
	data, _ := os.ReadFile(h.cfgPath)
	if !strings.Contains(string(data), "preset: minimal   # the preset under test") || !strings.Contains(string(data), "# test config") {
		t.Fatalf("config.yaml lost its comments:\n%s", data)
	}
	r := h.chat("", "write")
	if r.ApprovalRequired || len(r.ToolsUsed) != 1 || r.ToolsUsed[0].Status != "ok" {
		t.Fatalf("under minimal: %+v", r)
	}
	status, e := h.errorOf("PUT", "/config/safety", api.SafetyUpdate{Preset: "lax"})
	if status != 400 || e.Code != "invalid_config" {
		t.Fatalf("unknown preset: %d %+v", status, e)
	}
	status, _ = h.errorOf("PUT", "/config/safety", api.SafetyUpdate{Preset: "custom", ApprovalMode: new(bool), ToolsRequiringApproval: []string{"rm_rf"}})
	if status != 400 {
		t.Fatalf("unknown tool: %d", status)
	}
}

func TestPresetChangeByEditingTheFileTakesEffect(t *testing.T) {
	h := newHarness(t, "minimal", writeCall("call_1", "a.txt", "x"))
	data, _ := os.ReadFile(h.cfgPath)
	os.WriteFile(h.cfgPath, bytes.Replace(data, []byte("preset: minimal"), []byte("preset: moderate"), 1), 0o600)
	deadline := time.Now().Add(5 * time.Second)
	for {
		var cfg map[string]any
		h.do("GET", "/config", nil, &cfg)
		if cfg["safety"].(map[string]any)["preset"] == "moderate" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the edited preset was not applied")
		}
		time.Sleep(50 * time.Millisecond)
	}
	r := h.chat("", "write")
	if !r.ApprovalRequired {
		t.Fatalf("under moderate write_file needs approval: %+v", r)
	}
}

func TestConfigHidesSecrets(t *testing.T) {
	h := newHarness(t, "strict")
	cfg, _ := config.Load(h.cfgPath)
	cfg.Server.AuthToken = "supersecret-token"
	h.app.SetConfig(cfg)
	var out map[string]any
	h.do("GET", "/config", nil, &out)
	b, _ := json.Marshal(out)
	if strings.Contains(string(b), "supersecret-token") {
		t.Fatalf("GET /config shows the token: %s", b)
	}
	if s := out["safety"].(map[string]any); s["tools_requiring_approval"] == nil {
		t.Fatalf("no resolved tools_requiring_approval: %v", s)
	}
}

func TestBadRequests(t *testing.T) {
	h := newHarness(t, "strict")
	send := func(body []byte) (int, api.ErrorBody) {
		req, _ := http.NewRequest("POST", h.http.URL+"/chat", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+h.app.Token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var e api.ErrorBody
		json.NewDecoder(resp.Body).Decode(&e)
		return resp.StatusCode, e
	}
	cases := []struct {
		name   string
		body   []byte
		status int
		code   string
	}{
		{"malformed JSON", []byte(`{"message": `), 400, "invalid_request"},
		{"missing message", []byte(`{}`), 400, "invalid_request"},
		{"blank message", []byte(`{"message": "  "}`), 400, "invalid_request"},
		{"unknown field", []byte(`{"mesage": "hi"}`), 400, "invalid_request"},
		{"over 1 MiB", []byte(`{"message": "` + strings.Repeat("a", 1<<20+10) + `"}`), 413, "body_too_large"},
		{"unknown session", []byte(`{"message": "hi", "session_id": "s_missing"}`), 404, "session_not_found"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, e := send(c.body)
			if status != c.status || e.Error.Code != c.code || e.Error.Message == "" {
				t.Fatalf("got %d %+v, want %d %s", status, e, c.status, c.code)
			}
		})
	}
	status, e := h.errorOf("GET", "/nowhere", nil)
	if status != 404 || e.Code != "not_found" {
		t.Fatalf("unknown route: %d %+v", status, e)
	}
}

func TestSessionsListShowAndDelete(t *testing.T) {
	h := newHarness(t, "strict", llmtest.Text("first answer"), llmtest.Text("second answer"))
	a := h.chat("", "first question")
	time.Sleep(5 * time.Millisecond)
	b := h.chat("", "second question")
	var list []api.SessionSummary
	h.do("GET", "/sessions", nil, &list)
	if len(list) != 2 || list[0].SessionID != b.SessionID || list[1].Title != "first question" {
		t.Fatalf("sessions = %+v", list)
	}
	var d api.SessionDetail
	h.do("GET", "/sessions/"+a.SessionID, nil, &d)
	if len(d.Messages) != 2 || d.Messages[0].Content != "first question" || d.Messages[1].Content != "first answer" {
		t.Fatalf("detail = %+v", d)
	}
	if code := h.do("DELETE", "/sessions/"+a.SessionID, nil, nil); code != 204 {
		t.Fatalf("delete: %d", code)
	}
	status, e := h.errorOf("GET", "/sessions/"+a.SessionID, nil)
	if status != 404 || e.Code != "session_not_found" {
		t.Fatalf("after delete: %d %+v", status, e)
	}
}

// TestChatGoesOnAfterADeletedSessionAgesOut: the server keeps the decoded
// conversations of the 256 sessions used last. A deleted session once left its
// id in that order without its entry; when as many other sessions had been
// used since, every turn's eviction reached it and panicked, and every chat
// failed until a restart.
func TestChatGoesOnAfterADeletedSessionAgesOut(t *testing.T) {
	const others = 300 // more than the 256 conversations kept
	steps := make([]llmtest.Step, 0, others+1)
	for range others + 1 {
		steps = append(steps, llmtest.Text("an answer"))
	}
	h := newHarness(t, "strict", steps...)
	gone := h.chat("", "a session to delete")
	if code := h.do("DELETE", "/sessions/"+gone.SessionID, nil, nil); code != 204 {
		t.Fatalf("delete: %d", code)
	}
	for i := range others {
		var r api.TurnReply
		if code := h.do("POST", "/chat", api.ChatRequest{Message: fmt.Sprintf("question %d", i)}, &r); code != 200 {
			t.Fatalf("chat in new session %d after the deleted one: status %d", i+1, code)
		}
	}
}

func TestPresetPUTRefusedWhileTheEnvironmentOverridesIt(t *testing.T) {
	h := newHarness(t, "strict")
	t.Setenv("AILAB_SAFETY_PRESET", "strict")
	status, e := h.errorOf("PUT", "/config/safety", api.SafetyUpdate{Preset: "minimal"})
	if status != 400 || e.Code != "invalid_config" || !strings.Contains(e.Message, "AILAB_SAFETY_PRESET") {
		t.Fatalf("got %d %+v", status, e)
	}
	if data, _ := os.ReadFile(h.cfgPath); !strings.Contains(string(data), "preset: strict") {
		t.Fatalf("the file was rewritten:\n%s", data)
	}
}

// TestToolsListsEveryToolWithItsApproval: GET /tools names each built-in tool
// with its source and whether the preset in force asks about it.
func TestToolsListsEveryToolWithItsApproval(t *testing.T) {
	h := newLoopHarness(t, "moderate")
	var list []api.ToolInfo
	if code := h.do("GET", "/tools", nil, &list); code != 200 || len(list) != 9 {
		t.Fatalf("GET /tools: %d %+v", code, list)
	}
	want := map[string]bool{"write_file": true, "web_search": false, "read_file": false, "delete_file": true}
	for _, ti := range list {
		if ti.Source != "builtin" || ti.Name != ti.ToolName || ti.Description == "" || ti.Status != "" {
			t.Errorf("%+v", ti)
		}
		if needs, ok := want[ti.Name]; ok && needs != ti.NeedsApproval {
			t.Errorf("%s: needs_approval %v under moderate", ti.Name, ti.NeedsApproval)
		}
	}
}
