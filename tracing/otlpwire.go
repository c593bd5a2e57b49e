package tracing

import (
	"encoding/binary"
	"math"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// The protobuf encoding of an OTLP ExportTraceServiceRequest
// (opentelemetry/proto/collector/trace/v1 and trace/v1, common/v1,
// resource/v1), written by hand so that the exporter needs no generated code
// and no gRPC. Field numbers are those of the .proto files.

// wire is a protobuf message being appended to.
type wire []byte

const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

func (w *wire) tag(field, typ int) {
	*w = binary.AppendUvarint(*w, uint64(field)<<3|uint64(typ))
}

// varint writes a non-zero integer field (proto3 leaves zero out).
func (w *wire) varint(field int, v uint64) {
	if v == 0 {
		return
	}
	w.tag(field, wireVarint)
	*w = binary.AppendUvarint(*w, v)
}

func (w *wire) fixed64(field int, v uint64) {
	if v == 0 {
		return
	}
	w.tag(field, wireFixed64)
	*w = binary.LittleEndian.AppendUint64(*w, v)
}

func (w *wire) fixed32(field int, v uint32) {
	if v == 0 {
		return
	}
	w.tag(field, wireFixed32)
	*w = binary.LittleEndian.AppendUint32(*w, v)
}

// bytes writes a length-delimited field, even an empty one: callers leave
// out what proto3 would leave out.
func (w *wire) bytes(field int, b []byte) {
	w.tag(field, wireBytes)
	*w = binary.AppendUvarint(*w, uint64(len(b)))
	*w = append(*w, b...)
}

func (w *wire) str(field int, s string) {
	if s == "" {
		return
	}
	w.tag(field, wireBytes)
	*w = binary.AppendUvarint(*w, uint64(len(s)))
	*w = append(*w, s...)
}

// message writes the message fill builds as field.
func (w *wire) message(field int, fill func(m *wire)) {
	var m wire
	fill(&m)
	w.bytes(field, m)
}

// encodeTraces is the ExportTraceServiceRequest for spans, grouped by
// resource and then by instrumentation scope in order of first appearance.
func encodeTraces(spans []sdktrace.ReadOnlySpan) []byte {
	type scopeKey struct {
		name, version, schemaURL string
		attrs                    attribute.Distinct
	}
	type scopeSpans struct {
		scope instrumentation.Scope
		spans []sdktrace.ReadOnlySpan
	}
	type resourceKey struct {
		schemaURL string
		attrs     attribute.Distinct
	}
	type resourceSpans struct {
		res    *resource.Resource
		scopes []*scopeSpans
		index  map[scopeKey]*scopeSpans
	}
	var groups []*resourceSpans
	byRes := map[resourceKey]*resourceSpans{}
	for _, s := range spans {
		res := resourceOf(s)
		rk := resourceKey{res.SchemaURL(), res.Equivalent()}
		rs := byRes[rk]
		if rs == nil {
			rs = &resourceSpans{res: res, index: map[scopeKey]*scopeSpans{}}
			byRes[rk] = rs
			groups = append(groups, rs)
		}
		sc := s.InstrumentationScope()
		sk := scopeKey{sc.Name, sc.Version, sc.SchemaURL, sc.Attributes.Equivalent()}
		ss := rs.index[sk]
		if ss == nil {
			ss = &scopeSpans{scope: sc}
			rs.index[sk] = ss
			rs.scopes = append(rs.scopes, ss)
		}
		ss.spans = append(ss.spans, s)
	}

	var req wire
	for _, rs := range groups {
		req.message(1, func(m *wire) { // ResourceSpans
			m.message(1, func(r *wire) { // Resource
				for _, kv := range rs.res.Attributes() {
					r.message(1, func(x *wire) { encodeKeyValue(x, kv) })
				}
			})
			for _, ss := range rs.scopes {
				m.message(2, func(x *wire) { encodeScopeSpans(x, ss.scope, ss.spans) })
			}
			m.str(3, rs.res.SchemaURL())
		})
	}
	return req
}

func encodeScopeSpans(w *wire, sc instrumentation.Scope, spans []sdktrace.ReadOnlySpan) {
	w.message(1, func(m *wire) { // InstrumentationScope
		m.str(1, sc.Name)
		m.str(2, sc.Version)
		for _, kv := range sc.Attributes.ToSlice() {
			m.message(3, func(x *wire) { encodeKeyValue(x, kv) })
		}
	})
	for _, s := range spans {
		w.message(2, func(m *wire) { encodeSpan(m, s) })
	}
	w.str(3, sc.SchemaURL)
}

// Bits of Span.flags above the W3C trace flags: whether the parent is known
// to be remote, and whether it is.
const (
	flagHasIsRemote = 0x100
	flagIsRemote    = 0x200
)

func encodeSpan(w *wire, s sdktrace.ReadOnlySpan) {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	w.bytes(1, tid[:])
	w.bytes(2, sid[:])
	w.str(3, sc.TraceState().String())
	parent := s.Parent()
	if parent.SpanID().IsValid() {
		psid := parent.SpanID()
		w.bytes(4, psid[:])
	}
	w.str(5, s.Name())
	w.varint(6, uint64(s.SpanKind())) // trace.SpanKind numbers match the proto's SpanKind
	w.fixed64(7, unixNano(s.StartTime()))
	w.fixed64(8, unixNano(s.EndTime()))
	for _, kv := range s.Attributes() {
		w.message(9, func(x *wire) { encodeKeyValue(x, kv) })
	}
	w.varint(10, uint64(max(s.DroppedAttributes(), 0)))
	for _, ev := range s.Events() {
		w.message(11, func(m *wire) {
			m.fixed64(1, unixNano(ev.Time))
			m.str(2, ev.Name)
			for _, kv := range ev.Attributes {
				m.message(3, func(x *wire) { encodeKeyValue(x, kv) })
			}
			m.varint(4, uint64(max(ev.DroppedAttributeCount, 0)))
		})
	}
	w.varint(12, uint64(max(s.DroppedEvents(), 0)))
	for _, l := range s.Links() {
		w.message(13, func(m *wire) {
			ltid, lsid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
			m.bytes(1, ltid[:])
			m.bytes(2, lsid[:])
			m.str(3, l.SpanContext.TraceState().String())
			for _, kv := range l.Attributes {
				m.message(4, func(x *wire) { encodeKeyValue(x, kv) })
			}
			m.varint(5, uint64(max(l.DroppedAttributeCount, 0)))
			m.fixed32(6, spanFlags(l.SpanContext.TraceFlags(), l.SpanContext.IsRemote()))
		})
	}
	w.varint(14, uint64(max(s.DroppedLinks(), 0)))
	st := s.Status()
	w.message(15, func(m *wire) {
		m.str(2, st.Description)
		m.varint(3, statusCode(st.Code))
	})
	w.fixed32(16, spanFlags(sc.TraceFlags(), parent.IsRemote()))
}

func spanFlags(tf interface{ IsSampled() bool }, remote bool) uint32 {
	f := uint32(flagHasIsRemote)
	if tf.IsSampled() {
		f |= 1
	}
	if remote {
		f |= flagIsRemote
	}
	return f
}

// statusCode maps OpenTelemetry's codes (Unset, Error, Ok) to the proto's
// StatusCode (UNSET 0, OK 1, ERROR 2), which are numbered differently.
func statusCode(c codes.Code) uint64 {
	switch c {
	case codes.Ok:
		return 1
	case codes.Error:
		return 2
	}
	return 0
}

func unixNano(t time.Time) uint64 {
	if t.IsZero() {
		return 0
	}
	return uint64(max(t.UnixNano(), 0))
}

// encodeKeyValue writes a KeyValue: key 1, AnyValue 2.
func encodeKeyValue(w *wire, kv attribute.KeyValue) {
	w.str(1, string(kv.Key))
	w.message(2, func(m *wire) { encodeValue(m, kv.Value) })
}

// encodeValue writes an AnyValue. Its fields form a oneof, so a zero value
// (false, 0, "") is written all the same.
func encodeValue(w *wire, v attribute.Value) {
	switch v.Type() {
	case attribute.STRING:
		w.bytes(1, []byte(v.AsString()))
	case attribute.BOOL:
		w.tag(2, wireVarint)
		b := uint64(0)
		if v.AsBool() {
			b = 1
		}
		*w = binary.AppendUvarint(*w, b)
	case attribute.INT64:
		w.tag(3, wireVarint)
		*w = binary.AppendUvarint(*w, uint64(v.AsInt64()))
	case attribute.FLOAT64:
		w.tag(4, wireFixed64)
		*w = binary.LittleEndian.AppendUint64(*w, math.Float64bits(v.AsFloat64()))
	case attribute.BYTESLICE:
		w.bytes(7, v.AsByteSlice())
	case attribute.BOOLSLICE:
		encodeArray(w, v.AsBoolSlice(), attribute.BoolValue)
	case attribute.INT64SLICE:
		encodeArray(w, v.AsInt64Slice(), attribute.Int64Value)
	case attribute.FLOAT64SLICE:
		encodeArray(w, v.AsFloat64Slice(), attribute.Float64Value)
	case attribute.STRINGSLICE:
		encodeArray(w, v.AsStringSlice(), attribute.StringValue)
	case attribute.SLICE:
		encodeArray(w, v.AsSlice(), func(x attribute.Value) attribute.Value { return x })
	case attribute.MAP:
		w.message(6, func(m *wire) { // KeyValueList
			for _, kv := range v.AsMap() {
				m.message(1, func(x *wire) { encodeKeyValue(x, kv) })
			}
		})
	}
	// EMPTY stays an AnyValue with no field set.
}

// encodeArray writes an ArrayValue (AnyValue field 5) of elems.
func encodeArray[T any](w *wire, elems []T, value func(T) attribute.Value) {
	w.message(5, func(m *wire) {
		for _, e := range elems {
			m.message(1, func(x *wire) { encodeValue(x, value(e)) })
		}
	})
}
