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
	"strings"
	"syscall"
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

const usage = `Usage:
  ai-client [--server URL] [--session ID]                   the chat TUI
  ai-client --demo                                          the TUI on an in-process server with the offline demo model
  ai-client -p "MESSAGE" [--approve ask|all|none] [--json]  one-shot: print the answer and exit

In the TUI, /help lists the commands. Exit codes: 0 success, 1 runtime failure, 2 bad usage.

Flags:
`

func parse(args []string, stderr io.Writer, getenv func(string) string) (options, error) {
	var o options
	fs := flag.NewFlagSet("ai-client", flag.ContinueOnError)
	// The flag package would print the whole usage after a mistake; bad usage is one
	// line (CONTRACT section 1), and the usage is printed only when asked for.
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.server, "server", "", "ai-server URL (default $AILAB_SERVER or "+defaultServer+")")
	fs.StringVar(&o.session, "session", "", "resume this session id")
	fs.StringVar(&o.token, "token", "", "bearer token (default $AILAB_TOKEN, then <state_dir>/token)")
	fs.StringVar(&o.stateDir, "state-dir", "", "where ai-server keeps its token (default $XDG_STATE_HOME/ai-lab)")
	fs.StringVar(&o.message, "p", "", "one-shot: send MESSAGE, print the final answer and exit")
	fs.StringVar(&o.approve, "approve", client.ApproveAsk, "one-shot approvals: ask, all or none")
	fs.BoolVar(&o.json, "json", false, "one-shot: print the final ChatResponse as JSON")
	fs.BoolVar(&o.demo, "demo", false, "run an in-process server on the offline demo model")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stderr)
			fs.Usage()
			return o, err
		}
		return o, fmt.Errorf("%v; ai-client -h lists the flags", err)
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
	o, err := parse(args, stderr, getenv)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintln(stderr, "ai-client:", err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	c, err := connect(ctx, o, getenv)
	if err != nil {
		fmt.Fprintln(stderr, "ai-client:", err)
		return exitFailure
	}
	defer c.close()

	if o.oneShot {
		once := client.Once{
			Message: o.message, SessionID: o.session, Approve: o.approve, JSON: o.json,
			In: stdin, Out: stdout, Prompt: stderr, Echo: !isTerminal(stdin), OutIsTerminal: isTerminal(stdout),
			Width: terminalWidth(stdout),
		}
		if err := once.Run(ctx, c.Client); err != nil {
			if ctx.Err() != nil {
				// Not the transport's "Post …: interrupt signal received". Closing the
				// connection cancels the turn (CONTRACT sections 9 and 10).
				err = errors.New("interrupted before the answer came; the turn was cancelled")
			}
			fmt.Fprintln(stderr, "ai-client:", err)
			return exitFailure
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
