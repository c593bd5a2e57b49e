package client_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client"
	"github.com/ailab/ai-lab/client/clienttest"
)

func TestErrorCodesMapToSentinels(t *testing.T) {
	tests := []struct {
		name   string
		status int
		code   string
		want   error
	}{
		{"session not found", 404, api.CodeSessionNotFound, client.ErrSessionNotFound},
		{"no pending approval", 409, api.CodeNoPendingApproval, client.ErrNoPendingApproval},
		{"invalid decisions", 400, api.CodeInvalidDecisions, client.ErrInvalidDecisions},
		{"approval pending", 409, api.CodeApprovalPending, client.ErrApprovalPending},
		{"invalid config", 400, api.CodeInvalidConfig, client.ErrInvalidConfig},
		{"config locked", 409, api.CodeConfigLocked, client.ErrConfigLocked},
		{"model error", 502, api.CodeModelError, client.ErrModel},
		{"body too large", 413, api.CodeBodyTooLarge, client.ErrBodyTooLarge},
		{"invalid request", 400, api.CodeInvalidRequest, client.ErrInvalidRequest},
		{"unknown code on 500", 500, "something_new", client.ErrServer},
		{"no code on 404", 404, "", client.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				if tt.code != "" {
					w.Write([]byte(`{"error":{"code":"` + tt.code + `","message":"It went wrong."}}`))
				}
			}))
			defer srv.Close()
			_, err := client.New(srv.URL, "x", nil).Chat(context.Background(), "hi", "")
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want errors.Is %v", err, tt.want)
			}
			var ae *client.APIError
			if !errors.As(err, &ae) || ae.Status != tt.status {
				t.Fatalf("err = %#v, want *APIError with status %d", err, tt.status)
			}
		})
	}
}

func TestUnauthorizedNamesTheTokenFile(t *testing.T) {
	tests := []struct {
		name, token, from string
		want              string
	}{
		{"none found", "", "", "the server refused the token: none was given and /state/ai-lab/token does not exist; pass --token or set AILAB_TOKEN, or --state-dir if ai-server keeps its state elsewhere"},
		{"from the flag", "wrong", "--token", "the server refused the token given by --token; ai-server writes the right one to /state/ai-lab/token"},
		{"from the environment", "wrong", "AILAB_TOKEN", "the server refused the token given by AILAB_TOKEN; ai-server writes the right one to /state/ai-lab/token"},
		{"from the file", "stale", "/state/ai-lab/token", "the server refused the token read from /state/ai-lab/token, so it belongs to another ai-server; pass the right one with --token or AILAB_TOKEN, or --state-dir to that server's state folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := clienttest.New(t)
			c := client.New(srv.URL, tt.token, nil)
			c.TokenFile, c.TokenFrom = "/state/ai-lab/token", tt.from
			_, err := c.Sessions(context.Background())
			if !errors.Is(err, client.ErrUnauthorized) {
				t.Fatalf("err = %v, want ErrUnauthorized", err)
			}
			if err.Error() != tt.want {
				t.Fatalf("message\n%q\nwant\n%q", err, tt.want)
			}
		})
	}
}

func TestUnreachableServerSaysHowToFix(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := "http://" + l.Addr().String()
	l.Close() // nothing listens there now
	_, err = client.New(addr, "x", nil).Health(context.Background())
	if !errors.Is(err, client.ErrUnreachable) {
		t.Fatalf("err = %v, want ErrUnreachable", err)
	}
	want := "cannot reach ai-server at " + addr + ": connection refused; start it with `ai-server` or try `ai-client --demo`"
	if !strings.HasSuffix(err.Error(), want) {
		t.Fatalf("message\n%q\nwant suffix\n%q", err, want)
	}
}

func TestEndpointsSpeakTheContract(t *testing.T) {
	srv := clienttest.New(t, clienttest.Final("s_1", "hello"))
	srv.Traces["t_1"] = api.Trace{TraceID: "t_1", DurationMS: 5}
	srv.Sessions = []api.SessionSummary{{SessionID: "s_1", Title: "first"}}
	srv.Details["s_1"] = api.SessionDetail{SessionID: "s_1", Messages: []api.Message{{Role: "user", Content: "hi"}}}
	c := client.New(srv.URL, clienttest.Token, nil)
	ctx := context.Background()

	r, err := c.Chat(ctx, "hi", "")
	if err != nil || r.Response != "hello" || r.SessionID != "s_1" {
		t.Fatalf("Chat = %+v, %v", r, err)
	}
	if h, err := c.Health(ctx); err != nil || h.Model != "test-model" {
		t.Fatalf("Health = %+v, %v", h, err)
	}
	cfg, err := c.SetSafety(ctx, api.SafetyUpdate{Preset: "moderate"})
	if err != nil || cfg.Safety.Preset != "moderate" || len(cfg.Safety.ToolsRequiringApproval) != 5 {
		t.Fatalf("SetSafety = %+v, %v", cfg, err)
	}
	if _, err := c.SetSafety(ctx, api.SafetyUpdate{Preset: "lax"}); !errors.Is(err, client.ErrInvalidConfig) {
		t.Fatalf("SetSafety(lax) err = %v, want ErrInvalidConfig", err)
	}
	if cfg, err := c.Config(ctx); err != nil || cfg.Safety.Preset != "moderate" || len(cfg.Raw) == 0 {
		t.Fatalf("Config = %+v, %v", cfg, err)
	}
	if s, err := c.Sessions(ctx); err != nil || len(s) != 1 || s[0].Title != "first" {
		t.Fatalf("Sessions = %+v, %v", s, err)
	}
	if d, err := c.Session(ctx, "s_1"); err != nil || len(d.Messages) != 1 {
		t.Fatalf("Session = %+v, %v", d, err)
	}
	if _, err := c.Session(ctx, "s_nope"); !errors.Is(err, client.ErrSessionNotFound) {
		t.Fatalf("Session(s_nope) err = %v", err)
	}
	if err := c.DeleteSession(ctx, "s_1"); err != nil {
		t.Fatalf("DeleteSession: %v", err)
	}
	if err := c.DeleteSession(ctx, "s_1"); !errors.Is(err, client.ErrSessionNotFound) {
		t.Fatalf("second DeleteSession err = %v", err)
	}
	if tr, err := c.Trace(ctx, "t_1"); err != nil || tr.DurationMS != 5 {
		t.Fatalf("Trace = %+v, %v", tr, err)
	}
	if _, err := c.Approve(ctx, "s_1", nil); !errors.Is(err, client.ErrNoPendingApproval) {
		t.Fatalf("Approve with nothing pending err = %v", err)
	}
}

func TestFindToken(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "xdg", "ai-lab")
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(state, "token"), []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		name      string
		flag, dir string
		env       map[string]string
		want      string
		wantFile  string
	}{
		{"flag wins", "from-flag", "", map[string]string{"AILAB_TOKEN": "from-env", "XDG_STATE_HOME": filepath.Join(dir, "xdg")}, "from-flag", filepath.Join(state, "token")},
		{"env next", "", "", map[string]string{"AILAB_TOKEN": "from-env", "XDG_STATE_HOME": filepath.Join(dir, "xdg")}, "from-env", filepath.Join(state, "token")},
		{"xdg state file", "", "", map[string]string{"XDG_STATE_HOME": filepath.Join(dir, "xdg")}, "from-file", filepath.Join(state, "token")},
		{"home fallback", "", "", map[string]string{"HOME": dir}, "", filepath.Join(dir, ".local", "state", "ai-lab", "token")},
		{"explicit state dir", "", state, map[string]string{"HOME": "/nowhere"}, "from-file", filepath.Join(state, "token")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts, err := client.FindToken(tt.flag, tt.dir, env(tt.env))
			if err != nil {
				t.Fatal(err)
			}
			if ts.Token != tt.want || ts.File != tt.wantFile {
				t.Fatalf("FindToken = %+v, want token %q file %q", ts, tt.want, tt.wantFile)
			}
		})
	}
}
