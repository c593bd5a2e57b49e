package tracing

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// otlpExporter posts spans to an OTLP/HTTP collector as protobuf
// (application/x-protobuf), as otlptracehttp does by default. It is ours, not
// otlptracehttp, because that package imports google.golang.org/grpc, and
// grpc's golang.org/x/net/trace runs html/template from its init: the linker
// then has to keep every exported method of every reachable type, which made
// ai-server 40 MB larger and 12 MB heavier in memory at start for a feature
// most servers leave off.
//
// Like otlptracehttp it reads OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT,
// _COMPRESSION, _CERTIFICATE, _CLIENT_CERTIFICATE and _CLIENT_KEY (the
// OTEL_EXPORTER_OTLP_TRACES_ form of each wins), retries 429, 502, 503 and
// 504 answers with backoff, and honours Retry-After. The endpoint always
// comes from tracing.otlp_endpoint.
type otlpExporter struct {
	url          string
	headers      http.Header
	gzip         bool
	timeout      time.Duration
	client       *http.Client
	maxElapsed   time.Duration // how long a batch is retried
	firstBackoff time.Duration

	mu      sync.Mutex
	stopped bool
}

var _ sdktrace.SpanExporter = (*otlpExporter)(nil)

// Defaults of otlptracehttp, kept so a collector sees the same client.
const (
	otlpTimeout    = 10 * time.Second
	otlpMaxElapsed = time.Minute
	otlpUserAgent  = "ai-lab OTLP/HTTP exporter"
)

// errEndpoint is the sentence for an endpoint that is not an OTLP/HTTP address.
func errEndpoint(endpoint string) error {
	return fmt.Errorf("tracing.otlp_endpoint %q is not an OTLP/HTTP address; use a URL like http://127.0.0.1:4318 or host:port", endpoint)
}

// tracesURL turns the configured endpoint into the URL spans are posted to:
// a bare host:port is plain HTTP (as local collectors listen), a URL without
// a path gets the standard /v1/traces, a URL with a path is used as is.
func tracesURL(endpoint string) (string, error) {
	endpoint = strings.TrimSpace(endpoint)
	if endpoint == "" {
		return "", errEndpoint(endpoint)
	}
	if !strings.Contains(endpoint, "://") {
		u, err := url.Parse("http://" + endpoint)
		if err != nil || u.Host == "" || u.Path != "" {
			return "", errEndpoint(endpoint)
		}
		return "http://" + u.Host + "/v1/traces", nil
	}
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", errEndpoint(endpoint)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	return u.String(), nil
}

// newOTLPExporter returns an exporter posting to endpoint, configured from
// the OTEL_EXPORTER_OTLP_* environment (getenv is os.Getenv outside tests).
func newOTLPExporter(endpoint string, getenv func(string) string) (*otlpExporter, error) {
	target, err := tracesURL(endpoint)
	if err != nil {
		return nil, err
	}
	env := func(name string) string {
		if v := getenv("OTEL_EXPORTER_OTLP_TRACES_" + name); v != "" {
			return v
		}
		return getenv("OTEL_EXPORTER_OTLP_" + name)
	}
	e := &otlpExporter{
		url:          target,
		headers:      parseOTLPHeaders(env("HEADERS")),
		gzip:         strings.EqualFold(strings.TrimSpace(env("COMPRESSION")), "gzip"),
		timeout:      otlpTimeout,
		maxElapsed:   otlpMaxElapsed,
		firstBackoff: 5 * time.Second,
	}
	if ms, err := strconv.Atoi(strings.TrimSpace(env("TIMEOUT"))); err == nil && ms > 0 {
		e.timeout = time.Duration(ms) * time.Millisecond
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	tlsConfig, err := otlpTLS(env("CERTIFICATE"), env("CLIENT_CERTIFICATE"), env("CLIENT_KEY"))
	if err != nil {
		return nil, fmt.Errorf("start the OTLP exporter for %s: %w", endpoint, err)
	}
	if tlsConfig != nil {
		transport.TLSClientConfig = tlsConfig
	}
	e.client = &http.Client{Transport: transport}
	return e, nil
}

// otlpTLS is the TLS configuration the certificate variables ask for, or nil.
func otlpTLS(caFile, certFile, keyFile string) (*tls.Config, error) {
	if caFile == "" && certFile == "" && keyFile == "" {
		return nil, nil
	}
	c := &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("read OTLP CA certificate: %w", err)
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("OTLP CA certificate %s holds no PEM certificate", caFile)
		}
	}
	if certFile != "" || keyFile != "" {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("load OTLP client certificate: %w", err)
		}
		c.Certificates = []tls.Certificate{cert}
	}
	return c, nil
}

// parseOTLPHeaders reads "k1=v1,k2=v2" with percent-encoded values, the
// format of OTEL_EXPORTER_OTLP_HEADERS; malformed pairs are skipped.
func parseOTLPHeaders(v string) http.Header {
	h := http.Header{}
	for pair := range strings.SplitSeq(v, ",") {
		k, val, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t\r\n:") {
			continue
		}
		if dec, err := url.PathUnescape(val); err == nil {
			h.Set(k, strings.TrimSpace(dec))
		}
	}
	return h
}

// ExportSpans posts one batch, retrying transient failures until ctx ends
// or the retry time runs out.
func (e *otlpExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.mu.Lock()
	stopped := e.stopped
	e.mu.Unlock()
	if stopped || len(spans) == 0 {
		return nil
	}
	body := encodeTraces(spans)
	if e.gzip {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write(body) // writes to a bytes.Buffer do not fail
		_ = zw.Close()
		body = buf.Bytes()
	}
	deadline := time.Now().Add(e.maxElapsed)
	wait := e.firstBackoff
	for {
		retryAfter, err := e.post(ctx, body)
		if err == nil || retryAfter < 0 {
			return err
		}
		if retryAfter == 0 {
			retryAfter, wait = wait, min(2*wait, 30*time.Second)
		}
		if time.Now().Add(retryAfter).After(deadline) {
			return err
		}
		t := time.NewTimer(retryAfter)
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Join(err, ctx.Err())
		case <-t.C:
		}
	}
}

// post sends body once. A failure worth retrying comes with retryAfter >= 0
// (0: the server named no wait); a final one with -1.
func (e *otlpExporter) post(ctx context.Context, body []byte) (retryAfter time.Duration, err error) {
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return -1, err
	}
	for k, v := range e.headers {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("User-Agent", otlpUserAgent)
	if e.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	res, err := e.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) && ue.Timeout() {
			return 0, err
		}
		return -1, err
	}
	defer res.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(res.Body, 4<<10))
	if res.StatusCode >= 200 && res.StatusCode <= 299 {
		return -1, nil
	}
	err = fmt.Errorf("post spans to %s: %s: %s", e.url, res.Status, strings.TrimSpace(string(msg)))
	switch res.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		if secs, perr := strconv.Atoi(strings.TrimSpace(res.Header.Get("Retry-After"))); perr == nil && secs > 0 {
			return time.Duration(secs) * time.Second, err
		}
		return 0, err
	}
	return -1, err
}

// Shutdown stops exporting; the batch processor has flushed before it calls this.
func (e *otlpExporter) Shutdown(context.Context) error {
	e.mu.Lock()
	e.stopped = true
	e.mu.Unlock()
	e.client.CloseIdleConnections()
	return nil
}

// resourceOf is a span's resource, never nil.
func resourceOf(s sdktrace.ReadOnlySpan) *resource.Resource {
	if r := s.Resource(); r != nil {
		return r
	}
	return resource.Empty()
}
