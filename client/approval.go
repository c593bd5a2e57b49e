package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/table"
	"github.com/charmbracelet/x/ansi"

	"github.com/ailab/ai-lab/api"
)

// A Batch is one ApprovalRequiredResponse being decided: the pending calls in the
// model's order and the decisions made so far, in the same order. It is shared by
// the TUI and the one-shot mode so both send the same /chat/approve.
type Batch struct {
	SessionID string
	Message   string
	Pending   []api.PendingTool
	Decisions []api.Decision
}

// NewBatch starts deciding the calls of an approval_required reply.
func NewBatch(r api.TurnReply) *Batch {
	return &Batch{SessionID: r.SessionID, Message: r.Message, Pending: r.ToolsPending}
}

// Current is the index of the call waiting for a decision; it equals len(Pending) when done.
func (b *Batch) Current() int { return len(b.Decisions) }

// Done reports whether every pending call has a decision.
func (b *Batch) Done() bool { return len(b.Decisions) >= len(b.Pending) }

// Decide records the decision for the current call.
func (b *Batch) Decide(approved bool, feedback string) {
	if b.Done() {
		return
	}
	b.Decisions = append(b.Decisions, api.Decision{ToolCallID: b.Pending[b.Current()].ToolCallID, Approved: approved, Feedback: feedback})
}

// DecideRest records the same decision for the current call and all after it.
func (b *Batch) DecideRest(approved bool) {
	for !b.Done() {
		b.Decide(approved, "")
	}
}

// Summary is one line per decision, for the conversation: "✓ approved write_file(...)".
func (b *Batch) Summary(width int) []string {
	var out []string
	for i, d := range b.Decisions {
		mark, verb := "✓", "approved"
		if !d.Approved {
			mark, verb = "⊘", "denied"
		}
		line := fmt.Sprintf("%s %s %s", mark, verb, CallLabel(b.Pending[i]))
		if d.Feedback != "" {
			line += " — reason: " + Visible(d.Feedback)
		}
		out = append(out, cut(line, width))
	}
	return out
}

// Visible returns s with every control, invisible, bidi or non-ASCII space character
// replaced by its escape (\x1b, \u200b, \u202e, \n ...), so text shown to the user
// cannot hide or disguise what a tool call will do. Invalid UTF-8 bytes become \xNN.
func Visible(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r == ' ' || (unicode.IsPrint(r) && !unicode.Is(unicode.Cf, r) && r != utf8.RuneError):
			b.WriteRune(r)
		case r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	return b.String()
}

// TerminalSafe returns text that is read rather than approved (answers, error
// messages, session text) with newlines and tabs kept, so markdown keeps its shape,
// but with what could drive or disguise the terminal escaped as Visible does: every
// other control character (ESC, CR, DEL, C1), the bidi controls, zero-width spaces and
// invalid bytes. Without it an answer that echoes a web page could clear the screen,
// retitle the window or reorder a file name; glamour passes such bytes through.
func TerminalSafe(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case (r == utf8.RuneError && size == 1) || unsafeRune(r):
			b.WriteString(Visible(s[i : i+size]))
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unsafeRune reports the runes TerminalSafe escapes besides invalid bytes.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20 || (r >= 0x7f && r <= 0x9f):
		return r != '\n' && r != '\t'
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true // bidi controls
	case r == 0x200b, r == 0x2060, r == 0xfeff:
		return true // zero-width spaces; U+200D stays, emoji sequences need it
	}
	return false
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || unsafeRune(r) {
			return true
		}
		i += size
	}
	return false
}

// visibleJSON is Visible for JSON text: newlines and indentation stay, because
// json.Indent made them and a JSON string cannot hold a raw newline.
func visibleJSON(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Visible(l)
	}
	return strings.Join(lines, "\n")
}

// PrettyArgs returns the arguments exactly as sent, indented, with invisible
// characters made visible. Text that is not JSON is shown escaped as it is.
func PrettyArgs(raw json.RawMessage) string {
	var buf bytes.Buffer
	if len(bytes.TrimSpace(raw)) == 0 {
		return "{}"
	}
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return Visible(string(raw))
	}
	return visibleJSON(buf.String())
}

// compactArgs is PrettyArgs on one line.
func compactArgs(raw json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return Visible(string(raw))
	}
	return Visible(buf.String())
}

// ShortArgs renders top-level object arguments as "key=value, key=value" in the
// order sent, strings unquoted unless that would be ambiguous, all made visible;
// anything else is compact JSON.
func ShortArgs(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		var buf bytes.Buffer
		if json.Compact(&buf, raw) != nil {
			return Visible(string(raw))
		}
		return Visible(buf.String())
	}
	var parts []string
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			break
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break
		}
		var s string
		if json.Unmarshal(v, &s) == nil {
			if !plainValue(s) {
				// Quoted, so a value cannot pose as more arguments: content="x, path=/etc".
				s = string(v)
			}
			parts = append(parts, Visible(fmt.Sprint(kt))+"="+Visible(s))
			continue
		}
		var buf bytes.Buffer
		if json.Compact(&buf, v) != nil {
			buf.Reset()
			buf.Write(v)
		}
		parts = append(parts, Visible(fmt.Sprint(kt))+"="+Visible(buf.String()))
	}
	return strings.Join(parts, ", ")
}

// plainValue reports whether a string argument reads unambiguously without quotes in
// "key=value, key=value": no separators, quotes or brackets, no space at either end.
func plainValue(s string) bool {
	return s != "" && strings.TrimSpace(s) == s && !strings.ContainsAny(s, ",=\"()")
}

// CallLabel is "tool(key=value, ...)".
func CallLabel(p api.PendingTool) string {
	return Visible(p.ToolName) + "(" + ShortArgs(p.Arguments) + ")"
}

// cut shortens s to width cells with a trailing …; width <= 0 means no limit.
func cut(s string, width int) string {
	if width <= 0 {
		return s
	}
	return ansi.Truncate(s, width, "…")
}

// TableStyle holds the styles of the approval screen; build it from the renderer
// that draws the screen so NO_COLOR and tests get plain text.
type TableStyle struct {
	Title   lipgloss.Style // "⚠ Tool Approval Required"
	Border  lipgloss.Style
	Header  lipgloss.Style
	Current lipgloss.Style // the row being decided
	Cell    lipgloss.Style
	Prompt  lipgloss.Style
}

// NewTableStyle returns the approval screen styles for r (nil: lipgloss's default renderer).
func NewTableStyle(r *lipgloss.Renderer) TableStyle {
	if r == nil {
		r = lipgloss.DefaultRenderer()
	}
	return TableStyle{
		Title:   r.NewStyle().Bold(true).Foreground(lipgloss.Color("11")),
		Border:  r.NewStyle().Foreground(lipgloss.Color("8")),
		Header:  r.NewStyle().Bold(true),
		Current: r.NewStyle().Bold(true).Reverse(true),
		Cell:    r.NewStyle(),
		Prompt:  r.NewStyle().Bold(true),
	}
}

// ScreenOptions shape the approval screen.
type ScreenOptions struct {
	Width       int        // terminal columns the screen must fit; <= 0 means 80
	MaxArgLines int        // lines of arguments per row before "…"; <= 0 means no limit
	Style       TableStyle // from NewTableStyle
	// Short is for a screen too small for the whole batch: the message line and the
	// rows already decided are left out, so the row being decided stays in view.
	Short bool
}

const tableTitle = "Tools Requesting Approval"

// Screen draws the approval screen without its prompt line: heading, message and the
// table of calls with the current one highlighted. Every line fits opt.Width: long
// argument lines are cut with … rather than wrapped, so the table never breaks.
func (b *Batch) Screen(opt ScreenOptions) string {
	width := opt.Width
	if width <= 0 {
		width = 80
	}
	msg := b.Message
	if msg == "" {
		msg = fmt.Sprintf("The AI wants to use %d tool(s) that require your approval.", len(b.Pending))
	}
	var sb strings.Builder
	sb.WriteString(opt.Style.Title.Render(cut("⚠ Tool Approval Required", width)))
	sb.WriteString("\n")
	if !opt.Short {
		sb.WriteString(ansi.Wrap(Visible(msg), width, ""))
		sb.WriteString("\n\n")
	}
	sb.WriteString(b.table(width, opt))
	return sb.String()
}

func (b *Batch) table(width int, opt ScreenOptions) string {
	// Tool cells carry a marker column so the current row shows without colour too.
	toolW := len("Tool")
	pending, cur := b.Pending, b.Current()
	if opt.Short && cur < len(pending) {
		pending, cur = pending[cur:], 0
	}
	names := make([]string, len(pending))
	for i, p := range pending {
		mark := "  "
		if i == cur && len(b.Pending) > 1 {
			mark = "▸ "
		}
		names[i] = mark + Visible(p.ToolName)
		toolW = max(toolW, ansi.StringWidth(names[i]))
	}
	// Borders (3) and cell padding (1 left of the tool, 1 each side of the arguments).
	argW := width - 3 - (toolW + 1) - 2
	if argW < len("Arguments") {
		argW = len("Arguments")
		toolW = max(4, width-3-1-2-argW)
		for i := range names {
			names[i] = cut(names[i], toolW)
		}
	}
	rows := make([][]string, len(pending))
	for i, p := range pending {
		lines := strings.Split(PrettyArgs(p.Arguments), "\n")
		if n := opt.MaxArgLines; n > 0 && len(lines) > n {
			// Indented JSON does not fit: compact JSON is as exact and far denser.
			flat := compactArgs(p.Arguments)
			lines = strings.Split(ansi.Hardwrap(flat, argW, false), "\n")
			switch {
			case len(lines) <= n:
			case n == 1:
				lines = []string{cut(flat, argW)}
			default:
				lines = append(lines[:n-1], "… (? shows all)")
			}
		}
		for j, l := range lines {
			lines[j] = cut(l, argW)
		}
		rows[i] = []string{names[i], strings.Join(lines, "\n")}
	}
	t := table.New().
		Border(lipgloss.NormalBorder()).
		BorderStyle(opt.Style.Border).
		BorderRow(false).
		Headers("Tool", "Arguments").
		Rows(rows...).
		Wrap(true).
		StyleFunc(func(row, col int) lipgloss.Style {
			s := opt.Style.Cell
			if row == table.HeaderRow {
				s = opt.Style.Header
			} else if row == cur {
				s = opt.Style.Current
			}
			if col == 0 {
				return s.PaddingLeft(1)
			}
			return s.Padding(0, 1)
		})
	body := t.String()
	// A table narrower than its title would cut the title: widen it to fit.
	if need := ansi.StringWidth(tableTitle) + 3; ansi.StringWidth(strings.SplitN(body, "\n", 2)[0]) < need && need <= width {
		body = t.Width(need).String()
	}
	lines := strings.Split(body, "\n")
	if len(lines) == 0 {
		return body
	}
	w := ansi.StringWidth(lines[0])
	// The title spans both columns, which lipgloss/table cannot do; draw it as a box
	// on top and turn the table's top corners into T-junctions so the two join.
	first := lines[0]
	first = strings.Replace(first, "┌", "├", 1)
	if i := strings.LastIndex(first, "┐"); i >= 0 {
		first = first[:i] + "┤" + first[i+len("┐"):]
	}
	lines[0] = first
	inner := w - 2
	title := cut(" "+tableTitle, inner)
	title += strings.Repeat(" ", max(0, inner-ansi.StringWidth(title)))
	bs := opt.Style.Border
	head := bs.Render("┌"+strings.Repeat("─", inner)+"┐") + "\n" +
		bs.Render("│") + opt.Style.Header.Render(title) + bs.Render("│")
	return head + "\n" + strings.Join(lines, "\n")
}

// Prompt is the question for the current call: "Approve tool(args)? [y/n/a/d] (y):",
// with "(2 of 3)" in front when the batch has more than one call.
func (b *Batch) Prompt(width int) string {
	if b.Done() {
		return ""
	}
	tail := "? [y/n/a/d] (y): "
	head := ""
	if len(b.Pending) > 1 {
		head = "(" + strconv.Itoa(b.Current()+1) + " of " + strconv.Itoa(len(b.Pending)) + ") "
	}
	head += "Approve "
	label := CallLabel(b.Pending[b.Current()])
	if width > 0 {
		label = cut(label, max(4, width-ansi.StringWidth(head)-ansi.StringWidth(tail)))
	}
	return head + label + tail
}
