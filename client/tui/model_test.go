package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client"
	"github.com/ailab/ai-lab/client/clienttest"
)

// portDigits finds the test server's port, which changes per run, in a screen.
var portDigits = regexp.MustCompile(`127\.0\.0\.1:\d+`)

var epoch = time.Date(2026, 11, 21, 23, 0, 0, 0, time.UTC)

// newTestModel builds a model against srv with no colour, a fixed clock and a
// static cursor, sized w×h, and runs Init's commands.
func newTestModel(t testing.TB, srv *clienttest.Server, w, h int) *Model {
	t.Helper()
	return newTestModelProfile(t, srv, w, h, termenv.Ascii)
}

func newTestModelProfile(t testing.TB, srv *clienttest.Server, w, h int, p termenv.Profile) *Model {
	t.Helper()
	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(p)
	m := New(Options{Client: client.New(srv.URL, clienttest.Token, nil), Renderer: r, Now: func() time.Time { return epoch }, Context: context.Background()})
	m.input.Cursor.SetMode(cursor.CursorStatic)
	m.reason.Cursor.SetMode(cursor.CursorStatic)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	drive(t, m, m.Init())
	return m
}

// drive runs cmd as the Bubble Tea runtime would and feeds its messages back, until
// no command is left. Spinner ticks and cursor blinks are dropped: they only redraw.
func drive(t testing.TB, m *Model, cmd tea.Cmd) (quit bool) {
	t.Helper()
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		done := make(chan tea.Msg, 1)
		go func() { done <- c() }()
		var msg tea.Msg
		select {
		case msg = <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("a command did not return within 5s")
		}
		switch msg := msg.(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case tea.QuitMsg:
			quit = true
		case TurnMsg, HealthMsg, ConfigMsg, SessionsMsg, SessionMsg, TraceMsg, GrantsMsg, RevokeMsg, ToolsMsg, RulesMsg, UndoPreviewMsg, UndoMsg, UndoMarksMsg:
			_, next := m.Update(msg)
			queue = append(queue, next)
		}
	}
	return quit
}

func keyMsg(k string) tea.KeyMsg {
	switch k {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "alt+enter":
		return tea.KeyMsg{Type: tea.KeyEnter, Alt: true}
	case "ctrl+j":
		return tea.KeyMsg{Type: tea.KeyCtrlJ}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "pgup":
		return tea.KeyMsg{Type: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyMsg{Type: tea.KeyPgDown}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "end":
		return tea.KeyMsg{Type: tea.KeyEnd}
	case "left":
		return tea.KeyMsg{Type: tea.KeyLeft}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// press sends each key and drives the commands it returns.
func press(t testing.TB, m *Model, keys ...string) (quit bool) {
	t.Helper()
	for _, k := range keys {
		_, cmd := m.Update(keyMsg(k))
		if drive(t, m, cmd) {
			quit = true
		}
	}
	return quit
}

// typeText types s rune by rune, as a terminal would deliver it.
func typeText(t testing.TB, m *Model, s string) {
	t.Helper()
	for _, r := range s {
		m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

func send(t testing.TB, m *Model, text string) {
	t.Helper()
	typeText(t, m, text)
	press(t, m, "enter")
}

func twoCalls() api.TurnReply {
	return clienttest.Pending("s_1",
		clienttest.Call("web_search", `{"query":"latest AI","max_results":5}`, "c1"),
		clienttest.Call("write_file", `{"path":"a.txt","content":"hi"}`, "c2"))
}

func final() api.TurnReply {
	return clienttest.Final("s_1", "**Done**: wrote `a.txt`.",
		api.ToolUse{ToolName: "web_search", Arguments: json.RawMessage(`{"query":"latest AI"}`), ToolCallID: "c1", ExecutionID: "web_search_1763769600123_9f86d081", Status: "ok", DurationMS: 812},
		api.ToolUse{ToolName: "write_file", Arguments: json.RawMessage(`{"path":"a.txt"}`), ToolCallID: "c2", Status: "denied"})
}

func TestApprovalKeys(t *testing.T) {
	tests := []struct {
		name    string
		keys    []string
		reason  string // typed after the first key when it is n
		want    []api.Decision
		summary []string
		burst   bool // the reason arrives as one burst of text, as a paste does
	}{
		{"y approves each", []string{"y", "y"}, "", []api.Decision{{ToolCallID: "c1", Approved: true}, {ToolCallID: "c2", Approved: true}},
			[]string{"✓ approved web_search(query=latest AI, max_results=5)", "✓ approved write_file(path=a.txt, content=hi)"}, false},
		{"enter is y", []string{"enter", "enter"}, "", []api.Decision{{ToolCallID: "c1", Approved: true}, {ToolCallID: "c2", Approved: true}}, nil, false},
		{"n with a reason, then y", []string{"n", "enter", "y"}, "not now", []api.Decision{{ToolCallID: "c1", Feedback: "not now"}, {ToolCallID: "c2", Approved: true}},
			[]string{"⊘ denied web_search(query=latest AI, max_results=5) — reason: not now"}, false},
		{"a pasted reason naming keys stays text", []string{"n", "enter", "y"}, "delete", []api.Decision{{ToolCallID: "c1", Feedback: "delete"}, {ToolCallID: "c2", Approved: true}},
			[]string{"⊘ denied web_search(query=latest AI, max_results=5) — reason: delete"}, true},
		{"n and Enter skips the reason", []string{"n", "enter", "n", "esc"}, "", []api.Decision{{ToolCallID: "c1"}, {ToolCallID: "c2"}}, nil, false},
		{"a approves the rest", []string{"a"}, "", []api.Decision{{ToolCallID: "c1", Approved: true}, {ToolCallID: "c2", Approved: true}}, nil, false},
		{"y then d denies the rest", []string{"y", "d", "enter"}, "", []api.Decision{{ToolCallID: "c1", Approved: true}, {ToolCallID: "c2"}}, nil, false},
		{"d with a reason denies all", []string{"d", "enter"}, "not today", []api.Decision{{ToolCallID: "c1", Feedback: "not today"}, {ToolCallID: "c2", Feedback: "not today"}},
			[]string{"⊘ denied web_search(query=latest AI, max_results=5) — reason: not today", "⊘ denied write_file(path=a.txt, content=hi) — reason: not today"}, false},
		{"other keys do nothing", []string{"x", "q", "y", "y"}, "", []api.Decision{{ToolCallID: "c1", Approved: true}, {ToolCallID: "c2", Approved: true}}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := clienttest.New(t, twoCalls(), final())
			m := newTestModel(t, srv, 100, 30)
			send(t, m, "search and write")
			if m.mode != modeApproval || !strings.Contains(m.View(), "Tool Approval Required") || !strings.Contains(m.View(), "(1 of 2)") {
				t.Fatalf("no approval screen:\n%s", m.View())
			}
			for i, k := range tt.keys {
				press(t, m, k)
				if i == 0 && (k == "n" || k == "d") {
					if m.mode != modeReason || !strings.Contains(m.View(), "Reason for the model") {
						t.Fatalf("%s did not ask for a reason:\n%s", k, m.View())
					}
					if tt.burst {
						m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(tt.reason)})
					} else {
						typeText(t, m, tt.reason)
					}
				}
				// Once the first call is decided, the second is the highlighted row.
				if m.mode == modeApproval && m.batch.Current() == 1 {
					if v := m.View(); !strings.Contains(v, "(2 of 2) Approve write_file") || !strings.Contains(v, "▸ write_file") {
						t.Fatalf("second call not shown as 2 of 2:\n%s", v)
					}
				}
			}
			a := srv.Approvals()
			if len(a) != 1 || fmt.Sprint(a[0].Decisions) != fmt.Sprint(tt.want) {
				t.Fatalf("approvals sent = %+v, want one with %+v", a, tt.want)
			}
			if m.mode != modeChat || m.busy {
				t.Fatalf("mode %d busy %v after the answer", m.mode, m.busy)
			}
			view := m.conv.render(m.width)
			for _, s := range append(tt.summary, "Done", "✓ web_search query=latest AI · 812ms · web_search_1763769600123_9f86d081", "⊘ write_file path=a.txt · denied", "verified") {
				if !strings.Contains(view, s) {
					t.Errorf("conversation lacks %q:\n%s", s, view)
				}
			}
		})
	}
}

func TestChainedBatches(t *testing.T) {
	srv := clienttest.New(t, twoCalls(), clienttest.Pending("s_1", clienttest.Call("delete_file", `{"path":"old.txt"}`, "c3")), final())
	m := newTestModel(t, srv, 120, 40)
	send(t, m, "go")
	press(t, m, "a")
	if m.mode != modeApproval || !strings.Contains(m.View(), "delete_file") || strings.Contains(m.View(), "(1 of") {
		t.Fatalf("chained batch not shown:\n%s", m.View())
	}
	press(t, m, "n", "enter")
	a := srv.Approvals()
	if len(a) != 2 || fmt.Sprint(a[1].Decisions) != fmt.Sprint([]api.Decision{{ToolCallID: "c3"}}) {
		t.Fatalf("approvals = %+v", a)
	}
	if conv := m.conv.render(m.width); !strings.Contains(conv, "⊘ denied delete_file(path=old.txt)") || !strings.Contains(conv, "✓ approved write_file") {
		t.Fatalf("conversation does not show the decisions:\n%s", conv)
	}
}

func TestErrorsMidApprovalKeepTheTUIUsable(t *testing.T) {
	tests := []struct {
		name   string
		break_ func(s *clienttest.Server)
		want   string
	}{
		{"409 no pending approval", func(s *clienttest.Server) { s.FailOn(2, 409, api.CodeNoPendingApproval) }, "these calls were already decided elsewhere (another window or script), so nothing ran twice; /resume s_1 shows where the session stands"},
		{"network error", func(s *clienttest.Server) { s.Close() }, "cannot reach ai-server at"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := clienttest.New(t, twoCalls(), final(), clienttest.Final("s_1", "second answer"))
			m := newTestModel(t, srv, 80, 24)
			send(t, m, "go")
			tt.break_(srv)
			press(t, m, "y", "y")
			if m.mode != modeChat || m.busy || m.batch != nil {
				t.Fatalf("stuck after the error: mode %d busy %v", m.mode, m.busy)
			}
			if conv := ansi.Strip(m.conv.render(m.width)); !strings.Contains(strings.ReplaceAll(conv, "\n", " "), tt.want) {
				t.Fatalf("error not shown; conversation:\n%s", conv)
			}
			typeText(t, m, "still here")
			if !strings.Contains(m.View(), "still here") {
				t.Fatalf("input does not take text after the error:\n%s", m.View())
			}
		})
	}
}

// A message to a session that waits for decisions says how to get to them.
func TestMessageToAWaitingSession(t *testing.T) {
	srv := clienttest.New(t)
	srv.FailOn(1, 409, api.CodeApprovalPending)
	m := newTestModel(t, srv, 80, 24)
	m.sessionID = "s_1"
	send(t, m, "hello")
	want := "this session waits for decisions on earlier tool calls: /resume s_1 shows them, or /new starts another session"
	if conv := strings.ReplaceAll(ansi.Strip(m.conv.render(m.width)), "\n", " "); !strings.Contains(conv, want) || m.busy {
		t.Fatalf("conversation lacks %q (busy %v):\n%s", want, m.busy, conv)
	}
}

func TestCtrlCAsksFirstWhileATurnRuns(t *testing.T) {
	srv := clienttest.New(t)
	m := newTestModel(t, srv, 80, 24)
	m.busy = true
	if press(t, m, "ctrl+c") {
		t.Fatal("quit on the first Ctrl+C while busy")
	}
	if !strings.Contains(m.View(), "press Ctrl+C again to quit") {
		t.Fatalf("no confirmation shown:\n%s", m.View())
	}
	press(t, m, "x") // any other key cancels the question
	if m.confirm {
		t.Fatal("confirmation not cleared by another key")
	}
	press(t, m, "ctrl+c")
	if !press(t, m, "ctrl+c") {
		t.Fatal("second Ctrl+C did not quit")
	}
	m.busy = false
	if !press(t, m, "ctrl+c") {
		t.Fatal("Ctrl+C when idle did not quit")
	}
}

func TestInputKeys(t *testing.T) {
	srv := clienttest.New(t, final())
	m := newTestModel(t, srv, 80, 24)
	typeText(t, m, "line one")
	press(t, m, "alt+enter")
	typeText(t, m, "line two")
	press(t, m, "ctrl+j")
	typeText(t, m, "three")
	if got := m.input.Value(); got != "line one\nline two\nthree" {
		t.Fatalf("input = %q", got)
	}
	if len(srv.Chats()) != 0 {
		t.Fatal("a newline key sent the message")
	}
	press(t, m, "enter")
	if c := srv.Chats(); len(c) != 1 || c[0].Message != "line one\nline two\nthree" || c[0].SessionID != "" {
		t.Fatalf("chats = %+v", c)
	}
	if m.input.Value() != "" || m.sessionID != "s_1" {
		t.Fatalf("after send: input %q session %q", m.input.Value(), m.sessionID)
	}
	// The next message continues the session.
	srv2 := clienttest.New(t, final())
	m.c = client.New(srv2.URL, clienttest.Token, nil)
	send(t, m, "again")
	if c := srv2.Chats(); len(c) != 1 || c[0].SessionID != "s_1" {
		t.Fatalf("second chat = %+v", c)
	}
}

func TestSlashCommands(t *testing.T) {
	srv := clienttest.New(t, final())
	srv.Sessions = []api.SessionSummary{
		{SessionID: "s_new", Title: "newest", UpdatedAt: epoch},
		{SessionID: "s_old", Title: "older", UpdatedAt: epoch.Add(-time.Hour), PendingApproval: true},
	}
	srv.Details["s_old"] = api.SessionDetail{SessionID: "s_old",
		Messages:     []api.Message{{Role: "user", Content: "delete old.txt"}, {Role: "assistant", ToolCalls: []api.ToolCall{{ID: "c9", Name: "delete_file", Arguments: json.RawMessage(`{"path":"old.txt"}`)}}}},
		ToolsPending: []api.PendingTool{clienttest.Call("delete_file", `{"path":"old.txt"}`, "c9")}}
	srv.Traces["t_s_1"] = api.Trace{TraceID: "t_s_1", DurationMS: 900, Success: true, Calls: []api.TraceCall{
		{CallID: "m1", Kind: api.CallModel, DurationMS: 80, Success: true},
		{CallID: "k1", ParentID: "m1", Kind: api.CallTool, ToolName: "web_search", Arguments: json.RawMessage(`{"query":"go"}`), ExecutionID: "web_search_1763769600123_9f86d081", DurationMS: 812, Success: true},
		{CallID: "m2", Kind: api.CallModel, DurationMS: 8, Success: true},
	}}
	m := newTestModel(t, srv, 100, 30)
	if !strings.Contains(m.View(), "preset strict") || !strings.Contains(m.View(), "model test-model") {
		t.Fatalf("status bar lacks preset/model:\n%s", m.View())
	}

	send(t, m, "/help")
	if !strings.Contains(m.conv.render(m.width), "/resume ID") {
		t.Fatal("/help shows no commands")
	}
	send(t, m, "/preset")
	if !strings.Contains(m.conv.render(m.width), "Safety preset is strict: approval on for write_file") {
		t.Fatalf("/preset shows:\n%s", m.conv.render(m.width))
	}
	send(t, m, "/preset moderate")
	if srv.Preset() != "moderate" || !strings.Contains(m.View(), "preset moderate") {
		t.Fatalf("/preset moderate: server %q view\n%s", srv.Preset(), m.View())
	}
	send(t, m, "/preset lax")
	if !strings.Contains(m.conv.render(m.width), "unknown preset") {
		t.Fatal("/preset lax: no error shown")
	}
	send(t, m, "/trace")
	if !strings.Contains(m.status, "no finished turn") {
		t.Fatalf("/trace before a turn: status %q", m.status)
	}
	send(t, m, "hello")
	send(t, m, "/trace")
	tr := m.conv.render(m.width)
	for _, s := range []string{"trace t_s_1 · 900ms · ✓", "├──model round · 80ms ✓", "│  └──✓ web_search(query=go) · 812ms · web_search_1763769600123_9f86d081", "└──model round · 8ms ✓"} {
		if !strings.Contains(tr, s) {
			t.Errorf("trace lacks %q:\n%s", s, tr)
		}
	}
	send(t, m, "/sessions")
	if m.mode != modePicker || !strings.Contains(m.View(), "s_old") || !strings.Contains(m.View(), "waiting for approval") {
		t.Fatalf("/sessions picker:\n%s", m.View())
	}
	press(t, m, "down", "enter")
	if m.sessionID != "s_old" || m.mode != modeApproval || !strings.Contains(m.View(), "delete_file") {
		t.Fatalf("resume did not reopen the pending approval: session %q mode %d\n%s", m.sessionID, m.mode, m.View())
	}
	if !strings.Contains(m.conv.render(m.width), "delete old.txt") {
		t.Fatal("resumed history not shown")
	}
	m.mode, m.batch = modeChat, nil
	send(t, m, "/resume s_gone")
	if !strings.Contains(m.conv.render(m.width), `no session "s_gone" on this server; /sessions lists the ones there are`) {
		t.Fatal("/resume of an unknown session shows no error")
	}
	send(t, m, "/new")
	if m.sessionID != "" || m.conv.len() != 1 || !strings.Contains(m.View(), "session new") {
		t.Fatalf("/new: session %q entries %d", m.sessionID, m.conv.len())
	}
	send(t, m, "/bogus")
	if !strings.Contains(m.status, "unknown command /bogus") {
		t.Fatalf("status %q", m.status)
	}
	typeText(t, m, "/quit")
	_, cmd := m.Update(keyMsg("enter"))
	if !drive(t, m, cmd) {
		t.Fatal("/quit did not quit")
	}
}

func TestFullArgumentsView(t *testing.T) {
	long := strings.Repeat("word ", 60)
	srv := clienttest.New(t, clienttest.Pending("s_1", clienttest.Call("write_file", `{"path":"a.txt","content":"`+long+`"}`, "c1")))
	m := newTestModel(t, srv, 80, 24)
	send(t, m, "write")
	if strings.Contains(m.View(), long[:100]) {
		t.Fatal("table shows the whole long value")
	}
	press(t, m, "?")
	full := strings.ReplaceAll(ansi.Strip(m.View()), "\n", "")
	if m.mode != modeArgs || !strings.Contains(full, "word word word") || strings.Count(full, "word") < 60 {
		t.Fatalf("? does not show the full arguments:\n%s", m.View())
	}
	m.Update(tea.WindowSizeMsg{Width: 40, Height: 24})
	for _, l := range strings.Split(m.argsVP.View(), "\n") {
		if w := ansi.StringWidth(l); w > 40 {
			t.Fatalf("after a resize to 40 columns the arguments still have %d-cell lines:\n%s", w, m.View())
		}
	}
	if full := strings.ReplaceAll(ansi.Strip(m.argsVP.View()), "\n", ""); strings.Count(full, "word") < 60 {
		t.Fatalf("after a resize the arguments are cut, not rewrapped:\n%s", m.View())
	}
	press(t, m, "esc")
	if m.mode != modeApproval {
		t.Fatal("esc did not return to the table")
	}
}

func TestDemoModelLabel(t *testing.T) {
	srv := clienttest.New(t)
	srv.Model = "demo"
	m := newTestModel(t, srv, 80, 24)
	m.sessionID = "s_5611fa93369d0f99" // as long as real ids: the label must still fit
	if !strings.Contains(m.View(), "│ demo model (offline)") {
		t.Fatalf("status bar does not label the demo model:\n%s", m.View())
	}
}

// Under --demo the first screen says what to type; a resumed session starts with its history.
func TestDemoWelcome(t *testing.T) {
	tests := []struct {
		name    string
		demo    bool
		session string
		want    bool
	}{
		{"demo", true, "", true},
		{"demo resuming a session", true, "s_7", false},
		{"real server", false, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(Options{Client: client.New("http://127.0.0.1:1", "", nil), Demo: tt.demo, SessionID: tt.session})
			m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
			if got := strings.Contains(m.View(), "create a file named hello.txt with hello world"); got != tt.want {
				t.Fatalf("welcome shown = %v, want %v:\n%s", got, tt.want, m.View())
			}
		})
	}
}

func TestApprovalScreenGolden(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			srv := clienttest.New(t, clienttest.Pending("s_1",
				clienttest.Call("web_search", `{"query":"latest AI","max_results":5}`, "call_1"),
				clienttest.Call("write_file", `{"path":"notes/today.txt","content":"a line long enough to be cut at eighty columns, with a hidden\u200b space and \u001b[2J"}`, "call_2")))
			m := newTestModel(t, srv, size[0], size[1])
			send(t, m, "search and note")
			press(t, m, "y")
			// The port changes per run; ephemeral ports have five digits, so widths stay.
			view := portDigits.ReplaceAllStringFunc(m.View(), func(s string) string {
				return "127.0.0.1:" + strings.Repeat("9", len(s)-len("127.0.0.1:"))
			})
			golden.RequireEqual(t, []byte(view))
		})
	}
}

// Every screen fits the terminal after a resize, in every mode.
func TestViewFitsTheTerminal(t *testing.T) {
	srv := clienttest.New(t, twoCalls(), final())
	m := newTestModel(t, srv, 120, 40)
	send(t, m, strings.Repeat("a long message ", 30))
	check := func(name string, w, h int) {
		t.Helper()
		m.Update(tea.WindowSizeMsg{Width: w, Height: h})
		lines := strings.Split(m.View(), "\n")
		if len(lines) > h {
			t.Errorf("%s at %dx%d: %d lines", name, w, h, len(lines))
		}
		for _, l := range lines {
			if ansi.StringWidth(l) > w {
				t.Errorf("%s at %dx%d: line %q is %d wide", name, w, h, l, ansi.StringWidth(l))
			}
		}
	}
	for _, sz := range [][2]int{{80, 24}, {60, 20}, {120, 40}} {
		check("approval", sz[0], sz[1])
	}
	press(t, m, "y", "y")
	for _, sz := range [][2]int{{80, 24}, {60, 20}, {120, 40}} {
		check("chat", sz[0], sz[1])
	}
}

func TestColourFollowsTheRendererProfile(t *testing.T) {
	tests := []struct {
		name    string
		profile termenv.Profile
		colour  bool
	}{
		{"NO_COLOR gives Ascii: no escape codes", termenv.Ascii, false},
		{"a 256-colour terminal gets colour", termenv.ANSI256, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := clienttest.New(t, twoCalls())
			m := newTestModelProfile(t, srv, 80, 24, tt.profile)
			send(t, m, "go")
			if got := strings.Contains(m.View(), "\x1b["); got != tt.colour {
				t.Fatalf("escape codes present = %v, want %v:\n%q", got, tt.colour, m.View())
			}
		})
	}
}

// TestNoColorEnvSelectsAscii checks the chain the program relies on: a renderer made
// for a terminal while NO_COLOR is set has the Ascii profile.
func TestNoColorEnvSelectsAscii(t *testing.T) {
	tests := []struct {
		name    string
		noColor string
		want    termenv.Profile
	}{
		{"NO_COLOR set", "1", termenv.Ascii},
		{"NO_COLOR unset", "", termenv.ANSI256},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("NO_COLOR", tt.noColor)
			t.Setenv("TERM", "xterm-256color")
			t.Setenv("COLORTERM", "")
			t.Setenv("CLICOLOR", "")
			r := lipgloss.NewRenderer(nil, termenv.WithTTY(true))
			if p := r.ColorProfile(); p != tt.want {
				t.Fatalf("profile = %v, want %v", p, tt.want)
			}
		})
	}
}

func TestScrollKeysAndWheel(t *testing.T) {
	m := historyModel(60)
	bottom := m.vp.YOffset
	if bottom == 0 || !m.vp.AtBottom() {
		t.Fatalf("long history not pinned to the bottom: offset %d", bottom)
	}
	m.Update(keyMsg("pgup"))
	if m.vp.YOffset >= bottom {
		t.Fatalf("PgUp did not scroll: offset %d", m.vp.YOffset)
	}
	m.Update(tea.KeyMsg{Type: tea.KeyPgDown})
	if m.vp.YOffset != bottom {
		t.Fatalf("PgDn did not come back: offset %d, want %d", m.vp.YOffset, bottom)
	}
	m.Update(tea.MouseMsg{Button: tea.MouseButtonWheelUp, Action: tea.MouseActionPress})
	if m.vp.YOffset >= bottom {
		t.Fatalf("wheel up did not scroll: offset %d", m.vp.YOffset)
	}
	// A new message while scrolled up keeps the reader's place.
	at := m.vp.YOffset
	m.conv.add(entry{kind: kindNote, text: "new"})
	m.refresh()
	if m.vp.YOffset != at {
		t.Fatalf("a new entry moved a scrolled-up view from %d to %d", at, m.vp.YOffset)
	}
}

func TestBusyLineShowsElapsedSeconds(t *testing.T) {
	srv := clienttest.New(t)
	m := newTestModel(t, srv, 80, 24)
	now := epoch
	m.now = func() time.Time { return now }
	m.busy, m.started = true, now
	now = epoch.Add(7 * time.Second)
	if !strings.Contains(m.View(), "working… 7s") {
		t.Fatalf("no elapsed seconds while busy:\n%s", m.View())
	}
	typeText(t, m, "more")
	press(t, m, "enter")
	if len(srv.Chats()) != 0 || !strings.Contains(m.status, "still working") {
		t.Fatalf("a message was sent while busy; status %q", m.status)
	}
}

func TestSessionFlagResumesAtStart(t *testing.T) {
	srv := clienttest.New(t)
	srv.Details["s_7"] = api.SessionDetail{SessionID: "s_7", Messages: []api.Message{{Role: "user", Content: "earlier question"}, {Role: "assistant", Content: "earlier answer"}}}
	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(termenv.Ascii)
	m := New(Options{Client: client.New(srv.URL, clienttest.Token, nil), SessionID: "s_7", Renderer: r})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	drive(t, m, m.Init())
	v := m.View()
	if !strings.Contains(v, "earlier question") || !strings.Contains(v, "earlier answer") || !strings.Contains(v, "session s_7") {
		t.Fatalf("session not resumed:\n%s", v)
	}
}

func TestLongSessionsRenderOnlyTheNewestWindow(t *testing.T) {
	m := historyModel(2*window + 50)
	if m.conv.entries[0].cached != "" || m.conv.entries[len(m.conv.entries)-1].cached == "" {
		t.Fatal("rendering did not start from the newest entries only")
	}
	m.vp.GotoTop()
	top := m.vp.View()
	if !strings.Contains(top, "↑ 250 earlier messages") {
		t.Fatalf("no marker for the older messages:\n%s", top)
	}
	firstShown := ""
	for _, l := range strings.Split(ansi.Strip(top), "\n") {
		if strings.Contains(l, "question") {
			firstShown = strings.TrimSpace(l)
			break
		}
	}
	m.Update(keyMsg("pgup"))
	if m.conv.hidden() != 50 || m.conv.entries[60].cached == "" {
		t.Fatalf("PgUp at the top did not bring in older entries: %d hidden", m.conv.hidden())
	}
	// The reader's place stays: the old first line is now below the new top.
	if m.vp.AtTop() && strings.Contains(m.vp.View(), "↑ 50 earlier") {
		t.Fatalf("view jumped to the new top instead of keeping its place")
	}
	m.vp.GotoTop()
	m.Update(tea.MouseMsg{Button: tea.MouseButtonWheelUp, Action: tea.MouseActionPress})
	if m.conv.hidden() != 0 || m.conv.entries[0].cached == "" {
		t.Fatalf("wheel at the top did not bring in the rest: %d hidden", m.conv.hidden())
	}
	if firstShown == "" || !strings.Contains(m.conv.render(m.width), firstShown) {
		t.Fatalf("lost entry %q", firstShown)
	}
}

// TestBurstOfTextIsNeverAKey: text typed fast or pasted arrives as one KeyRunes
// message whose String() is the text, so words that name keys must still be text.
func TestBurstOfTextIsNeverAKey(t *testing.T) {
	srv := clienttest.New(t, final())
	m := newTestModel(t, srv, 80, 24)
	for _, burst := range []string{"please ", "delete", " it, ", "enter", " and ", "pgup", " now"} {
		m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(burst)})
	}
	if got := m.input.Value(); got != "please delete it, enter and pgup now" {
		t.Fatalf("input = %q", got)
	}
	if len(srv.Chats()) != 0 {
		t.Fatal("the word enter sent the message")
	}
}

// A notice belongs to the command that caused it: the next command clears it.
func TestStatusNoticeClearsOnTheNextCommand(t *testing.T) {
	srv := clienttest.New(t)
	m := newTestModel(t, srv, 80, 24)
	send(t, m, "/bogus")
	if !strings.Contains(m.View(), "unknown command /bogus") {
		t.Fatalf("no notice:\n%s", m.View())
	}
	send(t, m, "/help")
	if m.status != "" || strings.Contains(m.View(), "unknown command") {
		t.Fatalf("stale notice %q after /help", m.status)
	}
}

// Switching sessions while a turn runs would drop its answer into the other session.
func TestSessionSwitchWaitsForTheRunningTurn(t *testing.T) {
	for _, cmd := range []string{"/sessions", "/resume s_7", "/new"} {
		t.Run(cmd, func(t *testing.T) {
			srv := clienttest.New(t)
			srv.Sessions = []api.SessionSummary{{SessionID: "s_7", UpdatedAt: epoch}}
			srv.Details["s_7"] = api.SessionDetail{SessionID: "s_7"}
			m := newTestModel(t, srv, 80, 24)
			m.sessionID, m.busy = "s_1", true
			send(t, m, cmd)
			if m.sessionID != "s_1" || m.mode != modeChat || !strings.Contains(m.status, "wait for the running turn") {
				t.Fatalf("%s while busy: session %q mode %d status %q", cmd, m.sessionID, m.mode, m.status)
			}
		})
	}
}

// After decisions fail to arrive, the user learns the calls may still wait.
func TestUnreachableAfterDecisionsPointsToResume(t *testing.T) {
	srv := clienttest.New(t, twoCalls())
	m := newTestModel(t, srv, 80, 24)
	send(t, m, "go")
	srv.Close()
	press(t, m, "a")
	if conv := strings.ReplaceAll(m.conv.render(m.width), "\n", " "); !strings.Contains(conv, "/resume s_1 shows the calls that still wait") {
		t.Fatalf("no hint to resume:\n%s", conv)
	}
}

// Text from the server (answers, validation issues, errors, ids) is read, not run:
// escape sequences and bidi controls in it reach the screen escaped, in every profile.
func TestServerTextCannotDriveTheTerminal(t *testing.T) {
	evil := "done\x1b[2J\x1b]0;pwned\x07 see \u202etxt.exe"
	for _, p := range []termenv.Profile{termenv.Ascii, termenv.ANSI256} {
		t.Run(p.Name(), func(t *testing.T) {
			ans := clienttest.Final("s_1"+evil, evil,
				api.ToolUse{ToolName: "read_file", Arguments: json.RawMessage(`{"path":"a"}`), Status: "error", Error: evil})
			ans.Validation = api.Validation{Valid: false, Issues: []string{evil}}
			srv := clienttest.New(t, ans)
			srv.Model = "m" + evil
			srv.Traces[ans.TraceID] = api.Trace{TraceID: ans.TraceID, Calls: []api.TraceCall{{CallID: "k1", Kind: api.CallTool, ToolName: "read_file", Error: evil}}}
			m := newTestModelProfile(t, srv, 120, 40, p)
			send(t, m, "hi")
			send(t, m, "/trace")
			m.addError(errors.New(evil))
			m.status = evil
			v := m.View() + m.conv.render(m.width)
			for _, bad := range []string{"\x1b[2J", "\x1b]0;", "\x07", "\u202e"} {
				if strings.Contains(v, bad) {
					t.Errorf("screen holds raw %q", bad)
				}
			}
			if !strings.Contains(ansi.Strip(v), `\x1b[2J`) || !strings.Contains(ansi.Strip(v), `\u202etxt.exe`) {
				t.Errorf("the escapes are not shown as text:\n%s", ansi.Strip(v))
			}
		})
	}
}

// The tool line keeps its execution id whole at 80 columns: the arguments give way.
func TestToolLineKeepsTheExecutionID(t *testing.T) {
	id := "write_file_1795309180504_18544cab"
	tests := []struct {
		name  string
		use   api.ToolUse
		width int
		want  []string
	}{
		{"long arguments at 80: the path first and whole", api.ToolUse{ToolName: "write_file", Arguments: json.RawMessage(`{"content":"` + strings.Repeat("long ", 30) + `","path":"a.txt"}`), ExecutionID: id, Status: "ok", DurationMS: 3}, 80,
			[]string{`  ✓ write_file path=a.txt, content="l…`, " · 3ms · " + id}},
		{"content before a long path: the path whole", api.ToolUse{ToolName: "write_file", Arguments: json.RawMessage(`{"content":"hello there, people","path":"notes/2026/november/meeting-minutes-final.txt"}`), ExecutionID: id, Status: "ok", DurationMS: 1}, 80,
			[]string{`  ✓ write_file path=notes/2026/november/meeting-minutes-final.txt, content=`, "1ms · " + id}},
		{"a path wider than the line is wrapped, not cut", api.ToolUse{ToolName: "write_file", Arguments: json.RawMessage(`{"content":"x","path":"` + strings.Repeat("deep/", 20) + `end.txt"}`), ExecutionID: id, Status: "ok", DurationMS: 1}, 80,
			[]string{"deep/end.txt"}},
		{"short arguments whole", api.ToolUse{ToolName: "list_directory", Arguments: json.RawMessage(`{"path":"."}`), ExecutionID: id, Status: "ok", DurationMS: 12}, 80,
			[]string{"  ✓ list_directory path=. · 12ms · " + id}},
		{"denied has no id", api.ToolUse{ToolName: "delete_file", Arguments: json.RawMessage(`{"path":"b"}`), Status: "denied"}, 80,
			[]string{"  ⊘ delete_file path=b · denied"}},
		{"error is cut at the end", api.ToolUse{ToolName: "read_file", Arguments: json.RawMessage(`{"path":"b"}`), ExecutionID: id, Status: "error", Error: strings.Repeat("no such file ", 10)}, 80,
			[]string{"  ✗ read_file path=b · 0ms · " + id + " · error: no such", "…"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := toolLine(tt.use, tt.width)
			for _, l := range strings.Split(got, "\n") {
				if w := ansi.StringWidth(l); w > tt.width {
					t.Errorf("line is %d cells, wider than %d: %q", w, tt.width, l)
				}
			}
			for _, want := range tt.want {
				if !strings.Contains(strings.ReplaceAll(got, "\n", ""), want) {
					t.Errorf("line %q lacks %q", got, want)
				}
			}
		})
	}
}

// Under each answer: one compact line per tool run, then the validation state.
func TestAnswerFooter(t *testing.T) {
	id := "web_search_1763769600123_9f86d081"
	tests := []struct {
		name       string
		validation api.Validation
		want       []string
		absent     string
	}{
		{"verified", api.Validation{Valid: true, Issues: []string{}},
			[]string{"  ✓ web_search query=go · 812ms · " + id + "\n  ⊘ delete_file path=a.txt · denied\n  verified"}, "unverified"},
		{"unverified with its issues", api.Validation{Valid: false, Issues: []string{"web_search_1_deadbeef does not exist in this session", "announced read_webpage without calling it"}},
			[]string{"  ✓ web_search query=go · 812ms · " + id, "  ⚠ unverified: web_search_1_deadbeef does not exist in this session; announced", "\n  read_webpage without calling it"}, "  verified"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ans := clienttest.Final("s_1", "The answer.",
				api.ToolUse{ToolName: "web_search", Arguments: json.RawMessage(`{"query":"go"}`), ExecutionID: id, Status: "ok", DurationMS: 812},
				api.ToolUse{ToolName: "delete_file", Arguments: json.RawMessage(`{"path":"a.txt"}`), Status: "denied"})
			ans.Validation = tt.validation
			m := newTestModel(t, clienttest.New(t, ans), 80, 24)
			send(t, m, "hi")
			conv := m.conv.render(m.width)
			for _, w := range tt.want {
				if !strings.Contains(conv, w) {
					t.Errorf("conversation lacks %q:\n%s", w, conv)
				}
			}
			if strings.Contains(conv, tt.absent) {
				t.Errorf("conversation shows %q:\n%s", tt.absent, conv)
			}
		})
	}
}

// At 80 columns the help line of every mode fits whole, so ctrl+c is never cut off.
func TestHelpLineFitsEightyColumns(t *testing.T) {
	for _, md := range []struct {
		name string
		mode mode
		busy bool
	}{{"chat", modeChat, false}, {"chat while a turn runs", modeChat, true}, {"approval", modeApproval, false}, {"reason", modeReason, false}, {"args", modeArgs, false}, {"picker", modePicker, false}, {"question", modeConfirm, false}, {"grants", modeGrants, false}, {"undo", modeUndo, false}, {"undo conflict", modeUndoForce, false}} {
		t.Run(md.name, func(t *testing.T) {
			m := newTestModel(t, clienttest.New(t), 80, 24)
			// A call that takes s and r: the widest help of the approval screen.
			b := client.NewBatch(writes(1))
			line := m.help.View(m.keys.forMode(md.mode, md.busy, b))
			if w := ansi.StringWidth(line); w > 80 || !strings.HasSuffix(line, "ctrl+c quit") {
				t.Fatalf("help line (%d cells) is cut: %q", w, line)
			}
		})
	}
}

// Quitting with calls waiting or a turn running says how to come back to them.
func TestLeftoverOnQuit(t *testing.T) {
	tests := []struct {
		name  string
		setup func(m *Model)
		want  string
	}{
		{"nothing left", func(m *Model) { m.sessionID = "s_1" }, ""},
		{"new session", func(m *Model) {}, ""},
		{"calls waiting", func(m *Model) { m.sessionID, m.batch = "s_1", client.NewBatch(twoCalls()) },
			"session s_1 still waits for your approval decisions; ai-client --session s_1 picks them up"},
		{"calls waiting under --demo", func(m *Model) { m.sessionID, m.demo, m.batch = "s_1", true, client.NewBatch(twoCalls()) },
			"session s_1 still waits for your approval decisions; ai-client --demo --session s_1 picks them up"},
		{"turn running", func(m *Model) { m.sessionID, m.busy = "s_1", true },
			"session s_1: the running turn was cancelled as ai-client closed; ai-client --session s_1 shows where it stopped"},
		{"turn running under --demo stops with it", func(m *Model) { m.sessionID, m.busy, m.demo = "s_1", true, true }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(Options{Client: client.New("http://127.0.0.1:1", "", nil)})
			tt.setup(m)
			if got := m.Leftover(); got != tt.want {
				t.Fatalf("Leftover() = %q, want %q", got, tt.want)
			}
		})
	}
}

// On a screen too small for the whole batch the row being decided stays in view.
func TestSmallScreenKeepsTheCurrentRow(t *testing.T) {
	four := clienttest.Pending("s_1",
		clienttest.Call("write_file", `{"path":"a.txt","content":"1"}`, "c1"),
		clienttest.Call("write_file", `{"path":"b.txt","content":"2"}`, "c2"),
		clienttest.Call("write_file", `{"path":"c.txt","content":"3"}`, "c3"),
		clienttest.Call("delete_file", `{"path":"x.txt"}`, "c4"))
	tests := []struct {
		name    string
		decided int
		want    string
	}{
		{"first", 0, `│ ▸ write_file  │ {"path":"a.txt","content":"1"}`},
		{"last", 3, `│ ▸ delete_file │ {"path":"x.txt"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newTestModel(t, clienttest.New(t, four), 60, 12)
			send(t, m, "go")
			for range tt.decided {
				press(t, m, "y")
			}
			v := m.View()
			if !strings.Contains(v, tt.want) {
				t.Fatalf("current row not in view:\n%s", v)
			}
			if n := strings.Count(v, "\n") + 1; n != 12 {
				t.Fatalf("view is %d lines, want 12:\n%s", n, v)
			}
		})
	}
}

// Without colour, markdown emphasis is plain text: no markers, and words with _ whole.
func TestPlainMarkdownKeepsWordsWhole(t *testing.T) {
	tests := []struct{ name, in, want, absent string }{
		{"strong with underscore", "- **write_file**: wrote `a.txt`", "• write_file: wrote a.txt", "**"},
		{"emphasis", "an *important* note", "an important note", "*"},
		{"strikethrough", "~~old~~ new", "old new", "~~"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := newMarkdown(termenv.Ascii).render(tt.in, 80)
			if !strings.Contains(got, tt.want) || strings.Contains(got, tt.absent) || strings.Contains(got, "\x1b") {
				t.Fatalf("render(%q) = %q, want %q without %q or escapes", tt.in, got, tt.want, tt.absent)
			}
		})
	}
}
