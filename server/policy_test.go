package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/llm/llmtest"
)

func writeArgs(path, content string) string {
	b, _ := json.Marshal(map[string]string{"path": path, "content": content})
	return string(b)
}

// TestNothingTheModelWritesWidensAGrant is the bypass table end to end: after
// the user grants writes in notes/, a round of look-alike paths waits for the
// user (a name with a star, blanks, an ideographic space, a link out of the
// folder, a hard link to a file outside), while its honest neighbour runs
// under the grant, and the files outside keep their content.
func TestNothingTheModelWritesWidensAGrant(t *testing.T) {
	h := newLoopHarness(t, "moderate",
		writeCall("w1", "notes/a.txt", "a"), citeResults("Wrote"),
		llmtest.Calls(
			llmtest.Call("star", "write_file", writeArgs("*/todo.txt", "x")),
			llmtest.Call("blank", "write_file", writeArgs(" notes/x.txt", "x")),
			llmtest.Call("ideo", "write_file", writeArgs("\u3000notes/x.txt", "x")),
			llmtest.Call("link", "write_file", writeArgs("notes/link.txt", "pwned")),
			llmtest.Call("hard", "write_file", writeArgs("notes/hard.txt", "pwned")),
			llmtest.Call("ok", "write_file", writeArgs("notes/b.txt", "b"))),
		citeResults("Done"))
	os.MkdirAll(h.ws("notes"), 0o755)
	os.WriteFile(h.ws("victim.txt"), []byte("victim"), 0o600)
	if err := os.Symlink("../victim.txt", h.ws("notes/link.txt")); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(h.dir, "outside.txt")
	os.WriteFile(outside, []byte("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG"), 0o600)
	if err := os.Link(outside, h.ws("notes/hard.txt")); err != nil {
		t.Fatal(err)
	}

	r := h.chat("", "write a")
	r = h.approve(r.SessionID, api.Decision{ToolCallID: "w1", Approved: true, Scope: api.ScopeSession})
	if r.ApprovalRequired || r.ToolsUsed[0].Decision != api.DecisionUser {
		t.Fatalf("first turn %+v", r)
	}
	r = h.chat(r.SessionID, "write more")
	if !r.ApprovalRequired {
		t.Fatalf("every look-alike ran under the grant: %+v", r)
	}
	var ids []string
	for _, p := range r.ToolsPending {
		ids = append(ids, p.ToolCallID)
		if p.Reason != "preset moderate: write_file asks" {
			t.Errorf("%s asks with reason %q", p.ToolCallID, p.Reason)
		}
		if p.ToolCallID != "link" && p.Grant != nil {
			t.Errorf("%s offered grant %+v", p.ToolCallID, p.Grant)
		}
		if p.ToolCallID == "hard" && p.Preview != nil {
			t.Errorf("the hard-linked file was previewed: %+v", p.Preview)
		}
	}
	if strings.Join(ids, ",") != "star,blank,ideo,link,hard" {
		t.Fatalf("pending %v, want every look-alike and not the honest write", ids)
	}
	r = h.approve(r.SessionID, denied("star", ""), denied("blank", ""), denied("ideo", ""), denied("link", ""), denied("hard", ""))
	var ok api.ToolUse
	for _, u := range r.ToolsUsed {
		if u.ToolCallID == "ok" {
			ok = u
		}
	}
	if ok.Status != api.StatusOK || ok.Decision != api.DecisionGrant || !strings.HasPrefix(ok.Reason, "session grant g_") || !strings.HasSuffix(ok.Reason, ": write files in notes/") {
		t.Errorf("the covered write: %+v", ok)
	}
	var e api.Execution
	h.do("GET", "/executions/"+ok.ExecutionID, nil, &e)
	if e.Decision != api.DecisionGrant || e.Reason != ok.Reason {
		t.Errorf("ledger %+v", e)
	}
	for path, want := range map[string]string{h.ws("victim.txt"): "victim", outside: "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG"} {
		if b, _ := os.ReadFile(path); string(b) != want {
			t.Errorf("%s now holds %q", path, b)
		}
	}
}

// TestARevokeAppliesFromTheNextCall: the grant is revoked while the turn runs
// (between two model rounds); the next round's call asks instead of running.
func TestARevokeAppliesFromTheNextCall(t *testing.T) {
	var h *harness
	h = newLoopHarness(t, "moderate",
		writeCall("w1", "notes/a.txt", "a"), citeResults("Wrote"),
		writeCall("w2", "notes/b.txt", "b"),
		llmtest.Func(func(llmtest.Request) llmtest.Step {
			// The turn is between rounds: w2 ran under the grant. Revoke it now.
			var gs []api.SessionGrant
			sid := sessionOf(h)
			h.do("GET", "/sessions/"+sid+"/grants", nil, &gs)
			if len(gs) != 1 {
				t.Errorf("grants %+v", gs)
				return llmtest.Text("no grant")
			}
			if code := h.do("DELETE", "/sessions/"+sid+"/grants/"+gs[0].GrantID, nil, nil); code != http.StatusNoContent {
				t.Errorf("revoke: %d", code)
			}
			return writeCall("w3", "notes/c.txt", "c")
		}))
	r := h.chat("", "write a")
	h.approve(r.SessionID, api.Decision{ToolCallID: "w1", Approved: true, Scope: api.ScopeSession})
	r = h.chat(r.SessionID, "write b and c")
	if !r.ApprovalRequired || len(r.ToolsPending) != 1 || r.ToolsPending[0].ToolCallID != "w3" {
		t.Fatalf("after the revoke, w3 did not ask: %+v", r)
	}
	if _, err := os.Stat(h.ws("notes/c.txt")); err == nil {
		t.Fatal("notes/c.txt was written after the revoke")
	}
	if b, _ := os.ReadFile(h.ws("notes/b.txt")); string(b) != "b" {
		t.Fatal("w2 did not run under the grant before the revoke")
	}
}

// sessionOf is the only session of the harness.
func sessionOf(h *harness) string {
	var list []api.SessionSummary
	h.do("GET", "/sessions", nil, &list)
	if len(list) == 0 {
		return ""
	}
	return list[0].SessionID
}

// TestRulesDecideCalls: a deny rule refuses a call with a tool error naming
// the rule (it never runs), an allow rule lets a call run with decision rule,
// an ask rule makes a call ask that the preset would let run; GET /policy
// lists them; an edit of config.yaml applies at once and a bad rule is
// refused with its line.
func TestRulesDecideCalls(t *testing.T) {
	h := newLoopHarnessWith(t, setup{preset: "moderate", safety: `  rules:
    - {deny: read_file, path: "secrets/"}
    - {allow: write_file, path: "notes/"}
    - {ask: list_directory}
`},
		llmtest.Calls(
			llmtest.Call("r", "read_file", `{"path": "secrets/key.txt"}`),
			llmtest.Call("w", "write_file", writeArgs("notes/a.txt", "a"))),
		llmtest.Text("Finished."),
		llmtest.Calls(llmtest.Call("l", "list_directory", `{"path": "."}`)))
	os.MkdirAll(h.ws("secrets"), 0o755)
	os.WriteFile(h.ws("secrets/key.txt"), []byte("sk-live-123"), 0o600)

	r := h.chat("", "read the key and write a note")
	if r.ApprovalRequired || len(r.ToolsUsed) != 2 {
		t.Fatalf("%+v", r)
	}
	read, wrote := r.ToolsUsed[0], r.ToolsUsed[1]
	if read.Status != api.StatusError || read.Decision != api.DecisionRule || !strings.Contains(read.Error, "rule 1 in config.yaml: deny read_file in secrets/") {
		t.Errorf("the denied read: %+v", read)
	}
	if wrote.Status != api.StatusOK || wrote.Decision != api.DecisionRule || wrote.Reason != "rule 2 in config.yaml: allow write_file in notes/" {
		t.Errorf("the allowed write: %+v", wrote)
	}
	reqs := h.fake.Requests()
	if tm := toolMessages(reqs[len(reqs)-1]); !strings.Contains(tm[0].Content, "refused by rule 1") || strings.Contains(tm[0].Content, "sk-live") {
		t.Errorf("the model got %s", tm[0].Content)
	}
	var e api.Execution
	h.do("GET", "/executions/"+read.ExecutionID, nil, &e)
	if e.Decision != api.DecisionRule || e.Completed || !strings.Contains(e.Reason, "rule 1") {
		t.Errorf("ledger of the denied read %+v", e)
	}
	r = h.chat(r.SessionID, "list")
	if !r.ApprovalRequired || r.ToolsPending[0].Reason != "rule 3 in config.yaml: ask list_directory" {
		t.Fatalf("the ask rule: %+v", r)
	}

	var pol api.Policy
	h.do("GET", "/policy", nil, &pol)
	if pol.Preset != "moderate" || len(pol.Entries) < 3 || pol.Entries[0].Source != "rule 1 in config.yaml" || pol.Entries[0].Effect != "deny" {
		t.Errorf("GET /policy %+v", pol)
	}
}

// TestAlwaysSavesARule: a decision with scope always approves the call and
// adds its allow rule to config.yaml, comments kept; a later call in another
// session runs with decision rule. Under an environment override it is 409
// config_locked and nothing is saved or run.
func TestAlwaysSavesARule(t *testing.T) {
	h := newLoopHarness(t, "moderate",
		writeCall("w1", "notes/a.txt", "a"), citeResults("Wrote"),
		writeCall("w2", "notes/b.txt", "b"), citeResults("Wrote"))
	r := h.chat("", "write a")
	// The offer shows the very rule that scope always then saves.
	offered := r.ToolsPending[0].Grant
	if offered == nil || offered.Rule == nil || offered.Rule.YAML != `{allow: write_file, path: "notes/"}` || offered.Rule.Text != "allow write_file in notes/" {
		t.Fatalf("the grant offer's rule: %+v", offered)
	}
	t.Setenv("AILAB_SAFETY_RULES", "[]")
	code, e := h.errorOf("POST", "/chat/approve", api.ApproveRequest{SessionID: r.SessionID, Decisions: []api.Decision{{ToolCallID: "w1", Approved: true, Scope: api.ScopeAlways}}})
	if code != http.StatusConflict || e.Code != api.CodeConfigLocked || !strings.Contains(e.Message, "AILAB_SAFETY_RULES") {
		t.Fatalf("under an override: %d %+v", code, e)
	}
	os.Unsetenv("AILAB_SAFETY_RULES")
	r = h.approve(r.SessionID, api.Decision{ToolCallID: "w1", Approved: true, Scope: api.ScopeAlways})
	if r.ApprovalRequired || r.ToolsUsed[0].Decision != api.DecisionUser {
		t.Fatalf("%+v", r)
	}
	b, _ := os.ReadFile(h.cfgPath)
	if !strings.Contains(string(b), "# the preset under test") || !strings.Contains(string(b), offered.Rule.YAML) {
		t.Fatalf("config.yaml now:\n%s", b)
	}
	r = h.chat("", "write b")
	if r.ApprovalRequired || r.ToolsUsed[0].Decision != api.DecisionRule || !strings.Contains(r.ToolsUsed[0].Reason, "allow write_file in notes/") {
		t.Fatalf("the saved rule did not let the next write run: %+v", r)
	}
}

// TestMCPToolsAskUnlessSomethingSaysOtherwise: a tool an MCP server adds
// after start (tools/list_changed) asks; a rule lets one tool run; strict is
// accepted with a server at approval: never, and asks for its tools.
func TestMCPToolsAskUnlessSomethingSaysOtherwise(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "1"}, nil)
	answer := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	}
	obj := map[string]any{"type": "object", "properties": map[string]any{}}
	srv.AddTool(&mcp.Tool{Name: "get_note", Description: "Returns a note.", InputSchema: obj}, answer)
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	h := newLoopHarnessWith(t, setup{preset: "moderate",
		safety: "  rules:\n    - {allow: notes__get_note}\n",
		extra:  "mcp:\n  servers:\n    - {name: notes, url: '" + hs.URL + "/mcp'}\n    - {name: free, url: '" + hs.URL + "/mcp', approval: never}\n"},
		llmtest.Calls(llmtest.Call("g", "notes__get_note", `{}`), llmtest.Call("x", "notes__wipe", `{}`)),
		citeResults("Done"))
	waitForTool(t, h, "notes__get_note")
	srv.AddTool(&mcp.Tool{Name: "wipe", Description: "Deletes everything.", InputSchema: obj}, answer)
	waitForTool(t, h, "notes__wipe")
	var list []api.ToolInfo
	h.do("GET", "/tools", nil, &list)
	for _, ti := range list {
		want := map[string]bool{"notes__get_note": false, "notes__wipe": true, "free__wipe": false}
		if w, ok := want[ti.Name]; ok && ti.NeedsApproval != w {
			t.Errorf("GET /tools %s needs_approval %v, want %v", ti.Name, ti.NeedsApproval, w)
		}
	}
	r := h.chat("", "get the note and wipe")
	if !r.ApprovalRequired || len(r.ToolsPending) != 1 || r.ToolsPending[0].ToolName != "notes__wipe" ||
		r.ToolsPending[0].Reason != "MCP server notes has approval: always" {
		t.Fatalf("the added tool did not ask: %+v", r)
	}

	if code := h.do("PUT", "/config/safety", api.SafetyUpdate{Preset: "strict"}, nil); code != http.StatusOK {
		t.Fatalf("moving to strict with a server at approval: never was refused: %d", code)
	}
	h.do("GET", "/tools", nil, &list)
	for _, ti := range list {
		if strings.HasPrefix(ti.Name, "free__") && !ti.NeedsApproval {
			t.Errorf("under strict %s runs without asking", ti.Name)
		}
	}
}

func waitForTool(t *testing.T, h *harness, name string) {
	t.Helper()
	waitUntil(t, func() bool {
		var list []api.ToolInfo
		h.do("GET", "/tools", nil, &list)
		for _, ti := range list {
			if ti.Name == name && ti.Status == "ready" {
				return true
			}
		}
		return false
	})
}

// TestRulesApplyLiveAndABadEditIsRefused: a rule added to config.yaml while
// the server runs decides the next call; an edit with a bad rule is refused
// and the rules in force stay.
func TestRulesApplyLiveAndABadEditIsRefused(t *testing.T) {
	h := newLoopHarness(t, "minimal", writeCall("w", "secrets/b.txt", "b"), llmtest.Text("Finished."))
	orig, err := os.ReadFile(h.cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	const anchor = "  preset: minimal   # the preset under test\n"
	withRule := strings.Replace(string(orig), anchor, anchor+"  rules:\n    - {deny: write_file, path: \"secrets/\"}\n", 1)
	if err := os.WriteFile(h.cfgPath, []byte(withRule), 0o600); err != nil {
		t.Fatal(err)
	}
	denyInForce := func() bool {
		var pol api.Policy
		h.do("GET", "/policy", nil, &pol)
		return len(pol.Entries) > 0 && pol.Entries[0].Effect == "deny" && pol.Entries[0].Tool == "write_file"
	}
	waitUntil(t, denyInForce)
	r := h.chat("", "write the secret")
	if len(r.ToolsUsed) != 1 || r.ToolsUsed[0].Status != api.StatusError || r.ToolsUsed[0].Decision != api.DecisionRule {
		t.Fatalf("the live rule did not refuse the write: %+v", r)
	}
	if _, err := os.Stat(h.ws("secrets/b.txt")); err == nil {
		t.Fatal("secrets/b.txt was written")
	}
	bad := strings.Replace(string(orig), anchor, anchor+"  rules:\n    - {deny: rm_rf}\n", 1)
	if err := os.WriteFile(h.cfgPath, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	// The watcher reads the file within milliseconds (config's own tests show
	// it refuses the bad rule with its line); for the next half second the
	// rules in force must not change.
	for range 50 {
		if !denyInForce() {
			t.Fatal("a bad edit replaced the rules in force")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
