package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/ailab/ai-lab/api"
)

// Approval policies of the one-shot mode (--approve).
const (
	ApproveAsk  = "ask"  // print each batch and read y/n/s/r/a/d/? lines
	ApproveAll  = "all"  // approve every call without asking
	ApproveNone = "none" // deny every call without asking
)

// maxBatches bounds chained approvals in one turn so a misbehaving server cannot
// keep a script waiting forever; the server's own max_tool_rounds is far lower.
const maxBatches = 100

// A Once is one run of `ai-client -p`: send one message, settle every approval the
// way Approve says, print the final answer.
type Once struct {
	Message   string
	SessionID string    // empty starts a new session
	Approve   string    // ApproveAsk, ApproveAll or ApproveNone
	JSON      bool      // print the final ChatResponse as JSON instead of its text
	In        io.Reader // where ask reads decision lines
	Out       io.Writer // the answer, and nothing else, so scripts can capture it
	Prompt    io.Writer // the approval tables and questions of ask
	Width     int       // the terminal's columns, for the tables and to erase a withdrawn answer; <= 0 means 80
	// Echo repeats each answer read from In after its question. A terminal shows what
	// was typed by itself; answers piped in would otherwise leave the questions run
	// together on one line.
	Echo bool
	// OutIsTerminal shows the answer as it streams, erasing text the server withdraws,
	// and escapes what could drive the terminal in it (see TerminalSafe), as ls does
	// with file names. A pipe gets the final answer byte for byte, and nothing before:
	// streamed text may still be withdrawn, and a pipe cannot take it back.
	OutIsTerminal bool
}

// ErrInputEnded means stdin closed while ask still needed a decision.
var ErrInputEnded = errors.New("stdin ended before every tool call was decided; answer y/n/a/d per call or pass --approve all or --approve none")

// Run performs the turn against c.
func (o Once) Run(ctx context.Context, c *Client) error {
	switch o.Approve {
	case ApproveAsk, ApproveAll, ApproveNone:
	default:
		return fmt.Errorf("--approve must be ask, all or none, not %q", o.Approve)
	}
	var shown *shownAnswer
	var on func(Event)
	if o.OutIsTerminal && !o.JSON {
		shown = &shownAnswer{w: o.Out, cols: o.Width}
		on = shown.event
	}
	reply, err := c.ChatStream(ctx, o.Message, o.SessionID, on)
	var ae *APIError
	if errors.As(err, &ae) && errors.Is(err, ErrApprovalPending) {
		// The server's sentence points at POST /chat/approve; a script user needs the command.
		ae.Message = fmt.Sprintf("session %s waits for decisions on earlier tool calls; decide them in `ai-client --session %s`, or leave out --session to start a new one", o.SessionID, o.SessionID)
	}
	in := bufio.NewScanner(o.In)
	for n := 0; err == nil && reply.ApprovalRequired; n++ {
		// The questions go to the same terminal: the answer so far keeps its lines.
		shown.pause()
		if n >= maxBatches {
			return fmt.Errorf("the server asked for approval %d times in one turn; stopping (session %s)", n, reply.SessionID)
		}
		b := NewBatch(reply)
		switch o.Approve {
		case ApproveAll:
			b.DecideRest(true)
		case ApproveNone:
			b.DecideRest(false)
		default:
			if err := o.ask(b, in); err != nil {
				return err
			}
		}
		reply, err = c.ApproveStream(ctx, b.SessionID, b.Decisions, on)
		for o.Approve == ApproveAsk && errors.Is(err, ErrConfigLocked) && b.Reopen() >= 0 {
			// Nothing ran and nothing was stored: decide again from the call whose
			// rule could not be saved.
			fmt.Fprintf(o.prompt(), "The server saved no rule, so none of these decisions was sent: %s\n\n", Visible(err.Error()))
			if err := o.ask(b, in); err != nil {
				return err
			}
			reply, err = c.ApproveStream(ctx, b.SessionID, b.Decisions, on)
		}
	}
	if err != nil {
		shown.pause() // the error is printed on a line of its own
		return err
	}
	if o.JSON {
		enc := json.NewEncoder(o.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(api.ChatResponse{
			SessionID: reply.SessionID, Response: reply.Response, ToolsUsed: reply.ToolsUsed,
			Validation: reply.Validation, TraceID: reply.TraceID,
		})
	}
	if shown != nil {
		return shown.finish(reply.Response)
	}
	_, err = fmt.Fprintln(o.Out, strings.TrimRight(reply.Response, "\n"))
	return err
}

func (o Once) echo(w io.Writer, answer string) {
	if o.Echo {
		fmt.Fprintln(w, Visible(answer))
	}
}

// prompt is where the questions go: Prompt, or nowhere.
func (o Once) prompt() io.Writer {
	if o.Prompt == nil {
		return io.Discard
	}
	return o.Prompt
}

// ask prints the batch as a plain table, with the server's reason under each
// call, and reads one line per call: y, n, a, d, ? or an empty line for the
// default y (none for a Destructive call), and s or r for a call that carries a
// grant offer; after n or d, one
// more line is the reason (empty: none); after s or r, one more line confirms
// the grant or the rule shown (y) or goes back to the question; ? prints the
// call's full arguments and what it would change, then asks again.
func (o Once) ask(b *Batch, in *bufio.Scanner) error {
	w := o.prompt()
	plain := lipgloss.NewRenderer(w)
	plain.SetColorProfile(termenv.Ascii) // plain text even on a colour terminal
	st := NewTableStyle(plain)
	opt := ScreenOptions{Width: o.Width, Style: st}
	fmt.Fprintln(w, b.Screen(opt))
	cutRows := b.Table(opt).Cut
	fmt.Fprintln(w)
	line := func(question string) string {
		fmt.Fprint(w, question)
		r := ""
		if in.Scan() {
			r = strings.TrimSpace(in.Text())
		}
		o.echo(w, r)
		return r
	}
	reason := func() string { return line("Reason for the model (Enter skips): ") }
	confirm := func(lines []string, what string) bool {
		for _, l := range lines {
			fmt.Fprintln(w, l)
		}
		a := strings.ToLower(line(b.Question(what, o.Width)))
		return a == "y" || a == "yes"
	}
	for !b.Done() {
		fmt.Fprint(w, b.Prompt(o.Width))
		if !in.Scan() {
			fmt.Fprintln(w)
			return ErrInputEnded
		}
		o.echo(w, in.Text())
		switch a := strings.ToLower(strings.TrimSpace(in.Text())); a {
		case "", "y", "yes":
			if a == "" && !b.HasDefault() {
				fmt.Fprintln(w, NoDefault+".")
				continue
			}
			b.Decide(true, "")
		case "n", "no":
			b.Decide(false, reason())
		case "s", "session":
			if lines := b.GrantLines(); lines == nil {
				fmt.Fprintln(w, WhyNoGrant(b.Pending[b.Current()])+"; "+ApproveOnce)
			} else if confirm(lines, "grant this") {
				b.Grant()
			}
		case "r", "always":
			if lines := b.RuleLines(); lines == nil {
				notice, advice := b.NoRule()
				fmt.Fprintln(w, notice+"; "+advice)
			} else if confirm(lines, "save this rule") {
				b.Always()
			}
		case "a", "all":
			if sure(w, line, b, cutRows, "Approve") {
				b.DecideRest(true)
			}
		case "d", "deny":
			if sure(w, line, b, cutRows, "Deny") {
				b.DenyRest(reason())
			}
		case "?":
			fmt.Fprintln(w, Details(b.Pending[b.Current()], st))
		default:
			fmt.Fprintln(w, keyWords(b.Keys()))
		}
	}
	for _, l := range append(b.Summary(o.Width), b.ScopeNotes()...) {
		fmt.Fprintln(w, l)
	}
	return nil
}

// sure asks before a or d decides calls whose arguments the table showed cut
// short (cut, by row), as the TUI does: the reader has not seen them whole. It
// reports whether to go on.
func sure(w io.Writer, line func(string) string, b *Batch, cut map[int]bool, verb string) bool {
	n := 0
	for i := b.Current(); i < len(b.Pending); i++ {
		if cut[i] {
			n++
		}
	}
	if n == 0 {
		return true
	}
	them := fmt.Sprintf("all %d remaining calls", b.Remaining())
	if b.Remaining() == 1 {
		them = "the 1 remaining call"
	}
	verbIs := "are"
	if n == 1 {
		verbIs = "is"
	}
	fmt.Fprintf(w, "%d of them %s cut short in the table (? shows the current call whole, y decides one at a time).\n", n, verbIs)
	a := strings.ToLower(line(verb + " " + them + "? [y/n] (n): "))
	return a == "y" || a == "yes"
}

// keyWords says what each of keys (as Keys lists them) does, for an answer that
// is none of them.
func keyWords(keys string) string {
	words := map[string]string{
		"y": "y (approve)", "n": "n (deny)", "s": "s (approve and grant such calls for this session)",
		"r": "r (approve and save an allow rule in config.yaml)", "a": "a (approve all remaining)",
		"d": "d (deny all remaining)", "?": "? (full arguments and changes)",
	}
	var parts []string
	for _, k := range strings.Split(keys, "/") {
		parts = append(parts, words[k])
	}
	return "Answer " + strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1] + "."
}

// Codes of the one-shot mode's own failures, beside the server's (api.Code...),
// for the error object of --json.
const (
	CodeUnreachable = "unreachable"  // no HTTP answer came back
	CodeInputEnded  = "input_ended"  // stdin closed before every call was decided
	CodeStreamEnded = "stream_ended" // the answer stopped before its end
	CodeInterrupted = "interrupted"  // Ctrl+C or SIGTERM before the answer came
	CodeClient      = "client_error" // anything else on this side
)

// ErrorCode names err for --json: the server's code when it answered with one,
// else one of the client's own codes.
func ErrorCode(err error) string {
	var ae *APIError
	switch {
	case errors.As(err, &ae) && ae.Code != "":
		return ae.Code
	case errors.Is(err, ErrUnreachable):
		return CodeUnreachable
	case errors.Is(err, ErrUnauthorized):
		return api.CodeUnauthorized
	case errors.Is(err, ErrInputEnded):
		return CodeInputEnded
	case errors.Is(err, ErrStreamEnded):
		return CodeStreamEnded
	case errors.Is(err, context.Canceled):
		return CodeInterrupted
	}
	return CodeClient
}

// WriteJSONError writes the error object of a failed one-shot --json run to w:
// {"error": {"code": "...", "message": "..."}}, as the API writes its errors.
func WriteJSONError(w io.Writer, code string, err error) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(api.ErrorBody{Error: api.ErrorDetail{Code: code, Message: err.Error()}})
}
