package tracing

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/ailab/ai-lab/api"
)

func TestMaskArgumentsByValue(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"file content", `{"path":"notes.env","content":"OPENAI_API_KEY=` + fakeOpenAI + `\nDB_PASSWORD=hunter2\nDEBUG=1"}`,
			`{"content":"OPENAI_API_KEY=***\nDB_PASSWORD=***\nDEBUG=1","path":"notes.env"}`},
		{"URL", `{"url":"http://admin:hunter2pw@example.com/?api_key=XYZ&q=go"}`,
			`{"url":"http://admin:***@example.com/?api_key=***\u0026q=go"}`}, // json.Marshal escapes &
		{"key under an innocent name", `{"value":"` + fakeGitHub + `","n":1}`, `{"n":1,"value":"***"}`},
		{"deep in arrays", `{"cmds":[["echo","` + fakeAWS + `"]],"ok":true}`, `{"cmds":[["echo","***"]],"ok":true}`},
		{"JSON held in a string", `"{\"note\":\"Bearer ` + fakeJWT + `\"}"`, `"{\"note\":\"Bearer ***\"}"`},
		{"nothing secret", `{"query":"token bucket","max_results":5}`, `{"max_results":5,"query":"token bucket"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := MaskArguments(json.RawMessage(tc.in))
			if string(got) != tc.want {
				t.Errorf("MaskArguments(%s)\n got %s\nwant %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestExportMasksSecrets(t *testing.T) {
	secrets := []string{"hunter2pw", "XYZ123", fakeOpenAI, fakeGitHub, "s3cr3tpw", "dbpass99"}
	// A chain as stored before masking by value: only key names were masked.
	chain := api.Trace{
		TraceID: "t_0123456789abcdef0123456789abcdef", SessionID: "s_1", StartedAt: t0, DurationMS: 10,
		Calls: []api.TraceCall{
			{CallID: "c1", Kind: api.CallTool, ToolName: "read_webpage", StartedAt: t0, Success: true,
				Arguments: json.RawMessage(`{"url":"http://admin:hunter2pw@example.com/?api_key=XYZ123&q=go"}`),
				Result:    `{"result":"OPENAI_API_KEY=` + fakeOpenAI + `\n` + fakeGitHub + `"}`},
			{CallID: "c2", Kind: api.CallTool, ToolName: "run_command", StartedAt: t0, Success: false,
				Arguments: json.RawMessage(`{"command":"psql postgres://app:s3cr3tpw@db/app"}`),
				Error:     "exit 1: DB_PASSWORD=dbpass99 rejected"},
		},
	}
	rec := tracetest.NewSpanRecorder()
	NewWithProcessor(rec).Export(context.Background(), chain)
	if len(rec.Ended()) != 3 {
		t.Fatalf("exported %d spans, want 3", len(rec.Ended()))
	}
	var seen strings.Builder
	for _, s := range rec.Ended() {
		seen.WriteString(s.Name() + " " + s.Status().Description + "\n")
		for _, kv := range s.Attributes() {
			seen.WriteString(string(kv.Key) + "=" + kv.Value.String() + "\n")
		}
		for _, ev := range s.Events() {
			seen.WriteString(ev.Name + "\n")
		}
	}
	for _, secret := range secrets {
		if strings.Contains(seen.String(), secret) {
			t.Errorf("exported spans contain %q:\n%s", secret, seen.String())
		}
	}
	for _, kept := range []string{"q=go", "http://admin:***@example.com", "rejected"} {
		if !strings.Contains(seen.String(), kept) {
			t.Errorf("exported spans lack %q:\n%s", kept, seen.String())
		}
	}
}
