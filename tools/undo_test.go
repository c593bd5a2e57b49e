package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestPathFields(t *testing.T) {
	for _, raw := range []string{
		`{"path": "a.txt", "content": "x"}`,
		`{"content": "say \"hi\"\\", "path": "d/\u00e9.txt"}`,
		` { "source" : "a" , "destination":"b\\\"c" } `,
		`{"path": "a", "content": "ends with a backslash \\\\"}`,
		`{}`,
	} {
		var want argPaths
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatal(err)
		}
		got, ok := pathFields([]byte(raw))
		if !ok || got != want {
			t.Errorf("pathFields(%s) = %+v, %v; want %+v", raw, got, ok, want)
		}
	}
	for _, raw := range []string{`{"path": 1}`, `{"path": "a", "x": {"y": 1}}`, `[]`, `{"path": "a"`, `{"path": "a"} x`} {
		if _, ok := pathFields([]byte(raw)); ok {
			t.Errorf("pathFields(%s) did not fall back", raw)
		}
	}
}

// TestUndoPathsAreExact: undo's own operations never follow a link on the
// way and never leave the workspace.
func TestUndoPathsAreExact(t *testing.T) {
	dir := t.TempDir()
	ws, err := OpenWorkspace(filepath.Join(dir, "ws"))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(dir, "ws", "link")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"../x", "/etc/passwd", "link/x"} {
		if err := ws.PutFile(p, []byte("x"), 0o644); err == nil {
			t.Errorf("PutFile(%s) was allowed", p)
		}
	}
	if err := ws.PutFile("link", []byte("x"), 0o644); err != nil {
		t.Fatalf("replacing the link itself: %v", err)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Fatalf("wrote outside: %v", entries)
	}
	e, err := ws.Inspect("link", 100)
	if err != nil || e.Kind != EntryFile || string(e.Data) != "x" {
		t.Fatalf("Inspect = %+v, %v", e, err)
	}
}
