package tui

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client"
)

// readTurn is a streamed call of the client (ChatStream or ApproveStream) with its
// arguments bound.
type readTurn func(ctx context.Context, on func(client.Event)) (api.TurnReply, error)

// A turnStream carries one streamed turn from the goroutine that reads it to Update.
// Events go through items; the turn's end is kept in reply and err and published by
// closing items. Update takes it one TurnMsg at a time through next, a command it
// re-arms after each message, so Update itself never waits for the network.
type turnStream struct {
	ctx     context.Context
	cancel  context.CancelFunc // closes the connection, which cancels the turn too
	decided bool               // an approve: decisions were sent
	items   chan client.Event
	reply   api.TurnReply
	err     error
}

func newTurnStream(parent context.Context, decided bool) *turnStream {
	ctx, cancel := context.WithCancel(parent)
	return &turnStream{ctx: ctx, cancel: cancel, decided: decided, items: make(chan client.Event, 256)}
}

// run reads the turn to its end; it is the only sender on items.
func (s *turnStream) run(read readTurn) {
	s.reply, s.err = read(s.ctx, func(e client.Event) {
		select {
		case s.items <- e:
		case <-s.ctx.Done(): // the turn was let go of: what it says now is not shown
		}
	})
	close(s.items)
}

// frame is how long next goes on gathering events after the first one, so the screen
// is redrawn at most about sixty times a second however fast the tokens come.
const frame = 16 * time.Millisecond

// next waits for the turn's next events and returns them as one TurnMsg, with the
// turn's answer when the stream has ended.
func (s *turnStream) next() tea.Msg {
	msg := TurnMsg{stream: s, decided: s.decided, More: true}
	var timeout <-chan time.Time
	for {
		select {
		case e, ok := <-s.items:
			if !ok {
				msg.More, msg.Reply, msg.Err = false, s.reply, s.err
				return msg
			}
			msg.Events = append(msg.Events, e)
			if timeout == nil {
				t := time.NewTimer(frame)
				defer t.Stop()
				timeout = t.C
			}
		case <-timeout:
			return msg
		}
	}
}

// A toolRun is one tool call of the running turn as the screen shows it: running
// since started, or ended with result.
type toolRun struct {
	call    api.ToolCallEvent
	started time.Time
	result  *api.ToolUse
}

// mdEvery is how often at most the draft's markdown is rendered again while tokens
// stream; between renders the text that came since is shown plain below it.
const mdEvery = 50 * time.Millisecond

// The draft's markdown is rendered block by block, because glamour takes about 5 µs a
// character: a whole 5 KB answer again and again would blow the frame budget. A block
// ends at a blank line followed by a line that starts in the first column, outside a
// code fence; such a block is complete (nothing after it can change how it reads,
// bar rare reference links), so it is rendered once and kept, and only the block being
// written is rendered again. The final answer is then rendered whole, as before.

// A liveTurn is the turn being streamed as the conversation shows it, below the
// entries: the tool runs so far, then the draft of the answer.
type liveTurn struct {
	stream     *turnStream
	runs       []toolRun
	draft      []byte
	roundStart int  // len(draft) when the current round began: a retract cuts back to it
	checking   bool // a retract withdrew the draft; the next attempt has not written yet
	cancelling bool // Esc was pressed

	blocks  string    // the rendering of draft[:done], the complete blocks
	done    int       // where the block being written begins
	scan    int       // draft[:scan] is whole lines already looked at for block ends
	fence   bool      // draft[scan:] begins inside a code fence
	blank   bool      // the line before draft[scan:] is blank
	md      string    // the rendering of draft[done:mdLen]
	mdLen   int       // how much of the draft is rendered
	mdWidth int       // the width blocks and md were rendered for
	mdAt    time.Time // when md was rendered
	ticking bool      // a draftTickMsg is on its way
}

// draftTickMsg asks for the draft's markdown to be rendered once the throttle allows,
// so text that came just after the last render does not stay plain.
type draftTickMsg struct{ stream *turnStream }

// apply takes one event of the stream.
func (m *Model) apply(e client.Event) {
	l := m.live
	switch e.Name {
	case api.EventTurn:
		if e.Turn.SessionID != "" {
			m.sessionID = e.Turn.SessionID // a new session's id, which Esc's cancel needs
		}
		if e.Turn.TraceID != "" {
			m.lastTrace = e.Turn.TraceID
		}
	case api.EventRound:
		l.roundStart = len(l.draft)
	case api.EventToken:
		l.draft = append(l.draft, e.Token.Text...)
		l.checking = false
	case api.EventRetract:
		l.draft = l.draft[:l.roundStart]
		l.checking = true
		if l.mdLen > len(l.draft) {
			l.mdWidth = 0 // what is rendered was withdrawn: render afresh
		}
	case api.EventToolCall:
		if !e.ToolCall.NeedsApproval { // one that waits shows in the approval table instead
			l.runs = append(l.runs, toolRun{call: e.ToolCall, started: m.now()})
		}
	case api.EventToolResult:
		u := e.ToolResult
		for i := range l.runs {
			if r := &l.runs[i]; r.result == nil && r.call.ToolCallID == u.ToolCallID {
				r.result = &u
				return
			}
		}
		l.runs = append(l.runs, toolRun{call: api.ToolCallEvent{ToolCallID: u.ToolCallID, ToolName: u.ToolName, Arguments: u.Arguments}, result: &u})
	}
}

// running reports whether a tool run of the live turn has not ended yet, so its
// spinner and elapsed time need redrawing.
func (l *liveTurn) running() bool {
	for _, r := range l.runs {
		if r.result == nil {
			return true
		}
	}
	return false
}

// renderDraft renders the draft's markdown again when there is new text and the last
// render is mdEvery old (or was for another width); force skips the wait. It returns
// a command for a later render when text is left plain.
func (m *Model) renderDraft(force bool) tea.Cmd {
	l := m.live
	now := m.now()
	stale := l.mdWidth != m.width || l.scan > len(l.draft) || l.mdLen > len(l.draft)
	if stale { // a retract cut into rendered text, or the width changed
		l.blocks, l.done, l.scan, l.fence, l.blank, l.md, l.mdLen = "", 0, 0, false, false, "", 0
		l.mdWidth = m.width
	}
	if len(l.draft) > l.mdLen && (force || stale || now.Sub(l.mdAt) >= mdEvery) {
		if end := l.blockEnd(); end > l.done {
			b := m.renderMD(l.draft[l.done:end])
			if l.blocks != "" {
				b = l.blocks + "\n\n" + b
			}
			l.blocks, l.done = b, end
		}
		l.md = m.renderMD(l.draft[l.done:])
		l.mdLen, l.mdAt = len(l.draft), now
	}
	if l.mdLen == len(l.draft) || l.ticking {
		return nil
	}
	l.ticking = true
	s := l.stream
	return tea.Tick(mdEvery, func(time.Time) tea.Msg { return draftTickMsg{stream: s} })
}

// renderMD renders a piece of the draft without the blank lines glamour puts around
// it (lines of spaces, some of them), so pieces join with one blank line between, as
// blocks do in one rendering.
func (m *Model) renderMD(text []byte) string {
	lines := strings.Split(m.conv.md.render(client.TerminalSafe(string(text)), m.width), "\n")
	blank := func(l string) bool { return strings.TrimSpace(ansi.Strip(l)) == "" }
	for len(lines) > 0 && blank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && blank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

// blockEnd looks at the whole lines not looked at yet and returns where the last
// complete block of the draft ends (see mdEvery's comment), or done if none has. The
// first character of a line is enough to end the block before it, so the line being
// written counts too.
func (l *liveTurn) blockEnd() int {
	end := l.done
	for {
		rest := l.draft[l.scan:]
		if l.blank && !l.fence && len(rest) > 0 && rest[0] != ' ' && rest[0] != '\t' && rest[0] != '\n' {
			end = l.scan
		}
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 {
			return end
		}
		line := rest[:nl]
		if t := bytes.TrimLeft(line, " "); bytes.HasPrefix(t, []byte("```")) || bytes.HasPrefix(t, []byte("~~~")) {
			l.fence = !l.fence
		}
		l.blank = len(bytes.TrimSpace(line)) == 0
		l.scan += nl + 1
	}
}

// liveView draws the live turn for the conversation, after the runs it made before
// it paused for approval; empty when there is nothing to show yet (the busy line
// says the model is working).
func (m *Model) liveView() string {
	l := m.live
	if len(m.carry) == 0 && (l == nil || (len(l.runs) == 0 && len(l.draft) == 0 && !l.checking)) {
		return ""
	}
	st := &m.styles
	var sb strings.Builder
	sb.WriteString(st.assistant.Render("AI"))
	for _, u := range m.carry {
		sb.WriteString("\n")
		sb.WriteString(st.dim.Render(toolLine(u, m.width)))
	}
	if l == nil {
		return sb.String()
	}
	for _, r := range l.runs {
		sb.WriteString("\n")
		if r.result != nil {
			sb.WriteString(st.dim.Render(toolLine(*r.result, m.width)))
			continue
		}
		secs := m.now().Sub(r.started).Seconds()
		// The spinner's frames end in a space; without it the name lines up with
		// the ✓ of the runs that ended.
		frame := m.styles.accent.Render(strings.TrimSpace(ansi.Strip(m.spin.View())))
		head := "  " + frame + " " + client.Visible(r.call.ToolName) + " "
		tail := fmt.Sprintf(" · %.1fs", secs)
		room := m.width - ansi.StringWidth(head) - len(tail)
		sb.WriteString(runLine(head+shortArgs(r.call.Arguments, min(40, max(10, room))), tail, "", m.width))
	}
	if len(l.draft) > 0 {
		sb.WriteString("\n")
		sb.WriteString(l.blocks)
		if l.blocks != "" && l.md != "" {
			sb.WriteString("\n\n") // the blank line between blocks that glamour keeps
		}
		sb.WriteString(l.md)
		if tail := l.draft[min(l.mdLen, len(l.draft)):]; len(tail) > 0 {
			// Indented like glamour's paragraphs, so the plain tail reads as their continuation.
			text := ansi.Wrap(client.TerminalSafe(string(tail)), max(10, m.width-4), "")
			if l.blocks != "" || l.md != "" {
				sb.WriteString("\n")
			}
			sb.WriteString("  " + strings.ReplaceAll(text, "\n", "\n  "))
		}
	}
	if l.checking {
		sb.WriteString("\n")
		sb.WriteString(st.dim.Render("  checking the answer..."))
	}
	return sb.String()
}

// ended is the runs of the turn that have ended.
func (l *liveTurn) ended() []api.ToolUse {
	var used []api.ToolUse
	for _, r := range l.runs {
		if r.result != nil {
			used = append(used, *r.result)
		}
	}
	return used
}

// partial is what stays of a turn that ended without an answer (cancelled, failed):
// the text streamed so far and the runs that ended, which happened, after those of
// carry, the runs before the turn last paused for approval.
func (l *liveTurn) partial(carry []api.ToolUse) (entry, bool) {
	used := append(slices.Clone(carry), l.ended()...)
	if len(used) == 0 && len(l.draft) == 0 {
		return entry{}, false
	}
	return entry{kind: kindAssistant, text: string(l.draft), tools: used}, true
}
