package client_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client"
	"github.com/ailab/ai-lab/client/clienttest"
)

// RuleOf shows the rule the server offers with a grant (the one scope always
// saves): the folder of a file tool's pattern, the host of read_webpage,
// web_search alone, escaped where it holds deceptive characters.
func TestRuleOf(t *testing.T) {
	tests := []struct {
		name, tool, pattern string
		words, yaml         string
	}{
		{"write_file in a folder", "write_file", "notes/*", "allow write_file in notes/", `{allow: write_file, path: "notes/"}`},
		{"read_file in a deep folder", "read_file", "docs/2026/*", "allow read_file in docs/2026/", `{allow: read_file, path: "docs/2026/"}`},
		{"list_directory: the folder listed", "list_directory", "notes", "allow list_directory in notes/", `{allow: list_directory, path: "notes/"}`},
		{"the workspace", "write_file", "./*", "allow write_file anywhere in the workspace", `{allow: write_file, path: "./"}`},
		{"read_webpage on a host", "read_webpage", "go.dev", "allow read_webpage on go.dev", `{allow: read_webpage, host: "go.dev"}`},
		{"web_search", "web_search", "*", "allow web_search", `{allow: web_search}`},
		{"the top folder alone makes no rule", "write_file", "*", "", ""},
		{"a tool without rules", "delete_file", "old/*", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := clienttest.Call(tt.tool, `{}`, "c")
			p.Grant = clienttest.Offer(tt.tool, tt.pattern, "label")
			r, ok := client.RuleOf(p)
			if ok != (tt.words != "") || r.Words != tt.words || r.YAML != tt.yaml {
				t.Fatalf("RuleOf = %+v, %v; want %q, %q", r, ok, tt.words, tt.yaml)
			}
		})
	}
	if _, ok := client.RuleOf(clienttest.Call("write_file", `{}`, "c")); ok {
		t.Fatal("a rule for a call without an offer")
	}
	// The server never offers a rule for a deceptive folder; one that did
	// must still not fool the screen.
	p := clienttest.Call("write_file", `{}`, "c")
	p.Grant = &api.GrantOffer{Pattern: "notes\u3164/*", Label: "label",
		Rule: &api.RuleOffer{Text: "allow write_file in notes\u3164/", YAML: `{allow: write_file, path: "notes` + "\u3164" + `/"}`}}
	if r, _ := client.RuleOf(p); r.Words != `allow write_file in notes\u3164/` || r.YAML != `{allow: write_file, path: "notes\u3164/"}` {
		t.Fatalf("a deceptive rule shown as %+v", r)
	}
}

// Always approves with scope always and covers the later calls with the same
// offer; Reopen takes that decision back, and those after it, keeping the ones
// before.
func TestBatchAlwaysAndReopen(t *testing.T) {
	offer := func(args, id, pattern string) api.PendingTool {
		p := clienttest.Call("write_file", args, id)
		if pattern != "" {
			p.Grant = clienttest.Offer("write_file", pattern, "label")
		}
		return p
	}
	b := client.NewBatch(clienttest.Pending("s",
		offer(`{"path":"a/x"}`, "c1", "a/*"),
		offer(`{"path":"n/x"}`, "c2", "n/*"),
		offer(`{"path":"n/y"}`, "c3", "n/*"),
		offer(`{"path":"z"}`, "c4", "")))
	if b.Reopen() != -1 {
		t.Fatal("Reopen with no decision took something back")
	}
	b.Grant()
	b.Always()
	want := []api.Decision{{ToolCallID: "c1", Approved: true, Scope: api.ScopeSession}, {ToolCallID: "c2", Approved: true, Scope: api.ScopeAlways}, {ToolCallID: "c3", Approved: true}}
	if fmt.Sprint(b.Decisions) != fmt.Sprint(want) || !b.Covered(2) {
		t.Fatalf("decisions = %+v, covered(2) %v", b.Decisions, b.Covered(2))
	}
	b.Always() // c4 has no offer: nothing happens
	if b.Current() != 3 {
		t.Fatal("Always decided a call without an offer")
	}
	b.Decide(false, "")
	if at := b.Reopen(); at != 1 || b.Current() != 1 || b.Covered(2) || b.Decisions[0].Scope != api.ScopeSession {
		t.Fatalf("Reopen = %d: decisions %+v, covered(2) %v", at, b.Decisions, b.Covered(2))
	}
	b.Decide(true, "") // once now: c3 is asked again, not covered
	if b.Current() != 2 {
		t.Fatalf("after the reopened call, current %d, want 2", b.Current())
	}
}

// The one-shot prompt lists s and r only for a call with a grant offer; s and r
// show what they would give and ask; a call without an offer says why; the
// server's reason is under each call of the table.
func TestOnceSessionAndAlways(t *testing.T) {
	notes := func(id, name string) api.PendingTool {
		p := clienttest.Call("write_file", `{"path":"notes/`+name+`","content":"x"}`, id)
		p.Grant = clienttest.Offer("write_file", "notes/*", "write files in notes/ for this session")
		p.Reason = "preset moderate: write_file asks"
		return p
	}
	del := clienttest.Call("delete_file", `{"path":"old.txt"}`, "c1")
	del.NoGrant = "delete_file never takes a grant: each such call asks"
	del.Reason = "preset moderate: delete_file asks"
	search := clienttest.Call("web_search", `{"query":"go"}`, "c4")
	search.Grant = clienttest.Offer("web_search", "*", "search the web for this session")
	srv := clienttest.New(t, clienttest.Pending("s_1", del, notes("c2", "a.txt"), notes("c3", "b.txt"), search), clienttest.Final("s_1", "Done."))
	var out, prompt bytes.Buffer
	// c1: s and r say why, then y. c2: r, n at its question, then r and y (c3
	// is covered). c4: s and y.
	in := "s\nr\ny\nr\nn\nr\ny\ns\ny\n"
	o := client.Once{Message: "go", Approve: client.ApproveAsk, In: strings.NewReader(in), Out: &out, Prompt: &prompt, Width: 100, Echo: true}
	if err := o.Run(context.Background(), client.New(srv.URL, clienttest.Token, nil)); err != nil {
		t.Fatalf("Run: %v\n%s", err, prompt.String())
	}
	p := prompt.String()
	for _, want := range []string{
		"│ why: preset moderate: delete_file asks",
		"│ why: preset moderate: write_file asks",
		"(1 of 4) Approve delete_file(path=old.txt)? [y/n/a/d/?]: s\ndelete_file never takes a grant: each such call asks; y approves this one\n",
		"(1 of 4) Approve delete_file(path=old.txt)? [y/n/a/d/?]: r\ndelete_file never takes a grant: each such call asks; y approves this one\n",
		"(2 of 4) Approve write_file(path=notes/a.txt, content=x)? [y/n/s/r/a/d/?] (y): r\nRule for config.yaml: allow write_file in notes/\n",
		`  Adds {allow: write_file, path: "notes/"} to the rules in config.yaml.`,
		"  It also approves 1 more call of this batch that it covers.\nApprove write_file(path=notes/a.txt, content=x) and save this rule? [y/n] (n): n\n(2 of 4)",
		"(4 of 4) Approve web_search(query=go)? [y/n/s/r/a/d/?] (y): s\nSession grant: search the web for this session\n",
		"Saving a rule in config.yaml: allow write_file in notes/. /rules lists the rules in force.",
		"Granted for this session: search the web for this session (web_search *).",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt output lacks %q", want)
		}
	}
	if t.Failed() {
		t.Fatalf("prompt output:\n%s", p)
	}
	want := []api.Decision{{ToolCallID: "c1", Approved: true}, {ToolCallID: "c2", Approved: true, Scope: api.ScopeAlways}, {ToolCallID: "c3", Approved: true}, {ToolCallID: "c4", Approved: true, Scope: api.ScopeSession}}
	if a := srv.Approvals(); len(a) != 1 || fmt.Sprint(a[0].Decisions) != fmt.Sprint(want) {
		t.Fatalf("approvals = %+v, want %+v", a, want)
	}
}

// A 409 config_locked in the one-shot mode prints the server's message and asks
// again from the call whose rule could not be saved.
func TestOnceConfigLockedAsksAgain(t *testing.T) {
	first := clienttest.Call("web_search", `{"query":"go"}`, "c1")
	second := clienttest.Call("write_file", `{"path":"notes/a.txt","content":"x"}`, "c2")
	second.Grant = clienttest.Offer("write_file", "notes/*", "write files in notes/ for this session")
	srv := clienttest.New(t, clienttest.Pending("s_1", first, second), clienttest.Final("s_1", "Done."))
	srv.ConfigLocked = "AILAB_SAFETY_PRESET overrides safety.preset of config.yaml; approve with scope \"session\" instead"
	var out, prompt bytes.Buffer
	o := client.Once{Message: "go", Approve: client.ApproveAsk, In: strings.NewReader("y\nr\ny\ns\ny\n"), Out: &out, Prompt: &prompt}
	if err := o.Run(context.Background(), client.New(srv.URL, clienttest.Token, nil)); err != nil {
		t.Fatalf("Run: %v\n%s", err, prompt.String())
	}
	if !strings.Contains(prompt.String(), "The server saved no rule, so none of these decisions was sent: "+srv.ConfigLocked) {
		t.Fatalf("no message:\n%s", prompt.String())
	}
	a := srv.Approvals()
	want := []api.Decision{{ToolCallID: "c1", Approved: true}, {ToolCallID: "c2", Approved: true, Scope: api.ScopeSession}}
	if len(a) != 2 || a[0].Decisions[1].Scope != api.ScopeAlways || fmt.Sprint(a[1].Decisions) != fmt.Sprint(want) {
		t.Fatalf("approvals = %+v", a)
	}
	if out.String() != "Done.\n" {
		t.Fatalf("stdout = %q", out.String())
	}
}

// Policy reads GET /policy; config_locked maps to ErrConfigLocked with the
// server's message.
func TestPolicyAndConfigLocked(t *testing.T) {
	srv := clienttest.New(t, clienttest.Pending("s_1", offerNotes("c1")))
	srv.Policy = api.Policy{Preset: "moderate", Entries: []api.PolicyEntry{{Source: "rule 1 in config.yaml", Effect: "deny", Tool: "read_file", Scope: "secrets/", Text: "read_file in secrets/"}}}
	srv.ConfigLocked = "AILAB_SAFETY_RULES overrides the rules of config.yaml"
	c := client.New(srv.URL, clienttest.Token, nil)
	ctx := context.Background()
	p, err := c.Policy(ctx)
	if err != nil || fmt.Sprint(p) != fmt.Sprint(srv.Policy) {
		t.Fatalf("Policy = %+v, %v", p, err)
	}
	if _, err := c.Chat(ctx, "go", ""); err != nil {
		t.Fatal(err)
	}
	_, err = c.Approve(ctx, "s_1", []api.Decision{{ToolCallID: "c1", Approved: true, Scope: api.ScopeAlways}})
	var ae *client.APIError
	if !errors.Is(err, client.ErrConfigLocked) || !errors.As(err, &ae) || ae.Status != 409 || ae.Message != srv.ConfigLocked {
		t.Fatalf("err = %#v", err)
	}
}

func offerNotes(id string) api.PendingTool {
	p := clienttest.Call("write_file", `{"path":"notes/a.txt","content":"x"}`, id)
	p.Grant = clienttest.Offer("write_file", "notes/*", "write files in notes/ for this session")
	return p
}
