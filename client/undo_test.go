package client_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client"
	"github.com/ailab/ai-lab/client/clienttest"
)

// undoServer answers the undo endpoints with answer and counts the requests
// that were not previews.
func undoServer(t *testing.T, answer func(req api.UndoRequest) (int, any)) (*client.Client, *clienttest.Server) {
	srv := clienttest.New(t)
	srv.Sessions = []api.SessionSummary{{SessionID: "s_new"}, {SessionID: "s_old"}}
	srv.Undo = func(session, verb string, req api.UndoRequest) (int, any) { return answer(req) }
	return client.New(srv.URL, clienttest.Token, nil), srv
}

func n(v int64) *int64 { return &v }

var restored = api.UndoReply{Turns: []int{3}, Files: []api.UndoFile{{Path: "notes.txt", Action: api.UndoRestored, Kind: "file", SizeNow: n(2048), SizeAfter: n(10), Diff: "--- a\n+++ b\n-x\n+y\n"}}}

// TestUndoOnceAsks: on a terminal the preview is shown and the question
// asked; y undoes (the most recent session when none is named), anything
// else changes nothing.
func TestUndoOnceAsks(t *testing.T) {
	for _, tc := range []struct {
		answer string
		undone bool
	}{{"y\n", true}, {"yes\n", true}, {"n\n", false}, {"\n", false}, {"", false}} {
		c, srv := undoServer(t, func(api.UndoRequest) (int, any) { return 200, restored })
		var out, prompt strings.Builder
		err := client.UndoOnce{Turn: 3, Ask: true, In: strings.NewReader(tc.answer), Out: &out, Prompt: &prompt}.Run(t.Context(), c)
		reqs := srv.Undos()
		if tc.undone != (err == nil) || tc.undone != (len(reqs) == 2) || (!tc.undone && !errors.Is(err, client.ErrDeclined)) {
			t.Fatalf("answer %q: err %v, requests %q", tc.answer, err, reqs)
		}
		if reqs[0] != `undo s_new {"turn":3,"preview":true}` {
			t.Errorf("preview request %q", reqs[0])
		}
		if !strings.Contains(out.String(), "restored    notes.txt  2.0 KB → 10 B") || prompt.String() != "Undo these changes? [y/n] (n): " {
			t.Errorf("answer %q: out %q prompt %q", tc.answer, out.String(), prompt.String())
		}
		if tc.undone && !strings.HasSuffix(out.String(), "Undid turn 3: notes.txt restored.\n") {
			t.Errorf("out %q", out.String())
		}
	}
}

// TestUndoOnceNeedsYes: without a terminal and without --yes nothing is asked
// of the server.
func TestUndoOnceNeedsYes(t *testing.T) {
	c, srv := undoServer(t, func(api.UndoRequest) (int, any) { return 200, restored })
	err := client.UndoOnce{In: strings.NewReader("y\n"), Out: &strings.Builder{}, Prompt: &strings.Builder{}}.Run(t.Context(), c)
	if !errors.Is(err, client.ErrNeedsYes) || len(srv.Undos()) != 0 || client.UndoErrorCode(err) != "needs_yes" || !strings.Contains(err.Error(), "add --yes") {
		t.Fatalf("err %v, requests %q", err, srv.Undos())
	}
}

// TestUndoErrorsMapBack: the 409s of undo come back as their sentinels, a
// conflict with its files.
func TestUndoErrorsMapBack(t *testing.T) {
	for _, tc := range []struct {
		code string
		want error
	}{{api.CodeNothingToUndo, client.ErrNothingToUndo}, {api.CodeSessionBusy, client.ErrSessionBusy}, {api.CodeConflict, client.ErrUndoConflict}} {
		c, _ := undoServer(t, func(api.UndoRequest) (int, any) {
			return http.StatusConflict, api.UndoConflictBody{Error: api.ErrorDetail{Code: tc.code, Message: "why."},
				Conflicts: []api.UndoConflict{{Path: "a.txt", Why: "changed since turn 1", Hard: true}}}
		})
		_, err := c.Undo(t.Context(), "s_1", api.UndoRequest{Preview: true})
		var ce *client.UndoConflictError
		if !errors.Is(err, tc.want) || (tc.code == api.CodeConflict) != errors.As(err, &ce) {
			t.Fatalf("%s: %v", tc.code, err)
		}
		if ce != nil && (len(ce.Conflicts) != 1 || ce.Forcible()) {
			t.Errorf("conflicts %+v", ce.Conflicts)
		}
	}
}

func TestUndoHeadline(t *testing.T) {
	for _, tc := range []struct {
		redo  bool
		turns []int
		want  string
	}{
		{false, []int{3}, "Undo turn 3: the workspace goes back to how it was before it."},
		{false, []int{3, 2}, "Undoing turn 2 also undoes turn 3, which came after it."},
		{false, []int{5, 4, 2}, "Undoing turn 2 also undoes turns 4 and 5, which all came after it."},
		{true, []int{2, 3, 4}, "Redo turns 2, 3 and 4: the changes the last undo took back are made again."},
	} {
		if got := client.UndoHeadline(tc.redo, api.UndoReply{Turns: tc.turns}); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.turns, got, tc.want)
		}
	}
}

// TestUndoLinesSayWhereAMoveComesBackFrom: a moved-back row names the path
// the file comes back from, not a size.
func TestUndoLinesSayWhereAMoveComesBackFrom(t *testing.T) {
	r := api.UndoReply{Turns: []int{1}, Files: []api.UndoFile{{Path: "notes.txt", Action: api.UndoMovedBack, From: "old/notes.txt", Kind: "file"}}}
	lines := strings.Join(client.UndoLines(false, r, 80), "\n")
	if !strings.Contains(lines, "moved back  notes.txt  from old/notes.txt") {
		t.Errorf("the preview reads:\n%s", lines)
	}
}

// FuzzUndoShownVisibly feeds arbitrary preview and conflict answers (paths
// and diffs come from the workspace, which the model wrote) through the
// renderers: nothing hidden reaches the terminal, and no line is wider than
// asked.
func FuzzUndoShownVisibly(f *testing.F) {
	seed, _ := json.Marshal(restored)
	f.Add(seed, 80)
	f.Add([]byte(`{"turns":[2,1],"files":[{"path":"a\u001b[2Jb","action":"x\u202e","kind":"dir","diff":"\u200b+y\r\n"}]}`), 40)
	f.Fuzz(func(t *testing.T, body []byte, width int) {
		width = 20 + (width%200+200)%200
		var r api.UndoReply
		if json.Unmarshal(body, &r) != nil {
			return
		}
		var c []api.UndoConflict
		for _, u := range r.Files {
			c = append(c, api.UndoConflict{Path: u.Path, Why: u.Action, Diff: u.Diff, Hard: u.DiffTruncated})
		}
		ce := &client.UndoConflictError{APIError: &client.APIError{Message: "m"}, Conflicts: c}
		lines := append(client.UndoLines(false, r, width), client.ConflictLines(true, ce, width)...)
		lines = append(lines, client.UndoDone(false, r))
		for _, l := range lines {
			checkShown(t, "undo line", l, false)
			if w := ansi.StringWidth(l); w > width && !strings.HasPrefix(l, "Undid") {
				t.Fatalf("line of %d cells at width %d: %q", w, width, l)
			}
		}
	})
}
