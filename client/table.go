package client

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/ailab/ai-lab/api"
)

// TableStyle holds the styles of the approval screen; build it from the renderer
// that draws the screen so NO_COLOR and tests get plain text.
type TableStyle struct {
	Title   lipgloss.Style // "⚠ Tool Approval Required"
	Border  lipgloss.Style
	Header  lipgloss.Style
	Current lipgloss.Style // the row being decided
	Cell    lipgloss.Style
	Decided lipgloss.Style // rows already answered, and the "more rows" lines
	Effect  lipgloss.Style // what a call would change: "⚠ overwrites notes.txt (+3 −1)"
	Prompt  lipgloss.Style
	Added   lipgloss.Style // + lines of a diff
	Removed lipgloss.Style // - lines of a diff
	Hunk    lipgloss.Style // @@ lines of a diff
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
		Decided: r.NewStyle().Foreground(lipgloss.Color("8")),
		Effect:  r.NewStyle().Foreground(lipgloss.Color("11")),
		Prompt:  r.NewStyle().Bold(true),
		Added:   r.NewStyle().Foreground(lipgloss.Color("10")),
		Removed: r.NewStyle().Foreground(lipgloss.Color("9")),
		Hunk:    r.NewStyle().Foreground(lipgloss.Color("14")),
	}
}

// ScreenOptions shape the approval screen.
type ScreenOptions struct {
	Width       int        // terminal columns the screen must fit; <= 0 means 80
	MaxArgLines int        // lines of arguments per row before "…"; <= 0 means no limit
	Style       TableStyle // from NewTableStyle
	// Compact draws every row but the one being decided on one line, for a table
	// that shares the screen with the conversation; MaxArgLines then bounds the
	// row being decided only.
	Compact bool
	// Height, when > 0, bounds the lines of the table: it shows the rows that fit,
	// and says on a line inside the table how many more there are above and below.
	Height int
	// Scrolled shows the rows from Top on instead of those around the row being
	// decided (the reader scrolls the table to look at the rest).
	Scrolled bool
	Top      int
}

// A TableView is the table of a batch drawn for a height: its lines and the rows
// they show, First to Last (exclusive), and which of those show their arguments
// cut short (Cut, by row index), which a reader has not fully seen either.
type TableView struct {
	Lines       []string
	First, Last int
	Cut         map[int]bool
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
		msg = fmt.Sprintf("The AI wants to make %d tool calls that need your approval.", len(b.Pending))
		if len(b.Pending) == 1 {
			msg = "The AI wants to make 1 tool call that needs your approval."
		}
	}
	var sb strings.Builder
	sb.WriteString(opt.Style.Title.Render(cut("⚠ Tool Approval Required", width)))
	sb.WriteString("\n")
	sb.WriteString(ansi.Wrap(Visible(msg), width, ""))
	sb.WriteString("\n\n")
	// The title spans both columns: a box on top whose bottom is the table's top.
	bs := opt.Style.Border
	title := cut(" "+tableTitle, width-2)
	title += strings.Repeat(" ", max(0, width-2-ansi.StringWidth(title)))
	sb.WriteString(bs.Render("┌"+strings.Repeat("─", width-2)+"┐") + "\n")
	sb.WriteString(bs.Render("│") + opt.Style.Header.Render(title) + bs.Render("│") + "\n")
	opt.Width = width
	t := b.Table(opt)
	toolW, argW := b.widths(width)
	t.Lines[0] = rule(opt, toolW, argW, "├", "┬", "┤")
	sb.WriteString(strings.Join(t.Lines, "\n"))
	return sb.String()
}

// cellPad is what a row takes besides its two cells: three borders and a space on
// each side of each cell.
const cellPad = 7

// widths splits width between the tool and the arguments column.
func (b *Batch) widths(width int) (toolW, argW int) {
	toolW = len("Tool")
	for _, p := range b.Pending {
		toolW = max(toolW, 2+ansi.StringWidth(Visible(p.ToolName))) // 2: the mark column
	}
	argW = width - cellPad - toolW
	if argW < len("Arguments") {
		argW = len("Arguments")
		toolW = max(1, width-cellPad-argW)
	}
	return toolW, argW
}

func rule(opt ScreenOptions, toolW, argW int, left, mid, right string) string {
	return opt.Style.Border.Render(left + strings.Repeat("─", toolW+2) + mid + strings.Repeat("─", argW+2) + right)
}

// A rowBlock is one row of the table as the lines of its two cells.
type rowBlock struct {
	tool, args []string
	style      lipgloss.Style
	current    bool
	effect     int  // args[effect:why] say what the call would change; -1: nothing
	why        int  // args[why] says why the call asks; -1: no such line
	cut        bool // some of the call's arguments are left out
}

func (r rowBlock) height() int { return max(len(r.tool), len(r.args)) }

// mark is the first column of a row's tool cell: ✓ or ⊘ once answered, ▸ for the
// row being decided, so the state shows without colour too.
func (b *Batch) mark(i int) string {
	switch {
	case i < len(b.Decisions) && b.Decisions[i].Approved:
		return "✓ "
	case i < len(b.Decisions):
		return "⊘ "
	case i == b.Current() && len(b.Pending) > 1:
		return "▸ "
	}
	return "  "
}

// row lays out row i for columns toolW and argW wide; maxLines bounds its argument
// lines when it is drawn in full.
func (b *Batch) row(i int, opt ScreenOptions, toolW, argW, maxLines int) rowBlock {
	p := b.Pending[i]
	cur := i == b.Current()
	r := rowBlock{tool: []string{cut(b.mark(i)+Visible(p.ToolName), toolW)}, style: opt.Style.Cell, current: cur, effect: -1, why: -1}
	switch {
	case cur:
		r.style = opt.Style.Current
	case i < len(b.Decisions):
		r.style = opt.Style.Decided
	}
	if opt.Compact && !cur {
		r.args, r.cut = flatLines(p.Arguments, argW)
	} else {
		r.args, r.cut = argLines(p.Arguments, argW, maxLines)
	}
	if pv := p.Preview; pv != nil && pv.Summary != "" && i >= len(b.Decisions) {
		text := "⚠ " + Visible(pv.Summary)
		if hint := detailsHint(pv); hint != "" && (cur || !opt.Compact) {
			text += " · ? shows " + hint
		}
		r.effect = len(r.args)
		if opt.Compact && !cur {
			r.args = append(r.args, cut(text, argW))
		} else {
			for _, l := range strings.Split(ansi.Wrap(text, argW, ""), "\n") {
				r.args = append(r.args, cut(l, argW))
			}
		}
	}
	if note := SecretNote(p); note != "" && i >= len(b.Decisions) && (cur || !opt.Compact) {
		// Shown as what the call would change is: a warning to read before y.
		if r.effect < 0 {
			r.effect = len(r.args)
		}
		r.args = append(r.args, cut("⚠ "+note, argW))
	}
	if p.Reason != "" && i >= len(b.Decisions) && (cur || !opt.Compact) {
		// The server's reason for asking, on one line under what the call changes.
		r.why = len(r.args)
		r.args = append(r.args, cut(WhyLine(p), argW))
	}
	return r
}

// WhyLine is the line that says why the server asks about p: "why: preset
// moderate: write_file asks", or "" when it gave no reason.
func WhyLine(p api.PendingTool) string {
	if p.Reason == "" {
		return ""
	}
	return "why: " + Visible(p.Reason)
}

// detailsHint names what ? adds for a preview, or "" when it adds nothing.
func detailsHint(pv *api.Preview) string {
	switch {
	case pv.Diff != "":
		return "the diff"
	case pv.Head != "":
		return "the first lines"
	}
	return ""
}

// Table draws the table of calls: header, rows, and, when opt.Height cuts it, a
// line inside it for the rows above and below the ones shown. The row being decided
// is always among those shown unless opt.Scrolled.
func (b *Batch) Table(opt ScreenOptions) TableView {
	if opt.Width <= 0 {
		opt.Width = 80
	}
	n := len(b.Pending)
	toolW, argW := b.widths(opt.Width)
	blocks := make([]rowBlock, n)
	for i := range n {
		blocks[i] = b.row(i, opt, toolW, argW, opt.MaxArgLines)
	}
	first, last := 0, n
	if opt.Height > 0 {
		first, last = b.window(blocks, opt, toolW, argW)
	}
	bs := opt.Style.Border
	line := func(tool, args string, st lipgloss.Style, argSt lipgloss.Style) string {
		tool += strings.Repeat(" ", max(0, toolW-ansi.StringWidth(tool)))
		args += strings.Repeat(" ", max(0, argW-ansi.StringWidth(args)))
		return bs.Render("│") + st.Render(" "+tool+" ") + bs.Render("│") + argSt.Render(" "+args+" ") + bs.Render("│")
	}
	lines := []string{
		rule(opt, toolW, argW, "┌", "┬", "┐"),
		line("Tool", "Arguments", opt.Style.Header, opt.Style.Header),
		rule(opt, toolW, argW, "├", "┼", "┤"),
	}
	if first > 0 {
		lines = append(lines, line("", cut(fmt.Sprintf("↑ %s above", rowsWord(first)), argW), opt.Style.Cell, opt.Style.Decided))
	}
	for _, r := range blocks[first:last] {
		for j := range r.height() {
			tool, args := "", ""
			if j < len(r.tool) {
				tool = r.tool[j]
			}
			if j < len(r.args) {
				args = r.args[j]
			}
			argSt := r.style
			switch {
			case r.current:
			case r.why >= 0 && j >= r.why:
				argSt = opt.Style.Cell
			case r.effect >= 0 && j >= r.effect:
				argSt = opt.Style.Effect
			}
			lines = append(lines, line(tool, args, r.style, argSt))
		}
	}
	if last < n {
		lines = append(lines, line("", cut(fmt.Sprintf("↓ %s below", rowsWord(n-last)), argW), opt.Style.Cell, opt.Style.Decided))
	}
	lines = append(lines, rule(opt, toolW, argW, "└", "┴", "┘"))
	if opt.Height > 0 && len(lines) > opt.Height {
		// Too small even for one whole row: the bottom border goes last.
		lines = append(lines[:max(1, opt.Height-1)], lines[len(lines)-1])
		for i := first; i < last; i++ {
			blocks[i].cut = true
		}
	}
	var cuts map[int]bool
	for i := first; i < last; i++ {
		if blocks[i].cut {
			if cuts == nil {
				cuts = map[int]bool{}
			}
			cuts[i] = true
		}
	}
	return TableView{Lines: lines, First: first, Last: last, Cut: cuts}
}

func rowsWord(n int) string {
	if n == 1 {
		return "1 more row"
	}
	return strconv.Itoa(n) + " more rows"
}

// window picks the rows to show within opt.Height lines: the row being decided,
// the one decided just before it, then as many after it as fit, then before it.
// The row being decided is drawn smaller when it alone does not fit.
func (b *Batch) window(blocks []rowBlock, opt ScreenOptions, toolW, argW int) (first, last int) {
	n := len(blocks)
	budget := opt.Height - 4 // top border, header, rule, bottom border
	total := 0
	for _, r := range blocks {
		total += r.height()
	}
	if total <= budget || n == 0 {
		return 0, n
	}
	marks := func(f, l int) int {
		c := 0
		if f > 0 {
			c++
		}
		if l < n {
			c++
		}
		return c
	}
	start := min(b.Current(), n-1)
	if opt.Scrolled {
		start = min(max(0, opt.Top), n-1)
	}
	first, last = start, start+1
	room := budget - marks(first, last)
	if !opt.Scrolled {
		for ml := opt.MaxArgLines; blocks[start].height() > room && ml != 1; {
			if ml <= 0 {
				ml = blocks[start].height()
			}
			ml--
			blocks[start] = b.row(start, opt, toolW, argW, max(1, ml))
		}
	}
	if blocks[start].height() > room {
		r := &blocks[start]
		keep := max(1, room)
		r.cut = r.cut || len(r.args) > keep
		r.tool, r.args = r.tool[:min(len(r.tool), keep)], r.args[:min(len(r.args), keep)]
	}
	used := blocks[start].height()
	grow := func(f, l, h int) bool {
		if used+h+marks(f, l) > budget {
			return false
		}
		used += h
		return true
	}
	if !opt.Scrolled && first > 0 && grow(first-1, last, blocks[first-1].height()) {
		first--
	}
	for last < n && grow(first, last+1, blocks[last].height()) {
		last++
	}
	for first > 0 && grow(first-1, last, blocks[first-1].height()) {
		first--
	}
	return first, last
}

// Keys lists the answers that work for the current call, as the prompts show
// them: y and n; s only when the call carries a grant offer, r only when that
// offer makes a rule (see RuleLines); a and d; and ?, which shows the call whole.
func (b *Batch) Keys() string {
	if b.Done() {
		return ""
	}
	keys := "y/n"
	if b.CanGrant() {
		keys += "/s"
		if _, ok := RuleOf(b.Pending[b.Current()]); ok {
			keys += "/r"
		}
	}
	return keys + "/a/d/?"
}

// HasDefault reports whether an empty answer (Enter) approves the current call:
// never for a Destructive one, which must be answered y or n.
func (b *Batch) HasDefault() bool {
	return !b.Done() && !Destructive(b.Pending[b.Current()])
}

// NoDefault is what Enter says for a call without a default answer.
const NoDefault = "press y or n: this call may destroy data, so Enter does not answer it"

// Prompt is the question for the current call, in the one-shot mode and the
// TUI alike: "Approve tool(args)? [y/n/a/d/?] (y): ", with "(2 of 3)" in front
// when the batch has more than one call. It lists the keys that work for this
// call (Keys), and "(y)", the answer Enter gives, only when there is one
// (HasDefault). Its arguments are cut to fit width (<= 0: no limit) but for
// the call's object, which is always whole.
func (b *Batch) Prompt(width int) string {
	if b.Done() {
		return ""
	}
	tail := "? [" + b.Keys() + "]: "
	if b.HasDefault() {
		tail = "? [" + b.Keys() + "] (y): "
	}
	head := ""
	if len(b.Pending) > 1 {
		head = "(" + strconv.Itoa(b.Current()+1) + " of " + strconv.Itoa(len(b.Pending)) + ") "
	}
	head += "Approve "
	p := b.Pending[b.Current()]
	label := CallLabel(p)
	if room := width - ansi.StringWidth(head) - ansi.StringWidth(tail); width > 0 && ansi.StringWidth(label) > room {
		// The object first and whole, as in the table, even when that makes the
		// line wider than width (the TUI wraps it); a call without an object is
		// cut to fit.
		label = ShortLabel(p, room-ansi.StringWidth(Visible(p.ToolName))-2)
		if ansi.StringWidth(label) > room && ShortObject(p.Arguments) == "" {
			label = cut(label, max(4, room))
		}
	}
	return head + label + tail
}

// Details is everything about one call for ?: its arguments in full, the
// server's reason for asking whole (the table cuts it to its cell), then what it
// would change: the unified diff of an overwrite (+ and - lines in st's colours) or
// the first lines of what it replaces or removes. File text is shown as
// TerminalSafe makes it, tabs as spaces, so it cannot drive the terminal.
func Details(p api.PendingTool, st TableStyle) string {
	var sb strings.Builder
	sb.WriteString(PrettyArgs(p.Arguments))
	if note := SecretNote(p); note != "" {
		sb.WriteString("\n" + st.Effect.Render("⚠ "+note))
	}
	if why := WhyLine(p); why != "" {
		sb.WriteString("\n" + why)
	}
	pv := p.Preview
	if pv == nil {
		return sb.String()
	}
	sb.WriteString("\n\n")
	if pv.Summary != "" {
		sb.WriteString(st.Effect.Render("⚠ " + Visible(pv.Summary)))
		sb.WriteString("\n")
	}
	switch {
	case pv.Diff != "":
		for _, l := range strings.Split(strings.TrimRight(pv.Diff, "\n"), "\n") {
			l = fileLine(l)
			switch {
			case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
				l = st.Header.Render(l)
			case strings.HasPrefix(l, "+"):
				l = st.Added.Render(l)
			case strings.HasPrefix(l, "-"):
				l = st.Removed.Render(l)
			case strings.HasPrefix(l, "@@"):
				l = st.Hunk.Render(l)
			}
			sb.WriteString(l + "\n")
		}
		if pv.DiffTruncated {
			sb.WriteString(st.Decided.Render("… the diff is longer; only its beginning is shown") + "\n")
		}
	case pv.Head != "":
		what := "removes"
		if pv.Kind != api.PreviewDelete {
			what = "replaces"
		}
		fmt.Fprintf(&sb, "First lines of what it %s (%s):\n", what, Visible(pv.Path))
		for _, l := range strings.Split(strings.TrimRight(pv.Head, "\n"), "\n") {
			sb.WriteString(st.Removed.Render(fileLine(l)) + "\n")
		}
	}
	return strings.TrimRight(sb.String(), "\n")
}

// fileLine is one line of a file's text on the approval screen: tabs as four
// spaces, so widths are known, and every character that would not read as itself
// escaped as Visible escapes arguments (format characters such as Unicode tags,
// odd spaces, separators), since the user decides on these lines as on the
// arguments.
func fileLine(l string) string {
	return Visible(strings.ReplaceAll(strings.TrimRight(l, "\r"), "\t", "    "))
}
