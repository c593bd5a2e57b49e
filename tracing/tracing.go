// Package tracing exports the call chains of user turns (api.Trace) as
// OpenTelemetry spans over OTLP/HTTP, so a team can look at them in Jaeger,
// Tempo or any OTLP backend. It masks with package secret, the one rule set
// for everything the server shows: SafeResult masks and truncates a result
// for a trace, and NewMaskingHandler applies secret.Mask to a slog.Handler.
//
// It only exports: the chains themselves are stored and queried by the
// server. The exporter masks every argument, result and error again before
// it becomes a span attribute, so a chain recorded before masking existed,
// or built elsewhere, never leaves the process with its secrets. It must
// never install global OpenTelemetry state (tracer provider, error handler),
// never run an exporter when no endpoint is configured, and never import
// anything of ours but api and secret.
package tracing

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/secret"
)

// ServiceName is the service.name of every exported span.
const ServiceName = "ai-server"

// instrumentationName names the tracer the spans come from.
const instrumentationName = "github.com/ailab/ai-lab/tracing"

// Attribute keys of the exported spans.
const (
	AttrSessionID   = "session.id"
	AttrTraceID     = "ailab.trace_id"
	AttrSuccess     = "ailab.success"
	AttrCallID      = "ailab.call_id"
	AttrCallKind    = "ailab.call_kind"
	AttrToolName    = "tool.name"
	AttrExecutionID = "execution.id"
	AttrArguments   = "tool.arguments"
	AttrResult      = "tool.result"
	AttrError       = "error.message"
)

// An Exporter turns finished call chains into spans and hands them to an
// OpenTelemetry span processor. A nil *Exporter is valid and exports nothing,
// which is what a server without tracing.otlp_endpoint holds.
type Exporter struct {
	provider *sdktrace.TracerProvider
	tracer   trace.Tracer
}

// New returns an Exporter that sends spans in batches to the OTLP/HTTP
// collector at endpoint: "http://host:4318" or "https://host:4318" (spans go
// to /v1/traces), a URL with its own path (used as is), or a bare "host:port"
// (plain HTTP, as local collectors listen). Nothing is sent until a chain is
// exported, so ctx is not used; call Shutdown to flush before exit.
// OTEL_EXPORTER_OTLP_HEADERS and the other variables of the OTLP exporter
// configuration (see otlpExporter) apply.
func New(_ context.Context, endpoint string) (*Exporter, error) {
	exp, err := newOTLPExporter(endpoint, os.Getenv)
	if err != nil {
		return nil, err
	}
	return newExporter(sdktrace.NewBatchSpanProcessor(exp)), nil
}

// NewWithProcessor returns an Exporter that hands its spans to sp; tests pass
// tracetest.NewSpanRecorder().
func NewWithProcessor(sp sdktrace.SpanProcessor) *Exporter {
	return newExporter(sp)
}

func newExporter(sp sdktrace.SpanProcessor) *Exporter {
	// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES still win over our
	// service name, as operators of an OTLP backend expect.
	res := resource.NewSchemaless(attribute.String("service.name", ServiceName))
	if merged, err := resource.Merge(res, resource.Environment()); err == nil {
		res = merged
	}
	if merged, err := resource.Merge(resource.Default(), res); err == nil {
		res = merged // adds the SDK's telemetry.sdk.* attributes
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithSpanProcessor(sp),
		sdktrace.WithResource(res),
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithIDGenerator(chainIDs{}),
	)
	return &Exporter{provider: tp, tracer: tp.Tracer(instrumentationName)}
}

// Export sends one chain: a root span "turn" for the whole turn and, under it,
// a span per call, each model round's tool calls under that round. Spans carry
// the recorded start and end times, not the time of export. Export is safe
// for concurrent use.
func (e *Exporter) Export(ctx context.Context, t api.Trace) {
	if e == nil {
		return
	}
	ctx = context.WithValue(ctx, chainKey{}, otelTraceID(t.TraceID))
	rootCtx, root := e.tracer.Start(ctx, "turn",
		trace.WithNewRoot(),
		trace.WithTimestamp(t.StartedAt),
		trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(
			attribute.String(AttrSessionID, t.SessionID),
			attribute.String(AttrTraceID, t.TraceID),
			attribute.Bool(AttrSuccess, t.Success),
		),
	)
	if !t.Success {
		root.SetStatus(codes.Error, "the turn failed")
	}

	byID := make(map[string]int, len(t.Calls))
	for i, c := range t.Calls {
		if c.CallID != "" {
			byID[c.CallID] = i
		}
	}
	ctxs := make([]context.Context, len(t.Calls))
	visiting := make([]bool, len(t.Calls))
	// spanCtx starts call i after its parent, so that calls may come in any
	// order; a parent that is unknown, or one that closes a cycle, is replaced
	// by the root.
	var spanCtx func(i int) context.Context
	spanCtx = func(i int) context.Context {
		if ctxs[i] != nil {
			return ctxs[i]
		}
		visiting[i] = true
		parent := rootCtx
		if p, ok := byID[t.Calls[i].ParentID]; ok && !visiting[p] {
			parent = spanCtx(p)
		}
		visiting[i] = false
		ctxs[i] = e.startCall(parent, t.Calls[i])
		return ctxs[i]
	}
	for i := range t.Calls {
		spanCtx(i)
	}
	root.End(trace.WithTimestamp(endOf(t.StartedAt, t.DurationMS)))
}

// startCall records one call as a finished span and returns the context its
// children start from.
func (e *Exporter) startCall(parent context.Context, c api.TraceCall) context.Context {
	name := "model round"
	if c.Kind == api.CallTool {
		name = "tool " + c.ToolName
	}
	attrs := []attribute.KeyValue{
		attribute.String(AttrCallID, c.CallID),
		attribute.String(AttrCallKind, c.Kind),
		attribute.Bool(AttrSuccess, c.Success),
	}
	if c.ToolName != "" {
		attrs = append(attrs, attribute.String(AttrToolName, c.ToolName))
	}
	if c.ExecutionID != "" {
		attrs = append(attrs, attribute.String(AttrExecutionID, c.ExecutionID))
	}
	// Masked again: the chain may have been stored before masking by value
	// existed. Both functions return masked text unchanged.
	if len(c.Arguments) > 0 {
		attrs = append(attrs, attribute.String(AttrArguments, string(secret.MaskJSON(c.Arguments))))
	}
	if c.Result != "" {
		attrs = append(attrs, attribute.String(AttrResult, secret.Mask(c.Result)))
	}
	kind := trace.SpanKindInternal
	if c.Kind == api.CallModel {
		kind = trace.SpanKindClient
	}
	ctx, span := e.tracer.Start(parent, name, trace.WithTimestamp(c.StartedAt), trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
	if !c.Success {
		msg := secret.Mask(c.Error)
		if msg == "" {
			msg = "the call failed"
		}
		span.SetAttributes(attribute.String(AttrError, msg))
		span.SetStatus(codes.Error, msg)
	}
	span.End(trace.WithTimestamp(endOf(c.StartedAt, c.DurationMS)))
	return ctx
}

func endOf(start time.Time, durationMS int64) time.Time {
	return start.Add(time.Duration(max(durationMS, 0)) * time.Millisecond)
}

// Shutdown exports what is still buffered and stops the exporter. It is a
// no-op on a nil Exporter.
func (e *Exporter) Shutdown(ctx context.Context) error {
	if e == nil {
		return nil
	}
	if err := e.provider.Shutdown(ctx); err != nil {
		return fmt.Errorf("flush traces to the OTLP collector: %w", err)
	}
	return nil
}

// chainKey carries the OpenTelemetry trace id of the chain being exported.
type chainKey struct{}

// chainIDs gives every span of a chain the trace id derived from the chain's
// own trace_id, so the same turn can be found in the backend and in
// GET /traces/{id}; span ids are random.
type chainIDs struct{}

var _ sdktrace.IDGenerator = chainIDs{}

func (chainIDs) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	tid, _ := ctx.Value(chainKey{}).(trace.TraceID)
	if !tid.IsValid() {
		tid = randomTraceID()
	}
	return tid, randomSpanID()
}

func (chainIDs) NewSpanID(context.Context, trace.TraceID) trace.SpanID {
	return randomSpanID()
}

// OTelTraceID returns the OpenTelemetry trace id a chain is exported under:
// the chain id's 32 hex digits when it has them (t_<32 hex>), else the first
// 16 bytes of its SHA-256. An empty id gets the invalid zero id, which makes
// the exporter pick a random one.
func OTelTraceID(traceID string) string {
	tid := otelTraceID(traceID)
	if !tid.IsValid() {
		return ""
	}
	return tid.String()
}

func otelTraceID(traceID string) trace.TraceID {
	var tid trace.TraceID
	if traceID == "" {
		return tid
	}
	if b, err := hex.DecodeString(strings.TrimPrefix(traceID, "t_")); err == nil && len(b) == len(tid) {
		copy(tid[:], b)
	} else {
		sum := sha256.Sum256([]byte(traceID))
		copy(tid[:], sum[:len(tid)])
	}
	if !tid.IsValid() {
		tid[len(tid)-1] = 1 // an all-zero id is invalid in OpenTelemetry
	}
	return tid
}

func randomTraceID() trace.TraceID {
	var id trace.TraceID
	for !id.IsValid() {
		_, _ = rand.Read(id[:]) // crypto/rand.Read never fails on supported platforms
	}
	return id
}

func randomSpanID() trace.SpanID {
	var id trace.SpanID
	for !id.IsValid() {
		_, _ = rand.Read(id[:])
	}
	return id
}
