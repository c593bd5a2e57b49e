// Package openai is the llm.Provider for any OpenAI-compatible chat completions
// endpoint (Ollama, llama.cpp, vLLM, LM Studio, OpenAI): native tool calling,
// streaming, retries with backoff and Retry-After, and errors that say in one
// sentence what to fix. It builds request bodies itself (wire.go) and uses the
// official SDK to send them and decode replies and streams. It must never import
// server/ or tools/.
package openai

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/ailab/ai-lab/llm"
	"github.com/ailab/ai-lab/secret"
)

// Defaults used when Options leaves a field zero.
const (
	DefaultTimeout   = 2 * time.Minute
	DefaultKeyEnvVar = "OPENAI_API_KEY"
	DefaultBaseURL   = "https://api.openai.com/v1"
)

// DefaultMaxRetries is a sensible default for llm.max_retries in config. A zero
// Options.MaxRetries means no retries, not this value, so that a configured
// 0 is honored.
const DefaultMaxRetries = 2

// maxRetryAfter caps a server's Retry-After so a rate-limited turn never hangs for minutes.
const maxRetryAfter = 30 * time.Second

// Options configures New.
type Options struct {
	// BaseURL is the API root, e.g. http://127.0.0.1:11434/v1 (llm.base_url);
	// empty means DefaultBaseURL.
	BaseURL string
	// Model is the model name sent with every request (llm.model).
	Model string
	// APIKey may be empty for local servers; a placeholder is then sent.
	APIKey string
	// KeyEnvVar names where the key comes from, only for error sentences
	// ("check OPENAI_API_KEY"); empty means DefaultKeyEnvVar.
	KeyEnvVar string
	// Timeout bounds each attempt (llm.timeout); zero means DefaultTimeout. A
	// timed-out attempt is not retried; the caller's context bounds the whole call.
	Timeout time.Duration
	// MaxRetries is how many times a transient failure (429, 5xx, connection
	// reset) is retried after the first attempt; zero means none.
	MaxRetries int
	// Backoff returns the wait before retry n (1-based) when the server sent no
	// Retry-After; nil means exponential from 500ms, capped at 8s. Tests pass a
	// function returning 0.
	Backoff func(retry int) time.Duration
	// HTTPClient replaces the SDK's default client when set.
	HTTPClient *http.Client
}

// Provider is an llm.Provider speaking the OpenAI-compatible chat completions API with
// native tool calling (Ollama, llama.cpp, vLLM, LM Studio, OpenAI).
type Provider struct {
	opts   Options
	client sdk.Client
	wire   wireCache
}

var _ llm.Provider = (*Provider)(nil)

// New returns a provider for opts. It does no I/O: an unreachable server
// shows up as an *Error from the first Complete.
func New(opts Options) *Provider {
	if opts.BaseURL == "" {
		opts.BaseURL = DefaultBaseURL
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.KeyEnvVar == "" {
		opts.KeyEnvVar = DefaultKeyEnvVar
	}
	if opts.MaxRetries < 0 {
		opts.MaxRetries = 0
	}
	if opts.Backoff == nil {
		opts.Backoff = exponentialBackoff
	}
	key := opts.APIKey
	if key == "" {
		// Local servers ignore the key, but the SDK always sends a bearer header.
		key = "not-needed"
	}
	reqOpts := []option.RequestOption{
		option.WithBaseURL(opts.BaseURL),
		option.WithAPIKey(key),
		// Retries are ours so that backoff is injectable and errors are classified once.
		option.WithMaxRetries(0),
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Transport: pooledTransport()}
	}
	reqOpts = append(reqOpts, option.WithHTTPClient(opts.HTTPClient))
	return &Provider{opts: opts, client: sdk.NewClient(reqOpts...)}
}

// pooledTransport is http.DefaultTransport with an idle pool sized for many
// sessions: the default keeps 2 idle connections per host, so 100 concurrent
// turns against one endpoint would open a new connection for most requests.
func pooledTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 512
	t.MaxIdleConnsPerHost = 256
	t.IdleConnTimeout = 90 * time.Second
	return t
}

// Model returns the configured model name.
func (p *Provider) Model() string { return p.opts.Model }

func exponentialBackoff(retry int) time.Duration {
	d := 500 * time.Millisecond
	for i := 1; i < retry && d < 8*time.Second; i++ {
		d *= 2
	}
	return min(d, 8*time.Second)
}

// Complete sends one round and returns the assistant message, retrying transient
// failures up to MaxRetries times.
func (p *Provider) Complete(ctx context.Context, req llm.Request) (llm.Message, error) {
	body, err := encodeRequest(p.opts.Model, req, &p.wire, false)
	if err != nil {
		return llm.Message{}, err
	}
	for attempt := 0; ; attempt++ {
		msg, failure := p.attempt(ctx, body)
		if failure == nil {
			return msg, nil
		}
		if !failure.retryable || attempt >= p.opts.MaxRetries {
			return llm.Message{}, shown(failure.err)
		}
		if err := p.waitToRetry(ctx, attempt, failure); err != nil {
			return llm.Message{}, p.canceled(err)
		}
	}
}

// waitToRetry waits before the retry after attempt (0-based): as long as the
// server asked, or the backoff.
func (p *Provider) waitToRetry(ctx context.Context, attempt int, f *failure) error {
	wait := f.retryAfter
	if wait <= 0 {
		wait = p.opts.Backoff(attempt + 1)
	}
	return llm.Sleep(ctx, wait)
}

// shown masks the secrets a failure's sentence may quote: a key in the base
// URL's query or user info, or one the server's error body repeats. The
// sentence reaches the user, the log and the trace; the cause keeps the rest.
func shown(e *llm.Error) *llm.Error {
	e.Message = secret.Mask(e.Message)
	return e
}

// A failure is one failed attempt, already turned into the user's sentence.
type failure struct {
	err        *llm.Error
	retryable  bool
	retryAfter time.Duration
}

// httpAnswer is what the server said when it answered an error status; the SDK's
// own error type loses the body when it is not OpenAI-shaped JSON, so a middleware
// keeps it.
type httpAnswer struct {
	status     int
	body       []byte
	retryAfter time.Duration
}

// maxErrorBody bounds how much of an error body is kept for the sentence.
const maxErrorBody = 64 << 10

func (p *Provider) attempt(ctx context.Context, body []byte) (llm.Message, *failure) {
	actx, cancel := context.WithTimeout(ctx, p.opts.Timeout)
	defer cancel()
	var answer *httpAnswer
	watch := option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		res, err := next(r)
		if err != nil || res == nil || res.StatusCode < 400 {
			return res, err
		}
		answer = keepErrorBody(res)
		return res, nil
	})
	completion, err := p.client.Chat.Completions.New(actx, sdk.ChatCompletionNewParams{},
		option.WithRequestBody("application/json", body), watch)
	if err == nil {
		msg, convErr := fromCompletion(completion)
		if convErr != nil {
			return llm.Message{}, &failure{err: convErr}
		}
		return msg, nil
	}
	return llm.Message{}, p.classify(ctx, actx, err, answer)
}

// keepErrorBody reads what the server said with an error status and puts the
// body back for the SDK.
func keepErrorBody(res *http.Response) *httpAnswer {
	body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	_ = res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(body))
	return &httpAnswer{status: res.StatusCode, body: body, retryAfter: parseRetryAfter(res.Header.Get("Retry-After"))}
}

func parseRetryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && secs >= 0 {
		return min(time.Duration(secs)*time.Second, maxRetryAfter)
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(time.Until(t), 0), maxRetryAfter)
	}
	return 0
}

func (p *Provider) canceled(cause error) *llm.Error {
	return &llm.Error{Kind: llm.KindCanceled, Message: "the request to the model was canceled before it answered", Cause: cause}
}

// classify turns a failed attempt into the user's sentence and decides whether
// it is worth retrying.
func (p *Provider) classify(ctx, actx context.Context, err error, answer *httpAnswer) *failure {
	if ctx.Err() != nil {
		return &failure{err: p.canceled(err)}
	}
	if answer != nil {
		return p.classifyStatus(err, answer)
	}
	if actx.Err() != nil || isTimeout(err) {
		return &failure{err: &llm.Error{
			Kind:    llm.KindTimeout,
			Message: fmt.Sprintf("the model did not answer within %s (llm.timeout): raise llm.timeout or use a smaller model", p.opts.Timeout),
			Cause:   err,
		}}
	}
	reason, retryable := networkReason(err)
	if reason == "" {
		// A 2xx body the SDK could not decode lands here too.
		return &failure{err: &llm.Error{
			Kind:    llm.KindBadResponse,
			Message: fmt.Sprintf("the model at %s gave an answer that is not an OpenAI-compatible chat completion: check llm.base_url", p.opts.BaseURL),
			Cause:   err,
		}}
	}
	return p.unreachable(reason, retryable, err)
}

// unreachable is the failure of a request that got no usable HTTP answer.
func (p *Provider) unreachable(reason string, retryable bool, err error) *failure {
	hint, ok := tlsHints[reason] // starting a server cannot fix a wrong scheme or an untrusted certificate
	if !ok {
		hint = p.startHint() + " or set llm.base_url"
	}
	return &failure{retryable: retryable, err: &llm.Error{
		Kind:    llm.KindUnreachable,
		Message: fmt.Sprintf("cannot reach the model at %s (%s): %s", p.opts.BaseURL, reason, hint),
		Cause:   err,
	}}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// Reasons of TLS mistakes, which a changed llm.base_url fixes.
const (
	reasonNotHTTPS  = "it does not speak HTTPS; use http://"
	reasonUntrusted = "its TLS certificate is not trusted"
)

// tlsHints say how to fix each TLS mistake.
var tlsHints = map[string]string{
	reasonNotHTTPS:  "fix llm.base_url",
	reasonUntrusted: "add its CA certificate to SSL_CERT_FILE or fix llm.base_url",
}

// networkReason names a transport failure in a few words and says whether a
// retry may help. A refused connection is not retried: nothing is listening,
// and the user should hear so at once.
func networkReason(err error) (reason string, retryable bool) {
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused", false
	case errors.As(err, &dnsErr):
		return "unknown host " + dnsErr.Name, false
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset", true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed before an answer", true
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "no route to host", false
	}
	// TLS problems are configuration, not weather: a retry cannot help.
	var certErr *tls.CertificateVerificationError
	var headerErr tls.RecordHeaderError
	switch {
	case errors.As(err, &certErr):
		return reasonUntrusted, false
	case errors.As(err, &headerErr), strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return reasonNotHTTPS, false
	}
	var opErr *net.OpError
	var urlErr *url.Error
	if errors.As(err, &opErr) || errors.As(err, &urlErr) {
		return "network error", true
	}
	return "", false
}

// startHint tells the user what to fix: a local server must be started (Ollama's
// default port gets a name), a remote one is a network matter.
func (p *Provider) startHint() string {
	u, err := url.Parse(p.opts.BaseURL)
	if err != nil {
		return "check the address"
	}
	if u.Port() == "11434" {
		return "start Ollama"
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); host == "localhost" || (ip != nil && (ip.IsLoopback() || ip.IsPrivate())) {
		return "start the model server"
	}
	return "check the network"
}

func (p *Provider) classifyStatus(err error, a *httpAnswer) *failure {
	msg := serverMessage(a.body)
	e := &llm.Error{Kind: llm.KindStatus, Status: a.status, Cause: err}
	f := &failure{err: e}
	switch {
	case a.status == http.StatusUnauthorized || a.status == http.StatusForbidden:
		e.Kind = llm.KindAuth
		e.Message = fmt.Sprintf("the model answered %d: check %s", a.status, p.opts.KeyEnvVar)
	case looksLikeMissingModel(a.status, a.body, msg):
		e.Kind = llm.KindModelNotFound
		e.Message = fmt.Sprintf("model %s not found at %s: %s or set llm.model", p.opts.Model, p.opts.BaseURL, p.pullHint())
	case a.status == http.StatusNotFound:
		e.Kind = llm.KindEndpointNotFound
		e.Message = fmt.Sprintf("the model server at %s has no chat completions endpoint (404): check llm.base_url (it usually ends in /v1)", p.opts.BaseURL)
	default:
		if msg == "" {
			msg = http.StatusText(a.status)
		}
		e.Message = fmt.Sprintf("the model answered %d: %s", a.status, msg)
		f.retryable = a.status == http.StatusTooManyRequests || a.status >= 500
		f.retryAfter = a.retryAfter
	}
	return f
}

func (p *Provider) pullHint() string {
	if u, err := url.Parse(p.opts.BaseURL); err == nil && u.Port() == "11434" {
		return "pull it (ollama pull " + p.opts.Model + ")"
	}
	return "check the name"
}

// looksLikeMissingModel recognizes the ways servers say "no such model": OpenAI's
// code model_not_found, Ollama's `model "x" not found`, vLLM's "does not exist".
func looksLikeMissingModel(status int, body []byte, msg string) bool {
	if status != http.StatusNotFound && status != http.StatusBadRequest {
		return false
	}
	if bytes.Contains(body, []byte("model_not_found")) {
		return true
	}
	m := strings.ToLower(msg)
	return strings.Contains(m, "model") && (strings.Contains(m, "not found") || strings.Contains(m, "does not exist"))
}

// serverMessage extracts a short single-line message from an error body:
// {"error":{"message":...}}, {"error":"..."}, {"message":...} or plain text.
func serverMessage(body []byte) string {
	var shaped struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  string          `json:"detail"`
	}
	text := ""
	if json.Unmarshal(body, &shaped) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(shaped.Error, &inner) == nil && inner.Message != "":
			text = inner.Message
		case json.Unmarshal(shaped.Error, &s) == nil && s != "":
			text = s
		case shaped.Message != "":
			text = shaped.Message
		case shaped.Detail != "":
			text = shaped.Detail
		}
	} else {
		text = string(body)
	}
	return llm.OneLine(text, 200)
}

// fromCompletion converts the SDK's reply to the provider-neutral assistant message.
func fromCompletion(c *sdk.ChatCompletion) (llm.Message, *llm.Error) {
	if c == nil || len(c.Choices) == 0 {
		return llm.Message{}, errNoChoices()
	}
	m := c.Choices[0].Message
	out := llm.Message{Role: llm.RoleAssistant, Content: withoutThinking(m.Content)}
	if out.Content == "" && m.Refusal != "" {
		out.Content = m.Refusal
	}
	for i, tc := range m.ToolCalls {
		if tc.Function.Name == "" {
			continue // a custom (non-function) tool call; we never offer those
		}
		id := tc.ID
		if id == "" {
			// Some local servers omit ids; the tool message must still match its call.
			id = fmt.Sprintf("call_%d", i+1)
		}
		out.ToolCalls = append(out.ToolCalls, llm.ToolCall{ID: id, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	// The deprecated single function_call is still what some older local servers send.
	if len(out.ToolCalls) == 0 && m.FunctionCall.Name != "" {
		out.ToolCalls = []llm.ToolCall{{ID: "call_1", Name: m.FunctionCall.Name, Arguments: m.FunctionCall.Arguments}}
	}
	return out, nil
}

func errNoChoices() *llm.Error {
	return &llm.Error{Kind: llm.KindBadResponse, Message: "the model answered with no choices: check that llm.base_url points to an OpenAI-compatible chat completions API"}
}

// withoutThinking drops the <think>...</think> block that reasoning models
// served by Ollama, llama.cpp or vLLM put before their answer: it is the
// model's scratch work, not the reply, and its "let me search..." musings would
// read as announcements of tools. An unclosed block is kept, since then there
// is no answer after it to keep instead.
func withoutThinking(content string) string {
	rest := strings.TrimLeft(content, " \t\r\n")
	if !strings.HasPrefix(rest, "<think>") {
		return content
	}
	end := strings.Index(rest, "</think>")
	if end < 0 {
		return content
	}
	return strings.TrimLeft(rest[end+len("</think>"):], " \t\r\n")
}
