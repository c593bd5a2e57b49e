package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/llm/llmtest"
)

// TestPendingToolsCarryPreviewsAndGrantOffers: a pending write over an
// existing file shows its diff, a delete what it removes; a grant is offered
// for a write (its folder) but never for a delete, a move, arguments with an
// invisible character, or a tool the strict preset lists.
func TestPendingToolsCarryPreviewsAndGrantOffers(t *testing.T) {
	h := newLoopHarness(t, "moderate",
		llmtest.Calls(
			llmtest.Call("w", "write_file", `{"path": "notes/a.txt", "content": "one\nTWO\n"}`),
			llmtest.Call("n", "write_file", `{"path": "new.txt", "content": "x"}`),
			llmtest.Call("d", "delete_file", `{"path": "notes/a.txt"}`),
			llmtest.Call("m", "move_file", `{"source": "notes/a.txt", "destination": "b.txt"}`),
			llmtest.Call("z", "write_file", `{"path": "notes/a\u200b.txt", "content": "x"}`)))
	os.MkdirAll(h.ws("notes"), 0o755)
	os.WriteFile(h.ws("notes/a.txt"), []byte("one\ntwo\n"), 0o600)
	r := h.chat("", "do things")
	if !r.ApprovalRequired || len(r.ToolsPending) != 5 {
		t.Fatalf("%+v", r)
	}
	byID := map[string]api.PendingTool{}
	for _, p := range r.ToolsPending {
		byID[p.ToolCallID] = p
	}
	w := byID["w"]
	if w.Preview == nil || w.Preview.Summary != "overwrites notes/a.txt (+1 −1)" || !strings.Contains(w.Preview.Diff, "+TWO") {
		t.Errorf("overwrite preview %+v", w.Preview)
	}
	if w.Grant == nil || w.Grant.Pattern != "notes/*" || w.Grant.Label != "write files in notes/ for this session" {
		t.Errorf("write grant %+v", w.Grant)
	}
	if n := byID["n"]; n.Preview != nil || n.Grant == nil || n.Grant.Pattern != "./*" {
		t.Errorf("new file: preview %+v, grant %+v", n.Preview, n.Grant)
	}
	if d := byID["d"]; d.Grant != nil || d.Preview == nil || d.Preview.Kind != api.PreviewDelete {
		t.Errorf("delete: grant %+v, preview %+v", d.Grant, d.Preview)
	}
	if m := byID["m"]; m.Grant != nil {
		t.Errorf("move offered a grant: %+v", m.Grant)
	}
	if z := byID["z"]; z.Grant != nil {
		t.Errorf("an invisible character offered a grant: %+v", z.Grant)
	}
	// The session view shows the same.
	var d api.SessionDetail
	h.do("GET", "/sessions/"+r.SessionID, nil, &d)
	if len(d.ToolsPending) != 5 || d.ToolsPending[0].Preview == nil || d.ToolsPending[0].Grant == nil {
		t.Errorf("GET /sessions pending %+v", d.ToolsPending)
	}

	strict := newLoopHarness(t, "strict", writeCall("w", "a.txt", "x"))
	if r := strict.chat("", "write"); r.ToolsPending[0].Grant != nil {
		t.Errorf("strict offered a grant it would ignore: %+v", r.ToolsPending[0].Grant)
	}
}

// TestASessionGrantRunsLaterCallsWithoutAsking: a write approved with scope
// session stores its folder's grant; later writes in that folder, in that
// session, run with decision grant; a write elsewhere, another session, a
// revoked grant and the strict preset all ask again.
func TestASessionGrantRunsLaterCallsWithoutAsking(t *testing.T) {
	h := newLoopHarness(t, "moderate",
		writeCall("w1", "notes/a.txt", "a"), citeResults("Wrote"),
		writeCall("w2", "notes/b.txt", "b"), citeResults("Wrote"),
		writeCall("w3", "other/c.txt", "c"), llmtest.Text("Not written: you denied it."),
		writeCall("w4", "notes/d.txt", "d"),
		writeCall("w5", "notes/e.txt", "e"))
	r := h.chat("", "write a")
	if code, e := h.errorOf("POST", "/chat/approve", api.ApproveRequest{SessionID: r.SessionID, Decisions: []api.Decision{{ToolCallID: "w1", Approved: false, Scope: api.ScopeSession}}}); code != 400 || e.Code != api.CodeInvalidDecisions {
		t.Fatalf("a denial with scope session: %d %+v", code, e)
	}
	r = h.approve(r.SessionID, api.Decision{ToolCallID: "w1", Approved: true, Scope: api.ScopeSession})
	if len(r.ToolsUsed) != 1 || r.ToolsUsed[0].Decision != api.DecisionUser {
		t.Fatalf("the approved call: %+v", r.ToolsUsed)
	}
	var grants []api.SessionGrant
	h.do("GET", "/sessions/"+r.SessionID+"/grants", nil, &grants)
	if len(grants) != 1 || grants[0].ToolName != "write_file" || grants[0].Pattern != "notes/*" || grants[0].GrantID == "" {
		t.Fatalf("grants %+v", grants)
	}
	r2 := h.chat(r.SessionID, "write b")
	if r2.ApprovalRequired || len(r2.ToolsUsed) != 1 || r2.ToolsUsed[0].Decision != api.DecisionGrant {
		t.Fatalf("a write in the granted folder: %+v", r2)
	}
	var e api.Execution
	h.do("GET", "/executions/"+r2.ToolsUsed[0].ExecutionID, nil, &e)
	if e.Decision != api.DecisionGrant {
		t.Errorf("the ledger says %q", e.Decision)
	}
	if _, err := os.Stat(h.ws(filepath.Join("notes", "b.txt"))); err != nil {
		t.Fatal(err)
	}
	if r3 := h.chat(r.SessionID, "write c"); !r3.ApprovalRequired {
		t.Fatalf("a write outside the granted folder ran: %+v", r3)
	}
	h.approve(r.SessionID, denied("w3", ""))
	other := h.chat("", "write d elsewhere")
	if !other.ApprovalRequired {
		t.Fatalf("a grant reached another session: %+v", other)
	}
	if code := h.do("DELETE", "/sessions/"+r.SessionID+"/grants/"+grants[0].GrantID, nil, nil); code != 204 {
		t.Fatalf("revoke: %d", code)
	}
	if code, e := h.errorOf("DELETE", "/sessions/"+r.SessionID+"/grants/"+grants[0].GrantID, nil); code != 404 || e.Code != api.CodeNotFound {
		t.Fatalf("revoking twice: %d %+v", code, e)
	}
	if r5 := h.chat(r.SessionID, "write e"); !r5.ApprovalRequired {
		t.Fatalf("a revoked grant still ran a write: %+v", r5)
	}
}

// TestStrictIgnoresGrants: a grant made under moderate stays, but strict,
// which lists write_file, asks anyway.
func TestStrictIgnoresGrants(t *testing.T) {
	h := newLoopHarness(t, "moderate", writeCall("w1", "notes/a.txt", "a"), citeResults("Wrote"), writeCall("w2", "notes/b.txt", "b"))
	r := h.chat("", "write a")
	h.approve(r.SessionID, api.Decision{ToolCallID: "w1", Approved: true, Scope: api.ScopeSession})
	if code := h.do("PUT", "/config/safety", api.SafetyUpdate{Preset: "strict"}, nil); code != 200 {
		t.Fatal(code)
	}
	if r2 := h.chat(r.SessionID, "write b"); !r2.ApprovalRequired {
		t.Fatalf("strict let a grant run a write: %+v", r2)
	}
	var grants []api.SessionGrant
	h.do("GET", "/sessions/"+r.SessionID+"/grants", nil, &grants)
	if len(grants) != 1 {
		t.Fatalf("the preset change cleared the grant: %+v", grants)
	}
}

// TestAGrantForACallWithoutAnOfferIsRefused: scope session on a delete is 400.
func TestAGrantForACallWithoutAnOfferIsRefused(t *testing.T) {
	h := newLoopHarness(t, "moderate", llmtest.Calls(llmtest.Call("d", "delete_file", `{"path": "x.txt"}`)))
	r := h.chat("", "delete")
	code, e := h.errorOf("POST", "/chat/approve", api.ApproveRequest{SessionID: r.SessionID, Decisions: []api.Decision{{ToolCallID: "d", Approved: true, Scope: api.ScopeSession}}})
	if code != 400 || e.Code != api.CodeInvalidDecisions || !strings.Contains(e.Message, "no grant can be given") || !strings.Contains(e.Message, "delete_file never takes a grant") {
		t.Fatalf("%d %+v", code, e)
	}
}

// TestAResumedSessionKeepsItsMarks: the last message of each turn carries the
// runs with their decisions and the validation, as the live answer showed them.
func TestAResumedSessionKeepsItsMarks(t *testing.T) {
	h := newLoopHarness(t, "moderate",
		llmtest.Calls(llmtest.Call("l", "list_directory", `{"path": "."}`), llmtest.Call("w", "write_file", `{"path": "a.txt", "content": "x"}`)),
		citeResults("Listed and wrote"),
		llmtest.Text("Plain answer."))
	r := h.chat("", "list and write")
	live := h.approve(r.SessionID, approved("w"))
	h.chat(r.SessionID, "thanks")
	var d api.SessionDetail
	h.do("GET", "/sessions/"+r.SessionID, nil, &d)
	var ends []api.Message
	for _, m := range d.Messages {
		if m.Validation != nil {
			ends = append(ends, m)
		}
	}
	if len(ends) != 2 {
		t.Fatalf("%d messages carry marks: %+v", len(ends), d.Messages)
	}
	first := ends[0]
	if first.Content != live.Response || !first.Validation.Valid || first.TraceID != live.TraceID || len(first.ToolsUsed) != 2 {
		t.Fatalf("marks %+v, live %+v", first, live)
	}
	want := map[string]string{"list_directory": api.DecisionAuto, "write_file": api.DecisionUser}
	for _, u := range first.ToolsUsed {
		if u.Decision != want[u.ToolName] || u.Status != api.StatusOK || u.ExecutionID == "" {
			t.Errorf("stored run %+v", u)
		}
	}
	if ends[1].Content != "Plain answer." || len(ends[1].ToolsUsed) != 0 {
		t.Errorf("second turn's marks %+v", ends[1])
	}
}
