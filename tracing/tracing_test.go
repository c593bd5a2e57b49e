package tracing

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/ailab/ai-lab/api"
)

var t0 = time.Date(2026, 11, 21, 23, 0, 0, 123_000_000, time.UTC)

// sampleChain is a turn of two model rounds; the first ran a search that
// worked and a page read that failed. The calls come children first, to show
// order does not matter.
func sampleChain() api.Trace {
	return api.Trace{
		TraceID: "t_0123456789abcdef0123456789abcdef", SessionID: "s_1", StartedAt: t0, DurationMS: 5000, Success: false,
		Calls: []api.TraceCall{
			{CallID: "c2", ParentID: "c1", Kind: api.CallTool, ToolName: "web_search", ExecutionID: "web_search_1763766000223_9f86d081",
				Arguments: json.RawMessage(`{"query":"go"}`), StartedAt: t0.Add(100 * time.Millisecond), DurationMS: 800, Success: true, Result: "3 results"},
			{CallID: "c3", ParentID: "c1", Kind: api.CallTool, ToolName: "read_webpage", ExecutionID: "read_webpage_1763766001000_0a1b2c3d",
				Arguments: json.RawMessage(`{"url":"https://go.dev"}`), StartedAt: t0.Add(time.Second), DurationMS: 1500, Success: false, Error: "fetch https://go.dev: timeout"},
			{CallID: "c1", Kind: api.CallModel, StartedAt: t0, DurationMS: 90, Success: true},
			{CallID: "c4", Kind: api.CallModel, StartedAt: t0.Add(3 * time.Second), DurationMS: 2000, Success: true},
		},
	}
}

func TestExportSpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	e := NewWithProcessor(rec)
	chain := sampleChain()
	e.Export(context.Background(), chain)

	spans := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range rec.Ended() {
		spans[s.Name()] = s
	}
	if len(rec.Ended()) != 5 {
		t.Fatalf("exported %d spans, want 5", len(rec.Ended()))
	}
	root, search, read := spans["turn"], spans["tool web_search"], spans["tool read_webpage"]
	if root == nil || search == nil || read == nil {
		t.Fatalf("spans = %v", spans)
	}
	var rounds []sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == "model round" {
			rounds = append(rounds, s)
		}
	}
	if len(rounds) != 2 {
		t.Fatalf("model rounds = %d, want 2", len(rounds))
	}

	if got := root.SpanContext().TraceID().String(); got != "0123456789abcdef0123456789abcdef" {
		t.Errorf("trace id = %s, want the chain's own hex", got)
	}
	if root.Parent().IsValid() {
		t.Error("root span has a parent")
	}
	firstRound := rounds[0]
	if !firstRound.StartTime().Equal(t0) {
		firstRound = rounds[1]
	}
	tests := []struct {
		name   string
		span   sdktrace.ReadOnlySpan
		parent sdktrace.ReadOnlySpan
		start  time.Time
		end    time.Time
		status codes.Code
		attrs  map[string]string
	}{
		{"turn", root, nil, t0, t0.Add(5 * time.Second), codes.Error,
			map[string]string{AttrSessionID: "s_1", AttrTraceID: chain.TraceID, AttrSuccess: "false"}},
		{"first round", firstRound, root, t0, t0.Add(90 * time.Millisecond), codes.Unset,
			map[string]string{AttrCallID: "c1", AttrCallKind: "model"}},
		{"search under the first round", search, firstRound, t0.Add(100 * time.Millisecond), t0.Add(900 * time.Millisecond), codes.Unset,
			map[string]string{AttrToolName: "web_search", AttrExecutionID: "web_search_1763766000223_9f86d081", AttrArguments: `{"query":"go"}`, AttrResult: "3 results"}},
		{"failed read under the first round", read, firstRound, t0.Add(time.Second), t0.Add(2500 * time.Millisecond), codes.Error,
			map[string]string{AttrToolName: "read_webpage", AttrError: "fetch https://go.dev: timeout", AttrSuccess: "false"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.span
			if s.SpanContext().TraceID() != root.SpanContext().TraceID() {
				t.Error("span is in another trace")
			}
			if tc.parent != nil && s.Parent().SpanID() != tc.parent.SpanContext().SpanID() {
				t.Errorf("parent = %s, want %s", s.Parent().SpanID(), tc.parent.SpanContext().SpanID())
			}
			if !s.StartTime().Equal(tc.start) || !s.EndTime().Equal(tc.end) {
				t.Errorf("span runs %v..%v, want %v..%v", s.StartTime(), s.EndTime(), tc.start, tc.end)
			}
			if s.Status().Code != tc.status {
				t.Errorf("status = %v, want %v", s.Status(), tc.status)
			}
			got := map[string]string{}
			for _, kv := range s.Attributes() {
				got[string(kv.Key)] = kv.Value.String()
			}
			for k, v := range tc.attrs {
				if got[k] != v {
					t.Errorf("attribute %s = %q, want %q", k, got[k], v)
				}
			}
		})
	}
	if read.Status().Description != "fetch https://go.dev: timeout" {
		t.Errorf("error status message = %q", read.Status().Description)
	}
}

func TestExportOddChains(t *testing.T) {
	cases := []struct {
		name  string
		chain api.Trace
	}{
		{"unknown parent", api.Trace{TraceID: "t_x", StartedAt: t0, Calls: []api.TraceCall{{CallID: "a", ParentID: "nope", Kind: api.CallTool, ToolName: "read_file", StartedAt: t0}}}},
		{"cycle", api.Trace{TraceID: "t_y", StartedAt: t0, Calls: []api.TraceCall{
			{CallID: "a", ParentID: "b", Kind: api.CallModel, StartedAt: t0}, {CallID: "b", ParentID: "a", Kind: api.CallTool, StartedAt: t0}}}},
		{"self parent", api.Trace{StartedAt: t0, Calls: []api.TraceCall{{CallID: "a", ParentID: "a", Kind: api.CallModel, StartedAt: t0}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := tracetest.NewSpanRecorder()
			NewWithProcessor(rec).Export(context.Background(), tc.chain)
			ended := rec.Ended()
			if len(ended) != len(tc.chain.Calls)+1 {
				t.Fatalf("exported %d spans, want %d", len(ended), len(tc.chain.Calls)+1)
			}
			for _, s := range ended {
				if !s.SpanContext().IsValid() || s.SpanContext().TraceID() != ended[0].SpanContext().TraceID() {
					t.Errorf("span %q is not in the chain's trace", s.Name())
				}
			}
		})
	}
}

func TestNilExporter(t *testing.T) {
	var e *Exporter
	e.Export(context.Background(), sampleChain())
	if err := e.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown of nil exporter: %v", err)
	}
}

func TestOTelTraceID(t *testing.T) {
	cases := []struct{ in, want string }{
		{"t_0123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcdef"},
		{"", ""},
	}
	for _, tc := range cases {
		if got := OTelTraceID(tc.in); got != tc.want {
			t.Errorf("OTelTraceID(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	a, b := OTelTraceID("t_short"), OTelTraceID("t_other")
	if len(a) != 32 || a == b || a != OTelTraceID("t_short") {
		t.Errorf("hashed ids %q %q are not stable and distinct", a, b)
	}
}

// otlpReceiver is an httptest OTLP/HTTP collector that records its requests.
type otlpReceiver struct {
	mu    sync.Mutex
	paths []string
	body  []byte
}

func (r *otlpReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	b, _ := io.ReadAll(body)
	r.mu.Lock()
	r.paths = append(r.paths, req.Method+" "+req.URL.Path+" "+req.Header.Get("Content-Type"))
	r.body = append(r.body, b...)
	r.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.WriteHeader(http.StatusOK)
}

func TestNewPostsToCollector(t *testing.T) {
	cases := []struct {
		name     string
		endpoint func(srv *httptest.Server) string
		path     string
	}{
		{"URL without path", func(s *httptest.Server) string { return s.URL }, "/v1/traces"},
		{"bare host:port", func(s *httptest.Server) string { return strings.TrimPrefix(s.URL, "http://") }, "/v1/traces"},
		{"URL with its own path", func(s *httptest.Server) string { return s.URL + "/otlp/v1/traces" }, "/otlp/v1/traces"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			recv := &otlpReceiver{}
			srv := httptest.NewServer(recv)
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			e, err := New(ctx, tc.endpoint(srv))
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			e.Export(ctx, sampleChain())
			if err := e.Shutdown(ctx); err != nil {
				t.Fatalf("Shutdown: %v", err)
			}
			recv.mu.Lock()
			defer recv.mu.Unlock()
			if len(recv.paths) == 0 || recv.paths[0] != "POST "+tc.path+" application/x-protobuf" {
				t.Fatalf("collector saw %v, want a POST to %s", recv.paths, tc.path)
			}
			for _, want := range []string{"tool web_search", "model round", "web_search_1763766000223_9f86d081", ServiceName} {
				if !bytes.Contains(recv.body, []byte(want)) {
					t.Errorf("exported payload lacks %q", want)
				}
			}
		})
	}
}

func TestNewRejectsBadEndpoints(t *testing.T) {
	for _, ep := range []string{"", "   ", "ftp://host:21", "http://", "host:4318/path", "::"} {
		if _, err := New(context.Background(), ep); err == nil || !strings.Contains(err.Error(), "tracing.otlp_endpoint") {
			t.Errorf("New(%q) error = %v, want one naming tracing.otlp_endpoint", ep, err)
		}
	}
}

func TestTruncateResult(t *testing.T) {
	long := strings.Repeat("é", 1500)
	cases := []struct {
		name, in, wantPrefix string
		truncated            bool
	}{
		{"short kept", "hello", "hello", false},
		{"exactly the limit kept", strings.Repeat("a", MaxResultChars), strings.Repeat("a", MaxResultChars), false},
		{"multi-byte cut on a character", long, strings.Repeat("é", MaxResultChars), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := TruncateResult(tc.in)
			if !strings.HasPrefix(got, tc.wantPrefix) {
				t.Fatalf("TruncateResult lost the first characters")
			}
			marked := strings.Contains(got, "[truncated: 1500 characters in all]")
			if marked != tc.truncated {
				t.Errorf("truncation marker present = %v, want %v (%q)", marked, tc.truncated, got[len(got)-60:])
			}
			if tc.truncated && strings.HasPrefix(got, tc.wantPrefix+"é") {
				t.Error("kept more than the limit")
			}
			if !tc.truncated && got != tc.in {
				t.Error("changed a result within the limit")
			}
		})
	}
}

func TestServiceName(t *testing.T) {
	cases := []struct{ name, env, want string }{
		{"default", "", ServiceName},
		{"OTEL_SERVICE_NAME wins", "lab-prod", "lab-prod"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("OTEL_SERVICE_NAME", tc.env)
			rec := tracetest.NewSpanRecorder()
			NewWithProcessor(rec).Export(context.Background(), sampleChain())
			got, _ := rec.Ended()[0].Resource().Set().Value("service.name")
			if got.AsString() != tc.want {
				t.Fatalf("service.name = %q, want %q", got.AsString(), tc.want)
			}
		})
	}
}
