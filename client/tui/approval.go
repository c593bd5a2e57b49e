package tui

import (
	"context"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client"
)

// The approval screen keeps the conversation in view above the table: the request,
// the decisions and the runs of the turn so far. The table takes what it needs, up
// to two thirds of the height, and scrolls within it; the conversation takes the
// rest and scrolls with PgUp/PgDn as in the chat.

// reasonPrompt asks for the optional words sent with a denial.
const reasonPrompt = "Reason for the model (Enter skips): "

// A question is a y/n question of modeConfirm: its lines, the question last, what
// y does, and the mode n or Esc goes back to.
type question struct {
	lines []string
	yes   func() tea.Cmd
	back  mode
}

func (m *Model) openBatch(b *client.Batch) {
	if len(b.Pending) == 0 {
		m.status = "the server asked for approval but named no tool call; /resume " + b.SessionID + " to look again"
		return
	}
	m.batch = b
	m.mode = modeApproval
	m.tableMoved = false
}

// approving reports whether the approval screen is up (with a question or the
// reason input in its footer).
func (m *Model) approving() bool {
	if m.batch == nil {
		return false
	}
	return m.mode == modeApproval || m.mode == modeReason || (m.mode == modeConfirm && m.ask != nil && m.ask.back == modeApproval)
}

// approvalLayout is the approval screen cut to the terminal: the heading, the
// table, the footer (notice, question or reason, then the prompt) and the height
// left to the conversation above.
type approvalLayout struct {
	head   string
	table  client.TableView
	footer []string
	convH  int
}

// tableKey is what the table's layout depends on, so Update and View, which both
// need it, lay it out once per change rather than on every call.
type tableKey struct {
	batch             *client.Batch
	decided           int
	width, avail, top int
	moved             bool
}

func (m *Model) approvalLayout() approvalLayout {
	b := m.batch
	footer := m.approvalFooter()
	avail := max(1, m.height-3-len(footer)) // status bar, heading, help line
	k := tableKey{batch: b, decided: len(b.Decisions), width: m.width, avail: avail, top: m.tableTop, moved: m.tableMoved}
	if m.table.key != k {
		opt := client.ScreenOptions{
			Width: m.width, MaxArgLines: max(3, avail/2-4), Style: m.styles.table,
			Compact: true, Scrolled: m.tableMoved, Top: m.tableTop,
		}
		// A third of the height stays for the conversation while the table fits in
		// the rest; a table too tall for it scrolls.
		t := b.Table(opt)
		if limit := min(avail, max(5, avail-avail/3)); len(t.Lines) > limit {
			opt.Height = limit
			t = b.Table(opt)
		}
		m.table.key, m.table.view = k, t
	}
	t := m.table.view
	done := len(b.Decisions)
	head := fmt.Sprintf("⚠ Tool Approval Required · %s", calls(len(b.Pending)))
	if done > 0 {
		head += fmt.Sprintf(", %d decided", done)
	}
	if t.First > 0 || t.Last < len(b.Pending) {
		head += " · ↑/↓ scroll the table"
	}
	return approvalLayout{head: head, table: t, footer: footer, convH: max(0, avail-len(t.Lines))}
}

func calls(n int) string {
	if n == 1 {
		return "1 call"
	}
	return fmt.Sprintf("%d calls", n)
}

// approvalFooter is what goes under the table: a notice or a question's lines, and
// the prompt, the question or the reason input last.
func (m *Model) approvalFooter() []string {
	st := m.styles
	switch m.mode {
	case modeReason:
		return []string{m.reason.View()}
	case modeConfirm:
		// What a question says before it asks is wrapped, not cut, while that
		// leaves half the screen to the table; the question itself fits the width.
		var out []string
		for _, l := range m.ask.lines[:len(m.ask.lines)-1] {
			out = append(out, strings.Split(ansi.Wrap(l, m.width, ""), "\n")...)
		}
		if len(out) >= m.height/2 {
			out = out[:0]
			for _, l := range m.ask.lines[:len(m.ask.lines)-1] {
				out = append(out, cutw(l, m.width))
			}
		}
		return append(out, st.table.Prompt.Render(cutw(m.ask.lines[len(m.ask.lines)-1], m.width)))
	}
	var out []string
	if m.status != "" {
		for _, l := range noticeLines(client.Visible(m.status), m.advice, m.width) {
			out = append(out, st.warn.Render(cutw(l, m.width)))
		}
	}
	// The prompt holds the call's object whole: a long one wraps.
	for _, l := range strings.Split(ansi.Hardwrap(m.batch.Prompt(m.width), m.width, true), "\n") {
		out = append(out, st.table.Prompt.Render(l))
	}
	return out
}

// approvalView fills the space between status bar and help line.
func (m *Model) approvalView() string {
	l := m.approvalLayout()
	var sb strings.Builder
	if l.convH > 0 {
		v := m.paneView()
		if n := m.vp.TotalLineCount(); n < l.convH {
			// A short conversation sits on the table, its request right above it.
			lines := strings.Split(v, "\n")
			v = strings.Join(append(lines[n:], lines[:n]...), "\n")
		}
		sb.WriteString(v)
		sb.WriteString("\n")
	}
	sb.WriteString(m.styles.table.Title.Render(cutw(l.head, m.width)))
	sb.WriteString("\n")
	sb.WriteString(strings.Join(l.table.Lines, "\n"))
	sb.WriteString("\n")
	sb.WriteString(strings.Join(l.footer, "\n"))
	return sb.String()
}

func (m *Model) approvalKey(k tea.KeyMsg) tea.Cmd {
	b := m.batch
	m.status, m.advice = "", "" // a notice answers the key before; the next key moves on
	if m.scrollKey(k) {
		return nil
	}
	switch k.String() {
	case "up", "k", "down", "j":
		m.scrollTable(k.String() == "up" || k.String() == "k")
		return nil
	case "enter":
		if !b.HasDefault() {
			m.status = client.NoDefault
			return nil
		}
		b.Decide(true, "")
	case "y", "Y":
		b.Decide(true, "")
	case "n", "N":
		return m.askReason(false)
	case "s", "S":
		m.askGrant()
		return nil
	case "r", "R":
		m.askRule()
		return nil
	case "a", "A":
		if unseen := m.unseenLine(); unseen != "" {
			m.confirmAsk([]string{unseen, "Approve " + remaining(b.Remaining()) + "? [y/n] (n): "},
				func() tea.Cmd { b.DecideRest(true); return m.decided() })
			return nil
		}
		b.DecideRest(true)
	case "d", "D":
		if unseen := m.unseenLine(); unseen != "" {
			m.confirmAsk([]string{unseen, "Deny " + remaining(b.Remaining()) + "? [y/n] (n): "},
				func() tea.Cmd { return m.askReason(true) })
			return nil
		}
		return m.askReason(true)
	case "?":
		m.fillArgs()
		m.argsVP.GotoTop()
		m.mode = modeArgs
		return nil
	default:
		return nil
	}
	return m.decided()
}

// decided follows a decision: the table shows the next row to decide, and the batch
// goes to the server once every call has its decision.
func (m *Model) decided() tea.Cmd {
	m.tableMoved = false
	m.mode = modeApproval
	return m.maybeSend()
}

// unseenRows counts the calls that a/d would decide but the table does not show
// (hidden) or shows with their arguments cut short (cut).
func (m *Model) unseenRows() (hidden, cut int) {
	t := m.approvalLayout().table
	cur, n := m.batch.Current(), len(m.batch.Pending)
	hidden = n - max(t.Last, cur)
	if t.First > cur {
		hidden += min(t.First, n) - cur
	}
	for i := max(cur, t.First); i < min(t.Last, n); i++ {
		if t.Cut[i] {
			cut++
		}
	}
	return hidden, cut
}

// unseenLine is what a and d say before they ask, when some of the calls they
// would decide are out of view or cut short: "1 of them is out of view and 2
// are cut short (...)". It is empty when the reader has seen every one whole.
func (m *Model) unseenLine() string {
	return unseenText(m.unseenRows())
}

// unseenText is unseenLine for counts of calls out of view and cut short.
func unseenText(hidden, cut int) string {
	var parts []string
	if hidden > 0 {
		parts = append(parts, fmt.Sprintf("%d %s out of view", hidden, isAre(hidden)))
	}
	if cut > 0 {
		parts = append(parts, fmt.Sprintf("%d %s cut short", cut, isAre(cut)))
	}
	if len(parts) == 0 {
		return ""
	}
	how := "? shows the current call whole, y decides one at a time"
	if hidden > 0 {
		how = "↑/↓ scroll the table, " + how
	}
	return strings.Replace(strings.Join(parts, " and "), " ", " of them ", 1) + " (" + how + ")."
}

// isAre is the verb for a count of calls.
func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// remaining names the calls a or d would decide: "the 1 remaining call", "all 3
// remaining calls".
func remaining(n int) string {
	if n == 1 {
		return "the 1 remaining call"
	}
	return fmt.Sprintf("all %d remaining calls", n)
}

// scrollTable moves the table's rows by one; the row being decided does not change.
func (m *Model) scrollTable(up bool) {
	t := m.approvalLayout().table
	top := t.First + 1
	if up {
		top = t.First - 1
	}
	m.tableTop, m.tableMoved = min(max(0, top), len(m.batch.Pending)-1), true
}

// askReason opens the reason input after n (rest false) or d (rest true).
func (m *Model) askReason(rest bool) tea.Cmd {
	m.denyRest = rest
	m.reason.Reset()
	m.mode = modeReason
	m.fitReason()
	return m.reason.Focus()
}

// fitReason words the reason input's prompt for the width: the long form says how
// many calls d denies, the short one leaves room to type on a narrow terminal.
func (m *Model) fitReason() {
	p := reasonPrompt
	if m.denyRest && m.batch != nil && m.batch.Remaining() > 1 {
		p = fmt.Sprintf("Denying %d calls. %s", m.batch.Remaining(), reasonPrompt)
	}
	if ansi.StringWidth(p)+20 > m.width {
		p = "Reason (Enter skips): "
	}
	m.reason.Prompt = p
	m.reason.Width = max(1, m.width-ansi.StringWidth(p)-1)
}

func (m *Model) confirmAsk(lines []string, yes func() tea.Cmd) {
	m.ask = &question{lines: lines, yes: yes, back: m.mode}
	m.mode = modeConfirm
}

func (m *Model) confirmKey(k tea.KeyMsg) tea.Cmd {
	q := m.ask
	switch k.String() {
	case "y", "Y":
		m.mode = q.back
		m.ask = nil
		return q.yes()
	case "n", "N", "esc", "enter": // Enter takes the default, no
		m.mode = q.back
		m.ask = nil
	}
	return nil
}

// askGrant shows the grant that s would give with the current call and asks to
// confirm it; for a call without an offer it shows why, as the server said.
func (m *Model) askGrant() {
	b := m.batch
	lines := b.GrantLines()
	if lines == nil {
		m.status, m.advice = client.WhyNoGrant(b.Pending[b.Current()]), client.ApproveOnce
		return
	}
	m.confirmAsk(append(lines, b.Question("grant this", m.width)), func() tea.Cmd { b.Grant(); return m.decided() })
}

// askRule shows the allow rule that r would save in config.yaml with the current
// call and asks to confirm it; for a call without an offer, or an offer that
// makes no rule, it says why.
func (m *Model) askRule() {
	b := m.batch
	lines := b.RuleLines()
	if lines == nil {
		m.status, m.advice = b.NoRule()
		return
	}
	m.confirmAsk(append(lines, b.Question("save this rule", m.width)), func() tea.Cmd { b.Always(); return m.decided() })
}

// noticeLines fit a notice and the key advice that follows it to width: one
// line when both fit, else the notice wrapped and the advice kept whole, on a
// line of its own when it does not end the notice's last line.
func noticeLines(notice, advice string, width int) []string {
	if advice == "" {
		return strings.Split(ansi.Wrap(notice, width, ""), "\n")
	}
	notice = strings.TrimSuffix(notice, ".") + ";"
	lines := strings.Split(ansi.Wrap(notice+" "+advice, width, ""), "\n")
	if strings.HasSuffix(lines[len(lines)-1], advice) {
		return lines
	}
	return append(strings.Split(ansi.Wrap(notice, width, ""), "\n"), advice)
}

// fillArgs puts the current call's full arguments and what it would change,
// wrapped to the width, in argsVP.
func (m *Model) fillArgs() {
	p := m.batch.Pending[m.batch.Current()]
	m.argsVP.SetContent(ansi.Hardwrap(client.Details(p, m.styles.table), max(10, m.width), true))
}

func (m *Model) reasonKey(k tea.KeyMsg) tea.Cmd {
	text := ""
	switch k.Type {
	case tea.KeyEnter:
		text = strings.TrimSpace(m.reason.Value())
	case tea.KeyEsc:
	default:
		if k.Type == tea.KeyRunes && (len(k.Runes) > 1 || k.Paste) {
			// As in the chat input: a burst of text is text, never a key binding.
			v, pos := []rune(m.reason.Value()), m.reason.Position()
			m.reason.SetValue(string(v[:pos]) + string(k.Runes) + string(v[pos:]))
			m.reason.SetCursor(pos + len(k.Runes))
			return nil
		}
		var cmd tea.Cmd
		m.reason, cmd = m.reason.Update(k)
		return cmd
	}
	if m.denyRest {
		m.batch.DenyRest(text)
	} else {
		m.batch.Decide(false, text)
	}
	m.reason.Blur()
	return m.decided()
}

// maybeSend sends the batch's decisions in one /chat/approve once all are made.
func (m *Model) maybeSend() tea.Cmd {
	b := m.batch
	if !b.Done() {
		return nil
	}
	m.conv.add(entry{kind: kindDecision, text: strings.Join(b.Summary(0), "\n")})
	for _, n := range b.ScopeNotes() {
		m.conv.add(entry{kind: kindNote, text: n})
	}
	m.refresh()
	m.sent = b
	m.batch = nil
	m.mode = modeChat
	c := m.c
	return m.startTurn(true, func(ctx context.Context, on func(client.Event)) (api.TurnReply, error) {
		return c.ApproveStream(ctx, b.SessionID, b.Decisions, on)
	})
}
