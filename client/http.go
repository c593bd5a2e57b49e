// Package client talks to ai-server over its HTTP API (CONTRACT sections 4 and 10) for
// the ai-client command: a typed Client, whose turns can stream as server-sent events,
// the token lookup, the approval table shared by the TUI and the one-shot mode, and the
// one-shot mode itself. It speaks only HTTP with the plain types of package api; it must
// never import server internals nor start a server.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"github.com/ailab/ai-lab/api"
)

// Sentinel errors for the API's error codes and for transport failures. Every error a
// Client returns for an answered request wraps one of them, so callers use errors.Is.
var (
	// ErrUnreachable means no HTTP answer came back: the server is down or the URL is wrong.
	ErrUnreachable = errors.New("ai-server unreachable")
	// ErrUnauthorized means the server refused the bearer token (401).
	ErrUnauthorized = errors.New("unauthorized")
	// ErrInvalidRequest means the server could not accept the request body.
	ErrInvalidRequest = errors.New("invalid request")
	// ErrBodyTooLarge means the request body was over the server's limit.
	ErrBodyTooLarge = errors.New("body too large")
	// ErrNotFound means the path or the named record does not exist.
	ErrNotFound = errors.New("not found")
	// ErrSessionNotFound means the session id is unknown to the server.
	ErrSessionNotFound = errors.New("session not found")
	// ErrApprovalPending means the session waits for decisions before a new message.
	ErrApprovalPending = errors.New("approval pending")
	// ErrNoPendingApproval means /chat/approve was sent for a session with nothing pending.
	ErrNoPendingApproval = errors.New("no pending approval")
	// ErrInvalidDecisions means the decisions did not name exactly the pending calls.
	ErrInvalidDecisions = errors.New("invalid decisions")
	// ErrInvalidConfig means a safety or config change was refused.
	ErrInvalidConfig = errors.New("invalid config")
	// ErrConfigLocked means the server may not change its safety settings in
	// config.yaml, because an environment variable overrides them or it runs
	// without a config file; the message says which.
	ErrConfigLocked = errors.New("config locked")
	// ErrModel means the LLM endpoint behind the server failed.
	ErrModel = errors.New("model error")
	// ErrServer means the server failed in a way it did not name more precisely.
	ErrServer = errors.New("server error")
	// ErrCancelled means the turn was cancelled (POST /sessions/{id}/cancel) before it ended.
	ErrCancelled = errors.New("turn cancelled")
	// ErrNothingRunning means a cancel found no running turn in the session: it had ended.
	ErrNothingRunning = errors.New("nothing running")
	// ErrStreamEnded means a streamed answer stopped before its final event (done,
	// approval_required or error), so the turn's outcome is unknown.
	ErrStreamEnded = errors.New("stream ended early")
	// ErrUndoConflict means an undo or redo was refused because files changed
	// since the turn; the error is an *UndoConflictError naming them.
	ErrUndoConflict = errors.New("files changed since the turn")
	// ErrNothingToUndo means no turn is left to undo or redo, or its records
	// were evicted; the message says which.
	ErrNothingToUndo = errors.New("nothing to undo")
	// ErrSessionBusy means an undo or redo came while a turn runs or waits.
	ErrSessionBusy = errors.New("session busy")
)

// sentinelFor maps an API error code back to its sentinel; the server does the
// opposite mapping in one place too.
func sentinelFor(code string, status int) error {
	switch code {
	case api.CodeUnauthorized:
		return ErrUnauthorized
	case api.CodeInvalidRequest:
		return ErrInvalidRequest
	case api.CodeBodyTooLarge:
		return ErrBodyTooLarge
	case api.CodeNotFound:
		return ErrNotFound
	case api.CodeSessionNotFound:
		return ErrSessionNotFound
	case api.CodeApprovalPending:
		return ErrApprovalPending
	case api.CodeNoPendingApproval:
		return ErrNoPendingApproval
	case api.CodeInvalidDecisions:
		return ErrInvalidDecisions
	case api.CodeInvalidConfig:
		return ErrInvalidConfig
	case api.CodeConfigLocked:
		return ErrConfigLocked
	case api.CodeModelError:
		return ErrModel
	case api.CodeCancelled:
		return ErrCancelled
	case api.CodeNothingRunning:
		return ErrNothingRunning
	case api.CodeConflict:
		return ErrUndoConflict
	case api.CodeNothingToUndo:
		return ErrNothingToUndo
	case api.CodeSessionBusy:
		return ErrSessionBusy
	}
	switch status {
	case http.StatusUnauthorized:
		return ErrUnauthorized
	case http.StatusNotFound:
		return ErrNotFound
	case http.StatusBadRequest:
		return ErrInvalidRequest
	}
	return ErrServer
}

// An APIError is an error answer of the server: the sentence it sent for people and
// the sentinel its code maps to.
type APIError struct {
	Status  int    // HTTP status; 200 for the error event of a streamed answer
	Code    string // the contract's snake_case code, may be empty for non-JSON answers
	Message string // the sentence shown to the user
	kind    error
}

// Error returns the sentence for the user.
func (e *APIError) Error() string { return e.Message }

// Unwrap returns the sentinel the error code maps to.
func (e *APIError) Unwrap() error { return e.kind }

// A Client calls one ai-server. The zero value is not usable; call New.
type Client struct {
	baseURL string
	token   string
	hc      *http.Client
	// TokenFile is where the token was (or would have been) found, and TokenFrom where
	// it came from ("--token", "AILAB_TOKEN", the file, or empty when none was found);
	// the message of a 401 names both so the user knows what to fix.
	TokenFile string
	TokenFrom string
}

// New returns a Client for the server at baseURL (e.g. http://127.0.0.1:8080) that
// sends token as bearer. A nil hc uses a client without an overall timeout, because a
// chat turn may run as long as the model needs.
func New(baseURL, token string, hc *http.Client) *Client {
	if hc == nil {
		hc = &http.Client{}
	}
	return &Client{baseURL: strings.TrimRight(baseURL, "/"), token: token, hc: hc}
}

// BaseURL returns the server address the Client talks to.
func (c *Client) BaseURL() string { return c.baseURL }

// Chat sends one user message; an empty sessionID starts a new session.
func (c *Client) Chat(ctx context.Context, message, sessionID string) (api.TurnReply, error) {
	var r api.TurnReply
	err := c.do(ctx, http.MethodPost, "/chat", api.ChatRequest{Message: message, SessionID: sessionID}, &r)
	return r, err
}

// Approve sends the decisions for every pending call of a session in one request.
func (c *Client) Approve(ctx context.Context, sessionID string, decisions []api.Decision) (api.TurnReply, error) {
	var r api.TurnReply
	err := c.do(ctx, http.MethodPost, "/chat/approve", api.ApproveRequest{SessionID: sessionID, Decisions: decisions}, &r)
	return r, err
}

// Health asks GET /health, which needs no token.
func (c *Client) Health(ctx context.Context) (api.Health, error) {
	var h api.Health
	err := c.do(ctx, http.MethodGet, "/health", nil, &h)
	return h, err
}

// Sessions lists the sessions, newest first.
func (c *Client) Sessions(ctx context.Context) ([]api.SessionSummary, error) {
	var s []api.SessionSummary
	err := c.do(ctx, http.MethodGet, "/sessions", nil, &s)
	return s, err
}

// Session returns the messages and pending calls of one session.
func (c *Client) Session(ctx context.Context, id string) (api.SessionDetail, error) {
	var d api.SessionDetail
	err := c.do(ctx, http.MethodGet, "/sessions/"+url.PathEscape(id), nil, &d)
	return d, err
}

// DeleteSession removes a session.
func (c *Client) DeleteSession(ctx context.Context, id string) error {
	return c.do(ctx, http.MethodDelete, "/sessions/"+url.PathEscape(id), nil, nil)
}

// A Safety is the safety part of the effective config.
type Safety struct {
	Preset                 string   `json:"preset"`
	ApprovalMode           bool     `json:"approval_mode"`
	ToolsRequiringApproval []string `json:"tools_requiring_approval"`
}

// A Config is the effective server config as GET /config shows it: the safety part
// decoded, everything else kept raw.
type Config struct {
	Safety Safety `json:"safety"`
	// Written is the config file PUT /config/safety rewrote (absolute path); empty
	// in the answer of GET /config.
	Written string          `json:"written,omitempty"`
	Raw     json.RawMessage `json:"-"`
}

// Config returns the effective config.
func (c *Client) Config(ctx context.Context) (Config, error) {
	var raw json.RawMessage
	if err := c.do(ctx, http.MethodGet, "/config", nil, &raw); err != nil {
		return Config{}, err
	}
	return decodeConfig(raw)
}

// SetSafety changes the safety preset (PUT /config/safety) and returns the new config.
func (c *Client) SetSafety(ctx context.Context, u api.SafetyUpdate) (Config, error) {
	var raw json.RawMessage
	if err := c.do(ctx, http.MethodPut, "/config/safety", u, &raw); err != nil {
		return Config{}, err
	}
	return decodeConfig(raw)
}

func decodeConfig(raw json.RawMessage) (Config, error) {
	var cfg Config
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return Config{}, fmt.Errorf("the server sent a config this client cannot read (%v); check that ai-server and ai-client are the same version", err)
	}
	cfg.Raw = raw
	return cfg, nil
}

// Grants lists the session grants of a session (CONTRACT section 11).
func (c *Client) Grants(ctx context.Context, sessionID string) ([]api.SessionGrant, error) {
	var g []api.SessionGrant
	err := c.do(ctx, http.MethodGet, "/sessions/"+url.PathEscape(sessionID)+"/grants", nil, &g)
	return g, err
}

// Tools lists the tools the model may call now: GET /tools.
func (c *Client) Tools(ctx context.Context) ([]api.ToolInfo, error) {
	var t []api.ToolInfo
	err := c.do(ctx, http.MethodGet, "/tools", nil, &t)
	return t, err
}

// Policy returns what decides tool calls now (GET /policy): the preset, and
// every rule and preset entry in force in the order they are checked.
func (c *Client) Policy(ctx context.Context) (api.Policy, error) {
	var p api.Policy
	err := c.do(ctx, http.MethodGet, "/policy", nil, &p)
	return p, err
}

// RevokeGrant deletes one session grant; later calls it covered ask again.
func (c *Client) RevokeGrant(ctx context.Context, sessionID, grantID string) error {
	return c.do(ctx, http.MethodDelete, "/sessions/"+url.PathEscape(sessionID)+"/grants/"+url.PathEscape(grantID), nil, nil)
}

// Trace returns the call chain of one turn.
func (c *Client) Trace(ctx context.Context, traceID string) (api.Trace, error) {
	var t api.Trace
	err := c.do(ctx, http.MethodGet, "/traces/"+url.PathEscape(traceID), nil, &t)
	return t, err
}

// maxAnswer bounds what is read of one answer, so a wrong URL pointing at something
// that streams forever cannot exhaust memory.
const maxAnswer = 64 << 20

func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	resp, err := c.send(ctx, method, path, in, "application/json")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return c.decode(resp, method, path, out)
}

// send makes one request with in as its JSON body (nil: none) and returns the
// answer whatever its status; a failure to get one is a transport error.
func (c *Client) send(ctx context.Context, method, path string, in any, accept string) (*http.Response, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, fmt.Errorf("encode %s %s: %w", method, path, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.baseURL+path, body)
	if err != nil {
		return nil, fmt.Errorf("the server URL %q is not valid (%v); pass --server http://HOST:PORT", c.baseURL, err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", accept)
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, c.transportError(err)
	}
	return resp, nil
}

// decode reads a JSON answer into out (nil: the body is not needed), or the error
// an error status stands for.
func (c *Client) decode(resp *http.Response, method, path string, out any) error {
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return c.transportError(err)
	}
	if resp.StatusCode >= 300 {
		return c.answerError(resp.StatusCode, data)
	}
	if out == nil || len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%w: the answer of %s %s is not the expected JSON (%v); is %s really ai-server?", ErrServer, method, path, err, c.baseURL)
	}
	return nil
}

func (c *Client) transportError(err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	reason := "no answer"
	var opErr *net.OpError
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		reason = "connection refused"
	case errors.Is(err, context.DeadlineExceeded), isTimeout(err):
		reason = "timed out"
	case errors.As(err, &dnsErr):
		reason = "unknown host " + dnsErr.Name
	case errors.As(err, &opErr):
		reason = opErr.Err.Error()
	default:
		var uerr *url.Error
		if errors.As(err, &uerr) {
			reason = uerr.Err.Error()
		}
	}
	return &reachError{fmt.Sprintf("cannot reach ai-server at %s: %s; start it with `ai-server` or try `ai-client --demo`", c.baseURL, reason)}
}

// A reachError is ErrUnreachable with the one sentence the user sees.
type reachError struct{ msg string }

func (e *reachError) Error() string { return e.msg }
func (e *reachError) Unwrap() error { return ErrUnreachable }

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

func (c *Client) answerError(status int, data []byte) error {
	var eb api.ErrorBody
	if json.Unmarshal(data, &eb) == nil && eb.Error.Message != "" {
		return c.apiError(status, eb.Error)
	}
	return c.apiError(status, api.ErrorDetail{Message: fmt.Sprintf("ai-server answered %d %s", status, http.StatusText(status))})
}

// apiError is the *APIError for an error answer or a stream's error event.
func (c *Client) apiError(status int, d api.ErrorDetail) *APIError {
	e := &APIError{Status: status, Code: d.Code, Message: d.Message, kind: sentinelFor(d.Code, status)}
	if errors.Is(e.kind, ErrUnauthorized) {
		e.Message = c.refusedToken()
	}
	return e
}

// refusedToken is the sentence for a 401: which token was refused and where the right
// one is. The server's own message is left out: it speaks of headers, not of flags.
func (c *Client) refusedToken() string {
	file := c.TokenFile
	if file == "" {
		file = "<state_dir>/token"
	}
	switch c.TokenFrom {
	case "":
		return fmt.Sprintf("the server refused the token: none was given and %s does not exist; "+
			"pass --token or set AILAB_TOKEN, or --state-dir if ai-server keeps its state elsewhere", file)
	case "--token", "AILAB_TOKEN":
		return fmt.Sprintf("the server refused the token given by %s; ai-server writes the right one to %s", c.TokenFrom, file)
	}
	return fmt.Sprintf("the server refused the token read from %s, so it belongs to another ai-server; "+
		"pass the right one with --token or AILAB_TOKEN, or --state-dir to that server's state folder", c.TokenFrom)
}
