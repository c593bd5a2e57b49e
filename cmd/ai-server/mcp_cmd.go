package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ailab/ai-lab/config"
	mcphub "github.com/ailab/ai-lab/mcp"
	"github.com/ailab/ai-lab/policy"
	"github.com/ailab/ai-lab/sanitize"
	"github.com/ailab/ai-lab/server"
	"github.com/ailab/ai-lab/tools"
)

// mcpOptions are the flags of `ai-server mcp`.
type mcpOptions struct {
	config string
}

func (o *mcpOptions) flagSet() *flag.FlagSet {
	fs := newFlagSet("mcp")
	fs.StringVar(&o.config, "config", "", "the config file at `PATH` (default: $AILAB_CONFIG, ./config.yaml, $XDG_CONFIG_HOME/ai-lab/config.yaml)")
	return fs
}

// runMCP is `ai-server mcp [--config PATH]`: an MCP server on stdin/stdout
// offering web_search, read_webpage and sanitize with this config's web.* and
// sanitize.* keys, the same sanitizer and wrappers the model gets, so another
// agent gets AI Lab's protected web access. `ai-server mcp list` shows the MCP
// servers this config uses instead.
func runMCP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var opts mcpOptions
	words, code, ok := parseArgs("mcp", opts.flagSet(), args, stdout, stderr)
	if !ok {
		return code
	}
	if len(words) > 0 && words[0] == "list" {
		if len(words) > 1 {
			return usageError(stderr, "mcp list: unexpected argument %q; it takes only --config PATH", words[1])
		}
		return runMCPList(opts, stdout, stderr)
	}
	if len(words) > 0 {
		return usageError(stderr, "mcp: unexpected argument %q; use ai-server mcp to serve over stdio, or ai-server mcp list", words[0])
	}
	cfg, code := loadConfig(opts.config, stderr)
	if cfg == nil {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv := newMCPServer(cfg)
	transport := &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}
	if err := srv.Run(ctx, transport); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		fmt.Fprintf(stderr, "ai-server: mcp: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// nopWriteCloser lets the transport close its writer without closing stdout
// under the caller.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// newMCPServer builds the MCP server of ai-server's web tools and the sanitizer.
// MCP tools of the config's own mcp.servers are not offered again.
func newMCPServer(cfg *config.Config) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "ai-lab", Title: "AI Lab protected web access", Version: server.Version}, nil)
	for _, t := range server.WebTools(cfg) {
		srv.AddTool(&mcp.Tool{Name: t.Name(), Description: t.Description(), InputSchema: t.Parameters()}, toolHandler(t))
	}
	srv.AddTool(&mcp.Tool{
		Name:        "sanitize",
		Description: "Run AI Lab's eight-layer prompt-injection sanitizer on text and return it wrapped as untrusted content, with a report of what each layer did.",
		InputSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"text":   map[string]any{"type": "string", "description": "The text to sanitize."},
				"source": map[string]any{"type": "string", "description": "The URL the text came from, shown in the wrapper (default: mcp)."},
				"mild":   map[string]any{"type": "boolean", "description": "Use the non-aggressive mode."},
			},
			"required":             []string{"text"},
			"additionalProperties": false,
		},
	}, sanitizeHandler)
	return srv
}

// toolHandler runs one of ai-server's tools for an MCP client: its result is
// the tool's JSON result, exactly what the model would get, and a tool error
// is an MCP tool error.
func toolHandler(t tools.Tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		result, err := t.Run(ctx, req.Params.Arguments)
		if err != nil {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
		}
		return jsonResult(result)
	}
}

// sanitizeArgs are the arguments of the sanitize tool.
type sanitizeArgs struct {
	Text   string `json:"text" arg:"required,empty"`
	Source string `json:"source"`
	Mild   bool   `json:"mild"`
}

func sanitizeHandler(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a sanitizeArgs
	if err := tools.DecodeArgs(req.Params.Arguments, &a); err != nil {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
	}
	if a.Source == "" {
		a.Source = "mcp"
	}
	text, report := sanitize.Sanitize(a.Text, sanitize.Options{Mild: a.Mild})
	return jsonResult(struct {
		Content string          `json:"content"`
		Report  sanitize.Report `json:"report"`
	}{sanitize.WrapWebpage(a.Source, text), report})
}

// jsonResult is a result as one text part holding its JSON (the wrapper tags
// not HTML-escaped) and as structured content.
func jsonResult(v any) (*mcp.CallToolResult, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	raw := json.RawMessage(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}, StructuredContent: raw}, nil
}

// listWait bounds how long `ai-server mcp list` waits for the servers' first start.
const listWait = 90 * time.Second

// runMCPList is `ai-server mcp list [--config PATH]`: it starts each server of
// mcp.servers as ai-server would, waits for its first start, and prints its
// status and tools. It exits 1 when a server is not ready.
func runMCPList(opts mcpOptions, stdout, stderr io.Writer) int {
	cfg, code := loadConfig(opts.config, stderr)
	if cfg == nil {
		return code
	}
	if len(cfg.MCP.Servers) == 0 {
		where := cfg.Path
		if where == "" {
			where = "the defaults (no config.yaml found)"
		}
		fmt.Fprintf(stdout, "no MCP servers are configured in %s; add them under mcp.servers (see config.yaml)\n", where)
		return exitOK
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	hub, err := mcphub.Start(ctx, server.MCPServers(cfg), mcphub.Options{SanitizeOff: !cfg.Sanitize.Enabled, Mild: !cfg.Sanitize.Aggressive,
		NoClassifier: !cfg.Sanitize.Classifier, Datamark: cfg.Sanitize.Datamark})
	if err != nil {
		return usageError(stderr, "mcp list: %v", err)
	}
	defer hub.Close()
	wctx, cancel := context.WithTimeout(ctx, listWait)
	defer cancel()
	_ = hub.WaitStarted(wctx)
	code = exitOK
	pol := policy.New(cfg, nil)
	for _, info := range hub.Servers() {
		fmt.Fprintf(stdout, "%s (%s): %s\n", info.Name, info.Source, info.Status())
		if info.State != mcphub.StateReady {
			code = exitFailure
		}
		for _, name := range info.Tools {
			// The policy by name: an MCP tool has no object a rule could scope.
			d := pol.Decide(policy.Call{Name: name, Args: json.RawMessage("{}")}, nil)
			fmt.Fprintf(stdout, "  %s  (%s: %s)\n", name, d.Verdict, d.Reason)
		}
		for _, skipped := range info.Skipped {
			fmt.Fprintf(stdout, "  left out: %s\n", skipped)
		}
	}
	return code
}
