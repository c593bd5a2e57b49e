package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
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
}

var (
	_ tools.Tool       = (*Tool)(nil)
	_ tools.Identified = (*Tool)(nil)
	_ tools.Sourced    = (*Tool)(nil)
)

func (s *server) newTool(t *sdk.Tool) *Tool {
	desc := s.hub.opts.clean(t.Description)
	if utf8.RuneCountInString(desc) > maxDescription {
		desc = string([]rune(desc)[:maxDescription-1]) + "…"
	}
	if desc == "" {
		desc = "(no description)"
	}
	params, ok := t.InputSchema.(map[string]any)
	if !ok {
		params = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	name := s.cfg.Name + "__" + t.Name
	return &Tool{
		srv:         s,
		name:        name,
		tool:        t.Name,
		description: "Tool of the MCP server " + s.cfg.Name + ": " + desc,
		params:      params,
		identity:    identify(s.cfg.Name, name, t.Name, t.Annotations),
	}
}

// Name is SERVER__TOOL (CONTRACT section 12).
func (t *Tool) Name() string { return t.name }

// Description is the server's description of the tool, sanitized, after the
// server's name.
func (t *Tool) Description() string { return t.description }

// Parameters is the tool's input schema as the server gave it. The map is
// shared: callers must not change it.
func (t *Tool) Parameters() map[string]any { return t.params }

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
// sentinels (or ctx's error when ctx ended the call).
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
	res, err := sess.CallTool(callCtx, &sdk.CallToolParams{Name: t.tool, Arguments: args})
	opts := t.srv.hub.opts
	switch {
	case err == nil:
		return convert(opts, t.srv.cfg.Name+"/"+t.tool, res)
	case ctx.Err() != nil:
		return nil, &callError{msg: "the call to " + t.name + " was cancelled", kind: ctx.Err()}
	case callCtx.Err() != nil:
		return nil, errorf(ErrTimeout, "the MCP tool %s did not answer within %s, so the call was cancelled", t.name, timeout)
	case errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		t.srv.broken(sess, "")
		return nil, errorf(ErrNotRunning, "the MCP server %s stopped during the call to %s, so it may or may not have taken effect", t.srv.cfg.Name, t.name)
	}
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) {
		return nil, errorf(ErrToolFailed, "the call to %s failed: %s", t.name, t.srv.oneLine(err.Error()))
	}
	if rpcErr.Code != codeRejectedByTransport {
		return nil, errorf(ErrToolFailed, "the MCP server %s refused the call to %s: %s", t.srv.cfg.Name, t.name, t.srv.oneLine(rpcErr.Message))
	}
	// The request did not get through (a URL server that went away): reconnect
	// now, rather than fail every call until the SDK gives up on the stream.
	reason := t.srv.oneLine(err.Error())
	t.srv.broken(sess, reason)
	return nil, errorf(ErrNotRunning, "the call to %s did not get through to the MCP server %s, which is being reconnected: %s", t.name, t.srv.cfg.Name, reason)
}

// codeRejectedByTransport is the JSON-RPC code the SDK gives a request that
// its transport could not deliver: the server never saw it.
const codeRejectedByTransport = -32005
