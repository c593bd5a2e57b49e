package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/ailab/ai-lab/server"
	"github.com/ailab/ai-lab/tools"
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

// runSearch is `ai-server search "QUERY" [--json] [--max N]`: it runs web_search
// as the model would and prints what the model would get.
func runSearch(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ai-server search", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the raw tool result as JSON")
	maxResults := fs.Int("max", 0, "how many results, 1 to 10 (default web.max_results)")
	cfgPath := fs.String("config", "", "config file (default: as for the server)")
	fs.Usage = func() { fmt.Fprintln(stderr, `usage: ai-server search "QUERY" [--json] [--max N]`); fs.PrintDefaults() }
	words, code, ok := parseWebFlags(fs, args)
	if !ok {
		return code
	}
	if len(words) != 1 {
		return usageError(stderr, `search takes one quoted query, e.g. ai-server search "go generics" (got %d arguments)`, len(words))
	}
	if strings.TrimSpace(words[0]) == "" {
		return usageError(stderr, `search needs words to look for, e.g. ai-server search "go generics"`)
	}
	if *maxResults < 0 {
		return usageError(stderr, "--max must be a positive number, not %d", *maxResults)
	}
	tool, code := webTool(*cfgPath, tools.WebSearch, stderr)
	if tool == nil {
		return code
	}
	toolArgs := map[string]any{"query": words[0]}
	if *maxResults > 0 {
		toolArgs["max_results"] = *maxResults
	}
	res, code := runWebTool(tool, toolArgs, stderr)
	if res == nil {
		return code
	}
	if *asJSON {
		return printToolJSON(stdout, stderr, res)
	}
	r := res.(tools.SearchResult)
	fmt.Fprintf(stdout, "%d result(s) for %q\n\n%s\n", len(r.Results), r.Query, r.Content)
	return exitOK
}

// runRead is `ai-server read URL [--json] [--max-chars N]`: it runs
// read_webpage as the model would and prints what the model would get.
func runRead(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ai-server read", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the raw tool result as JSON")
	maxChars := fs.Int("max-chars", 0, "the most characters of page text (default web.max_chars)")
	cfgPath := fs.String("config", "", "config file (default: as for the server)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: ai-server read URL [--json] [--max-chars N] [--config PATH]")
		fs.PrintDefaults()
	}
	words, code, ok := parseWebFlags(fs, args)
	if !ok {
		return code
	}
	if len(words) != 1 {
		return usageError(stderr, "read takes one URL, e.g. ai-server read https://go.dev/doc/ (got %d arguments)", len(words))
	}
	if *maxChars < 0 {
		return usageError(stderr, "--max-chars must be a positive number, not %d", *maxChars)
	}
	tool, code := webTool(*cfgPath, tools.ReadWebpage, stderr)
	if tool == nil {
		return code
	}
	toolArgs := map[string]any{"url": words[0]}
	if *maxChars > 0 {
		toolArgs["max_chars"] = *maxChars
	}
	res, code := runWebTool(tool, toolArgs, stderr)
	if res == nil {
		return code
	}
	if *asJSON {
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

// parseWebFlags parses flags placed before or after the positional
// arguments, which the flag package alone stops at.
func parseWebFlags(fs *flag.FlagSet, args []string) (words []string, code int, ok bool) {
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, exitOK, false
			}
			return nil, exitUsage, false
		}
		args = fs.Args()
		if len(args) == 0 {
			return words, exitOK, true
		}
		if args[0] == "--" {
			return append(words, args[1:]...), exitOK, true
		}
		words = append(words, args[0])
		args = args[1:]
	}
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
		fmt.Fprintf(stderr, "ai-server: %s: %v\n", tool.Name(), err)
		return nil, exitFailure
	}
	return res, exitOK
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
