package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client"
	"github.com/ailab/ai-lab/client/clienttest"
)

// A key the tests show; not a real one.
const shownKey = "sk-abc123DEF456ghi789JKL012mno345PQR678stu"

func TestSecretNote(t *testing.T) {
	cases := []struct{ name, args, want string }{
		{"a key in a file's content", `{"path":"app.env","content":"OPENAI_API_KEY=` + shownKey + `"}`, "the content looks like a secret (an API key)"},
		{"a name that says password", `{"url":"https://x.example/login","password":"hunter2"}`, "the password looks like a secret (a password)"},
		{"a token in a URL", `{"url":"https://x.example/?access_token=abc123"}`, "the url looks like a secret (an access token)"},
		{"ordinary arguments", `{"query":"token bucket rate limits","max_results":5}`, ""},
		{"a commit hash", `{"path":"log.txt","content":"commit 3f2a9c4b8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a"}`, ""},
		{"arguments kept as a string", `"{\"password\":\"hunter2\"`, "the arguments look like a secret (a password)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := client.SecretNote(api.PendingTool{ToolName: "write_file", Arguments: json.RawMessage(tc.args)})
			if got != tc.want {
				t.Errorf("SecretNote(%s) = %q, want %q", tc.args, got, tc.want)
			}
		})
	}
}

// TestTheTableShowsASecretExactlyWithANote: the user decides on the exact
// arguments, so the table and ? show the key as it is, with a note that it
// looks like one; the one-shot prompt does the same.
func TestTheTableShowsASecretExactlyWithANote(t *testing.T) {
	call := clienttest.Call("write_file", `{"path":"app.env","content":"OPENAI_API_KEY=`+shownKey+`"}`, "c1")
	b := client.NewBatch(clienttest.Pending("s_1", call))
	table := ansi.Strip(strings.Join(b.Table(client.ScreenOptions{Width: 120}).Lines, "\n"))
	details := ansi.Strip(client.Details(call, client.TableStyle{}))
	for name, shown := range map[string]string{"table": table, "details": details} {
		if !strings.Contains(shown, shownKey) {
			t.Errorf("the %s does not show the exact key:\n%s", name, shown)
		}
		if !strings.Contains(shown, "⚠ the content looks like a secret (an API key)") {
			t.Errorf("the %s has no note:\n%s", name, shown)
		}
	}

	srv := clienttest.New(t, clienttest.Pending("s_1", call), clienttest.Final("s_1", "Saved."))
	var out, prompt bytes.Buffer
	o := client.Once{Message: "save my key", Approve: client.ApproveAsk, In: strings.NewReader("y\n"), Out: &out, Prompt: &prompt, Width: 120}
	if err := o.Run(context.Background(), client.New(srv.URL, clienttest.Token, nil)); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if p := prompt.String(); !strings.Contains(p, shownKey) || !strings.Contains(p, "the content looks like a secret (an API key)") {
		t.Errorf("the one-shot prompt lacks the exact key or the note:\n%s", p)
	}
}
