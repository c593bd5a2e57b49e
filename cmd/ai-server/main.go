// Command ai-server serves the AI Lab HTTP API and offers a few subcommands that run
// parts of it from a terminal (preset, sanitize, search, read). It only parses flags,
// loads config, wires packages together and maps errors to exit codes.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Exit codes (CONTRACT section 1).
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// A command is one way to run ai-server: serving, the default, or a subcommand.
type command struct {
	name    string // "" for serving, which takes no name
	args    string // what follows the name in the usage line, flags included
	summary string
	// flags returns the command's flag set without values behind it, for the help.
	flags func() *flag.FlagSet
	run   func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// commands lists every command in the order the help shows them. It is a
// function so that the commands' run functions may print their own help.
func commands() []command {
	return []command{
		{
			args:    "[--config PATH] [--addr HOST:PORT] [--demo]",
			summary: "serve the HTTP API (the default; logs \"listening on http://HOST:PORT\" once ready)",
			flags:   func() *flag.FlagSet { return new(serveOptions).flagSet() },
			run:     func(args []string, _ io.Reader, stdout, stderr io.Writer) int { return serve(args, stdout, stderr) },
		},
		{
			name:    "preset",
			args:    "strict|moderate|minimal|custom [--config PATH]",
			summary: "rewrite safety.preset in config.yaml in place, comments and other keys kept",
			flags:   func() *flag.FlagSet { return new(presetOptions).flagSet() },
			run:     func(args []string, _ io.Reader, stdout, stderr io.Writer) int { return runPreset(args, stdout, stderr) },
		},
		{
			name:    "sanitize",
			args:    "[--source URL] [--mild] [--json] < text",
			summary: "show what the sanitizer makes of the text on stdin",
			flags:   func() *flag.FlagSet { return new(sanitizeOptions).flagSet() },
			run:     runSanitize,
		},
		{
			name:    "search",
			args:    `"QUERY" [--max N] [--json] [--config PATH]`,
			summary: "run web_search and print what the model would get",
			flags:   func() *flag.FlagSet { return new(searchOptions).flagSet() },
			run:     func(args []string, _ io.Reader, stdout, stderr io.Writer) int { return runSearch(args, stdout, stderr) },
		},
		{
			name:    "read",
			args:    "URL [--max-chars N] [--json] [--config PATH]",
			summary: "run read_webpage and print what the model would get",
			flags:   func() *flag.FlagSet { return new(readOptions).flagSet() },
			run:     func(args []string, _ io.Reader, stdout, stderr io.Writer) int { return runRead(args, stdout, stderr) },
		},
		{
			name:    "policy",
			args:    "explain TOOL 'JSON-ARGS' | list [--json] [--config PATH]",
			summary: "explain: whether a call would run, ask or be refused, and why; list: every rule and preset entry in force",
			flags:   func() *flag.FlagSet { return new(policyOptions).flagSet() },
			run:     func(args []string, _ io.Reader, stdout, stderr io.Writer) int { return runPolicy(args, stdout, stderr) },
		},
		{
			name:    "mcp",
			args:    "[list] [--config PATH]",
			summary: "serve web_search, read_webpage and sanitize to another agent over MCP (stdio); list: the configured MCP servers, their status and tools",
			flags:   func() *flag.FlagSet { return new(mcpOptions).flagSet() },
			run:     runMCP,
		},
	}
}

func findCommand(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func main() {
	// Only the real process restarts itself; tests call run in theirs.
	restartScheduler = steadyScheduler
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if args[0] == "help" {
			return runHelp(args[1:], stdout, stderr)
		}
		if c, ok := findCommand(args[0]); ok && c.name != "" {
			return c.run(args[1:], stdin, stdout, stderr)
		}
	}
	return serve(args, stdout, stderr)
}

// serveOptions mirrors the flags runServe defines (serve.go), so that the help
// can list them and a wrong flag is refused in one line before runServe, whose
// flag set would print its whole usage; TestServeFlagsMatchRunServe keeps the
// two in step.
type serveOptions struct {
	config, addr string
	demo         bool
}

func (o *serveOptions) flagSet() *flag.FlagSet {
	fs := newFlagSet("ai-server")
	fs.StringVar(&o.config, "config", "", "the config file at `PATH` (default: $AILAB_CONFIG, ./config.yaml, $XDG_CONFIG_HOME/ai-lab/config.yaml)")
	fs.StringVar(&o.addr, "addr", "", "listen on `HOST:PORT` instead of server.addr")
	fs.BoolVar(&o.demo, "demo", false, "use the built-in offline demo model instead of an LLM endpoint")
	return fs
}

// serve checks the arguments of `ai-server [flags]` and hands them to runServe.
func serve(args []string, stdout, stderr io.Writer) int {
	words, code, ok := parseArgs("", new(serveOptions).flagSet(), args, stdout, stderr)
	if !ok {
		return code
	}
	if len(words) > 0 {
		return unexpectedArgument(stderr, words[0])
	}
	return runServe(args, stdout, stderr)
}

// unexpectedArgument refuses a word where serving takes none: a command after
// a flag, or no command at all, perhaps a misspelt one.
func unexpectedArgument(stderr io.Writer, word string) int {
	if word == "serve" {
		return usageError(stderr, "unexpected argument %q: serving is what ai-server does without a command, so leave it out", word)
	}
	if c, ok := findCommand(word); ok && c.name != "" {
		return usageError(stderr, "unexpected argument %q: a command comes before any flag, e.g. ai-server %s --help", word, word)
	}
	if near := nearestCommand(word); near != "" {
		return usageError(stderr, "unexpected argument %q: not a command; did you mean %s? (see ai-server --help)", word, near)
	}
	return usageError(stderr, "unexpected argument %q: not a command (%s); see ai-server --help", word, orList(commandNames()))
}

// nearestCommand returns the command name within two edits of word, if any.
func nearestCommand(word string) string {
	best, bestDist := "", 3
	for _, name := range commandNames() {
		if d := editDistance(strings.ToLower(word), name); d < bestDist {
			best, bestDist = name, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// runHelp is `ai-server help [COMMAND]`.
func runHelp(args []string, stdout, stderr io.Writer) int {
	switch len(args) {
	case 0:
		printUsage(stdout)
		return exitOK
	case 1:
		if c, ok := findCommand(args[0]); ok && c.name != "" {
			printCommandHelp(stdout, c)
			return exitOK
		}
		return usageError(stderr, "help: unknown command %q (%s); see ai-server --help", args[0], orList(commandNames()))
	}
	return usageError(stderr, "help takes one command name, e.g. ai-server help search")
}

// commandNames lists the subcommands.
func commandNames() []string {
	var names []string
	for _, c := range commands() {
		if c.name != "" {
			names = append(names, c.name)
		}
	}
	return names
}

// orList renders "a, b, c or d".
func orList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// printUsage writes `ai-server --help`: every command with its flags.
func printUsage(w io.Writer) {
	fmt.Fprint(w, "ai-server serves the AI Lab HTTP API; its commands run parts of it from a terminal.\n\nusage:\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "\n  %s\n      %s\n", usageLine(c), c.summary)
		writeFlags(w, c.flags(), "      ")
	}
	fmt.Fprint(w, "\n`ai-server COMMAND --help` shows one command. Exit codes: 0 success, 1 runtime failure, 2 bad usage or bad config.\n")
}

// printCommandHelp writes `ai-server COMMAND --help`.
func printCommandHelp(w io.Writer, c command) {
	fmt.Fprintf(w, "usage: %s\n\n%s.\n", usageLine(c), strings.ToUpper(c.summary[:1])+c.summary[1:])
	fs := c.flags()
	if hasFlags(fs) {
		fmt.Fprint(w, "\nflags:\n")
		writeFlags(w, fs, "  ")
	}
}

func usageLine(c command) string {
	if c.name == "" {
		return "ai-server " + c.args
	}
	return "ai-server " + c.name + " " + c.args
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// writeFlags lists fs's flags one a line, as --name ARG and what it does.
func writeFlags(w io.Writer, fs *flag.FlagSet, indent string) {
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		name := "--" + f.Name
		if arg != "" {
			name += " " + arg
		}
		fmt.Fprintf(tw, "%s%s\t%s\n", indent, name, usage)
	})
	tw.Flush()
}

// newFlagSet returns a flag set that prints nothing: parseArgs words each
// failure as one line, where the flag package would add the whole usage.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseArgs parses args for the command named name, flags before or after the
// positional arguments (which the flag package alone stops at) until "--". ok
// false means the command is done: its help was printed (exit 0) or a usage
// error (exit 2).
func parseArgs(name string, fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (words []string, code int, ok bool) {
	for {
		if err := fs.Parse(args); err != nil {
			c, _ := findCommand(name)
			if errors.Is(err, flag.ErrHelp) {
				if name == "" {
					printUsage(stdout)
				} else {
					printCommandHelp(stdout, c)
				}
				return nil, exitOK, false
			}
			return nil, usageError(stderr, "%s%s; see %s --help", prefix(name), flagError(err), strings.TrimSpace("ai-server "+name)), false
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

func prefix(name string) string {
	if name == "" {
		return ""
	}
	return name + ": "
}

var (
	unknownFlag  = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)
	missingValue = regexp.MustCompile(`^flag needs an argument: -+(.*)$`)
	invalidBool  = regexp.MustCompile(`^invalid boolean value "(.*)" for (?:flag )?-+([^:]*): `)
	invalidValue = regexp.MustCompile(`^invalid value "(.*)" for (?:flag )?-+([^:]*): (.*)$`)
)

// flagError words a flag package error for a person: flags as --name, and a
// number out of range with the range.
func flagError(err error) string {
	msg := err.Error()
	if m := unknownFlag.FindStringSubmatch(msg); m != nil {
		return "unknown flag --" + m[1]
	}
	if m := missingValue.FindStringSubmatch(msg); m != nil {
		return "--" + m[1] + " needs a value"
	}
	if m := invalidBool.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("--%s is on or off: write --%s or --%s=false, not %q", m[2], m[2], m[2], m[1])
	}
	if m := invalidValue.FindStringSubmatch(msg); m != nil {
		// m[3] is an intFlag's own "must be ..." sentence.
		return fmt.Sprintf("--%s %s, not %s", m[2], m[3], shownValue(m[1]))
	}
	return msg
}

// shownValue quotes a flag's value unless it is a plain number.
func shownValue(s string) string {
	if _, err := strconv.Atoi(s); err == nil {
		return s
	}
	return strconv.Quote(s)
}

// An intFlag is a whole-number flag with an allowed range, so that a value
// out of it is bad usage (exit 2) rather than something the tool quietly clamps.
// set says whether it was given; the default comes from the config.
type intFlag struct {
	n, min, max int
	set         bool
}

func (f *intFlag) String() string {
	if f == nil || !f.set {
		return ""
	}
	return strconv.Itoa(f.n)
}

// Set takes base-10 numbers only: flag.Int's 0x10 and 010 are no way to write a count.
func (f *intFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	switch {
	case err != nil:
		return fmt.Errorf("must be a whole number between %d and %d", f.min, f.max)
	case n < f.min || n > f.max:
		return fmt.Errorf("must be between %d and %d", f.min, f.max)
	}
	f.n, f.set = n, true
	return nil
}

// usageError prints one line and returns the usage exit code.
func usageError(stderr io.Writer, format string, a ...any) int {
	fmt.Fprintf(stderr, "ai-server: "+format+"\n", a...)
	return exitUsage
}
