package tui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client"
	"github.com/ailab/ai-lab/client/clienttest"
)

// What a newcomer tripped over on a fresh clone, screen by screen.

// The key that answers "press Ctrl+C again to quit ..., any other key to stay"
// only answers it: an n for "no" does not land in the input.
func TestKeyThatAnswersCtrlCIsSwallowed(t *testing.T) {
	m := newTestModel(t, clienttest.New(t), 80, 24)
	m.busy = true
	press(t, m, "ctrl+c")
	if !m.confirm {
		t.Fatal("no question after the first Ctrl+C")
	}
	press(t, m, "n")
	typeText(t, m, "list files")
	if m.confirm || m.input.Value() != "list files" {
		t.Fatalf("after the answer the input holds %q (question open: %v)", m.input.Value(), m.confirm)
	}
}

// objectCalls are the report's calls: arguments sent alphabetically, so content
// comes before the path; the second's content is cut at 80 columns.
func objectCalls() api.TurnReply {
	return clienttest.Pending("s_1",
		clienttest.Call("write_file", `{"content":"hello there, people","path":"notes/greeting.txt"}`, "c1"),
		clienttest.Call("write_file", `{"content":"a fairly long content string that wraps past the edge of the table at eighty columns","path":"notes/long.txt"}`, "c2"))
}

// The path of a call is first and whole in the table, the prompt and the run
// line; a row whose other arguments are cut counts as not seen for a and d.
func TestObjectFirstAndCutRowsAsk(t *testing.T) {
	ran := clienttest.Final("s_1", "Wrote both.",
		api.ToolUse{ToolName: "write_file", Arguments: objectCalls().ToolsPending[0].Arguments, ToolCallID: "c1", ExecutionID: "write_file_1795309180504_18544cab", Status: "ok", DurationMS: 1},
		api.ToolUse{ToolName: "write_file", Arguments: objectCalls().ToolsPending[1].Arguments, ToolCallID: "c2", ExecutionID: "write_file_1795309180505_28544cab", Status: "ok", DurationMS: 1})
	srv := clienttest.New(t, objectCalls(), ran)
	m := newTestModel(t, srv, 80, 24)
	send(t, m, "write a greeting and a long note")
	v := plain(m)
	for _, want := range []string{`"path": "notes/greeting.txt",`, `{"path":"notes/long.txt","content":"a fairly`, "Approve write_file(path=notes/greeting.txt, "} {
		if !strings.Contains(v, want) {
			t.Errorf("screen lacks %q:\n%s", want, v)
		}
	}
	press(t, m, "a")
	if m.mode != modeConfirm || !strings.Contains(v2(m), "1 of them is cut short") || !strings.Contains(v2(m), "Approve all 2 remaining calls? [y/n] (n): ") {
		t.Fatalf("a with a row cut short did not ask first:\n%s", plain(m))
	}
	press(t, m, "y")
	if a := srv.Approvals(); len(a) != 1 || len(a[0].Decisions) != 2 {
		t.Fatalf("approvals = %+v", a)
	}
	conv := ansi.Strip(m.conv.render(80))
	if !strings.Contains(conv, "✓ write_file path=notes/greeting.txt, content=\"hello there, people\"") ||
		!strings.Contains(conv, "✓ write_file path=notes/long.txt, c…") {
		t.Fatalf("run lines do not start with the path:\n%s", conv)
	}
}

// v2 is the screen without styles and with wrapped lines joined.
func v2(m *Model) string { return strings.ReplaceAll(plain(m), "\n", " ") }

// Counts read as English: "1 of them is out of view", "the 1 remaining call".
func TestOneOfThemIsOutOfView(t *testing.T) {
	for _, tt := range []struct {
		hidden, cut int
		want        string
	}{
		{1, 0, "1 of them is out of view ("},
		{2, 0, "2 of them are out of view ("},
		{0, 1, "1 of them is cut short ("},
		{1, 2, "1 of them is out of view and 2 are cut short ("},
		{0, 0, ""},
	} {
		if got := unseenText(tt.hidden, tt.cut); !strings.HasPrefix(got, tt.want) || (tt.want == "") != (got == "") {
			t.Errorf("unseenText(%d, %d) = %q, want it to start %q", tt.hidden, tt.cut, got, tt.want)
		}
	}
	if got := remaining(1); got != "the 1 remaining call" {
		t.Fatalf("remaining(1) = %q", got)
	}
	if got := client.Plural(1, "earlier message"); got != "1 earlier message" {
		t.Fatalf("Plural(1) = %q", got)
	}
}

// Under the strict preset no grant is offered: neither the prompt nor the help
// line offers s or r, and s, pressed anyway, says why in a sentence wrapped,
// never cut, at every width.
func TestNoGrantKeysAreNotAdvertised(t *testing.T) {
	why := "the strict preset asks for every write_file call (/preset moderate allows grants)"
	for _, w := range []int{60, 80, 120} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			call := clienttest.Call("write_file", `{"path":"a.txt","content":"x"}`, "c1")
			call.NoGrant = why
			m := newTestModel(t, clienttest.New(t, clienttest.Pending("s_1", call)), w, 24)
			send(t, m, "write a.txt")
			v := plain(m)
			if !strings.Contains(v, "? [y/n/a/d/?] (y): ") || strings.Contains(v, "s session") || strings.Contains(v, "r always") {
				t.Fatalf("s or r advertised for a call without a grant:\n%s", v)
			}
			press(t, m, "s")
			if v := v2(m); !strings.Contains(strings.Join(strings.Fields(v), " "), why+"; y approves this one") {
				t.Fatalf("the refusal is not whole:\n%s", plain(m))
			}
			for _, l := range strings.Split(m.View(), "\n") {
				if ansi.StringWidth(l) > w {
					t.Fatalf("line %q is wider than %d", l, w)
				}
			}
		})
	}
}

// The demo's welcome promises no key that may not work.
func TestWelcomeAdvertisesNoGrantKeys(t *testing.T) {
	if strings.Contains(demoWelcome, "s/r") || strings.Contains(demoWelcome, "s:") {
		t.Fatalf("the welcome advertises s or r:\n%s", demoWelcome)
	}
}

// Enter decides nothing for a call that may destroy data: it says to press y
// or n, and the prompt shows no default.
func TestEnterDoesNotDecideADelete(t *testing.T) {
	srv := clienttest.New(t, clienttest.Pending("s_1", clienttest.Call("delete_file", `{"path":"old.txt"}`, "c1")), clienttest.Final("s_1", "Deleted."))
	m := newTestModel(t, srv, 80, 24)
	send(t, m, "delete old.txt")
	if v := plain(m); !strings.Contains(v, "Approve delete_file(path=old.txt)? [y/n/a/d/?]: ") || strings.Contains(v, "(y): ") {
		t.Fatalf("the prompt offers a default:\n%s", v)
	}
	press(t, m, "enter")
	if len(srv.Approvals()) != 0 || m.batch.Current() != 0 || !strings.Contains(plain(m), "press y or n") {
		t.Fatalf("Enter decided a delete:\n%s", plain(m))
	}
	press(t, m, "y")
	if a := srv.Approvals(); len(a) != 1 || !a[0].Decisions[0].Approved {
		t.Fatalf("approvals = %+v", a)
	}
}

// /help is aligned at any width: every description line starts in one column,
// and it names all four presets; bare /preset shows the current preset and the
// four choices, one line each.
func TestHelpAndPresetLists(t *testing.T) {
	for _, w := range []int{80, 120} {
		out := renderRows(helpRows, w)
		col := -1
		for _, l := range strings.Split(out, "\n") {
			if ansi.StringWidth(l) > w {
				t.Fatalf("width %d: line %q too wide", w, l)
			}
			if !strings.HasPrefix(l, "  ") {
				continue // a heading
			}
			// The text starts after the first run of two or more blanks (after the
			// key), or after the indent of a continuation line.
			loc := descStart.FindStringIndex(l)
			if loc == nil {
				t.Fatalf("width %d: line %q has no description column", w, l)
			}
			at := ansi.StringWidth(l[:loc[1]])
			if col < 0 {
				col = at
			}
			if at != col {
				t.Fatalf("width %d: line %q starts its text at %d, not %d:\n%s", w, l, at, col, out)
			}
		}
		if !strings.Contains(out, "strict, moderate, minimal or custom") {
			t.Fatalf("/help does not list the four presets:\n%s", out)
		}
	}
	m := newTestModel(t, clienttest.New(t), 100, 30)
	send(t, m, "/preset")
	conv := ansi.Strip(m.conv.render(100))
	for _, want := range []string{"Safety preset is strict", "▸ strict ", "  moderate ", "  minimal ", "  custom "} {
		if !strings.Contains(conv, want) {
			t.Fatalf("/preset lacks %q:\n%s", want, conv)
		}
	}
}

// descStart finds where the description of a /help line starts.
var descStart = regexp.MustCompile(`^ {2}\S+(?: \S+)*? {2,}|^ +`)

// TestNewcomerScreensGolden keeps the screens of these fixes, without colour,
// at 80x24 and 120x40.
func TestNewcomerScreensGolden(t *testing.T) {
	scenes := []goldenScene{
		{"object_first", func(t *testing.T, w, h int) *Model {
			m := newTestModel(t, clienttest.New(t, objectCalls()), w, h)
			send(t, m, "write a greeting and a long note")
			return m
		}},
		{"object_first_ran", func(t *testing.T, w, h int) *Model {
			p := objectCalls().ToolsPending
			srv := clienttest.New(t, clienttest.Final("s_1", "Wrote both.",
				api.ToolUse{ToolName: "write_file", Arguments: p[0].Arguments, ExecutionID: "write_file_1795309180504_18544cab", Status: "ok", DurationMS: 1},
				api.ToolUse{ToolName: "write_file", Arguments: p[1].Arguments, ExecutionID: "write_file_1795309180505_28544cab", Status: "ok", DurationMS: 1}))
			m := newTestModel(t, srv, w, h)
			send(t, m, "write a greeting and a long note")
			return m
		}},
		{"mcp_long_path", func(t *testing.T, w, h int) *Model {
			// An MCP tool: its server in the tool's name, its path-like argument
			// first and wrapped whole, and no default answer.
			long := "projects/" + strings.Repeat("a-rather-deep-folder/", 5) + "notes.md"
			m := newTestModel(t, clienttest.New(t, clienttest.Pending("s_1",
				clienttest.Call("web_search", `{"max_results":5,"query":"go release notes"}`, "c1"),
				clienttest.Call("files__write_file", `{"body":"`+strings.Repeat("text ", 30)+`","target_path":"`+long+`"}`, "c2"))), w, h)
			send(t, m, "search, then save the notes")
			press(t, m, "y")
			return m
		}},
		{"cut_row_asks", func(t *testing.T, w, h int) *Model {
			m := newTestModel(t, clienttest.New(t, objectCalls()), w, h)
			send(t, m, "write a greeting and a long note")
			press(t, m, "a")
			return m
		}},
		{"no_grant_refusal", func(t *testing.T, w, h int) *Model {
			call := clienttest.Call("write_file", `{"path":"a.txt","content":"x"}`, "c1")
			call.Reason = "preset strict: write_file asks"
			call.NoGrant = "the strict preset asks for every write_file call (/preset moderate allows grants)"
			m := newTestModel(t, clienttest.New(t, clienttest.Pending("s_1", call)), w, h)
			send(t, m, "write a.txt")
			press(t, m, "s")
			return m
		}},
		{"delete_no_default", func(t *testing.T, w, h int) *Model {
			m := newTestModel(t, clienttest.New(t, clienttest.Pending("s_1", clienttest.Call("delete_file", `{"path":"old.txt"}`, "c1"))), w, h)
			send(t, m, "delete old.txt")
			press(t, m, "enter")
			return m
		}},
		{"help", func(t *testing.T, w, h int) *Model {
			m := newTestModel(t, clienttest.New(t), w, h)
			send(t, m, "/help")
			return m
		}},
		{"preset_choices", func(t *testing.T, w, h int) *Model {
			m := newTestModel(t, clienttest.New(t), w, h)
			send(t, m, "/preset")
			return m
		}},
	}
	playGoldenScenes(t, scenes)
}
