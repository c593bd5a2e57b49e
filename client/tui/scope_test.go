package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client"
	"github.com/ailab/ai-lab/client/clienttest"
)

// lineWith returns the first line of view that holds want whole, or "".
func lineWith(view, want string) string {
	for _, l := range strings.Split(view, "\n") {
		if strings.Contains(l, want) {
			return l
		}
	}
	return ""
}

// s on a call without a grant offer shows the server's NoGrant, escaped, then
// the key advice, which is never cut however the width wraps the notice.
func TestSessionKeyShowsWhyNoGrantIsOffered(t *testing.T) {
	tests := []struct {
		name, noGrant, want string
		width               int
	}{
		{"short, 80 columns", "delete_file never takes a grant: each such call asks", "delete_file never takes a grant: each such call asks; y approves this one", 80},
		{"empty: a plain sentence", "", "no session grant is offered for this call; y approves this one", 80},
		{"escaped", "its path holds notes\u3164/", `its path holds notes\u3164/; y approves this one`, 80},
		{"wraps at 120 columns", "its object cannot be resolved (path \"notes/../../etc/passwd\" lies outside the workspace root /home/me/ai-lab/workspace)", "", 120},
		// Wrapped as one text, these would break the advice after "y".
		{"advice whole at 120 columns", "the strict preset asks for every write_file call (/preset moderate allows grants), and this call writes in notes/", "", 120},
		{"advice whole at 80 columns", "the strict preset asks for every web_search call (/preset moderate grants)", "", 80},
		{"wraps at 80 columns", "the strict preset asks for every write_file call (/preset moderate allows grants)", "", 80},
		{"wraps at 60 columns", "the strict preset asks for every write_file call (/preset moderate allows grants)", "", 60},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			call := clienttest.Call("delete_file", `{"path":"old.txt"}`, "c1")
			call.NoGrant = tt.noGrant
			srv := clienttest.New(t, clienttest.Pending("s_1", call))
			m := newTestModel(t, srv, tt.width, 30)
			send(t, m, "clean up")
			press(t, m, "s")
			v := plain(m)
			if m.mode != modeApproval || m.batch.Current() != 0 {
				t.Fatalf("s decided a call without an offer: mode %d, current %d", m.mode, m.batch.Current())
			}
			if tt.want != "" && lineWith(v, tt.want) == "" {
				t.Fatalf("no line holds %q:\n%s", tt.want, v)
			}
			if lineWith(v, "y approves this one") == "" {
				t.Fatalf("the key advice is cut:\n%s", v)
			}
			// The notice is all there, over as many lines as it takes.
			words := strings.Fields(strings.Join(strings.Fields(v), " "))
			if joined := strings.Join(words, " "); !strings.Contains(joined, strings.Join(strings.Fields(client.Visible(tt.noGrant)), " ")) {
				t.Fatalf("the notice is cut:\n%s", v)
			}
			for _, l := range strings.Split(m.View(), "\n") {
				if ansi.StringWidth(l) > tt.width {
					t.Fatalf("line %q is wider than %d", l, tt.width)
				}
			}
			press(t, m, "n", "enter") // the notice goes with the next key
			if strings.Contains(plain(m), "y approves this one") {
				t.Fatalf("the notice stays after a decision:\n%s", plain(m))
			}
		})
	}
}

// r on a call with a grant offer shows the rule it would save in config.yaml,
// asks, and sends the approval with scope always; later calls of the batch with
// the same offer are approved with it.
func TestAlwaysKeySavesARule(t *testing.T) {
	batch := clienttest.Pending("s_1",
		offering(clienttest.Call("write_file", `{"path":"notes/a.txt","content":"x"}`, "c1")),
		offering(clienttest.Call("write_file", `{"path":"notes/b.txt","content":"y"}`, "c2")))
	srv := clienttest.New(t, batch, clienttest.Final("s_1", "done"))
	m := newTestModel(t, srv, 100, 30)
	send(t, m, "write two notes")
	press(t, m, "r")
	v := plain(m)
	for _, want := range []string{
		"Rule for config.yaml: allow write_file in notes/",
		`  Adds {allow: write_file, path: "notes/"} to the rules in config.yaml.`,
		"  It also approves 1 more call of this batch that it covers.",
		"Approve write_file(path=notes/a.txt, content=x) and save this rule? [y/n] (n): ",
	} {
		if lineWith(v, want) == "" {
			t.Errorf("rule question lacks %q", want)
		}
	}
	if t.Failed() {
		t.Fatalf("screen:\n%s", v)
	}
	press(t, m, "esc")
	if m.mode != modeApproval || m.batch.Current() != 0 || len(srv.Approvals()) != 0 {
		t.Fatal("Esc did not go back undecided")
	}
	press(t, m, "r", "y")
	a := srv.Approvals()
	want := []api.Decision{{ToolCallID: "c1", Approved: true, Scope: api.ScopeAlways}, {ToolCallID: "c2", Approved: true}}
	if len(a) != 1 || fmt.Sprint(a[0].Decisions) != fmt.Sprint(want) {
		t.Fatalf("approvals = %+v, want %+v", a, want)
	}
	if conv := m.conv.render(m.width); !strings.Contains(conv, "Saving a rule in config.yaml: allow write_file in notes/. /rules lists the rules in force.") {
		t.Fatalf("conversation does not say which rule was asked for:\n%s", conv)
	}
}

// r on a call without a grant offer shows the server's NoGrant as s does, and
// on an offer no rule can hold (the top folder alone) says so.
func TestAlwaysKeyWithoutARule(t *testing.T) {
	del := clienttest.Call("delete_file", `{"path":"old.txt"}`, "c1")
	del.NoGrant = "delete_file never takes a grant: each such call asks"
	top := clienttest.Call("write_file", `{"path":"a.txt","content":"x"}`, "c2")
	top.Grant = clienttest.Offer("write_file", "*", "write files in the workspace's top folder for this session")
	srv := clienttest.New(t, clienttest.Pending("s_1", del, top))
	m := newTestModel(t, srv, 140, 30)
	send(t, m, "go")
	press(t, m, "r")
	if m.mode != modeApproval || m.batch.Current() != 0 || lineWith(plain(m), "delete_file never takes a grant: each such call asks; y approves this one") == "" {
		t.Fatalf("r without an offer (mode %d):\n%s", m.mode, plain(m))
	}
	press(t, m, "y", "r")
	want := "no rule can be saved for the grant offered (write files in the workspace's top folder for this session); s gives it for this session, y approves this one"
	if m.mode != modeApproval || m.batch.Current() != 1 || !strings.Contains(strings.Join(strings.Fields(plain(m)), " "), want) {
		t.Fatalf("r on an offer that makes no rule (mode %d):\n%s", m.mode, plain(m))
	}
}

// A 409 config_locked for an approval with scope always shows the server's
// message, and the batch waits again from the call whose rule was refused, the
// decisions before it kept; deciding it again sends the batch anew.
func TestConfigLockedDecidesAgain(t *testing.T) {
	search := clienttest.Call("web_search", `{"query":"go"}`, "c1")
	batch := clienttest.Pending("s_1", search,
		offering(clienttest.Call("write_file", `{"path":"notes/a.txt","content":"x"}`, "c2")),
		offering(clienttest.Call("write_file", `{"path":"notes/b.txt","content":"y"}`, "c3")))
	srv := clienttest.New(t, batch, clienttest.Final("s_1", "done"))
	srv.ConfigLocked = "AILAB_SAFETY_RULES overrides the rules of config.yaml; approve with scope \"session\" instead, or unset it and restart the server"
	m := newTestModel(t, srv, 100, 30)
	send(t, m, "search and write")
	press(t, m, "y", "r", "y")
	if a := srv.Approvals(); len(a) != 1 || a[0].Decisions[1].Scope != api.ScopeAlways {
		t.Fatalf("approvals = %+v", a)
	}
	v := plain(m)
	if m.mode != modeApproval || m.batch == nil || m.batch.Current() != 1 || m.busy {
		t.Fatalf("the batch does not wait again (mode %d, busy %v):\n%s", m.mode, m.busy, v)
	}
	flat := strings.Join(strings.Fields(v), " ")
	for _, want := range []string{srv.ConfigLocked, "│ ✓ web_search │", "(2 of 3) Approve write_file(path=notes/a.txt"} {
		if !strings.Contains(flat, strings.Join(strings.Fields(want), " ")) {
			t.Errorf("screen lacks %q", want)
		}
	}
	if lineWith(v, "s grants it for this session, y approves this one") == "" {
		t.Errorf("no advice after the message")
	}
	if t.Failed() {
		t.Fatalf("screen:\n%s", v)
	}
	press(t, m, "s", "y")
	a := srv.Approvals()
	want := []api.Decision{{ToolCallID: "c1", Approved: true}, {ToolCallID: "c2", Approved: true, Scope: api.ScopeSession}, {ToolCallID: "c3", Approved: true}}
	if len(a) != 2 || fmt.Sprint(a[1].Decisions) != fmt.Sprint(want) {
		t.Fatalf("approvals = %+v, want the second %+v", a, want)
	}
	if m.batch != nil || m.mode != modeChat || !strings.Contains(plain(m), "done") {
		t.Fatalf("the turn did not go on:\n%s", plain(m))
	}
}

// The row being decided shows the server's reason for asking under it; the
// other rows do not, until they are decided in turn.
func TestWhyLineShowsForTheCurrentRow(t *testing.T) {
	first := clienttest.Call("web_search", `{"query":"go"}`, "c1")
	first.Reason = "preset strict: web_search asks"
	second := clienttest.Call("files__write_file", `{"path":"a.txt"}`, "c2")
	second.Reason = "rule 2 in config.yaml: ask every tool of MCP server files"
	srv := clienttest.New(t, clienttest.Pending("s_1", first, second))
	m := newTestModel(t, srv, 100, 30)
	send(t, m, "go")
	v := plain(m)
	if lineWith(v, "│ why: preset strict: web_search asks") == "" || strings.Contains(v, "MCP server files") {
		t.Fatalf("first row's reason:\n%s", v)
	}
	press(t, m, "y")
	v = plain(m)
	if lineWith(v, "│ why: rule 2 in config.yaml: ask every tool of MCP server files") == "" || strings.Contains(v, "web_search asks") {
		t.Fatalf("second row's reason:\n%s", v)
	}
}

// A deceptive character in a call's arguments, grant label, grant pattern or
// reason is shown as an escape wherever the approval screen shows them, never as
// itself: a grant for notes\u3164/ must not read as a grant for notes/.
func TestDeceptiveCharactersAreEscaped(t *testing.T) {
	for _, c := range []rune{0x034f, 0xfe0f, 0xe0100, 0x3164, 0x115f, 0xffa0, 0x2800, 0x17b4, 0x2028, 0x3000} {
		esc := fmt.Sprintf(`\u%04x`, c)
		if c > 0xffff {
			esc = fmt.Sprintf(`\U%08x`, c)
		}
		t.Run(fmt.Sprintf("U+%04X", c), func(t *testing.T) {
			folder := "notes" + string(c)
			call := clienttest.Call("write_file", `{"path":"`+folder+`/a.txt","content":"x"}`, "c1")
			// The server never offers such a grant; a server that did must
			// still not fool the screen.
			call.Grant = &api.GrantOffer{Pattern: folder + "/*", Label: "write files in " + folder + "/ for this session",
				Rule: &api.RuleOffer{Text: "allow write_file in " + folder + "/", YAML: `{allow: write_file, path: "` + folder + `/"}`}}
			call.Reason = "preset moderate: write_file asks in " + folder + "/"
			srv := clienttest.New(t, clienttest.Pending("s_1", call))
			m := newTestModel(t, srv, 140, 40)
			send(t, m, "write a note")
			check := func(stage string, wants ...string) {
				t.Helper()
				v := plain(m)
				if strings.ContainsRune(v, c) {
					t.Fatalf("%s shows U+%04X as itself:\n%s", stage, c, v)
				}
				for _, w := range wants {
					if !strings.Contains(v, w) {
						t.Errorf("%s lacks %q", stage, w)
					}
				}
				if t.Failed() {
					t.Fatalf("%s:\n%s", stage, v)
				}
			}
			check("the table", `"path": "notes`+esc+`/a.txt"`, "why: preset moderate: write_file asks in notes"+esc+"/", "Approve write_file(path=notes"+esc+"/a.txt")
			press(t, m, "s")
			check("the grant question", "Session grant: write files in notes"+esc+"/ for this session", "matching notes"+esc+"/*")
			press(t, m, "esc", "r")
			check("the rule question", "Rule for config.yaml: allow write_file in notes"+esc+"/", `path: "notes`+esc+`/"`)
			press(t, m, "esc", "?")
			check("the details", `"path": "notes`+esc+`/a.txt"`)
		})
	}
}

// /rules lists what decides tool calls, as GET /policy says: the preset first,
// then one line per entry in the order they are checked, in columns.
func TestRulesCommandListsThePolicy(t *testing.T) {
	srv := clienttest.New(t)
	srv.Policy = api.Policy{Preset: "moderate", Entries: []api.PolicyEntry{
		{Source: "rule 1 in config.yaml", Effect: "deny", Tool: "read_file", Scope: "secrets/", Text: "read_file in secrets/"},
		{Source: "rule 2 in config.yaml", Effect: "allow", Tool: "write_file", Scope: "notes/"},
		{Source: "preset moderate", Effect: "ask", Tool: "write_file", Text: "write_file asks"},
		{Source: "MCP server files", Effect: "ask", Tool: "files__*", Text: "every tool of MCP server files asks"},
	}}
	m := newTestModel(t, srv, 100, 30)
	send(t, m, "/rules")
	v := plain(m)
	for _, want := range []string{
		"preset: moderate",
		"rule 1 in config.yaml  deny   read_file in secrets/",
		"rule 2 in config.yaml  allow  write_file in notes/",
		"preset moderate        ask    write_file asks",
		"MCP server files       ask    every tool of MCP server files asks",
	} {
		if lineWith(v, want) == "" {
			t.Errorf("/rules lacks %q", want)
		}
	}
	if t.Failed() {
		t.Fatalf("screen:\n%s", v)
	}
	send(t, m, "/help")
	if conv := m.conv.render(m.width); !strings.Contains(conv, "/rules") || !strings.Contains(conv, "approve and allow such calls always") {
		t.Fatalf("/help names neither /rules nor r:\n%s", conv)
	}
}

// A run a rule let through says "(rule)" under the answer, as a granted one says
// "(granted)"; a run a rule refused shows ✗ and the error that names the rule.
func TestRuleDecisionUnderTheAnswer(t *testing.T) {
	ran := api.ToolUse{ToolName: "write_file", Arguments: json.RawMessage(`{"path":"notes/c.txt"}`), ExecutionID: "write_file_1795309180504_18544cab", Status: "ok", DurationMS: 2, Decision: api.DecisionRule, Reason: "rule 2 in config.yaml: allow write_file in notes/"}
	if got := toolLine(ran, 100); got != "  ✓ write_file path=notes/c.txt (rule) · 2ms · write_file_1795309180504_18544cab" {
		t.Fatalf("line = %q", got)
	}
	refused := api.ToolUse{ToolName: "read_file", Arguments: json.RawMessage(`{"path":"secrets/k"}`), Status: "error", DurationMS: 0, Decision: api.DecisionRule, Error: "rule 1 in config.yaml: deny read_file in secrets/"}
	if got := toolLine(refused, 120); got != "  ✗ read_file path=secrets/k · 0ms · error: rule 1 in config.yaml: deny read_file in secrets/" {
		t.Fatalf("line = %q", got)
	}
}
