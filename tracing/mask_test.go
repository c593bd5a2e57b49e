package tracing

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/ailab/ai-lab/api"
)

func TestSafeResult(t *testing.T) {
	// The key starts before the cut and ends after it: truncating first
	// would leave a prefix that no rule recognises.
	in := strings.Repeat("x", MaxResultChars-10) + " " + fakeGitHub + " tail"
	got := SafeResult(in)
	if strings.Contains(got, fakeGitHub[:9]) {
		t.Errorf("SafeResult kept the start of a key cut by truncation: %q", got[len(got)-60:])
	}
	if !strings.HasPrefix(got, strings.Repeat("x", MaxResultChars-10)+" ***") {
		t.Errorf("SafeResult lost the text around the key: %q", got[len(got)-60:])
	}
	if got := SafeResult("ok"); got != "ok" {
		t.Errorf("SafeResult(ok) = %q", got)
	}
	long := strings.Repeat("é", 1500)
	if got := SafeResult(long); got != TruncateResult(long) {
		t.Error("SafeResult does not truncate like TruncateResult")
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

// Keys in the formats secret.Mask knows; none of them is real.
const (
	fakeOpenAI = "sk-abc123DEF456ghi789JKL012mno345PQR678stu"
	fakeGitHub = "ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1eF3hJ5"
)
