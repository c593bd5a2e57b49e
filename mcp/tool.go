package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ailab/ai-lab/tools"
)

// maxDescription bounds a tool's description in characters: the model reads
// every description on every request.
const maxDescription = 2000

// A Tool is one tool of an MCP server as the model sees it, named SERVER__TOOL.
// It stays valid while its server restarts: a call then answers ErrNotRunning.
type Tool struct {
	srv         *server
	name        string // SERVER__TOOL
	tool        string // the server's own name
	description string
	params      map[string]any
	identity    tools.Identity
	size        int // DefinitionSize
}

var (
	_ tools.Tool       = (*Tool)(nil)
	_ tools.Identified = (*Tool)(nil)
	_ tools.Sourced    = (*Tool)(nil)
)

// newTool converts t as opts say, or returns why it is left out.
func (s *server) newTool(opts Options, t *sdk.Tool) (*Tool, string) {
	params, why := opts.cleanSchema(t.InputSchema)
	if why != "" {
		return nil, why
	}
	desc := opts.clean(t.Description)
	if utf8.RuneCountInString(desc) > maxDescription {
		desc = string([]rune(desc)[:maxDescription-1]) + "…"
	}
	if desc == "" {
		desc = "(no description)"
	}
	name := s.cfg.Name + "__" + t.Name
	tool := &Tool{
		srv:         s,
		name:        name,
		tool:        t.Name,
		description: "Tool of the MCP server " + s.cfg.Name + ": " + desc,
		params:      params,
		identity:    identify(s.cfg.Name, name, t.Name, t.Annotations),
	}
	schema, _ := json.Marshal(params)
	tool.size = len(tool.name) + len(tool.description) + len(schema)
	return tool, ""
}

// Name is SERVER__TOOL (CONTRACT section 12).
func (t *Tool) Name() string { return t.name }

// Description is the server's description of the tool, sanitized, after the
// server's name.
func (t *Tool) Description() string { return t.description }

// Parameters is the tool's input schema as the server gave it, with every
// text in it sanitized (see Options.cleanSchema) and at most maxSchemaBytes
// (16 KB) of JSON. The map is shared: callers must not change it.
func (t *Tool) Parameters() map[string]any { return t.params }

// DefinitionSize is how many bytes the tool's definition adds to a model
// request: its name, its description and its input schema as JSON (bytes, so
// never fewer than its characters). Hub.DefinitionsSize sums it.
func (t *Tool) DefinitionSize() int { return t.size }

// Source is "mcp:SERVER".
func (t *Tool) Source() string { return t.srv.source() }

// Server is the name of the tool's server.
func (t *Tool) Server() string { return t.srv.cfg.Name }

// IDPrefix is the tool part of this tool's execution ids.
func (t *Tool) IDPrefix() string { return IDPrefix(t.name) }

// Status is the server's state in one line (ServerInfo.Status).
func (t *Tool) Status() string { return t.srv.info().Status() }

// Identity is what the tool is to the approval policy and the reply
// validator, from its annotations and its name.
func (t *Tool) Identity() tools.Identity { return t.identity }

// Run calls the tool once with args as given, within the server's timeout;
// cancelling ctx cancels the call on the server too. The result is a Result;
// an error's text is one sentence for the model and wraps one of the Err
// sentinels (or ctx's error when ctx ended the call). A call that was sent and
// got no clear answer wraps ErrOutcomeUnknown; only a call known never to
// have left says it did not get through. No call is ever retried.
func (t *Tool) Run(ctx context.Context, args json.RawMessage) (any, error) {
	if args = bytes.TrimSpace(args); len(args) == 0 || bytes.Equal(args, []byte("null")) {
		args = json.RawMessage("{}")
	}
	if args[0] != '{' || !json.Valid(args) {
		return nil, errorf(ErrBadArguments, "the arguments of %s must be a JSON object", t.name)
	}
	sess, err := t.srv.ready(t.tool)
	if err != nil {
		return nil, err
	}
	timeout := t.srv.cfg.timeout()
	callCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	isURL := t.srv.cfg.URL != ""
	d := &delivery{}
	if isURL {
		callCtx = withDelivery(callCtx, d)
	}
	res, err := sess.CallTool(callCtx, &sdk.CallToolParams{Name: t.tool, Arguments: args})
	switch {
	case err == nil:
		return convert(t.srv.hub.options(), t.srv.cfg.Name+"/"+t.tool, res)
	case ctx.Err() != nil:
		return nil, &callError{msg: "the call to " + t.name + " was cancelled", kinds: []error{ctx.Err()}}
	case callCtx.Err() != nil:
		return nil, errorf(ErrTimeout, "the MCP tool %s did not answer within %s, so the call was cancelled", t.name, timeout)
	}
	closed := errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
	var rpcErr *jsonrpc.Error
	isRPC := errors.As(err, &rpcErr)
	if isRPC && rpcErr.Code != codeRejectedByTransport && !closed {
		// The server's own JSON-RPC error: a clear answer.
		return nil, errorf(ErrToolFailed, "the MCP server %s refused the call to %s: %s", t.srv.cfg.Name, t.name, t.srv.oneLine(rpcErr.Message))
	}
	sent, status := d.outcome()
	switch {
	case isURL && !sent:
		// The request never left (connection refused, DNS failure, a
		// connection already broken): reconnect now, rather than fail every
		// call until the SDK gives up on the stream.
		reason := t.srv.oneLine(err.Error())
		t.srv.broken(sess, reason)
		return nil, errorf(ErrNotRunning, "the call to %s did not get through to the MCP server %s, which is being reconnected: %s", t.name, t.srv.cfg.Name, reason)
	case isURL && status >= 400 && status < 500:
		// The server answered that it did not take the request.
		return nil, errorf(ErrToolFailed, "the MCP server %s refused the call to %s: HTTP %d %s", t.srv.cfg.Name, t.name, status, http.StatusText(status))
	case isURL:
		// Sent, and no clear answer: an HTTP 500, 502 or 504 (perhaps from a
		// proxy, after the server ran it), or a connection lost on the way.
		reason := t.srv.oneLine(err.Error())
		if status != 0 {
			reason = fmt.Sprintf("HTTP %d %s", status, http.StatusText(status))
		} else {
			t.srv.broken(sess, reason)
		}
		return nil, outcomeUnknown(fmt.Sprintf("the call to %s was sent to the MCP server %s but no clear answer came back (%s)", t.name, t.srv.cfg.Name, reason), status == 0)
	case closed:
		t.srv.broken(sess, "")
		return nil, outcomeUnknown(fmt.Sprintf("the MCP server %s stopped during the call to %s", t.srv.cfg.Name, t.name), true)
	case isRPC:
		return nil, outcomeUnknown(fmt.Sprintf("the call to %s was sent to the MCP server %s but no clear answer came back (%s)", t.name, t.srv.cfg.Name, t.srv.oneLine(err.Error())), false)
	default:
		return nil, errorf(ErrToolFailed, "the call to %s failed: %s", t.name, t.srv.oneLine(err.Error()))
	}
}

// outcomeUnknown is the ErrOutcomeUnknown error whose text is what happened
// and then what it means for the model; down says the server is gone too
// (ErrNotRunning).
func outcomeUnknown(what string, down bool) error {
	kinds := []error{ErrOutcomeUnknown}
	if down {
		kinds = append(kinds, ErrNotRunning)
	}
	return &callError{msg: what + outcomeUnknownAdvice, kinds: kinds}
}

// outcomeUnknownAdvice ends the text of every ErrOutcomeUnknown error.
const outcomeUnknownAdvice = ", so it may or may not have run. Do not call it again without asking the user first: tell the user what happened and let them check."

// codeRejectedByTransport is the JSON-RPC code the SDK gives every request
// its transport failed on, whether the server saw it or not (a delivery
// tells which).
const codeRejectedByTransport = -32005
