package openai_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ailab/ai-lab/llm"
	"github.com/ailab/ai-lab/llm/openai"
)

// TestCheck: the start-up check tells a running endpoint that lists the
// model from one that is down, lacks the model, refuses the key, or cannot
// say (no /models route).
func TestCheck(t *testing.T) {
	serve := func(status int, body string) string {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/v1/models" {
				http.NotFound(w, r)
				return
			}
			w.WriteHeader(status)
			w.Write([]byte(body))
		}))
		t.Cleanup(ts.Close)
		return ts.URL + "/v1"
	}
	closed := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return "http://" + addr + "/v1"
	}()
	list := `{"object":"list","data":[{"id":"qwen2.5:7b-instruct"},{"id":"llama3.2:latest"}]}`
	cases := []struct {
		name, url, model string
		kind             llm.ErrorKind // "" for no error
		cannot           bool
		says             string
	}{
		{"listed", serve(200, list), "qwen2.5:7b-instruct", "", false, ""},
		{"listed as latest", serve(200, list), "llama3.2", "", false, ""},
		{"not listed", serve(200, list), "gpt-4o", llm.KindModelNotFound, false, "does not list the model gpt-4o (it lists qwen2.5:7b-instruct, llama3.2:latest)"},
		{"key refused", serve(401, `{"error":"bad key"}`), "m", llm.KindAuth, false, "check OPENAI_API_KEY"},
		{"no models route", serve(200, list) + "/nested", "m", "", true, ""},
		{"server error", serve(500, "boom"), "m", llm.KindStatus, false, "answered 500"},
		{"down", closed, "m", llm.KindUnreachable, false, "connection refused"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := openai.New(openai.Options{BaseURL: c.url, Model: c.model}).Check(context.Background())
			var le *llm.Error
			switch {
			case c.cannot:
				if !errors.Is(err, llm.ErrCannotCheck) {
					t.Fatalf("got %v, want ErrCannotCheck", err)
				}
			case c.kind == "":
				if err != nil {
					t.Fatalf("got %v", err)
				}
			case !errors.As(err, &le) || le.Kind != c.kind || !strings.Contains(le.Message, c.says):
				t.Fatalf("got %v, want a %s error saying %q", err, c.kind, c.says)
			}
		})
	}
}
