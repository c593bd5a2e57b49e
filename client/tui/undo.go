package tui

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client"
)

// /undo and /redo: the server is asked for a preview first, which the
// conversation shows (each path, its action and sizes, the diff of a file
// that returns, the turns taken with the one asked for); the question under
// it takes the input's place until y does it or n, Esc or Enter keeps
// everything. A conflict shows the files and their diffs, and only f (never
// the default) forces. After an undo or redo the session is read again so
// the marks under the answers say which runs are undone.

// UndoPreviewMsg carries the answer of a preview of /undo or /redo.
type UndoPreviewMsg struct {
	Redo  bool
	Turn  int // the turn asked for; 0 is the last that changed files
	Reply api.UndoReply
	Err   error
}

// UndoMsg carries the answer of the undo or redo itself.
type UndoMsg struct {
	Redo  bool
	Reply api.UndoReply
	Err   error
}

// UndoMarksMsg carries GET /sessions/{id} read again after an undo or redo,
// for the marks of the runs.
type UndoMarksMsg struct {
	Session api.SessionDetail
	Err     error
}

// undoAsk is the undo or redo the question under its preview is about.
type undoAsk struct {
	redo  bool
	turn  int
	force bool
}

func (a undoAsk) verb() string {
	if a.redo {
		return "redo"
	}
	return "undo"
}

// undoCommand handles /undo, /undo N and /redo.
func (m *Model) undoCommand(name, arg string) tea.Cmd {
	a := undoAsk{redo: name == "redo"}
	switch {
	case m.sessionID == "":
		m.status = "no session yet: /" + a.verb() + " takes back the file changes of this session's turns"
		return nil
	case m.busy:
		m.status = "wait for the running turn to end (Esc cancels it), then /" + a.verb()
		return nil
	case arg != "" && a.redo:
		m.status = "/redo takes no turn: it puts back what the last /undo took back"
		return nil
	case arg != "":
		n, err := strconv.Atoi(strings.TrimPrefix(arg, "#"))
		if err != nil || n < 1 {
			m.status = "use /undo for the last turn that changed files, or /undo N for turn N (your Nth message in this session)"
			return nil
		}
		a.turn = n
	}
	return m.undoPreviewCmd(a)
}

func (m *Model) undoPreviewCmd(a undoAsk) tea.Cmd {
	c, ctx, session := m.c, m.ctx, m.sessionID
	return func() tea.Msg {
		var r api.UndoReply
		var err error
		if a.redo {
			r, err = c.Redo(ctx, session, api.RedoRequest{Preview: true})
		} else {
			r, err = c.Undo(ctx, session, api.UndoRequest{Turn: a.turn, Preview: true})
		}
		return UndoPreviewMsg{Redo: a.redo, Turn: a.turn, Reply: r, Err: err}
	}
}

func (m *Model) undoCmd(a undoAsk) tea.Cmd {
	c, ctx, session := m.c, m.ctx, m.sessionID
	return func() tea.Msg {
		var r api.UndoReply
		var err error
		if a.redo {
			r, err = c.Redo(ctx, session, api.RedoRequest{Force: a.force})
		} else {
			r, err = c.Undo(ctx, session, api.UndoRequest{Turn: a.turn, Force: a.force})
		}
		return UndoMsg{Redo: a.redo, Reply: r, Err: err}
	}
}

func (m *Model) undoMarksCmd() tea.Cmd {
	c, ctx, session := m.c, m.ctx, m.sessionID
	return func() tea.Msg {
		d, err := c.Session(ctx, session)
		return UndoMarksMsg{Session: d, Err: err}
	}
}

// undoUpdate applies the answers of the undo commands.
func (m *Model) undoUpdate(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case UndoPreviewMsg:
		a := undoAsk{redo: msg.Redo, turn: msg.Turn}
		if m.undoRefused(a, msg.Err) {
			return nil
		}
		m.conv.add(entry{kind: kindPre, text: strings.Join(client.UndoLines(msg.Redo, msg.Reply, 0), "\n")})
		m.askUndo(a, modeUndo)
	case UndoMsg:
		if m.undoRefused(undoAsk{redo: msg.Redo}, msg.Err) {
			return nil
		}
		m.conv.add(entry{kind: kindNote, text: client.UndoDone(msg.Redo, msg.Reply)})
		m.refresh()
		return m.undoMarksCmd()
	case UndoMarksMsg:
		if msg.Err != nil {
			m.status = "the undo is done, but the session could not be read again for its marks: " + msg.Err.Error()
			return nil
		}
		m.markUndone(msg.Session)
	}
	return nil
}

// undoRefused shows why a preview, undo or redo was refused and reports
// whether it was: a conflict with its files and diffs (and f to force when
// force can help), nothing to undo with the server's sentence, or the error.
func (m *Model) undoRefused(a undoAsk, err error) bool {
	var ce *client.UndoConflictError
	switch {
	case err == nil:
		return false
	case errors.As(err, &ce):
		m.conv.add(entry{kind: kindPre, text: strings.Join(client.ConflictLines(a.redo, ce, 0), "\n")})
		if ce.Forcible() {
			a.force = true
			m.askUndo(a, modeUndoForce)
			return true
		}
	case errors.Is(err, client.ErrNothingToUndo):
		m.conv.add(entry{kind: kindNote, text: sentence(err.Error())})
	default:
		m.addError(err)
		return true
	}
	m.mode, m.undoing = modeChat, nil
	m.refresh()
	return true
}

// sentence starts s with a capital and ends it with a full stop.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	s = string(unicode.ToUpper(r)) + s[n:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// askUndo puts the question of a under the conversation.
func (m *Model) askUndo(a undoAsk, md mode) {
	m.undoing, m.mode = &a, md
	m.vp.GotoBottom()
	m.refresh()
}

// undoKey answers the question under an undo's preview or conflict.
func (m *Model) undoKey(k tea.KeyMsg) tea.Cmd {
	a := m.undoing
	switch k.String() {
	case "y", "Y":
		if m.mode == modeUndoForce {
			m.status = "y does not force: f overwrites the changes shown above, n keeps them"
			return nil
		}
		m.mode, m.undoing, m.status = modeChat, nil, ""
		return m.undoCmd(*a)
	case "f", "F":
		if m.mode != modeUndoForce {
			return nil
		}
		m.mode, m.undoing, m.status = modeChat, nil, ""
		return m.undoCmd(*a)
	case "n", "N", "esc", "enter":
		m.mode, m.undoing, m.status = modeChat, nil, ""
		m.conv.add(entry{kind: kindNote, text: "Nothing was changed."})
		m.refresh()
		return nil
	}
	m.scrollKey(k)
	return nil
}

// undoPrompt is the question that takes the input's place, as many lines
// as the input has.
func (m *Model) undoPrompt() string {
	a := m.undoing
	q := "Undo these changes? y undoes them, n keeps everything as it is (n)"
	if a.redo {
		q = "Redo these changes? y redoes them, n keeps everything as it is (n)"
	}
	if m.mode == modeUndoForce {
		q = fmt.Sprintf("Force the %s? f overwrites the changes shown above (they are lost), n keeps them (n)", a.verb())
	}
	lines := strings.Split(ansi.Wrap(q, max(10, m.width-2), ""), "\n")
	h := m.input.Height()
	for i := range lines {
		lines[i] = m.styles.table.Prompt.Render("▸ " + lines[i])
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines[:h], "\n")
}

// markUndone sets each run's undone mark from the session read again, and
// renders the answers whose marks changed.
func (m *Model) markUndone(d api.SessionDetail) {
	undone := map[string]bool{}
	for _, msg := range d.Messages {
		for _, u := range msg.ToolsUsed {
			if u.ExecutionID != "" {
				undone[u.ExecutionID] = u.Undone
			}
		}
	}
	changed := false
	for i := range m.conv.entries {
		e := &m.conv.entries[i]
		for j := range e.tools {
			u := &e.tools[j]
			if now, ok := undone[u.ExecutionID]; ok && u.ExecutionID != "" && now != u.Undone {
				u.Undone, e.cached, changed = now, "", true
			}
		}
	}
	if changed {
		m.conv.dirty = true
		m.refresh()
	}
}
