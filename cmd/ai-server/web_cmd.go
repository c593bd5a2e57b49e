package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/ailab/ai-lab/server"
	"github.com/ailab/ai-lab/tools"
	"github.com/ailab/ai-lab/websearch"
)

// webTool loads the config like the server does (so web.* and sanitize.* keys and
// their AILAB_ overrides apply) and returns the named web tool built from it.
func webTool(configPath, name string, stderr io.Writer) (tools.Tool, int) {
	cfg, code := loadConfig(configPath, stderr)
	if cfg == nil {
		return nil, code
	}
	for _, t := range server.WebTools(cfg) {
		if t.Name() == name {
			return t, exitOK
		}
	}
	fmt.Fprintf(stderr, "ai-server: the %s tool is not built\n", name)
	return nil, exitFailure
}

// searchOptions are the flags of `ai-server search`.
type searchOptions struct {
	asJSON     bool
	maxResults intFlag
	config     string
}

func (o *searchOptions) flagSet() *flag.FlagSet {
	fs := newFlagSet("search")
	fs.BoolVar(&o.asJSON, "json", false, "print the raw tool result as JSON")
	o.maxResults = intFlag{min: 1, max: websearch.MaxResultsLimit}
	fs.Var(&o.maxResults, "max", fmt.Sprintf("how many results, `N` from 1 to %d (default: web.max_results)", websearch.MaxResultsLimit))
	fs.StringVar(&o.config, "config", "", "the config file at `PATH` (default: as for the server)")
	return fs
}

// runSearch is `ai-server search "QUERY" [--json] [--max N]`: it runs web_search
// as the model would and prints what the model would get.
func runSearch(args []string, stdout, stderr io.Writer) int {
	var opts searchOptions
	words, code, ok := parseArgs("search", opts.flagSet(), args, stdout, stderr)
	if !ok {
		return code
	}
	if len(words) != 1 {
		return usageError(stderr, `search takes one quoted query, e.g. ai-server search "go generics" (got %d arguments)`, len(words))
	}
	if strings.TrimSpace(words[0]) == "" {
		return usageError(stderr, `search needs words to look for, e.g. ai-server search "go generics"`)
	}
	tool, code := webTool(opts.config, tools.WebSearch, stderr)
	if tool == nil {
		return code
	}
	toolArgs := map[string]any{"query": words[0]}
	if opts.maxResults.set {
		toolArgs["max_results"] = opts.maxResults.n
	}
	res, code := runWebTool(tool, toolArgs, stderr)
	if res == nil {
		return code
	}
	if opts.asJSON {
		return printToolJSON(stdout, stderr, res)
	}
	r := res.(tools.SearchResult)
	fmt.Fprintf(stdout, "%d result(s) for %q\n\n%s\n", len(r.Results), r.Query, r.Content)
	return exitOK
}

// readOptions are the flags of `ai-server read`.
type readOptions struct {
	asJSON   bool
	maxChars intFlag
	config   string
}

func (o *readOptions) flagSet() *flag.FlagSet {
	fs := newFlagSet("read")
	fs.BoolVar(&o.asJSON, "json", false, "print the raw tool result as JSON")
	o.maxChars = intFlag{min: 1, max: tools.MaxCharsLimit}
	fs.Var(&o.maxChars, "max-chars", fmt.Sprintf("the most characters of page text, `N` from 1 to %d (default: web.max_chars)", tools.MaxCharsLimit))
	fs.StringVar(&o.config, "config", "", "the config file at `PATH` (default: as for the server)")
	return fs
}

// runRead is `ai-server read URL [--json] [--max-chars N]`: it runs
// read_webpage as the model would and prints what the model would get.
func runRead(args []string, stdout, stderr io.Writer) int {
	var opts readOptions
	words, code, ok := parseArgs("read", opts.flagSet(), args, stdout, stderr)
	if !ok {
		return code
	}
	if len(words) != 1 {
		return usageError(stderr, "read takes one URL, e.g. ai-server read https://go.dev/doc/ (got %d arguments)", len(words))
	}
	tool, code := webTool(opts.config, tools.ReadWebpage, stderr)
	if tool == nil {
		return code
	}
	toolArgs := map[string]any{"url": words[0]}
	if opts.maxChars.set {
		toolArgs["max_chars"] = opts.maxChars.n
	}
	res, code := runWebTool(tool, toolArgs, stderr)
	if res == nil {
		return code
	}
	if opts.asJSON {
		return printToolJSON(stdout, stderr, res)
	}
	r := res.(tools.WebpageResult)
	if r.Title != "" {
		fmt.Fprintln(stdout, r.Title)
	}
	fmt.Fprintf(stdout, "%s\n%d characters", r.FinalURL, r.Length)
	if r.Truncated {
		fmt.Fprint(stdout, " (cut; --max-chars shows more)")
	}
	fmt.Fprintln(stdout)
	if r.Note != "" {
		fmt.Fprintf(stdout, "note: %s\n", r.Note)
	}
	fmt.Fprintf(stdout, "\n%s\n", r.Content)
	return exitOK
}

// runWebTool runs tool with args the way the server's tool loop does; a tool
// error is printed as the one sentence the model would get.
func runWebTool(tool tools.Tool, args map[string]any, stderr io.Writer) (any, int) {
	raw, err := json.Marshal(args)
	if err != nil {
		fmt.Fprintf(stderr, "ai-server: %v\n", err)
		return nil, exitFailure
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := tool.Run(ctx, raw)
	if err != nil {
		msg := err.Error()
		if s, ok := unreachable(err); ok {
			msg = s
		}
		fmt.Fprintf(stderr, "ai-server: %s: %s\n", tool.Name(), msg)
		return nil, exitFailure
	}
	return res, exitOK
}

// unreachable words a fetch that never reached the host. The tool's own
// sentence for a failed lookup says to check the address for typos, yet at a
// terminal the likelier cause is a machine that is offline, so this one names
// the network first, and tells a name that does not exist from a network that
// cannot be reached where the error says which.
func unreachable(err error) (string, bool) {
	host := ""
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil {
			host = u.Host
		}
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		host = cmp.Or(dnsErr.Name, host)
		switch {
		case errors.Is(err, syscall.ENETUNREACH), strings.Contains(dnsErr.Err, "network is unreachable"):
			return fmt.Sprintf("could not reach %s: the network is unreachable, so its name could not be looked up; check your network connection", host), true
		case dnsErr.IsNotFound:
			return fmt.Sprintf("could not reach %s: no such host (the name does not resolve); check your network connection, then the address for typos", host), true
		}
		return fmt.Sprintf("could not reach %s: its name could not be looked up (%s); check your network connection, then the address", host, dnsErr.Err), true
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" && host == "" && op.Addr != nil {
		host = op.Addr.String()
	}
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Sprintf("could not reach %s: the connection was refused (nothing listens there); check the address and port, and your network connection", host), true
	case errors.Is(err, syscall.ENETUNREACH):
		return fmt.Sprintf("could not reach %s: the network is unreachable; check your network connection", host), true
	case errors.Is(err, syscall.EHOSTUNREACH):
		return fmt.Sprintf("could not reach %s: there is no route to the host; check your network connection, then the address", host), true
	}
	return "", false
}

func printToolJSON(stdout, stderr io.Writer, v any) int {
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(stderr, "ai-server: %v\n", err)
		return exitFailure
	}
	return exitOK
}
