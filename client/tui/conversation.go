package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/glamour"
	gansi "github.com/charmbracelet/glamour/ansi"
	gstyles "github.com/charmbracelet/glamour/styles"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client"
)

type entryKind int

const (
	kindUser entryKind = iota
	kindAssistant
	kindNote     // help, notices, traces
	kindDecision // what was approved and denied
	kindError
	kindPre  // preformatted (trace trees): lines are cut, never wrapped
	kindRows // an aligned list (/help, /preset): rows, wrapped within their columns
)

// An entry is one block of the conversation with its rendering cached for one width,
// so a keystroke or a new message never re-renders the history.
type entry struct {
	kind       entryKind
	text       string
	tools      []api.ToolUse
	validation *api.Validation
	rows       []helpRow // the list of a kindRows entry
	turn       int       // a kindUser entry's number among the session's messages (what /undo N counts)

	cached      string
	cachedWidth int
}

// window is how many of the newest entries the conversation renders at first; PgUp
// or the wheel at the top brings in this many more. It bounds the work of a resize
// or a new message in a long session: older entries are not rendered until asked for.
const window = 200

// conversation is the list of entries and the joined text the viewport shows. The
// viewport only draws the lines on screen; the join is redone only when an entry is
// added, the window grows or the width changes, never on a keystroke.
type conversation struct {
	entries []entry
	md      *markdown
	st      *styles
	shown   int // how many of the newest entries are rendered; 0 means window

	joined      string
	joinedWidth int
	dirty       bool
	split       []string // joined cut into lines; nil until asked for after a change
	turns       int      // the user's messages so far
}

// add appends e; a message of the user's gets its turn number.
func (c *conversation) add(e entry) {
	if e.kind == kindUser {
		c.turns++
		e.turn = c.turns
	}
	c.entries = append(c.entries, e)
	c.dirty = true
}

func (c *conversation) len() int { return len(c.entries) }

// hidden is the number of older entries left out of the rendered window.
func (c *conversation) hidden() int {
	return max(0, len(c.entries)-max(c.shown, window))
}

// showMore brings the next older entries into the window.
func (c *conversation) showMore() {
	c.shown = max(c.shown, window) + window
	c.dirty = true
}

func (c *conversation) render(width int) string {
	if !c.dirty && c.joinedWidth == width {
		return c.joined
	}
	start := c.hidden()
	parts := make([]string, 0, len(c.entries)-start+1)
	if start > 0 {
		parts = append(parts, c.st.dim.Render(cutw(fmt.Sprintf("↑ %s: PgUp here shows more", client.Plural(start, "earlier message")), width)))
	}
	for i := start; i < len(c.entries); i++ {
		e := &c.entries[i]
		if e.cachedWidth != width || e.cached == "" {
			e.cached = c.renderEntry(e, width)
			e.cachedWidth = width
		}
		parts = append(parts, e.cached)
	}
	c.joined = strings.Join(parts, "\n\n")
	c.joinedWidth, c.dirty, c.split = width, false, nil
	return c.joined
}

// lines is render cut into lines (none for an empty conversation), cut again only
// when render changes.
func (c *conversation) lines(width int) []string {
	if j := c.render(width); c.split == nil && j != "" {
		c.split = strings.Split(j, "\n")
	}
	return c.split
}

func (c *conversation) renderEntry(e *entry, width int) string {
	switch e.kind {
	case kindUser:
		// The number is what /undo N takes.
		return c.st.user.Render("You") + c.st.dim.Render(fmt.Sprintf(" · turn %d", e.turn)) + "\n" + ansi.Wrap(client.TerminalSafe(e.text), width, "")
	case kindAssistant:
		var sb strings.Builder
		sb.WriteString(c.st.assistant.Render("AI"))
		if e.text != "" { // a cancelled turn may leave only its tool runs
			sb.WriteString("\n")
			sb.WriteString(strings.Trim(c.md.render(client.TerminalSafe(e.text), width), "\n"))
		}
		for _, t := range e.tools {
			sb.WriteString("\n")
			sb.WriteString(c.st.dim.Render(toolLine(t, width)))
		}
		if e.validation != nil {
			sb.WriteString("\n")
			if e.validation.Valid {
				sb.WriteString(c.st.ok.Render("  verified"))
			} else {
				// Indented like the tool lines above, so the answer's footer reads as one block.
				text := ansi.Wrap("⚠ unverified: "+client.TerminalSafe(strings.Join(e.validation.Issues, "; ")), max(10, width-2), "")
				sb.WriteString(c.st.warn.Render("  " + strings.ReplaceAll(text, "\n", "\n  ")))
			}
		}
		return sb.String()
	case kindDecision:
		return c.st.dim.Render(ansi.Wrap(client.TerminalSafe(e.text), width, ""))
	case kindError:
		return c.st.err.Render(ansi.Wrap("✗ "+client.TerminalSafe(e.text), width, ""))
	case kindRows:
		return renderRows(e.rows, width)
	case kindPre:
		lines := strings.Split(e.text, "\n")
		for i, l := range lines {
			lines[i] = cutw(l, width)
		}
		return strings.Join(lines, "\n")
	default:
		return ansi.Wrap(client.TerminalSafe(e.text), width, "")
	}
}

// toolLine is the compact line under an answer for one tool run, at most width cells:
// "✓ web_search query=go · 812ms · web_search_1763769600123_9f86d081", with
// "(granted)" or "(rule)" after the arguments when a session grant or a rule in
// config.yaml let it run without asking.
func toolLine(t api.ToolUse, width int) string {
	mark := "✓"
	switch t.Status {
	case api.StatusError:
		mark = "✗"
	case api.StatusDenied:
		mark = "⊘"
	}
	head := "  " + mark + " " + client.Visible(t.ToolName) + " "
	granted := ""
	switch {
	case t.Decision == api.DecisionGrant:
		granted = " (granted)" // it ran without asking: a session grant covered it
	case t.Decision == api.DecisionRule && t.Status != api.StatusError:
		// It ran without asking: a rule in config.yaml allowed it. A run a rule
		// refused shows ✗ and the error, which names the rule.
		granted = " (rule)"
	}
	var tail []string
	switch {
	case t.Status == api.StatusDenied:
		tail = append(tail, "denied")
	case t.DurationMS >= 0: // < 0: not known, as for a run read back from its tool message
		tail = append(tail, fmt.Sprintf("%dms", t.DurationMS))
	}
	if t.Undone {
		tail = append([]string{"undone"}, tail...) // its file changes were taken back (/undo)
	}
	if t.ExecutionID != "" {
		tail = append(tail, client.Visible(t.ExecutionID))
	}
	// The execution id is what the answer cites and a reader checks, so on a narrow
	// terminal the arguments give way first; the error may be cut at the end.
	room := width - ansi.StringWidth(head+granted) - ansi.StringWidth(" · "+strings.Join(tail, " · "))
	if width <= 0 {
		room = 40
	}
	ids := ""
	if len(tail) > 0 {
		ids = " · " + strings.Join(tail, " · ")
	}
	extra := ""
	if t.Error != "" {
		extra = " · error: " + client.Visible(t.Error)
	}
	call := head + shortArgs(t.Arguments, min(40, max(10, room))) + granted
	if width > 0 && ansi.StringWidth(call+ids) > width {
		// The ids go on a line of their own: the arguments may take this one.
		call = head + shortArgs(t.Arguments, max(10, width-ansi.StringWidth(head+granted))) + granted
	}
	return runLine(call, ids, extra, width)
}

// runLine joins the parts of a run line for width (<= 0: no limit): call, the
// tool and its arguments, whose object is never cut; ids, the time and execution
// id, never cut either; extra, an error, cut at the end. When call and ids do
// not fit one line, ids and extra go on a line of their own under the call,
// which is wrapped when it alone is too wide.
func runLine(call, ids, extra string, width int) string {
	switch {
	case width <= 0:
		return call + ids + extra
	case ansi.StringWidth(call+ids) <= width:
		return cutw(call+ids+extra, width)
	}
	if ansi.StringWidth(call) > width {
		call = ansi.Hardwrap(call, width, true)
	}
	if ids == "" && extra == "" {
		return call
	}
	return call + "\n" + cutw("    "+strings.TrimPrefix(ids+extra, " · "), width)
}

// shortArgs are a call's arguments in about n cells, the object first and whole
// (see client.ShortArgsFit).
func shortArgs(raw []byte, n int) string {
	return client.ShortArgsFit(raw, n)
}

// markdown renders answers with glamour, one renderer per width: building a renderer
// parses a whole style sheet, so it is kept rather than made per message.
type markdown struct {
	style     string
	profile   termenv.Profile
	renderers map[int]*glamour.TermRenderer
}

func newMarkdown(p termenv.Profile) *markdown {
	style := "dark"
	if p == termenv.Ascii {
		style = "ascii" // plain text: no colour, no escape codes
	}
	return &markdown{style: style, profile: p, renderers: map[int]*glamour.TermRenderer{}}
}

// plainStyle is glamour's ascii style without the **, * and ~~ it writes around
// emphasis: goldmark splits words at _ and *, and glamour wraps each piece, so
// "**write_file**" came out as "**write_****file**".
func plainStyle() gansi.StyleConfig {
	cfg := gstyles.ASCIIStyleConfig
	cfg.Strong, cfg.Emph, cfg.Strikethrough = gansi.StylePrimitive{}, gansi.StylePrimitive{}, gansi.StylePrimitive{}
	return cfg
}

func (md *markdown) styleOption() glamour.TermRendererOption {
	if md.style == "ascii" {
		return glamour.WithStyles(plainStyle())
	}
	return glamour.WithStandardStyle(md.style)
}

func (md *markdown) render(text string, width int) string {
	r, ok := md.renderers[width]
	if !ok {
		var err error
		r, err = glamour.NewTermRenderer(
			md.styleOption(),
			glamour.WithColorProfile(md.profile),
			glamour.WithWordWrap(max(10, width-4)),
		)
		if err != nil {
			return ansi.Wrap(text, width, "")
		}
		md.renderers[width] = r
	}
	out, err := r.Render(text)
	if err != nil {
		return ansi.Wrap(text, width, "")
	}
	return out
}
