package tracing

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"testing"
)

// secretValuer computes a secret when the record is handled.
type secretValuer struct{}

func (secretValuer) LogValue() slog.Value { return slog.StringValue("token=valuer-secret") }

func TestMaskingHandler(t *testing.T) {
	secrets := []string{"hunter2pw", "attr-secret", "with-secret", "err-secret", "grp-secret", "valuer-secret", "url-secret", "raw-secret", fakeGitHub}
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			var h slog.Handler = slog.NewTextHandler(&buf, nil)
			if format == "json" {
				h = slog.NewJSONHandler(&buf, nil)
			}
			u, _ := url.Parse("https://ada:url-secret@example.com/")
			log := slog.New(NewMaskingHandler(h)).With("cfg", "password=with-secret").WithGroup("req")
			log.Info("fetching http://admin:hunter2pw@example.com/",
				"url", "http://admin:attr-secret@example.com/?q=go",
				"err", errors.New("dial: Authorization: Bearer err-secret1"),
				slog.Group("auth", "header", "Bearer "+fakeGitHub, "note", "api_key=grp-secret"),
				"lazy", secretValuer{},
				"parsed", u,
				"args", json.RawMessage(`{"token":"raw-secret","q":"go"}`),
				"n", 3,
			)
			out := buf.String()
			for _, s := range secrets {
				if strings.Contains(out, s) {
					t.Errorf("log line contains %q: %s", s, out)
				}
			}
			for _, kept := range []string{"fetching http://admin:***@example.com/", "q=go", "dial: Authorization: Bearer ***", "req", "auth", "3"} {
				if !strings.Contains(out, kept) {
					t.Errorf("log line lacks %q: %s", kept, out)
				}
			}
		})
	}
}

func TestMaskingHandlerEnabled(t *testing.T) {
	h := NewMaskingHandler(slog.NewTextHandler(&bytes.Buffer{}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if h.Enabled(context.Background(), slog.LevelInfo) || !h.Enabled(context.Background(), slog.LevelError) {
		t.Error("the masking handler does not keep the wrapped handler's level")
	}
}
