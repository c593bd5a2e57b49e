package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"

	"github.com/ailab/ai-lab/client"
)

// undoOptions are the command line of `ai-client undo` and `ai-client redo`.
type undoOptions struct {
	options
	turn       int
	yes, force bool
}

func newUndoFlags(redo bool, o *undoOptions) *flag.FlagSet {
	name := "undo"
	if redo {
		name = "redo"
	}
	fs := flag.NewFlagSet("ai-client "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.BoolVar(&o.force, "force", false, "overwrite files changed since the turn (without it such a change refuses the "+name+")")
	fs.BoolVar(&o.json, "json", false, "print the server's answer as JSON, or {\"error\": {\"code\", \"message\"}} on failure; the preview goes to stderr")
	fs.StringVar(&o.server, "server", "", "the ai-server at `URL` or HOST:PORT (default: $AILAB_SERVER, then "+defaultServer+")")
	fs.StringVar(&o.session, "session", "", "the session `ID` (default: the most recent session)")
	fs.StringVar(&o.stateDir, "state-dir", "", "find ai-server's token in `DIR` (default: $XDG_STATE_HOME/ai-lab, ~/.local/state/ai-lab)")
	fs.StringVar(&o.token, "token", "", "the bearer `TOKEN` (default: $AILAB_TOKEN, then the token file in the state directory)")
	if !redo {
		fs.IntVar(&o.turn, "turn", 0, "undo turn `N` and every later one (default: the last turn that changed files)")
	}
	fs.BoolVar(&o.yes, "yes", false, "do it without asking (needed when stdin is not a terminal)")
	return fs
}

func printUndoUsage(w io.Writer, redo bool, fs *flag.FlagSet) {
	if redo {
		fmt.Fprint(w, `ai-client redo puts back what the last undo of a session took back.

usage: ai-client redo [--session ID] [--yes] [--force] [--json]

It shows each file the redo would change, asks y/n, then redoes.
`)
	} else {
		fmt.Fprint(w, `ai-client undo takes back the file changes of a turn and of every later turn.

usage: ai-client undo [--session ID] [--turn N] [--yes] [--force] [--json]

It shows each file the undo would change (restored, removed or moved back, its size
now and after, the diff of a file that returns), asks y/n, then undoes. A file
changed since the turn refuses the undo, showing the change, unless --force.
`)
	}
	fmt.Fprint(w, "\nflags:\n")
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		name := "--" + f.Name
		if arg != "" {
			name += " " + arg
		}
		fmt.Fprintf(tw, "  %s\t%s\n", name, usage)
	})
	tw.Flush()
	fmt.Fprint(w, "\nExit codes: 0 done, 1 not done (refused, declined or failed), 2 bad usage.\n")
}

// runUndo is `ai-client undo` and `ai-client redo`.
func runUndo(redo bool, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	var o undoOptions
	fs := newUndoFlags(redo, &o)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUndoUsage(stdout, redo, fs)
			return exitOK
		}
		fmt.Fprintf(stderr, "ai-client: %s; ai-client %s --help lists the flags\n", longFlag.ReplaceAllString(err.Error(), ": --$1"), fs.Name()[len("ai-client "):])
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ai-client: unexpected argument %q; give the turn as --turn N\n", fs.Arg(0))
		return exitUsage
	}
	if o.turn < 0 {
		fmt.Fprintln(stderr, "ai-client: --turn must be 1 or more")
		return exitUsage
	}
	if o.server == "" {
		o.server = getenv("AILAB_SERVER")
	}
	if o.server == "" {
		o.server = defaultServer
	}
	server, err := serverURL(o.server)
	if err != nil {
		fmt.Fprintln(stderr, "ai-client:", err)
		return exitUsage
	}
	o.server = server

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fail := func(err error) int {
		fmt.Fprintln(stderr, "ai-client:", err)
		if o.json {
			client.WriteJSONError(stdout, client.UndoErrorCode(err), err)
		}
		return exitFailure
	}
	c, err := connect(ctx, o.options, getenv)
	if err != nil {
		return fail(err)
	}
	defer c.close()
	u := client.UndoOnce{
		Redo: redo, SessionID: o.session, Turn: o.turn, Force: o.force, Yes: o.yes, JSON: o.json,
		Ask: isTerminal(stdin) && isTerminal(stderr), In: stdin, Out: stdout, Prompt: stderr,
		Width: terminalWidth(stdout),
	}
	if o.json {
		u.Width = terminalWidth(stderr)
	}
	if err := u.Run(ctx, c.Client); err != nil {
		return fail(err)
	}
	return exitOK
}
