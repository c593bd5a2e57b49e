package tracing

import (
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// capture is a collector that keeps the last request it got.
type capture struct {
	mu     sync.Mutex
	header http.Header
	body   []byte
	status []int // answers to give, in order; 200 once used up
}

func (c *capture) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	b, _ := io.ReadAll(body)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.header, c.body = r.Header.Clone(), b
	status := http.StatusOK
	if len(c.status) > 0 {
		status, c.status = c.status[0], c.status[1:]
	}
	w.WriteHeader(status)
}

func (c *capture) request(t *testing.T) *coltracepb.ExportTraceServiceRequest {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	var req coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(c.body, &req); err != nil {
		t.Fatalf("collector got a body that is not an ExportTraceServiceRequest: %v", err)
	}
	return &req
}

// oddSpans covers what the encoder must handle: every attribute type, events,
// links, a remote parent, both status codes, two scopes and two resources.
func oddSpans() []sdktrace.ReadOnlySpan {
	tid := trace.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	ts, _ := trace.ParseTraceState("vendor=abc")
	sc := func(s byte, remote bool) trace.SpanContext {
		return trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{s, 1}, TraceFlags: trace.FlagsSampled, TraceState: ts, Remote: remote})
	}
	res := resource.NewWithAttributes("https://opentelemetry.io/schemas/1.0.0", attribute.String("service.name", "x"), attribute.Int("n", -3))
	other := resource.NewSchemaless(attribute.String("service.name", "y"))
	scope := instrumentation.Scope{Name: "a", Version: "1.2", SchemaURL: "https://s", Attributes: attribute.NewSet(attribute.Bool("b", true))}
	start := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	stubs := tracetest.SpanStubs{
		{
			Name: "root", SpanContext: sc(1, false), Parent: sc(9, true), SpanKind: trace.SpanKindServer,
			StartTime: start, EndTime: start.Add(time.Second), Resource: res, InstrumentationScope: scope,
			Attributes: []attribute.KeyValue{
				attribute.String("s", ""), attribute.String("s2", "ünï"), attribute.Bool("f", false), attribute.Int64("i", -1),
				attribute.Float64("x", 1.5), attribute.StringSlice("ss", []string{"a", ""}), attribute.BoolSlice("bs", []bool{true, false}),
				attribute.Int64Slice("is", []int64{0, 7}), attribute.Float64Slice("fs", []float64{0, -2.25}),
			},
			DroppedAttributes: 2,
			Events:            []sdktrace.Event{{Name: "e", Time: start.Add(time.Millisecond), Attributes: []attribute.KeyValue{attribute.Int("k", 1)}, DroppedAttributeCount: 1}},
			Links:             []sdktrace.Link{{SpanContext: sc(7, true), Attributes: []attribute.KeyValue{attribute.String("l", "v")}, DroppedAttributeCount: 3}},
			DroppedEvents:     4, DroppedLinks: 5,
			Status: sdktrace.Status{Code: codes.Error, Description: "broke"},
		},
		{
			Name: "child", SpanContext: sc(2, false), Parent: sc(1, false), SpanKind: trace.SpanKindClient,
			StartTime: start, EndTime: start.Add(time.Millisecond), Resource: res, InstrumentationScope: instrumentation.Scope{Name: "b"},
			Status: sdktrace.Status{Code: codes.Ok},
		},
		{Name: "elsewhere", SpanContext: sc(3, false), StartTime: start, EndTime: start, Resource: other, InstrumentationScope: scope},
		{Name: "same scope again", SpanContext: sc(4, false), StartTime: start, EndTime: start.Add(time.Hour), Resource: res, InstrumentationScope: scope},
	}
	return stubs.Snapshots()
}

// TestOTLPEncodingMatchesOpenTelemetry sends the same spans through our
// exporter and through OpenTelemetry's otlptracehttp (linked by this test
// only) and requires the collector to decode the same request from both.
func TestOTLPEncodingMatchesOpenTelemetry(t *testing.T) {
	ctx := context.Background()
	spans := oddSpans()

	theirs := &capture{}
	srv := httptest.NewServer(theirs)
	defer srv.Close()
	ref, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(srv.URL+"/v1/traces"), otlptracehttp.WithInsecure())
	if err != nil {
		t.Fatal(err)
	}
	if err := ref.ExportSpans(ctx, spans); err != nil {
		t.Fatalf("otlptracehttp: %v", err)
	}

	ours := &capture{}
	srv2 := httptest.NewServer(ours)
	defer srv2.Close()
	exp, err := newOTLPExporter(srv2.URL, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if err := exp.ExportSpans(ctx, spans); err != nil {
		t.Fatalf("ours: %v", err)
	}

	want, got := theirs.request(t), ours.request(t)
	if len(got.GetResourceSpans()) != 2 || len(got.GetResourceSpans()[0].GetScopeSpans()) != 2 {
		t.Errorf("ours grouped %d resources, want 2 with 2 scopes in the first", len(got.GetResourceSpans()))
	}
	// otlptracehttp leaves out a link's trace state (field 3), which the
	// proto has; ours sends it, so it is compared apart.
	for _, rs := range got.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			for _, sp := range ss.GetSpans() {
				for _, l := range sp.GetLinks() {
					if l.TraceState != "vendor=abc" {
						t.Errorf("link trace state = %q", l.TraceState)
					}
					l.TraceState = ""
				}
			}
		}
	}
	// otlptracehttp groups resources through a map, in no fixed order.
	byResource := func(a, b *tracepb.ResourceSpans) int {
		return strings.Compare(a.GetResource().String(), b.GetResource().String())
	}
	slices.SortFunc(got.ResourceSpans, byResource)
	slices.SortFunc(want.ResourceSpans, byResource)
	if !proto.Equal(got, want) {
		t.Errorf("our request differs from otlptracehttp's:\n ours: %v\ntheirs: %v", got, want)
	}
	if ct := ours.header.Get("Content-Type"); ct != "application/x-protobuf" {
		t.Errorf("Content-Type = %q", ct)
	}
}

func TestOTLPEnvironment(t *testing.T) {
	env := map[string]string{
		"OTEL_EXPORTER_OTLP_HEADERS":        "authorization=Basic%20abc, x-team = blue ,bad",
		"OTEL_EXPORTER_OTLP_TRACES_HEADERS": "x-team=red",
		"OTEL_EXPORTER_OTLP_COMPRESSION":    "gzip",
		"OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "2500",
	}
	c := &capture{}
	srv := httptest.NewServer(c)
	defer srv.Close()
	exp, err := newOTLPExporter(srv.URL, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	// The traces variable wins over the general one as a whole, as in otlptracehttp.
	if got := exp.headers.Get("X-Team"); got != "red" || exp.headers.Get("Authorization") != "" {
		t.Errorf("headers = %v, want only x-team: red", exp.headers)
	}
	if exp.timeout != 2500*time.Millisecond || !exp.gzip {
		t.Errorf("timeout %v gzip %v", exp.timeout, exp.gzip)
	}
	if err := exp.ExportSpans(context.Background(), oddSpans()); err != nil {
		t.Fatal(err)
	}
	if c.header.Get("Content-Encoding") != "gzip" || c.header.Get("X-Team") != "red" {
		t.Errorf("collector saw headers %v", c.header)
	}
	if n := len(c.request(t).GetResourceSpans()); n != 2 {
		t.Errorf("gzip body decoded to %d resource spans, want 2", n)
	}

	h := parseOTLPHeaders("authorization=Basic%20abc, x-team = blue ,bad,=x")
	if h.Get("Authorization") != "Basic abc" || h.Get("X-Team") != "blue" || len(h) != 2 {
		t.Errorf("parseOTLPHeaders = %v", h)
	}
}

func TestOTLPRetries(t *testing.T) {
	c := &capture{status: []int{http.StatusServiceUnavailable, http.StatusTooManyRequests}}
	srv := httptest.NewServer(c)
	defer srv.Close()
	exp, err := newOTLPExporter(srv.URL, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	exp.firstBackoff = time.Millisecond
	if err := exp.ExportSpans(context.Background(), oddSpans()); err != nil {
		t.Fatalf("after two transient failures: %v", err)
	}

	c.status = []int{http.StatusBadRequest}
	if err := exp.ExportSpans(context.Background(), oddSpans()); err == nil || !strings.Contains(err.Error(), "400") {
		t.Errorf("a 400 gave %v, want a final error naming it", err)
	}

	c.status = []int{503, 503, 503, 503, 503, 503, 503, 503}
	exp.maxElapsed = 5 * time.Millisecond
	if err := exp.ExportSpans(context.Background(), oddSpans()); err == nil {
		t.Error("retries did not stop when their time ran out")
	}
}

func TestTracesURL(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:4318":                  "http://127.0.0.1:4318/v1/traces",
		" http://collector:4318 ":         "http://collector:4318/v1/traces",
		"https://collector:4318/":         "https://collector:4318/v1/traces",
		"https://host/otlp/v1/traces?x=1": "https://host/otlp/v1/traces?x=1",
	} {
		if got, err := tracesURL(in); err != nil || got != want {
			t.Errorf("tracesURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
