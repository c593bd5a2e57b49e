package tracing

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/ailab/ai-lab/secret"
)

// NewMaskingHandler returns a slog.Handler that passes every record on to h
// with secret.Mask applied to its message and to every string value among its
// attributes, at any depth of groups, including attributes added with
// WithAttrs. Errors, fmt.Stringers and byte slices whose text holds a secret
// are passed on as their masked text; a json.RawMessage goes through
// secret.MaskJSON. Values are resolved first, so what a slog.LogValuer
// computes is masked too. Other values (numbers, times, structs) are passed
// on as they are; attribute keys and group names, which the code chooses,
// are not masked.
func NewMaskingHandler(h slog.Handler) slog.Handler {
	return &maskingHandler{next: h}
}

type maskingHandler struct {
	next slog.Handler
}

var _ slog.Handler = (*maskingHandler)(nil)

func (m *maskingHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return m.next.Enabled(ctx, level)
}

func (m *maskingHandler) Handle(ctx context.Context, r slog.Record) error {
	// A Record shares its attributes with its clones, so a new one is built
	// rather than the caller's changed.
	out := slog.NewRecord(r.Time, r.Level, secret.Mask(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(maskAttr(a))
		return true
	})
	return m.next.Handle(ctx, out)
}

func (m *maskingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	masked := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		masked[i] = maskAttr(a)
	}
	return &maskingHandler{next: m.next.WithAttrs(masked)}
}

func (m *maskingHandler) WithGroup(name string) slog.Handler {
	return &maskingHandler{next: m.next.WithGroup(name)}
}

func maskAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		v = slog.StringValue(secret.Mask(v.String()))
	case slog.KindGroup:
		group := v.Group()
		masked := make([]slog.Attr, len(group))
		for i, g := range group {
			masked[i] = maskAttr(g)
		}
		v = slog.GroupValue(masked...)
	case slog.KindAny:
		v = maskAny(v)
	}
	a.Value = v
	return a
}

// maskAny keeps a value whose text holds no secret, so handlers still see
// its type (a JSON handler encodes a struct as an object), and otherwise
// replaces it by its masked text.
func maskAny(v slog.Value) slog.Value {
	var text string
	switch x := v.Any().(type) {
	case json.RawMessage:
		return slog.AnyValue(secret.MaskJSON(x))
	case error:
		text = x.Error()
	case fmt.Stringer: // *url.URL prints its password
		text = x.String()
	case []byte:
		text = string(x)
	default:
		return v
	}
	if masked := secret.Mask(text); masked != text {
		return slog.StringValue(masked)
	}
	return v
}
