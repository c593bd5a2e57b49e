package tui

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client"
	"github.com/ailab/ai-lab/client/clienttest"
)

// program is a small Bubble Tea runtime for streamed turns: commands run at once,
// each on its own goroutine as in the real one, and their messages reach Update in
// the test's goroutine, one at a time, while the test watches the screen between
// them. Cursor blinks and spinner ticks are dropped: they only redraw.
type program struct {
	t    *testing.T
	m    *Model
	msgs chan tea.Msg
	quit bool
}

func newProgram(t *testing.T, m *Model) *program {
	return &program{t: t, m: m, msgs: make(chan tea.Msg, 64)}
}

func (r *program) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		if b, ok := msg.(tea.BatchMsg); ok {
			for _, c := range b {
				r.run(c)
			}
			return
		}
		r.msgs <- msg
	}()
}

// key presses k and runs what it returns.
func (r *program) key(k string) {
	_, cmd := r.m.Update(keyMsg(k))
	r.run(cmd)
}

// send types text and presses Enter.
func (r *program) send(text string) {
	typeText(r.t, r.m, text)
	r.key("enter")
}

// until feeds messages to Update until cond holds, failing after 5s.
func (r *program) until(what string, cond func() bool) {
	r.t.Helper()
	deadline := time.After(5 * time.Second)
	for !cond() {
		select {
		case msg := <-r.msgs:
			switch msg.(type) {
			case tea.QuitMsg:
				r.quit = true
			case TurnMsg, CancelMsg, draftTickMsg, HealthMsg, ConfigMsg, SessionMsg, SessionsMsg, TraceMsg:
				_, cmd := r.m.Update(msg)
				r.run(cmd)
			}
		case <-deadline:
			r.t.Fatalf("%s did not happen within 5s; screen:\n%s", what, r.m.View())
		}
	}
}

func (r *program) shows(s string) func() bool {
	return func() bool { return strings.Contains(ansi.Strip(r.m.View()), s) }
}

// gates hold a scripted stream at points; any left open are opened when the test ends.
type gates struct {
	mu   sync.Mutex
	open map[int]bool
	chs  []chan struct{}
}

func newGates(t *testing.T, n int) *gates {
	g := &gates{open: map[int]bool{}}
	for range n {
		g.chs = append(g.chs, make(chan struct{}))
	}
	t.Cleanup(func() {
		for i := range g.chs {
			g.release(i)
		}
	})
	return g
}

func (g *gates) at(i int) clienttest.Beat { return clienttest.Until(g.chs[i]) }

func (g *gates) release(i int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.open[i] {
		g.open[i] = true
		close(g.chs[i])
	}
}

var searched = api.ToolUse{ToolName: "web_search", Arguments: json.RawMessage(`{"query":"go 1.26"}`), ToolCallID: "c1",
	ExecutionID: "web_search_1763769600123_9f86d081", Status: "ok", DurationMS: 812}

// The answer's text is on screen while the turn still runs, and the final answer
// replaces it with its footer when it ends.
func TestStreamedTokensShowBeforeTheAnswerEnds(t *testing.T) {
	g := newGates(t, 1)
	srv := clienttest.New(t, clienttest.Final("s_1", "Go 1.26 is **out**, with a new GC."))
	srv.Stream(clienttest.Round(1), clienttest.Text("Go 1.26 "), clienttest.Text("is **out**, "), g.at(0), clienttest.Text("with a new GC."))
	m := newTestModel(t, srv, 80, 24)
	r := newProgram(t, m)
	r.send("what is new in go?")
	r.until("the first tokens", r.shows("Go 1.26 is out,"))
	if !m.busy || strings.Contains(m.View(), "with a new GC") || strings.Contains(m.View(), "verified") {
		t.Fatalf("busy %v; the screen shows more than was streamed:\n%s", m.busy, m.View())
	}
	if c := srv.Chats(); len(c) != 1 || !c[0].Stream {
		t.Fatalf("the chat did not ask for a stream: %+v", c)
	}
	g.release(0)
	r.until("the end of the turn", func() bool { return !m.busy })
	v := m.View()
	if !strings.Contains(v, "Go 1.26 is out, with a new GC.") || !strings.Contains(v, "verified") || strings.Count(v, "Go 1.26 is") != 1 {
		t.Fatalf("the final answer does not replace the draft:\n%s", v)
	}
}

// Markdown is rendered again at most every 50ms; text that comes in between is
// shown plain after the rendered part, and rendered at the next chance.
func TestDraftMarkdownIsRenderedAtMostEvery50ms(t *testing.T) {
	m := newTestModel(t, clienttest.New(t), 80, 24)
	now := epoch
	m.now = func() time.Time { return now }
	s := newTurnStream(m.ctx, false)
	m.busy, m.live = true, &liveTurn{stream: s}
	tokens := func(texts ...string) tea.Cmd {
		var evs []client.Event
		for _, tx := range texts {
			evs = append(evs, client.Event{Name: api.EventToken, Token: api.TokenEvent{Text: tx}})
		}
		_, cmd := m.Update(TurnMsg{Events: evs, More: true, stream: s})
		return cmd
	}
	tokens("A **bold** start")
	if l := m.live; l.mdLen != len(l.draft) || !strings.Contains(m.View(), "A bold start") {
		t.Fatalf("the first tokens were not rendered: %d of %d\n%s", l.mdLen, len(l.draft), m.View())
	}
	now = now.Add(20 * time.Millisecond)
	tokens(" and **more**")
	l := m.live
	if l.mdLen != len("A **bold** start") || !strings.Contains(m.View(), "and **more**") || !l.ticking {
		t.Fatalf("rendered again after 20ms (%d of %d), or the tail is not shown plain, or no render is scheduled:\n%s", l.mdLen, len(l.draft), m.View())
	}
	m.Update(draftTickMsg{stream: s}) // the scheduled render
	if l.mdLen != len(l.draft) || strings.Contains(m.View(), "**") || l.ticking {
		t.Fatalf("the tick did not render the tail: %d of %d\n%s", l.mdLen, len(l.draft), m.View())
	}
	now = now.Add(60 * time.Millisecond)
	tokens(" and the end.")
	if l.mdLen != len(l.draft) {
		t.Fatalf("not rendered after 60ms: %d of %d", l.mdLen, len(l.draft))
	}
}

// A tool run shows with its spinner and seconds while it runs, and its mark and
// execution id once it ends, before the answer.
func TestToolRunShowsLive(t *testing.T) {
	g := newGates(t, 2)
	srv := clienttest.New(t, clienttest.Final("s_1", "Found it.", searched))
	srv.Stream(clienttest.Round(1), clienttest.Running("web_search", `{"query":"go 1.26"}`, "c1"), g.at(0), clienttest.Ran(searched), g.at(1), clienttest.Round(2), clienttest.Text("Found it."))
	m := newTestModel(t, srv, 80, 24)
	now := epoch
	m.now = func() time.Time { return now }
	r := newProgram(t, m)
	r.send("search go 1.26")
	r.until("the running tool", r.shows("web_search query=go 1.26 · 0.0s"))
	now = now.Add(2500 * time.Millisecond)
	m.Update(m.spin.Tick()) // the spinner's tick redraws the run
	v := ansi.Strip(m.View())
	if !strings.Contains(v, "  "+strings.TrimSpace(m.spin.View())+" web_search query=go 1.26 · 2.5s") || strings.Contains(v, "✓ web_search") {
		t.Fatalf("the run does not show as running for 2.5s:\n%s", v)
	}
	g.release(0)
	r.until("the run's end", r.shows("✓ web_search query=go 1.26 · 812ms · web_search_1763769600123_9f86d081"))
	if !m.busy || strings.Contains(m.View(), "· 2.5s") {
		t.Fatalf("busy %v, or the running line stayed:\n%s", m.busy, m.View())
	}
	g.release(1)
	r.until("the end of the turn", func() bool { return !m.busy })
	if v := m.View(); strings.Count(v, "✓ web_search") != 1 || !strings.Contains(v, "Found it.") {
		t.Fatalf("the final answer should list the run once:\n%s", v)
	}
}

// A retract takes the draft off the screen and says the answer is being checked,
// until the next attempt writes.
func TestRetractReplacesTheDraft(t *testing.T) {
	g := newGates(t, 3)
	srv := clienttest.New(t, clienttest.Final("s_1", "The checked answer."))
	srv.Stream(clienttest.Round(1), clienttest.Text("An unchecked claim."), g.at(0), clienttest.Retract("the reply failed validation; the model is asked again"),
		g.at(1), clienttest.Round(2), clienttest.Text("The checked "), g.at(2), clienttest.Text("answer."))
	m := newTestModel(t, srv, 80, 24)
	r := newProgram(t, m)
	r.send("check it")
	r.until("the draft", r.shows("An unchecked claim."))
	g.release(0)
	r.until("the retract", r.shows("checking the answer..."))
	if strings.Contains(m.View(), "unchecked") {
		t.Fatalf("the withdrawn text is still on screen:\n%s", m.View())
	}
	g.release(1)
	r.until("the next attempt", r.shows("The checked"))
	if strings.Contains(m.View(), "checking the answer...") {
		t.Fatalf("the note stays after new text:\n%s", m.View())
	}
	g.release(2)
	r.until("the end of the turn", func() bool { return !m.busy })
}

// Esc asks the server to cancel the turn and closes the stream; the screen says the
// turn was cancelled and keeps what it had shown. Closing the stream ends the turn on
// screen even when the server's cancel finds nothing to cancel.
func TestEscCancelsTheRunningTurn(t *testing.T) {
	tests := []struct {
		name    string
		session string            // the turn's session as the stream names it
		beats   []clienttest.Beat // before the draft
	}{
		{"the server cancels", "s_1", nil},
		{"the server knows no such turn", "s_ghost", []clienttest.Beat{clienttest.Raw("event: turn\ndata: {\"session_id\":\"s_ghost\"}\n\n")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGates(t, 1)
			srv := clienttest.New(t, clienttest.Final("s_1", "never"))
			srv.Stream(append(tt.beats, clienttest.Round(1), clienttest.Running("web_search", `{"query":"go"}`, "c1"), clienttest.Ran(searched), clienttest.Text("Half an answer"), g.at(0))...)
			m := newTestModel(t, srv, 80, 24)
			r := newProgram(t, m)
			r.send("search go")
			r.until("the draft", r.shows("Half an answer"))
			if !strings.Contains(m.View(), "esc cancel") {
				t.Fatalf("the help line does not offer Esc:\n%s", m.View())
			}
			r.key("esc")
			if !strings.Contains(m.View(), "cancelling…") {
				t.Fatalf("no sign of the cancel:\n%s", m.View())
			}
			r.until("the end of the turn", func() bool { return !m.busy })
			if got := srv.Cancels(); len(got) != 1 || got[0] != tt.session {
				t.Fatalf("cancels sent = %v, want one for %s", got, tt.session)
			}
			v := m.View()
			for _, want := range []string{"Turn cancelled.", "Half an answer", "✓ web_search query=go 1.26 · 812ms"} {
				if !strings.Contains(v, want) {
					t.Errorf("screen lacks %q:\n%s", want, v)
				}
			}
			if m.mode != modeChat || m.live != nil || m.status != "" || strings.Contains(v, "✗") {
				t.Fatalf("mode %d live %v status %q after the cancel:\n%s", m.mode, m.live, m.status, v)
			}
		})
	}
}

// The approval table opens the moment approval_required arrives, even while the
// server keeps the connection open, and the decisions go back as a stream.
func TestApprovalRequiredOpensTheTableAtOnce(t *testing.T) {
	g := newGates(t, 1)
	pending := twoCalls()
	data, _ := json.Marshal(api.ApprovalRequiredResponse{ApprovalRequired: true, SessionID: "s_1", ToolsPending: pending.ToolsPending, Message: pending.Message})
	srv := clienttest.New(t, pending, final())
	srv.Stream(clienttest.Round(1), clienttest.Raw("event: approval_required\ndata: "+string(data)+"\n\n"), g.at(0))
	m := newTestModel(t, srv, 100, 30)
	r := newProgram(t, m)
	r.send("search and write")
	r.until("the approval table", func() bool { return m.mode == modeApproval })
	if v := m.View(); !strings.Contains(v, "Tool Approval Required") || !strings.Contains(v, "(1 of 2) Approve web_search") || m.busy {
		t.Fatalf("busy %v; no table:\n%s", m.busy, v)
	}
	r.key("a")
	r.until("the answer", func() bool { return !m.busy && strings.Contains(m.View(), "verified") })
	if a := srv.Approvals(); len(a) != 1 || !a[0].Stream || len(a[0].Decisions) != 2 {
		t.Fatalf("approvals = %+v", a)
	}
}

// Ctrl+C while a streamed turn runs asks first; the second quits and closes the
// stream, which cancels the turn.
func TestCtrlCDuringAStreamedTurnAsksFirst(t *testing.T) {
	g := newGates(t, 1)
	srv := clienttest.New(t, clienttest.Final("s_1", "never"))
	srv.Stream(clienttest.Text("Thinking"), g.at(0))
	m := newTestModel(t, srv, 80, 24)
	r := newProgram(t, m)
	r.send("hi")
	r.until("the draft", r.shows("Thinking"))
	s := m.live.stream
	r.key("ctrl+c")
	r.until("the question", r.shows("press Ctrl+C again to quit"))
	if s.ctx.Err() != nil {
		t.Fatal("the first Ctrl+C closed the stream")
	}
	r.key("ctrl+c")
	r.until("the quit", func() bool { return r.quit })
	if s.ctx.Err() == nil {
		t.Fatal("quitting left the stream open")
	}
}

// A server without streaming answers in JSON; the turn works as before.
func TestTurnAgainstAServerWithoutStreaming(t *testing.T) {
	srv := clienttest.New(t, twoCalls(), final())
	srv.NoStreaming = true
	m := newTestModel(t, srv, 100, 30)
	send(t, m, "search and write")
	if m.mode != modeApproval {
		t.Fatalf("no approval table:\n%s", m.View())
	}
	press(t, m, "a")
	if v := m.View(); m.busy || !strings.Contains(v, "Done") || !strings.Contains(v, "verified") {
		t.Fatalf("busy %v:\n%s", m.busy, v)
	}
}

// A stream that stops without its final event says so, and keeps what was shown.
func TestStreamCutOffIsAnError(t *testing.T) {
	srv := clienttest.New(t, clienttest.Final("s_1", "never"))
	srv.Stream(clienttest.Round(1), clienttest.Text("Half"), clienttest.Hangup())
	m := newTestModel(t, srv, 80, 24)
	send(t, m, "hi")
	conv := strings.ReplaceAll(ansi.Strip(m.conv.render(m.width)), "\n", " ")
	if m.busy || !strings.Contains(conv, "Half") || !strings.Contains(conv, "✗ ai-server's answer to POST /chat ended before the turn's") {
		t.Fatalf("busy %v; conversation:\n%s", m.busy, conv)
	}
}

// Complete blocks of the draft are rendered once and kept; a blank line inside a
// code fence or before an indented line does not end a block.
func TestDraftBlocksAreRenderedOnce(t *testing.T) {
	m := newTestModel(t, clienttest.New(t), 80, 24)
	s := newTurnStream(m.ctx, false)
	m.busy, m.live = true, &liveTurn{stream: s}
	draft := "# Title\n\nFirst para.\n\n```\ncode\n\nmore code\n```\n\n- item\n\n    indented\n\nLast para"
	m.Update(TurnMsg{More: true, stream: s, Events: []client.Event{{Name: api.EventToken, Token: api.TokenEvent{Text: draft}}}})
	l := m.live
	if want := strings.Index(draft, "Last para"); l.done != want {
		t.Fatalf("the block being written begins at %d, want %d (%q)", l.done, want, draft[l.done:])
	}
	if !strings.Contains(l.blocks, "more code") || !strings.Contains(l.blocks, "indented") || strings.Contains(l.blocks, "Last") || !strings.Contains(l.md, "Last para") {
		t.Fatalf("blocks:\n%s\nmd:\n%s", l.blocks, l.md)
	}
	l.blocks = "SENTINEL" // a second render must keep the complete blocks as they are
	l.mdAt = time.Time{}
	m.Update(TurnMsg{More: true, stream: s, Events: []client.Event{{Name: api.EventToken, Token: api.TokenEvent{Text: " goes on."}}}})
	if l.blocks != "SENTINEL" || !strings.Contains(l.md, "Last para goes on.") {
		t.Fatalf("complete blocks rendered again, or the last one not: blocks %q md %q", l.blocks, l.md)
	}
	if v := m.liveView(); !strings.Contains(v, "SENTINEL\n\n  Last para goes on.") {
		t.Fatalf("the blocks are not shown before the block being written:\n%s", v)
	}
}

// Blocks rendered one by one are spaced as in one rendering of the whole text.
func TestDraftBlocksAreSpacedAsOneRendering(t *testing.T) {
	m := newTestModel(t, clienttest.New(t), 60, 40)
	now := epoch
	m.now = func() time.Time { return now }
	s := newTurnStream(m.ctx, false)
	m.busy, m.live = true, &liveTurn{stream: s}
	pieces := []string{"## Heading\n\n", "A paragraph.\n\n", "- one\n- two\n\n", "The end."}
	for _, p := range pieces { // each block is rendered on its own
		now = now.Add(time.Second)
		m.Update(TurnMsg{More: true, stream: s, Events: []client.Event{{Name: api.EventToken, Token: api.TokenEvent{Text: p}}}})
	}
	text := strings.Join(pieces, "")
	if m.live.done != strings.Index(text, "The end.") {
		t.Fatalf("blocks end at %d", m.live.done)
	}
	squeeze := func(s string) string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			out = append(out, strings.TrimRight(l, " "))
		}
		return strings.Trim(strings.Join(out, "\n"), "\n")
	}
	whole := squeeze(m.conv.md.render(text, m.width))
	if got := squeeze(strings.TrimPrefix(m.liveView(), "AI\n")); got != whole {
		t.Fatalf("blocks:\n%s\nwhole:\n%s", got, whole)
	}
}
