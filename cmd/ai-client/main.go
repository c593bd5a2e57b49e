// Command ai-client is the AI Lab chat client: the Bubble Tea TUI by default, a
// one-shot mode for scripts with -p, and --demo, which runs an in-process server on the
// offline demo model. It only parses flags, finds the server and token, and maps errors
// to exit codes; everything else lives in package client.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/term"

	"github.com/ailab/ai-lab/client"
	"github.com/ailab/ai-lab/client/tui"
)

// Exit codes (CONTRACT section 1).
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

const defaultServer = "http://127.0.0.1:8080"

// startupCheck bounds the health and token check before the TUI opens, so a server
// that accepts connections but never answers gives an error instead of a hang.
const startupCheck = 10 * time.Second

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

// options are the parsed command line.
type options struct {
	server, session, token, stateDir string
	message, approve                 string
	json, demo                       bool
	oneShot                          bool
}

// printUsage writes `ai-client --help`, in the form of `ai-server --help`: what
// the command is, its three forms with a line on each, then every flag as
// --name ARG with what it does, aligned.
func printUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `ai-client is the AI Lab chat client: a terminal UI on ai-server, or one message from a script.

usage:

  ai-client [--server URL] [--session ID]
      the chat TUI on a running ai-server; /help in it lists the commands

  ai-client --demo [--session ID]
      the TUI on an in-process server with the offline demo model; the demo keeps its
      sessions, token and config copy in `+demoStateHelp+`, apart from ai-server's
      <state dir> (server.state_dir, $XDG_STATE_HOME/ai-lab or ~/.local/state/ai-lab)

  ai-client -p "MESSAGE" [--approve ask|all|none] [--json]
      one-shot: send MESSAGE, settle its approvals, print the answer and exit

  ai-client undo [--session ID] [--turn N] [--yes] [--force] [--json]
  ai-client redo [--session ID] [--yes] [--force] [--json]
      show what undoing turn N (and every later turn) or redoing the last undo
      would change in the workspace, ask, then do it; ai-client undo --help has more

flags:
`)
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		if f.Name == "approve" {
			arg = "ask|all|none" // its choices; a backquoted word would have to be one of them
		}
		name := "--" + f.Name
		if len(f.Name) == 1 {
			name = "-" + f.Name
		}
		if arg != "" {
			name += " " + arg
		}
		fmt.Fprintf(tw, "  %s\t%s\n", name, usage)
	})
	tw.Flush()
	fmt.Fprint(w, "\nExit codes: 0 success, 1 runtime failure, 2 bad usage.\n")
}

// longFlag finds a flag of more than one letter in the flag package's errors.
var longFlag = regexp.MustCompile(`: -(\w\w[\w-]*)`)

// newFlags returns ai-client's flags, bound to o.
func newFlags(o *options) *flag.FlagSet {
	fs := flag.NewFlagSet("ai-client", flag.ContinueOnError)
	// The flag package would print the whole usage after a mistake; bad usage is one
	// line (CONTRACT section 1), and the usage is printed only when asked for.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&o.approve, "approve", client.ApproveAsk, "how one-shot settles approvals: ask for each call (the default), approve all or deny all")
	fs.BoolVar(&o.demo, "demo", false, "run an in-process server on the offline demo model, with its own state in "+demoStateHelp)
	fs.BoolVar(&o.json, "json", false, "one-shot: print the final ChatResponse as JSON, or {\"error\": {\"code\", \"message\"}} on failure")
	fs.StringVar(&o.message, "p", "", "one-shot: send `MESSAGE`, print the final answer and exit")
	fs.StringVar(&o.server, "server", "", "the ai-server at `URL` or HOST:PORT (default: $AILAB_SERVER, then "+defaultServer+")")
	fs.StringVar(&o.session, "session", "", "resume session `ID` (under --demo, one of the demo's sessions)")
	fs.StringVar(&o.stateDir, "state-dir", "", "find ai-server's token in `DIR` (default: $XDG_STATE_HOME/ai-lab, ~/.local/state/ai-lab)")
	fs.StringVar(&o.token, "token", "", "the bearer `TOKEN` (default: $AILAB_TOKEN, then the token file in the state directory)")
	return fs
}

func parse(args []string, stdout io.Writer, getenv func(string) string) (options, error) {
	var o options
	fs := newFlags(&o)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(stdout, fs)
			return o, flag.ErrHelp
		}
		// The flag package names a flag -name; the help and ai-server write --name.
		return o, fmt.Errorf("%s; ai-client --help lists the flags", longFlag.ReplaceAllString(err.Error(), ": --$1"))
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q; to send a message use -p %q", fs.Arg(0), strings.Join(fs.Args(), " "))
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "p" {
			o.oneShot = true
		}
	})
	if o.oneShot && strings.TrimSpace(o.message) == "" {
		return o, errors.New("-p needs a message, e.g. -p \"list the workspace\"")
	}
	switch o.approve {
	case client.ApproveAsk, client.ApproveAll, client.ApproveNone:
	default:
		return o, fmt.Errorf("--approve must be ask, all or none, not %q", o.approve)
	}
	if !o.oneShot && (o.json || o.approve != client.ApproveAsk) {
		return o, errors.New("--json and --approve only go with -p MESSAGE")
	}
	if o.demo && o.server != "" {
		return o, errors.New("--demo runs its own server; leave out --server")
	}
	if o.server == "" {
		o.server = getenv("AILAB_SERVER")
	}
	if o.server == "" {
		o.server = defaultServer
	}
	server, err := serverURL(o.server)
	if err != nil {
		return o, err
	}
	o.server = server
	return o, nil
}

// serverURL accepts what a user types for the server: a URL, or HOST:PORT as in
// ai-server's --addr and server.addr, which means http.
func serverURL(s string) (string, error) {
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("--server (or AILAB_SERVER) %q is not a server address; give http://HOST:PORT or HOST:PORT", s)
	}
	return strings.TrimRight(s, "/"), nil
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) > 0 && (args[0] == "undo" || args[0] == "redo") {
		return runUndo(args[0] == "redo", args[1:], stdin, stdout, stderr, getenv)
	}
	o, err := parse(args, stdout, getenv)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintln(stderr, "ai-client:", err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	// fail reports a runtime failure: one line on stderr and, for one-shot
	// --json, the error object on stdout, where a script reads the answer.
	fail := func(code string, err error) int {
		fmt.Fprintln(stderr, "ai-client:", err)
		if o.oneShot && o.json {
			client.WriteJSONError(stdout, code, err)
		}
		return exitFailure
	}
	c, err := connect(ctx, o, getenv)
	if err != nil {
		return fail(client.ErrorCode(err), err)
	}
	defer c.close()

	if o.oneShot {
		once := client.Once{
			Message: o.message, SessionID: o.session, Approve: o.approve, JSON: o.json,
			In: stdin, Out: stdout, Prompt: stderr, Echo: !isTerminal(stdin), OutIsTerminal: isTerminal(stdout),
			Width: terminalWidth(stdout),
		}
		if err := once.Run(ctx, c.Client); err != nil {
			code := client.ErrorCode(err)
			if ctx.Err() != nil {
				// Not the transport's "Post …: interrupt signal received". Closing the
				// connection cancels the turn (CONTRACT sections 9 and 10).
				code, err = client.CodeInterrupted, errors.New("interrupted before the answer came; the turn was cancelled")
			}
			return fail(code, err)
		}
		return exitOK
	}
	return runTUI(ctx, c, o, stderr)
}

// isTerminal reports whether stream (stdin or stdout) is a terminal.
func isTerminal(stream any) bool {
	f, ok := stream.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// terminalWidth is the columns of stream when it is a terminal, else 0.
func terminalWidth(stream any) int {
	f, ok := stream.(*os.File)
	if !ok || !isTerminal(f) {
		return 0
	}
	w, _, err := term.GetSize(f.Fd())
	if err != nil {
		return 0
	}
	return w
}

// connection is a Client and, under --demo, the in-process server to stop.
type connection struct {
	*client.Client
	stop func()
}

func (c connection) close() {
	if c.stop != nil {
		c.stop()
	}
}

func connect(ctx context.Context, o options, getenv func(string) string) (connection, error) {
	if o.demo {
		url, token, stop, err := startDemoServer(ctx)
		if err != nil {
			return connection{}, fmt.Errorf("cannot start the demo server: %w", err)
		}
		return connection{Client: client.New(url, token, nil), stop: stop}, nil
	}
	ts, err := client.FindToken(o.token, o.stateDir, getenv)
	if err != nil {
		return connection{}, err
	}
	c := client.New(o.server, ts.Token, nil)
	c.TokenFile, c.TokenFrom = ts.File, ts.From
	return connection{Client: c}, nil
}

func runTUI(ctx context.Context, c connection, o options, stderr io.Writer) int {
	// Fail before taking over the screen when the server is not there or refuses the
	// token: one line on the terminal says more than an error inside a full-screen UI.
	check, cancel := context.WithTimeout(ctx, startupCheck)
	defer cancel()
	if _, err := c.Health(check); err != nil {
		fmt.Fprintln(stderr, "ai-client:", err)
		return exitFailure
	}
	if _, err := c.Config(check); err != nil {
		fmt.Fprintln(stderr, "ai-client:", err)
		return exitFailure
	}
	// lipgloss.NewRenderer reads NO_COLOR and the terminal's abilities from the environment.
	r := lipgloss.NewRenderer(os.Stdout)
	m := tui.New(tui.Options{Client: c.Client, SessionID: o.session, Renderer: r, Context: ctx, Demo: o.demo})
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithContext(ctx))
	final, err := p.Run()
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "ai-client:", err)
		return exitFailure
	}
	if fm, ok := final.(*tui.Model); ok {
		if s := fm.Leftover(); s != "" {
			fmt.Fprintln(stderr, "ai-client:", s)
		}
	}
	return exitOK
}
