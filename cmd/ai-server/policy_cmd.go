package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/ailab/ai-lab/policy"
	"github.com/ailab/ai-lab/server"
	"github.com/ailab/ai-lab/tools"
)

// policyOptions are the flags of `ai-server policy`.
type policyOptions struct {
	asJSON bool
	config string
}

func (o *policyOptions) flagSet() *flag.FlagSet {
	fs := newFlagSet("policy")
	fs.BoolVar(&o.asJSON, "json", false, `print {"decision", "reason"} (explain) or the entries (list) as JSON`)
	fs.StringVar(&o.config, "config", "", "the config file at `PATH` (default: as for the server)")
	return fs
}

// runPolicy is `ai-server policy explain TOOL 'JSON-ARGS'` and `ai-server
// policy list`: the approval policy's decision for one call under the config
// in force, with its reason, or every rule and preset entry that decides.
// Session grants belong to a running server's sessions, so explain decides
// as a new session would.
func runPolicy(args []string, stdout, stderr io.Writer) int {
	var opts policyOptions
	words, code, ok := parseArgs("policy", opts.flagSet(), args, stdout, stderr)
	if !ok {
		return code
	}
	if len(words) == 0 {
		return usageError(stderr, "policy: say explain TOOL 'JSON-ARGS' or list; see ai-server policy --help")
	}
	cfg, code := loadConfig(opts.config, stderr)
	if cfg == nil {
		return code
	}
	switch words[0] {
	case "list":
		if len(words) != 1 {
			return usageError(stderr, "policy: list takes no arguments")
		}
		list := policy.New(cfg, nil).List()
		if opts.asJSON {
			return printJSON(stdout, list)
		}
		fmt.Fprint(stdout, policy.FormatList(list))
		return exitOK
	case "explain":
	default:
		return usageError(stderr, "policy: %q is not a policy command; say explain TOOL 'JSON-ARGS' or list", words[0])
	}
	if len(words) < 2 || len(words) > 3 {
		return usageError(stderr, `policy: explain takes a tool and its arguments as JSON, e.g. ai-server policy explain write_file '{"path": "notes/a.txt"}'`)
	}
	name, raw := words[1], "{}"
	if len(words) == 3 {
		raw = words[2]
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(raw), &obj); err != nil || obj == nil {
		return usageError(stderr, `policy: the arguments must be one JSON object, e.g. '{"path": "notes/a.txt"}', not %s`, strings.TrimSpace(raw))
	}
	if !tools.IsName(name) && !strings.Contains(name, "__") {
		return usageError(stderr, "policy: %q is not a tool; the built-in tools are %s, and an MCP server's are SERVER__TOOL", name, strings.Join(tools.Names, ", "))
	}
	// The built-in tools on the config's workspace, so paths resolve as the
	// tools will resolve them; MCP servers are not started, and their tools
	// are decided by name.
	ws, err := tools.OpenWorkspace(cfg.Tools.Workspace)
	if err != nil {
		fmt.Fprintf(stderr, "ai-server: policy: %v\n", err)
		return exitFailure
	}
	defer ws.Close()
	reg, err := tools.NewRegistry(append(tools.FileTools(ws), server.WebTools(cfg)...)...)
	if err != nil {
		fmt.Fprintf(stderr, "ai-server: policy: %v\n", err)
		return exitFailure
	}
	pol := policy.New(cfg, reg)
	call := policy.Call{Name: name, Args: json.RawMessage(raw)}
	d := pol.Decide(call, nil)
	if opts.asJSON {
		return printJSON(stdout, map[string]string{"decision": string(d.Verdict), "reason": d.Reason})
	}
	fmt.Fprintf(stdout, "%s: %s\n", d.Verdict, d.Reason)
	if what := pol.Describe(call); what != "" {
		fmt.Fprintf(stdout, "  (%s)\n", what)
	}
	return exitOK
}

// printJSON writes v as indented JSON and returns exitOK.
func printJSON(w io.Writer, v any) int {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // plain structs and maps always encode
	_, _ = w.Write(b.Bytes())
	return exitOK
}
