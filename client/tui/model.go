// Package tui is the Bubble Tea chat screen of ai-client: one root Model that holds the
// conversation, the input, the approval screen, the session picker and the status bar.
// Sub-parts are plain values with methods, not models of their own. Update never does
// I/O: every server call runs in a tea.Cmd and comes back as one of the XxxMsg types;
// a streamed turn comes back as a run of TurnMsgs, each read by a command that Update
// re-arms after the one before.
// It must never import server internals; it reaches the server only through client.Client.
package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client"
)

// Options configure a Model.
type Options struct {
	Client    *client.Client
	SessionID string             // resume this session at start; empty starts fresh
	Renderer  *lipgloss.Renderer // the terminal's renderer; its colour profile decides colour (NO_COLOR gives none)
	Now       func() time.Time   // the clock for elapsed time; nil is time.Now
	Context   context.Context    // cancels server calls when the program ends; nil is Background
	Demo      bool               // the server runs the offline demo model
}

// TurnMsg carries a turn of POST /chat or POST /chat/approve as it streams: the
// events that came since the last TurnMsg, and More while the turn goes on; the last
// TurnMsg of a turn (More false) carries its answer, Reply or Err. One type serves
// both so that whatever forwards the TUI's messages (a test driver, a wrapper) needs
// no new type for streaming, and a JSON answer is simply a last TurnMsg.
type TurnMsg struct {
	Events []client.Event
	More   bool
	Reply  api.TurnReply
	Err    error

	decided bool        // the answer of /chat/approve, so a failure may have left calls pending
	stream  *turnStream // where the turn's next TurnMsg comes from
}

// CancelMsg carries the answer of POST /sessions/{id}/cancel after Esc. The turn's
// own end still comes as its last TurnMsg.
type CancelMsg struct {
	Err error
}

// HealthMsg carries the answer of GET /health.
type HealthMsg struct {
	Health api.Health
	Err    error
	// Again is set on the answer of a second ask, made because the server
	// had not yet checked its model.
	Again bool
}

// ConfigMsg carries the effective config, from GET /config or PUT /config/safety.
type ConfigMsg struct {
	Config  client.Config
	Changed bool // the answer of a /preset NAME
	Show    bool // asked for by /preset, so the conversation shows it
	Err     error
}

// SessionsMsg carries the list of GET /sessions for the picker.
type SessionsMsg struct {
	Sessions []api.SessionSummary
	Err      error
}

// SessionMsg carries one session of GET /sessions/{id}, to resume it.
type SessionMsg struct {
	Session api.SessionDetail
	Err     error

	id string // the session asked for, to name it when it does not exist
}

// TraceMsg carries the call chain of GET /traces/{id}.
type TraceMsg struct {
	Trace api.Trace
	Err   error
}

// ToolsMsg carries the tools of GET /tools, for /tools.
type ToolsMsg struct {
	Tools []api.ToolInfo
	Err   error
}

// GrantsMsg carries the session grants of GET /sessions/{id}/grants, for /grants.
type GrantsMsg struct {
	Grants []api.SessionGrant
	Err    error
}

// RevokeMsg carries the answer of DELETE /sessions/{id}/grants/{grant_id}.
type RevokeMsg struct {
	Grant api.SessionGrant // GrantID always; the rest when it was picked from the list
	Err   error
}

// RulesMsg carries what decides tool calls (GET /policy), for /rules.
type RulesMsg struct {
	Policy api.Policy
	Err    error
}

// mode is what the keyboard drives right now.
type mode int

const (
	modeChat      mode = iota // typing into the input
	modeApproval              // deciding a batch with y/n/s/r/a/d
	modeReason                // typing the optional reason after n or d
	modeArgs                  // reading the full arguments and changes after ?
	modePicker                // choosing a session after /sessions
	modeConfirm               // answering a y/n question (see question)
	modeGrants                // choosing a grant to revoke after /grants
	modeUndo                  // answering y/n under the preview of /undo or /redo
	modeUndoForce             // answering f/n under an undo's conflict
)

// Model is the root Bubble Tea model of the chat.
type Model struct {
	c      *client.Client
	ctx    context.Context
	now    func() time.Time
	demo   bool
	styles styles
	r      *lipgloss.Renderer

	width, height int

	conv    conversation
	vp      pane
	argsVP  viewport.Model
	input   textarea.Model
	reason  textinput.Model
	spin    spinner.Model
	help    help.Model
	keys    keyMap
	mode    mode
	batch   *client.Batch
	picker  picker
	grants  grantList
	busy    bool
	live    *liveTurn // the turn being streamed; nil when none is
	started time.Time
	confirm bool // Ctrl+C pressed once while a turn runs
	// carry are the runs of the turn that ended before it paused for approval: the
	// turn goes on after the decisions, and its final answer lists them again.
	carry []api.ToolUse
	// unseen is set when the conversation grew below a view scrolled up.
	unseen bool

	ask        *question // the y/n question of modeConfirm
	undoing    *undoAsk  // the undo or redo asked about in modeUndo and modeUndoForce
	denyRest   bool      // the reason being typed is for every remaining call (d)
	tableTop   int       // the first row shown when the reader scrolled the table
	tableMoved bool      // the reader scrolled the table; a decision brings back the current row
	table      struct {  // the table as last laid out, for key
		key  tableKey
		view client.TableView
	}

	sessionID string
	model     string
	modelDown bool // the server found its model endpoint unreachable or without the model
	preset    string
	lastTrace string
	status    string // one line under the input: last error or notice
	// advice is the key advice that follows status on the approval screen
	// ("y approves this one"), kept whole however narrow the terminal.
	advice string
	// sent is the batch whose decisions went out last, to decide again when the
	// server refuses to save a rule (config_locked).
	sent *client.Batch
}

// New returns the chat model.
func New(o Options) *Model {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Context == nil {
		o.Context = context.Background()
	}
	if o.Renderer == nil {
		o.Renderer = lipgloss.DefaultRenderer()
	}
	st := newStyles(o.Renderer)
	in := textarea.New()
	in.Placeholder = "Ask something, or /help"
	in.ShowLineNumbers = false
	in.Prompt = "┃ "
	in.CharLimit = 0
	in.SetHeight(3)
	in.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("alt+enter", "ctrl+j"))
	in.FocusedStyle.CursorLine = o.Renderer.NewStyle()
	in.Focus()
	rs := textinput.New()
	rs.Prompt = reasonPrompt
	rs.CharLimit = 500
	sp := spinner.New(spinner.WithSpinner(spinner.Dot), spinner.WithStyle(st.accent))
	h := help.New()
	h.Styles.ShortKey = st.helpKey
	h.Styles.ShortDesc = st.dim
	h.Styles.ShortSeparator = st.dim
	m := &Model{
		c: o.Client, ctx: o.Context, now: o.Now, demo: o.Demo, styles: st, r: o.Renderer,
		vp: pane{Width: 80, Height: 10}, argsVP: viewport.New(80, 10), input: in, reason: rs, spin: sp, help: h,
		keys: newKeyMap(), sessionID: o.SessionID,
	}
	m.conv.md = newMarkdown(o.Renderer.ColorProfile())
	m.conv.st = &m.styles
	if o.Demo {
		m.model = "demo"
		if o.SessionID == "" {
			// A newcomer's first screen: say what to type rather than leave it empty.
			m.conv.add(entry{kind: kindNote, text: demoWelcome})
		}
	}
	m.layout(80, 24)
	return m
}

// Init asks the server for its model and preset, and loads the session to resume.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{textarea.Blink, m.healthCmd(), m.configCmd(false)}
	if m.sessionID != "" {
		cmds = append(cmds, m.sessionCmd(m.sessionID))
	}
	return tea.Batch(cmds...)
}

// Update handles one message. It only changes state and returns commands.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	before := m.mode
	_, cmd := m.update(msg)
	if m.mode != before || m.approving() {
		// The approval screen shares the height with the conversation, and what it
		// needs changes with each decision and question.
		m.fitViewport()
	}
	return m, cmd
}

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.layout(msg.Width, msg.Height)
		return m, nil
	case tea.KeyMsg:
		return m.key(msg)
	case tea.MouseMsg:
		var cmd tea.Cmd
		if m.mode == modeArgs {
			m.argsVP, cmd = m.argsVP.Update(msg)
			return m, cmd
		}
		if msg.Button == tea.MouseButtonWheelUp && m.vp.AtTop() {
			m.showOlder()
		}
		m.vp.wheel(msg)
		m.scrolled()
		return m, nil
	case spinner.TickMsg:
		if !m.busy {
			return m, nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		if m.live != nil && m.live.running() {
			m.refresh() // the run's spinner and seconds are in the conversation
		}
		return m, cmd
	case TurnMsg:
		return m, m.turn(msg)
	case draftTickMsg:
		if m.live != nil && msg.stream == m.live.stream {
			m.live.ticking = false
			m.renderDraft(true)
			m.refresh()
		}
		return m, nil
	case CancelMsg:
		if msg.Err != nil && !errors.Is(msg.Err, client.ErrNothingRunning) {
			m.status = "the server did not confirm the cancel (" + msg.Err.Error() + "); the stream was closed, which cancels the turn too"
		}
		return m, nil
	case HealthMsg:
		if msg.Err != nil {
			m.status = msg.Err.Error()
			return m, nil
		}
		m.model = msg.Health.Model
		m.modelDown = strings.HasPrefix(msg.Health.ModelStatus, "unreachable")
		if m.modelDown {
			// The sentence says what to fix (start Ollama, pull the model...).
			m.status = strings.TrimPrefix(msg.Health.ModelStatus, "unreachable: ")
		}
		if msg.Health.ModelStatus == "unchecked" && !msg.Again && m.model != "demo" {
			// The server asks its model endpoint in the background at start.
			return m, m.healthAgainCmd()
		}
		return m, nil
	case ConfigMsg:
		m.configAnswer(msg)
		return m, nil
	case SessionsMsg:
		m.sessionsAnswer(msg)
		return m, nil
	case SessionMsg:
		m.sessionAnswer(msg)
		return m, nil
	case TraceMsg:
		if msg.Err != nil {
			m.addError(msg.Err)
		} else {
			m.conv.add(entry{kind: kindPre, text: renderTrace(msg.Trace, m.r)})
			m.refresh()
		}
		return m, nil
	case GrantsMsg:
		m.grantsAnswer(msg)
		return m, nil
	case ToolsMsg:
		if msg.Err != nil {
			m.addError(msg.Err)
		} else {
			m.conv.add(entry{kind: kindPre, text: renderTools(msg.Tools)})
		}
		m.refresh()
		return m, nil
	case RevokeMsg:
		m.revokeAnswer(msg)
		return m, nil
	case UndoPreviewMsg, UndoMsg, UndoMarksMsg:
		return m, m.undoUpdate(msg)
	case RulesMsg:
		if msg.Err != nil {
			m.addError(msg.Err)
		} else {
			m.conv.add(entry{kind: kindPre, text: renderRules(msg.Policy)})
		}
		m.refresh()
		return m, nil
	}
	var cmd tea.Cmd
	if m.mode == modeChat {
		m.input, cmd = m.input.Update(msg)
	}
	return m, cmd
}

func (m *Model) key(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	if k.Type == tea.KeyCtrlC {
		if m.busy && !m.confirm {
			m.confirm = true
			return m, nil
		}
		return m, m.quit()
	}
	if m.confirm {
		// The key answered "any other key to stay": it goes nowhere else, so an n
		// for "no, stay" never lands in the input.
		m.confirm = false
		return m, nil
	}
	if k.Type == tea.KeyEsc && m.mode == modeChat && m.live != nil {
		return m, m.cancelTurn()
	}
	switch m.mode {
	case modeApproval:
		return m, m.approvalKey(k)
	case modeReason:
		return m, m.reasonKey(k)
	case modeConfirm:
		return m, m.confirmKey(k)
	case modeArgs:
		switch {
		case k.String() == "?" || k.Type == tea.KeyEsc || k.Type == tea.KeyEnter || k.String() == "q":
			m.mode = modeApproval
			return m, nil
		}
		var cmd tea.Cmd
		m.argsVP, cmd = m.argsVP.Update(k)
		return m, cmd
	case modePicker:
		return m, m.pickerKey(k)
	case modeGrants:
		return m, m.grantsKey(k)
	case modeUndo, modeUndoForce:
		return m, m.undoKey(k)
	}
	// Typed fast or pasted without bracketed paste, text arrives as one KeyRunes
	// message whose String() is the text itself: "delete" or "enter" would then
	// match a key binding (the textarea's own forward delete, or Send) and vanish.
	if k.Type == tea.KeyRunes && (len(k.Runes) > 1 || k.Paste) {
		m.input.InsertString(string(k.Runes))
		m.fitInput()
		return m, nil
	}
	if m.scrollKey(k) {
		return m, nil
	}
	if key.Matches(k, m.keys.Send) {
		return m, m.send()
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	m.fitInput()
	return m, cmd
}

// send handles Enter in the input: a slash command or a message for the model.
func (m *Model) send() tea.Cmd {
	text := strings.TrimSpace(m.input.Value())
	if text == "" {
		return nil
	}
	m.status = "" // the notice belonged to the last command; a stale one misleads
	if strings.HasPrefix(text, "/") {
		m.input.Reset()
		return m.command(text)
	}
	if m.busy {
		m.status = busyNotice
		return nil
	}
	m.input.Reset()
	m.conv.add(entry{kind: kindUser, text: text})
	m.refresh()
	c, session := m.c, m.sessionID
	return m.startTurn(false, func(ctx context.Context, on func(client.Event)) (api.TurnReply, error) {
		return c.ChatStream(ctx, text, session, on)
	})
}

// startTurn shows a turn as running and returns the command that reads it.
func (m *Model) startTurn(decided bool, read readTurn) tea.Cmd {
	m.busy = true
	m.started = m.now()
	m.status = ""
	s := newTurnStream(m.ctx, decided)
	m.live = &liveTurn{stream: s}
	return tea.Batch(func() tea.Msg {
		go s.run(read)
		return s.next()
	}, m.spin.Tick)
}

// cancelTurn handles Esc while a turn runs: the server is asked to cancel it and the
// stream is closed; the turn's last TurnMsg then says how it ended.
func (m *Model) cancelTurn() tea.Cmd {
	l := m.live
	if l.cancelling {
		return nil
	}
	l.cancelling = true
	m.status = ""
	return m.cancelCmd(l.stream, m.sessionID)
}

// quit ends the program; a running turn's stream is closed, which cancels the turn.
func (m *Model) quit() tea.Cmd {
	if m.live != nil {
		m.live.stream.cancel()
	}
	return tea.Quit
}

// busyNotice answers Enter while a turn runs; the turn's end takes it away.
const busyNotice = "still working on the last message: wait for the answer, or Esc cancels it"

// scrollKey scrolls the conversation for PgUp, PgDn and End, and reports whether k
// was one of them. End in a view already at the bottom is left to the input, where
// it goes to the end of the line.
func (m *Model) scrollKey(k tea.KeyMsg) bool {
	switch {
	case key.Matches(k, m.keys.PageUp):
		if m.vp.AtTop() {
			m.showOlder()
		}
		m.vp.PageUp()
	case key.Matches(k, m.keys.PageDown):
		m.vp.PageDown()
	case key.Matches(k, m.keys.End) && (!m.vp.AtBottom() || m.mode != modeChat):
		m.vp.GotoBottom()
	default:
		return false
	}
	m.scrolled()
	return true
}

// scrolled forgets the notice of new messages once the view is back at the bottom.
func (m *Model) scrolled() {
	if m.vp.AtBottom() {
		m.unseen = false
	}
}

func (m *Model) command(line string) tea.Cmd {
	name, arg, _ := strings.Cut(strings.TrimPrefix(line, "/"), " ")
	arg = strings.TrimSpace(arg)
	switch name {
	case "help":
		m.conv.add(entry{kind: kindRows, rows: helpRows})
		m.refresh()
	case "new":
		if m.busy {
			m.status = "wait for the running turn to finish before starting a new session"
			return nil
		}
		m.sessionID, m.lastTrace, m.carry = "", "", nil
		m.conv = conversation{md: m.conv.md, st: m.conv.st}
		m.conv.add(entry{kind: kindNote, text: "New session: your next message starts it."})
		m.refresh()
	case "sessions", "resume":
		// The running turn's answer would land in the other session's conversation.
		if m.busy {
			m.status = "wait for the running turn to finish before switching sessions"
			return nil
		}
		if name == "sessions" {
			return m.sessionsCmd()
		}
		if arg == "" {
			m.status = "name the session: /resume ID (see /sessions)"
			return nil
		}
		return m.sessionCmd(arg)
	case "preset":
		if arg == "" {
			return m.configCmd(true)
		}
		return m.setPresetCmd(arg)
	case "grants":
		return m.grantsCommand(arg)
	case "undo", "redo":
		return m.undoCommand(name, arg)
	case "tools":
		return m.toolsCmd()
	case "rules":
		return m.rulesCmd()
	case "trace":
		if m.lastTrace == "" {
			m.status = "no finished turn yet in this session: /trace shows the last turn's call chain"
			return nil
		}
		return m.traceCmd(m.lastTrace)
	case "quit", "exit":
		return m.quit()
	default:
		m.status = fmt.Sprintf("unknown command /%s; /help lists the commands", name)
	}
	return nil
}

const demoWelcome = `Welcome to AI Lab on the offline demo model, which turns plain requests into real tool calls. Try:
  create a file named hello.txt with hello world
  list files
  create a file named a.txt with 1 and create a file named b.txt with 2
  create a file named c.txt with 3 then delete c.txt
Risky calls wait for your y (approve) or n (deny); the prompt under the table lists the keys that work for each call. /help lists the commands.`

// turn applies a TurnMsg: events while the turn streams, then its answer.
func (m *Model) turn(msg TurnMsg) tea.Cmd {
	if msg.stream != nil && (m.live == nil || msg.stream != m.live.stream) {
		return nil // a turn this screen no longer shows
	}
	if m.live == nil { // a TurnMsg made without a stream: only an answer
		m.live = &liveTurn{}
	}
	for _, e := range msg.Events {
		m.apply(e)
	}
	if msg.More {
		tick := m.renderDraft(false)
		m.refresh()
		return tea.Batch(msg.stream.next, tick)
	}
	live, sent := m.live, m.sent
	m.busy, m.confirm, m.live, m.sent = false, false, nil, nil
	if live.stream != nil {
		live.stream.cancel() // the stream has ended; this frees its context
	}
	if m.status == busyNotice {
		m.status = "" // the turn it spoke of has ended
	}
	if msg.Err != nil && errors.Is(msg.Err, client.ErrConfigLocked) && msg.decided && sent != nil && sent.Reopen() >= 0 {
		// Nothing ran and nothing was stored: the batch waits again, from the call
		// whose rule could not be saved, with the server's reason in view.
		m.conv.add(entry{kind: kindNote, text: "The server saved no rule, so none of these decisions was sent; decide again below."})
		m.refresh()
		m.openBatch(sent)
		m.status, m.advice = msg.Err.Error(), "s grants it for this session, "+client.ApproveOnce
		return nil
	}
	if msg.Err != nil {
		m.batch = nil
		m.mode = modeChat
		if e, ok := live.partial(m.carry); ok {
			m.conv.add(e)
		}
		m.carry = nil
		if errors.Is(msg.Err, client.ErrCancelled) || (live.cancelling && errors.Is(msg.Err, context.Canceled)) {
			m.conv.add(entry{kind: kindNote, text: "Turn cancelled. Tool runs that had ended stay done; the session keeps your message and a note of the cancel."})
			m.refresh()
			return nil
		}
		// The server's sentences for these two speak of API calls; say what to do here.
		switch {
		case errors.Is(msg.Err, client.ErrApprovalPending) && m.sessionID != "":
			m.addError(fmt.Errorf("this session waits for decisions on earlier tool calls: /resume %s shows them, or /new starts another session", m.sessionID))
			return nil
		case errors.Is(msg.Err, client.ErrNoPendingApproval) && m.sessionID != "":
			m.addError(fmt.Errorf("these calls were already decided elsewhere (another window or script), so nothing ran twice; /resume %s shows where the session stands", m.sessionID))
			return nil
		}
		m.addError(msg.Err)
		if msg.decided && errors.Is(msg.Err, client.ErrUnreachable) && m.sessionID != "" {
			m.conv.add(entry{kind: kindNote, text: "Your decisions may not have reached the server; once it is back, /resume " + m.sessionID + " shows the calls that still wait."})
			m.refresh()
		}
		return nil
	}
	r := msg.Reply
	if r.SessionID != "" {
		m.sessionID = r.SessionID
	}
	if r.ApprovalRequired {
		// The runs so far stay in view above the table; the final answer lists them.
		m.carry = append(m.carry, live.ended()...)
		m.refresh()
		m.openBatch(client.NewBatch(r))
		return nil
	}
	m.batch, m.carry = nil, nil
	m.mode = modeChat
	v := r.Validation
	m.conv.add(entry{kind: kindAssistant, text: r.Response, tools: r.ToolsUsed, validation: &v})
	if r.TraceID != "" {
		m.lastTrace = r.TraceID
	}
	m.refresh()
	return nil
}

func (m *Model) configAnswer(msg ConfigMsg) {
	if msg.Err != nil {
		m.addError(msg.Err)
		return
	}
	s := msg.Config.Safety
	m.preset = s.Preset
	if !msg.Changed && !msg.Show {
		return // the quiet fetch at start only fills the status bar
	}
	approval := "off"
	if s.ApprovalMode {
		approval = "on for " + strings.Join(s.ToolsRequiringApproval, ", ")
		if len(s.ToolsRequiringApproval) == 0 {
			approval = "on for no tool"
		}
	}
	verb := "is"
	if msg.Changed {
		verb = "is now"
	}
	text := fmt.Sprintf("Safety preset %s %s: approval %s.", verb, client.Visible(s.Preset), approval)
	if msg.Config.Written != "" {
		// A preset change rewrites a file on disk; which one must not be a surprise.
		text += "\nWritten to " + client.Visible(msg.Config.Written)
	}
	m.conv.add(entry{kind: kindNote, text: text})
	if !msg.Changed {
		// Bare /preset: the choices, each with what it asks for, the current one marked.
		rows := []helpRow{{"", "The presets (/preset NAME sets one):"}}
		for _, r := range presetRows {
			mark := "  "
			if r.key == s.Preset {
				mark = "▸ "
			}
			rows = append(rows, helpRow{mark + r.key, r.desc})
		}
		m.conv.add(entry{kind: kindRows, rows: rows})
	}
	m.refresh()
}

func (m *Model) sessionsAnswer(msg SessionsMsg) {
	if msg.Err != nil {
		m.addError(msg.Err)
		return
	}
	if len(msg.Sessions) == 0 {
		m.status = "no sessions yet: send a message to start one"
		return
	}
	m.picker = picker{items: msg.Sessions}
	m.mode = modePicker
}

func (m *Model) pickerKey(k tea.KeyMsg) tea.Cmd {
	switch k.String() {
	case "up", "k":
		m.picker.move(-1)
	case "down", "j":
		m.picker.move(1)
	case "esc", "q":
		m.mode = modeChat
	case "enter":
		m.mode = modeChat
		return m.sessionCmd(m.picker.items[m.picker.cursor].SessionID)
	}
	return nil
}

func (m *Model) sessionAnswer(msg SessionMsg) {
	if errors.Is(msg.Err, client.ErrSessionNotFound) {
		// The server's sentence speaks to API callers (omit session_id); say what to do here.
		m.addError(fmt.Errorf("no session %q on this server; /sessions lists the ones there are", msg.id))
		return
	}
	if msg.Err != nil {
		m.addError(msg.Err)
		return
	}
	d := msg.Session
	r := resumeSession(d.Messages, len(d.ToolsPending) > 0)
	m.sessionID, m.lastTrace, m.carry = d.SessionID, r.lastTrace, r.carry
	m.conv = conversation{md: m.conv.md, st: m.conv.st}
	for _, e := range r.entries {
		m.conv.add(e)
	}
	m.conv.add(entry{kind: kindNote, text: "Resumed session " + client.Visible(d.SessionID) + "."})
	m.vp.GotoBottom()
	m.refresh()
	if len(d.ToolsPending) > 0 {
		m.openBatch(&client.Batch{SessionID: d.SessionID, Pending: d.ToolsPending})
	}
}

func (m *Model) addError(err error) {
	m.conv.add(entry{kind: kindError, text: err.Error()})
	m.refresh()
}

// showOlder renders the next older entries above the top of the view and keeps
// the lines the reader sees where they are.
func (m *Model) showOlder() {
	if m.conv.hidden() == 0 {
		return
	}
	before := m.vp.TotalLineCount()
	m.conv.showMore()
	m.fillPane()
	m.vp.SetYOffset(m.vp.YOffset + m.vp.TotalLineCount() - before)
}

// layout sizes every part for a terminal of w×h cells.
func (m *Model) layout(w, h int) {
	m.width, m.height = max(20, w), max(8, h)
	m.input.SetWidth(m.width)
	m.fitReason()
	m.help.Width = m.width
	m.fitViewport()
	m.argsVP.Width, m.argsVP.Height = m.width, max(1, m.height-4)
	if m.mode == modeArgs {
		m.fillArgs() // wrapped for the old width, lines would be cut or leave gaps
	}
	if m.live != nil {
		m.renderDraft(true) // for the new width; it leaves nothing for a later tick
	}
	m.repaint() // new line breaks, not new messages
}

// fitInput grows the input with its text up to six lines, then lets it scroll.
func (m *Model) fitInput() {
	want := min(6, max(3, m.input.LineCount()))
	if want != m.input.Height() {
		m.input.SetHeight(want)
		m.fitViewport()
	}
}

func (m *Model) fitViewport() {
	m.vp.Width = m.width
	if m.approving() {
		m.vp.SetHeight(m.approvalLayout().convH)
		return
	}
	// status bar, input, notice line, help line
	m.vp.SetHeight(max(1, m.height-1-m.input.Height()-1-1))
}

// refresh hands the conversation to the pane after it changed, keeping the view
// pinned to the bottom when it was there, and otherwise noting that there is news
// below. Entries render once per width; see conversation.
func (m *Model) refresh() {
	if !m.repaint() {
		m.unseen = true
	}
}

// repaint hands the conversation to the pane and reports whether the view was at
// the bottom, where it stays.
func (m *Model) repaint() bool {
	atBottom := m.vp.AtBottom() || m.vp.TotalLineCount() == 0
	m.fillPane()
	if atBottom {
		m.vp.GotoBottom()
	}
	return atBottom
}

// fillPane gives the pane the conversation's lines: the entries', kept split between
// changes, then the live turn's, after a blank line.
func (m *Model) fillPane() {
	hist := m.conv.lines(m.width)
	var live []string
	if v := m.liveView(); v != "" {
		live = strings.Split(v, "\n")
		if len(hist) > 0 {
			live = append([]string{""}, live...)
		}
	}
	m.vp.setLines(hist, live)
}

// Leftover is the sentence to print after the TUI closes when the user leaves
// something behind in the server: calls waiting for decisions, or a turn that
// closing cancelled halfway. It is empty when nothing is left.
func (m *Model) Leftover() string {
	if m.sessionID == "" {
		return ""
	}
	again := "ai-client --session " + m.sessionID
	if m.demo {
		again = "ai-client --demo --session " + m.sessionID
	}
	switch {
	case m.batch != nil:
		return fmt.Sprintf("session %s still waits for your approval decisions; %s picks them up", m.sessionID, again)
	case m.busy && !m.demo: // the demo's server stops with this process
		return fmt.Sprintf("session %s: the running turn was cancelled as ai-client closed; %s shows where it stopped", m.sessionID, again)
	}
	return ""
}

// View draws the screen.
func (m *Model) View() string {
	var sb strings.Builder
	sb.WriteString(m.statusBar())
	sb.WriteString("\n")
	switch {
	case m.approving():
		sb.WriteString(m.approvalView())
	case m.mode == modeArgs:
		sb.WriteString(m.styles.title.Render(cutw("Details of "+client.CallLabel(m.batch.Pending[m.batch.Current()]), m.width)))
		sb.WriteString("\n")
		sb.WriteString(m.argsVP.View())
		sb.WriteString("\n")
	case m.mode == modePicker:
		sb.WriteString(m.picker.view(m.width, m.height-3, m.styles))
	case m.mode == modeGrants || m.mode == modeConfirm:
		sb.WriteString(m.grantsView())
	default:
		sb.WriteString(m.paneView())
		sb.WriteString("\n")
		if m.undoing != nil {
			sb.WriteString(m.undoPrompt())
		} else {
			sb.WriteString(m.input.View())
		}
		sb.WriteString("\n")
		sb.WriteString(m.noticeLine())
	}
	sb.WriteString("\n")
	// help cuts its line with …, but not when the … itself lands on the last column.
	sb.WriteString(cutw(m.help.View(m.keys.forMode(m.mode, m.busy, m.batch)), m.width))
	return sb.String()
}

// paneView is the conversation pane, its last line saying so when the conversation
// grew below a view scrolled up.
func (m *Model) paneView() string {
	v := m.vp.View()
	if !m.unseen || m.vp.AtBottom() || m.vp.Height == 0 {
		return v
	}
	i := strings.LastIndexByte(v, '\n') + 1
	note := cutw(" ↓ new messages below (End)", m.width)
	return v[:i] + m.styles.below.Render(note+strings.Repeat(" ", max(0, m.width-ansi.StringWidth(note))))
}

func (m *Model) noticeLine() string {
	switch {
	case m.confirm:
		return m.styles.warn.Render(cutw("A turn runs: press Ctrl+C again to quit and cancel it, any other key to stay.", m.width))
	case m.busy:
		secs := int(m.now().Sub(m.started).Seconds())
		doing := "working…"
		if m.live != nil && m.live.cancelling {
			doing = "cancelling…"
		}
		line := fmt.Sprintf("%s %s %ds", m.spin.View(), doing, secs)
		if m.status != "" {
			line += " · " + m.styles.err.Render(client.Visible(m.status))
		}
		return cutw(line, m.width)
	case m.status != "":
		return m.styles.err.Render(cutw(client.Visible(m.status), m.width))
	}
	return ""
}

func (m *Model) statusBar() string {
	model := m.model
	if model == "" {
		model = "?"
	}
	// The server names these; Visible keeps a hostile one from drawing on the terminal.
	model = "model " + client.Visible(model)
	if m.modelDown {
		model += " (model unreachable)"
	}
	if m.model == "demo" {
		model = "demo model (offline)" // short enough that 80 columns keep it whole
	}
	preset, session := client.Visible(m.preset), client.Visible(m.sessionID)
	if preset == "" {
		preset = "?"
	}
	if session == "" {
		session = "new"
	}
	line := fmt.Sprintf(" AI Lab │ session %s │ preset %s │ %s", session, preset, model)
	if m.c != nil {
		// Most useful first: a narrow terminal drops the server's scheme, then the
		// server, rather than cut the address to an unreadable "h…".
		for _, server := range []string{m.c.BaseURL(), serverHost(m.c.BaseURL())} {
			if l := line + " │ " + server; ansi.StringWidth(l) <= m.width {
				line = l
				break
			}
		}
	}
	line = cutw(line, m.width)
	return m.styles.bar.Render(line + strings.Repeat(" ", max(0, m.width-ansi.StringWidth(line))))
}

func cutw(s string, w int) string { return ansi.Truncate(s, w, "…") }

// serverHost is a server URL without its http:// (HOST:PORT is how --server and
// server.addr name it too); https:// stays, as it says something.
func serverHost(u string) string {
	return client.Visible(strings.TrimPrefix(u, "http://"))
}
