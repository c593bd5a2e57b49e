package server

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ailab/ai-lab/tools"
)

// FuzzOutsideChanges: whatever arguments an MCP tool is called with, the
// paths recorded for undo are canonical workspace paths (never the
// workspace itself, never outside it), one for a write or delete and two for
// a move; and it never panics.
func FuzzOutsideChanges(f *testing.F) {
	dir := f.TempDir()
	ws, err := tools.OpenWorkspace(dir)
	if err != nil {
		f.Fatal(err)
	}
	defer ws.Close()
	real, _ := filepath.EvalSymlinks(dir)
	for _, s := range []string{
		`{"path":"notes.txt","content":"x"}`, `{"path":"` + real + `/a/b.txt"}`, `{"path":"/etc/passwd"}`,
		`{"source":"a.txt","destination":"b/c.txt"}`, `{"path":"../x"}`, `{"path":"."}`, `{"path":""}`, `[1,2]`, `{"path":7}`,
	} {
		f.Add(s, 0)
		f.Add(s, 1)
		f.Add(s, 2)
	}
	actions := []tools.Action{tools.ActionWrite, tools.ActionDelete, tools.ActionMove}
	f.Fuzz(func(t *testing.T, args string, a int) {
		action := actions[(a%3+3)%3]
		id := tools.Identity{Name: "files__x", Source: "mcp:files", Action: action}
		ch, ok := outsideChanges(id, json.RawMessage(args), ws)
		if !ok {
			return
		}
		want := 1
		if action == tools.ActionMove {
			want = 2
		}
		if len(ch.Paths) != want || ch.Move != (action == tools.ActionMove) {
			t.Fatalf("%s %s: %+v", action, args, ch)
		}
		for _, p := range ch.Paths {
			if p == "." || p == "" || strings.HasPrefix(p, "/") || !filepath.IsLocal(filepath.FromSlash(p)) {
				t.Fatalf("%s %s: recorded %q", action, args, p)
			}
			if c, err := ws.Canonical(p, false); err != nil || c != p {
				t.Fatalf("%q is not canonical: %q %v", p, c, err)
			}
		}
	})
}
