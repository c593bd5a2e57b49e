package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client/clienttest"
)

// writes is a batch of n write_file calls in one folder, each offering the
// folder's grant, with ids c0, c1, ...
func writes(n int) api.TurnReply {
	var calls []api.PendingTool
	for i := range n {
		calls = append(calls, offering(clienttest.Call("write_file", fmt.Sprintf(`{"path":"notes/f%02d.txt","content":"line %d"}`, i, i), fmt.Sprint("c", i))))
	}
	return clienttest.Pending("s_1", calls...)
}

func offering(p api.PendingTool) api.PendingTool {
	p.Grant = clienttest.Offer(p.ToolName, "notes/*", "write files in notes/ for this session")
	return p
}

// overwriteCall is write_file onto an existing file, with the server's preview.
func overwriteCall() api.PendingTool {
	p := clienttest.Call("write_file", `{"path":"notes.txt","content":"one\ntwo\nthree\nfour\n"}`, "c1")
	p.Preview = &api.Preview{Kind: api.PreviewOverwrite, Path: "notes.txt", Size: 8, Added: 3, Removed: 1,
		Diff:    "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,4 @@\n one\n-old\n+two\n+three\n+four\n",
		Summary: "overwrites notes.txt (+3 −1)"}
	p.Grant = clienttest.Offer("write_file", "*", "write files in the workspace's top folder for this session")
	return p
}

func plain(m *Model) string { return ansi.Strip(m.View()) }

// The approval screen keeps the request and the conversation before it in view,
// and PgUp/PgDn scroll that conversation while the table stays.
func TestApprovalKeepsTheConversationInView(t *testing.T) {
	srv := clienttest.New(t, twoCalls(), final())
	m := newTestModel(t, srv, 80, 24)
	for i := range 12 {
		m.conv.add(entry{kind: kindNote, text: fmt.Sprintf("earlier note %d", i)})
	}
	m.refresh()
	send(t, m, "search for latest AI and write a.txt")
	v := plain(m)
	if m.mode != modeApproval || !strings.Contains(v, "You") || !strings.Contains(v, "search for latest AI and write a.txt") || !strings.Contains(v, "Tool Approval Required") {
		t.Fatalf("the request is not above the table:\n%s", v)
	}
	if n := strings.Count(m.View(), "\n") + 1; n != 24 {
		t.Fatalf("view is %d lines, want 24", n)
	}
	at := m.vp.YOffset
	press(t, m, "pgup")
	if m.vp.YOffset >= at || m.mode != modeApproval || !strings.Contains(plain(m), "earlier note") {
		t.Fatalf("PgUp did not scroll the conversation (offset %d, was %d):\n%s", m.vp.YOffset, at, plain(m))
	}
	if strings.Contains(plain(m), "new messages below") { // scrolling up adds nothing below
		t.Fatalf("notice of new messages after a plain scroll:\n%s", plain(m))
	}
	press(t, m, "end")
	if !m.vp.AtBottom() || m.batch.Current() != 0 {
		t.Fatalf("End did not bring the conversation back, or it decided a call (current %d)", m.batch.Current())
	}
}

// In a chained approval the runs of the first batch stay above the second table,
// each with its mark, and the decision lines of the first batch too.
func TestChainedApprovalShowsTheRunsSoFar(t *testing.T) {
	ran := api.ToolUse{ToolName: "web_search", Arguments: json.RawMessage(`{"query":"latest AI","max_results":5}`), ToolCallID: "c1",
		ExecutionID: "web_search_1763769600123_9f86d081", Status: "ok", DurationMS: 812, Decision: api.DecisionUser}
	srv := clienttest.New(t, twoCalls(), clienttest.Pending("s_1", clienttest.Call("delete_file", `{"path":"old.txt"}`, "c3")), final())
	srv.Stream(clienttest.Event(api.EventToolCall, api.ToolCallEvent{ToolCallID: "c1", ToolName: "web_search", NeedsApproval: true}))
	srv.Stream(clienttest.Running("web_search", `{"query":"latest AI"}`, "c1"), clienttest.Ran(ran),
		clienttest.Ran(api.ToolUse{ToolName: "write_file", Arguments: json.RawMessage(`{"path":"a.txt","content":"hi"}`), ToolCallID: "c2", Status: "denied"}))
	m := newTestModel(t, srv, 100, 30)
	send(t, m, "search then clean up")
	press(t, m, "y", "n", "enter")
	v := plain(m)
	for _, want := range []string{"search then clean up", "✓ approved web_search(query=latest AI, max_results=5)", "⊘ denied write_file(path=a.txt, content=hi)",
		"✓ web_search query=latest AI, max_results=5 · 812ms · web_search_1763769600123_9f86d081", "⊘ write_file path=a.txt, content=hi · denied", "Approve delete_file(path=old.txt)"} {
		if !strings.Contains(v, want) {
			t.Errorf("second approval screen lacks %q", want)
		}
	}
	if t.Failed() {
		t.Fatalf("screen:\n%s", v)
	}
	press(t, m, "y")
	// The final answer lists every run of the turn; the carried ones are not shown twice.
	if conv := plain(m); strings.Count(conv, "web_search_1763769600123_9f86d081") != 1 || len(m.carry) != 0 {
		t.Fatalf("runs shown %d times after the answer:\n%s", strings.Count(conv, "web_search_1763769600123_9f86d081"), conv)
	}
}

// Each answered row of the table gets its mark as soon as it is answered.
func TestAnsweredRowsShowTheirMarkAtOnce(t *testing.T) {
	srv := clienttest.New(t, clienttest.Pending("s_1",
		clienttest.Call("web_search", `{"query":"go"}`, "c1"),
		clienttest.Call("write_file", `{"path":"a.txt","content":"hi"}`, "c2"),
		clienttest.Call("delete_file", `{"path":"b.txt"}`, "c3")))
	m := newTestModel(t, srv, 80, 24)
	send(t, m, "go")
	press(t, m, "y", "n", "enter")
	v := plain(m)
	for _, want := range []string{"│ ✓ web_search  │", "│ ⊘ write_file  │", "│ ▸ delete_file │", "(3 of 3)"} {
		if !strings.Contains(v, want) {
			t.Errorf("table lacks %q", want)
		}
	}
	if t.Failed() {
		t.Fatalf("screen:\n%s", v)
	}
}

// A batch taller than the screen scrolls within the table: every row comes into
// view, the lines about rows out of view are true, and the arrows scroll it.
func TestApprovalTableScrolls(t *testing.T) {
	srv := clienttest.New(t, writes(18))
	m := newTestModel(t, srv, 80, 24)
	send(t, m, "write them all")
	seen := map[string]bool{}
	look := func() {
		v := plain(m)
		for i := range 18 {
			if strings.Contains(v, fmt.Sprintf("f%02d.txt", i)) {
				seen[fmt.Sprint(i)] = true
			}
		}
		l := m.approvalLayout().table
		if l.Last < 18 && !strings.Contains(v, fmt.Sprintf("↓ %d more rows below", 18-l.Last)) {
			t.Fatalf("rows %d..%d shown without a true count below:\n%s", l.First, l.Last, v)
		}
		if strings.Contains(v, "asked one by one") {
			t.Fatalf("the old note is back:\n%s", v)
		}
		if n := strings.Count(m.View(), "\n") + 1; n != 24 {
			t.Fatalf("view is %d lines:\n%s", n, v)
		}
	}
	look()
	if len(seen) == 18 {
		t.Fatal("all 18 rows fit at 80x24: the test does not scroll")
	}
	press(t, m, "down", "down", "down")
	if m.approvalLayout().table.First == 0 || m.batch.Current() != 0 {
		t.Fatalf("↓ did not scroll the table, or it decided a call")
	}
	look()
	press(t, m, "up", "up", "up")
	for range 17 {
		press(t, m, "y")
		look()
	}
	if len(seen) != 18 {
		t.Fatalf("rows never shown: %d of 18 seen", len(seen))
	}
	if v := plain(m); !strings.Contains(v, "↑ ") || !strings.Contains(v, "✓ write_file") {
		t.Fatalf("the last row's view shows no rows above or no marks:\n%s", v)
	}
}

// a and d decide every remaining row: when some are out of view they say how many
// and ask first.
func TestApproveAndDenyAllAskWhenRowsAreOutOfView(t *testing.T) {
	t.Run("a", func(t *testing.T) {
		srv := clienttest.New(t, writes(18), clienttest.Final("s_1", "done"))
		m := newTestModel(t, srv, 80, 24)
		send(t, m, "write them")
		press(t, m, "y", "a")
		if m.mode != modeConfirm || !strings.Contains(plain(m), "Approve all 17 remaining calls? [y/n]") {
			t.Fatalf("a did not ask:\n%s", plain(m))
		}
		press(t, m, "n")
		if m.mode != modeApproval || m.batch.Current() != 1 {
			t.Fatalf("n did not go back undecided: mode %d current %d", m.mode, m.batch.Current())
		}
		press(t, m, "a", "y")
		a := srv.Approvals()
		if len(a) != 1 || len(a[0].Decisions) != 18 || !a[0].Decisions[17].Approved {
			t.Fatalf("approvals = %+v", a)
		}
	})
	t.Run("d", func(t *testing.T) {
		srv := clienttest.New(t, writes(18), clienttest.Final("s_1", "done"))
		m := newTestModel(t, srv, 80, 24)
		send(t, m, "write them")
		press(t, m, "d")
		if !strings.Contains(plain(m), "Deny all 18 remaining calls? [y/n]") {
			t.Fatalf("d did not ask:\n%s", plain(m))
		}
		press(t, m, "y")
		if m.mode != modeReason || !strings.Contains(plain(m), "Denying 18 calls. Reason for the model") {
			t.Fatalf("no reason asked after the confirmation:\n%s", plain(m))
		}
		typeText(t, m, "not in notes")
		press(t, m, "enter")
		a := srv.Approvals()
		if len(a) != 1 || len(a[0].Decisions) != 18 || a[0].Decisions[5].Approved || a[0].Decisions[5].Feedback != "not in notes" {
			t.Fatalf("approvals = %+v", a)
		}
	})
	t.Run("all rows in view: no question", func(t *testing.T) {
		srv := clienttest.New(t, writes(2), clienttest.Final("s_1", "done"))
		m := newTestModel(t, srv, 80, 24)
		send(t, m, "write them")
		press(t, m, "a")
		if a := srv.Approvals(); len(a) != 1 {
			t.Fatalf("a with every row in view asked first: mode %d\n%s", m.mode, plain(m))
		}
	})
}

// s shows the grant's pattern and label, asks, and approves with scope session;
// later calls of the batch with the same offer are approved with it.
func TestSessionGrant(t *testing.T) {
	del := clienttest.Call("delete_file", `{"path":"old.txt"}`, "c2")
	del.NoGrant = "delete_file never takes a grant: each such call asks"
	batch := clienttest.Pending("s_1",
		offering(clienttest.Call("write_file", `{"path":"notes/a.txt","content":"x"}`, "c1")),
		del,
		offering(clienttest.Call("write_file", `{"path":"notes/b.txt","content":"y"}`, "c3")))
	srv := clienttest.New(t, batch, clienttest.Final("s_1", "done"))
	m := newTestModel(t, srv, 100, 30)
	send(t, m, "write and delete")
	press(t, m, "s")
	v := plain(m)
	for _, want := range []string{"Session grant: write files in notes/ for this session", "Later write_file calls matching notes/* run without asking",
		"It also approves 1 more call of this batch", "Approve write_file(path=notes/a.txt, content=x) and grant this? [y/n] (n)"} {
		if !strings.Contains(v, want) {
			t.Errorf("grant question lacks %q", want)
		}
	}
	if t.Failed() {
		t.Fatalf("screen:\n%s", v)
	}
	press(t, m, "esc")
	if m.mode != modeApproval || m.batch.Current() != 0 {
		t.Fatal("Esc did not go back undecided")
	}
	press(t, m, "s", "y")
	if m.batch.Current() != 1 || !strings.Contains(plain(m), "│ ✓ write_file  │") {
		t.Fatalf("the granted row is not marked:\n%s", plain(m))
	}
	press(t, m, "s") // delete_file: the server offers no grant, and says why
	if m.mode != modeApproval || m.batch.Current() != 1 || !strings.Contains(plain(m), "delete_file never takes a grant: each such call asks; y approves this one") {
		t.Fatalf("s on delete_file:\n%s", plain(m))
	}
	press(t, m, "y") // c3 is covered by the grant of c1: nothing more is asked
	a := srv.Approvals()
	want := []api.Decision{{ToolCallID: "c1", Approved: true, Scope: api.ScopeSession}, {ToolCallID: "c2", Approved: true}, {ToolCallID: "c3", Approved: true}}
	if len(a) != 1 || fmt.Sprint(a[0].Decisions) != fmt.Sprint(want) {
		t.Fatalf("approvals = %+v, want %+v", a, want)
	}
	if g := srv.Grants("s_1"); len(g) != 1 || g[0].Pattern != "notes/*" {
		t.Fatalf("grants stored = %+v", g)
	}
	if !strings.Contains(m.conv.render(m.width), "Granted for this session: write files in notes/ for this session (write_file notes/*)") {
		t.Fatalf("conversation does not say what was granted:\n%s", m.conv.render(m.width))
	}
}

// /grants lists the session's grants and revokes the one picked after a y;
// /grants revoke ID revokes at once.
func TestGrantsCommand(t *testing.T) {
	srv := clienttest.New(t)
	m := newTestModel(t, srv, 100, 30)
	send(t, m, "/grants")
	if !strings.Contains(m.status, "no session yet") {
		t.Fatalf("/grants without a session: status %q", m.status)
	}
	m.sessionID = "s_1"
	send(t, m, "/grants")
	if !strings.Contains(m.conv.render(m.width), "No session grants in this session") {
		t.Fatal("/grants with none says nothing")
	}
	srv.AddGrant("s_1", api.SessionGrant{GrantID: "g_1", ToolName: "write_file", Pattern: "notes/*", CreatedAt: clienttest.GrantTime})
	srv.AddGrant("s_1", api.SessionGrant{GrantID: "g_2", ToolName: "read_webpage", Pattern: "go.dev", CreatedAt: clienttest.GrantTime})
	srv.AddGrant("s_1", api.SessionGrant{GrantID: "g_3", ToolName: "web_search", Pattern: "*", CreatedAt: clienttest.GrantTime})
	send(t, m, "/grants")
	v := plain(m)
	if m.mode != modeGrants || !strings.Contains(v, "g_1") || !strings.Contains(v, "write_file") || !strings.Contains(v, "notes/*") ||
		!strings.Contains(v, clienttest.GrantTime.Local().Format("2006-01-02 15:04")) || !strings.Contains(v, "go.dev") {
		t.Fatalf("grant list:\n%s", v)
	}
	press(t, m, "down", "enter")
	if m.mode != modeConfirm || !strings.Contains(plain(m), "Revoking g_2: later read_webpage calls matching go.dev will be asked again") {
		t.Fatalf("no confirmation:\n%s", plain(m))
	}
	press(t, m, "n")
	if m.mode != modeGrants || len(srv.Grants("s_1")) != 3 {
		t.Fatalf("n revoked or left the list: mode %d", m.mode)
	}
	press(t, m, "enter", "y")
	if g := srv.Grants("s_1"); len(g) != 2 || g[1].GrantID != "g_3" || m.mode != modeChat {
		t.Fatalf("grants after revoke = %+v, mode %d", g, m.mode)
	}
	if !strings.Contains(m.conv.render(m.width), "Revoked grant g_2 (read_webpage go.dev): such calls are asked again.") {
		t.Fatalf("no note of the revoke:\n%s", m.conv.render(m.width))
	}
	send(t, m, "/grants revoke g_1")
	if g := srv.Grants("s_1"); len(g) != 1 || !strings.Contains(m.conv.render(m.width), "Revoked grant g_1") {
		t.Fatalf("/grants revoke g_1: grants %+v", g)
	}
	send(t, m, "/grants revoke g_9")
	if !strings.Contains(m.conv.render(m.width), "this session has no grant g_9; /grants lists the ones it has") {
		t.Fatalf("unknown grant:\n%s", m.conv.render(m.width))
	}
}

// The table says what an overwrite changes; ? shows the diff, coloured unless NO_COLOR.
func TestOverwritePreviewAndDiff(t *testing.T) {
	for _, p := range []termenv.Profile{termenv.Ascii, termenv.ANSI256} {
		t.Run(p.Name(), func(t *testing.T) {
			srv := clienttest.New(t, clienttest.Pending("s_1", overwriteCall()))
			m := newTestModelProfile(t, srv, 80, 24, p)
			send(t, m, "rewrite notes")
			if !strings.Contains(plain(m), "⚠ overwrites notes.txt (+3 −1) · ? shows the diff") {
				t.Fatalf("table has no preview:\n%s", plain(m))
			}
			press(t, m, "?")
			v := m.View()
			for _, want := range []string{"--- a/notes.txt", "@@ -1,2 +1,4 @@", "-old", "+three"} {
				if !strings.Contains(ansi.Strip(v), want) {
					t.Errorf("details lack %q", want)
				}
			}
			coloured := false
			for _, l := range strings.Split(v, "\n") {
				if strings.Contains(l, "+three") && strings.Contains(l, "\x1b[") {
					coloured = true
				}
			}
			if coloured != (p != termenv.Ascii) {
				t.Errorf("+ line coloured = %v in profile %s", coloured, p.Name())
			}
			if t.Failed() {
				t.Fatalf("screen:\n%q", v)
			}
		})
	}
}

// A denied call's line in the conversation names it with short arguments, not
// its whole content.
func TestDeniedCallShowsShortArguments(t *testing.T) {
	words := strings.TrimSpace(strings.Repeat("word ", 60))
	srv := clienttest.New(t, clienttest.Pending("s_1", clienttest.Call("write_file", `{"path":"a.txt","content":"`+words+`"}`, "c1")), clienttest.Final("s_1", "ok"))
	m := newTestModel(t, srv, 80, 24)
	send(t, m, "write")
	press(t, m, "n", "enter")
	var line string
	for _, e := range m.conv.entries {
		if e.kind == kindDecision {
			line = e.text
		}
	}
	if strings.Contains(line, "\n") || strings.Count(line, "word") > 15 || !strings.HasPrefix(line, "⊘ denied write_file(path=a.txt, content=") {
		t.Fatalf("decision line = %q", line)
	}
}

// The notice that the model still works goes once its answer is in.
func TestBusyNoticeGoesWithTheAnswer(t *testing.T) {
	g := newGates(t, 1)
	srv := clienttest.New(t, clienttest.Final("s_1", "the answer"))
	srv.Stream(clienttest.Round(1), g.at(0), clienttest.Text("the answer"))
	m := newTestModel(t, srv, 80, 24)
	r := newProgram(t, m)
	r.send("first")
	r.until("the turn to start", func() bool { return m.busy })
	r.send("second")
	if !strings.Contains(plain(m), "still working") {
		t.Fatalf("no notice while busy:\n%s", plain(m))
	}
	g.release(0)
	r.until("the answer", func() bool { return !m.busy })
	if v := plain(m); strings.Contains(v, "still working") || !strings.Contains(v, "the answer") {
		t.Fatalf("notice stays after the answer:\n%s", v)
	}
}

// /preset NAME says which config file the server rewrote.
func TestPresetSaysWhichFileItWrote(t *testing.T) {
	srv := clienttest.New(t)
	srv.Written = "/home/me/.local/state/ai-lab/demo-config.yaml"
	m := newTestModel(t, srv, 100, 30)
	send(t, m, "/preset minimal")
	if conv := m.conv.render(m.width); !strings.Contains(conv, "Safety preset is now minimal: approval off.\nWritten to /home/me/.local/state/ai-lab/demo-config.yaml") {
		t.Fatalf("conversation:\n%s", conv)
	}
}

// The header names the server as far as it fits: the URL, else host:port, else
// nothing; never a cut "h…".
func TestStatusBarShortensTheServer(t *testing.T) {
	tests := []struct {
		name    string
		width   int
		session string
		want    string
		absent  string
	}{
		{"wide: the URL", 120, "s_1", "│ http://127.0.0.1:", ""},
		{"80 columns: host and port", 80, "s_1", "│ 127.0.0.1:", "http://"},
		{"80 columns and a long session: none", 80, "s_5611fa93369d0f99aaaa", "│ model test-model", "127.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newTestModel(t, clienttest.New(t), tt.width, 24)
			m.sessionID = tt.session
			bar := strings.TrimRight(m.statusBar(), " ")
			if !strings.Contains(bar, tt.want) || (tt.absent != "" && strings.Contains(bar, tt.absent)) || strings.HasSuffix(bar, "…") {
				t.Fatalf("status bar %q: want %q, not %q, no cut", bar, tt.want, tt.absent)
			}
		})
	}
}

// A run that a session grant let through says so under the answer.
func TestGrantedRunIsMarked(t *testing.T) {
	u := api.ToolUse{ToolName: "write_file", Arguments: json.RawMessage(`{"path":"notes/c.txt"}`), ExecutionID: "write_file_1795309180504_18544cab", Status: "ok", DurationMS: 2, Decision: api.DecisionGrant}
	if got := toolLine(u, 100); got != "  ✓ write_file path=notes/c.txt (granted) · 2ms · write_file_1795309180504_18544cab" {
		t.Fatalf("line = %q", got)
	}
	u.Decision = api.DecisionUser
	if got := toolLine(u, 80); strings.Contains(got, "granted") {
		t.Fatalf("a run the user approved reads %q", got)
	}
}

// Every mode's screen fits the terminal, the new ones included.
func TestNewScreensFitTheTerminal(t *testing.T) {
	srv := clienttest.New(t, writes(18))
	srv.AddGrant("s_1", api.SessionGrant{GrantID: "g_5c5b1ae4056ab017", ToolName: "write_file", Pattern: strings.Repeat("deep/", 30) + "*", CreatedAt: clienttest.GrantTime})
	m := newTestModel(t, srv, 120, 40)
	send(t, m, "go")
	check := func(name string) {
		t.Helper()
		for _, sz := range [][2]int{{80, 24}, {60, 20}, {120, 40}, {40, 12}} {
			m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			lines := strings.Split(m.View(), "\n")
			if len(lines) != sz[1] {
				t.Errorf("%s at %dx%d: %d lines", name, sz[0], sz[1], len(lines))
			}
			for _, l := range lines {
				if ansi.StringWidth(l) > sz[0] {
					t.Errorf("%s at %dx%d: line %q is %d wide", name, sz[0], sz[1], l, ansi.StringWidth(l))
				}
			}
		}
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	}
	check("approval")
	press(t, m, "s")
	check("grant question")
	press(t, m, "esc", "a")
	check("approve-all question")
	press(t, m, "esc", "d", "y")
	check("reason for all")
	press(t, m, "esc")
	send(t, m, "/grants")
	check("grant list")
	press(t, m, "enter")
	check("revoke question")
}

// TestToolsCommandListsEveryTool: /tools shows each tool with its source,
// whether it asks, and an MCP server's state.
func TestToolsCommandListsEveryTool(t *testing.T) {
	srv := clienttest.New(t)
	srv.Tools = []api.ToolInfo{
		{Name: "read_file", ToolName: "read_file", Source: "builtin"},
		{Name: "write_file", ToolName: "write_file", Source: "builtin", NeedsApproval: true},
		{Name: "files__read_text_file", ToolName: "files__read_text_file", Source: "mcp:files", NeedsApproval: true, Status: "restarting in 4 s: exit status 1"},
	}
	m := newTestModel(t, srv, 120, 30)
	send(t, m, "/tools")
	v := plain(m)
	for _, want := range []string{
		"read_file              builtin      runs without asking",
		"write_file             builtin      needs approval",
		"files__read_text_file  mcp:files    needs approval  (restarting in 4 s: exit status 1)",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("/tools lacks %q:\n%s", want, v)
		}
	}
}
