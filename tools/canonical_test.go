package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCanonical: the path a call really touches, as the policy sees it and
// the tools act on it: links followed inside the workspace (the last one only
// when the tool follows it), blanks and dots kept as names, everything that
// leaves the workspace refused.
func TestCanonical(t *testing.T) {
	f := newFixture(t)
	os.Symlink("sub/inner.txt", filepath.Join(f.dir, "file-link"))
	os.MkdirAll(filepath.Join(f.dir, "notes"), 0o755)
	os.Symlink("../hello.txt", filepath.Join(f.dir, "notes", "up"))
	os.Symlink("../sub/../../outside", filepath.Join(f.dir, "notes", "sneak"))
	cases := []struct {
		path   string
		follow bool
		want   string // "" with err set: refused
		err    error
	}{
		{"hello.txt", true, "hello.txt", nil},
		{"./sub/../hello.txt", true, "hello.txt", nil},
		{".", true, ".", nil},
		{" hello.txt", true, " hello.txt", nil},
		{"sub/ ", true, "sub/ ", nil},
		{"*/x", true, "*/x", nil},
		{"inlink/inner.txt", true, "sub/inner.txt", nil},
		{"inlink/new/deeper.txt", true, "sub/new/deeper.txt", nil},
		{"file-link", true, "sub/inner.txt", nil},
		{"file-link", false, "file-link", nil},
		{"inlink", false, "inlink", nil},
		{"notes/up", true, "hello.txt", nil},
		{"missing/../hello.txt", true, "hello.txt", nil},
		{"out/secret.txt", true, "", ErrOutsideWorkspace},
		{"abs", true, "", ErrOutsideWorkspace},
		{"secret", true, "", ErrOutsideWorkspace},
		{"notes/sneak/secret.txt", true, "", ErrOutsideWorkspace},
		{"../outside/secret.txt", true, "", ErrOutsideWorkspace},
		{"/etc/passwd", true, "", ErrOutsideWorkspace},
		{"loop/x", true, "", ErrOutsideWorkspace},
	}
	for _, c := range cases {
		got, err := f.ws.Canonical(c.path, c.follow)
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("Canonical(%q, %v) = %q, %v; want %v", c.path, c.follow, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Canonical(%q, %v) = %q, %v; want %q", c.path, c.follow, got, err, c.want)
		}
	}
}

// TestLocateMatchesWhatTheToolTouches: each file tool's Locate names the file
// its run then changes, through links; a hard-linked file is refused by
// Locate and by the preview as the tool refuses it.
func TestLocateMatchesWhatTheToolTouches(t *testing.T) {
	f := linkFixture(t)
	os.MkdirAll(filepath.Join(f.dir, "notes"), 0o755)
	os.Symlink("../sub/inner.txt", filepath.Join(f.dir, "notes", "link.txt"))
	write, _ := f.tools[WriteFile].(Locator)
	o, err := write.Locate(json.RawMessage(`{"path": "notes/link.txt", "content": "new"}`))
	if err != nil || len(o.Paths) != 1 || o.Paths[0] != "sub/inner.txt" || o.Given[0] != "notes/link.txt" {
		t.Fatalf("Locate = %+v, %v", o, err)
	}
	if _, err := f.run(t, WriteFile, `{"path": "notes/link.txt", "content": "new"}`); err != nil {
		t.Fatal(err)
	}
	if got := f.readHost(t, "sub/inner.txt"); got != "new" {
		t.Fatalf("the write landed elsewhere than Locate said: sub/inner.txt holds %q", got)
	}
	del, _ := f.tools[DeleteFile].(Locator)
	if o, err := del.Locate(json.RawMessage(`{"path": "notes/link.txt"}`)); err != nil || o.Paths[0] != "notes/link.txt" {
		t.Fatalf("delete locates %+v, %v; it removes the link itself", o, err)
	}
	move, _ := f.tools[MoveFile].(Locator)
	if o, err := move.Locate(json.RawMessage(`{"source": "inlink/inner.txt", "destination": "notes/moved.txt"}`)); err != nil || strings.Join(o.Paths, ",") != "sub/inner.txt,notes/moved.txt" {
		t.Fatalf("move locates %+v, %v", o, err)
	}
	// notes.txt is hard-linked to a file outside: Locate, the preview and the
	// tool all refuse it, and the preview reads none of it.
	if _, err := write.Locate(json.RawMessage(`{"path": "notes.txt", "content": "x"}`)); !errors.Is(err, ErrHardLink) {
		t.Errorf("Locate of a hard-linked file: %v", err)
	}
	for _, tool := range []string{WriteFile, DeleteFile} {
		args := `{"path": "notes.txt", "content": "x"}`
		if tool == DeleteFile {
			args = `{"path": "notes.txt"}`
		}
		pv, err := f.tools[tool].(Previewer).Preview(context.Background(), json.RawMessage(args))
		if !errors.Is(err, ErrHardLink) || pv != nil {
			t.Errorf("%s preview of a hard-linked file: %+v, %v", tool, pv, err)
		}
		if _, err := f.run(t, tool, args); !errors.Is(err, ErrHardLink) {
			t.Errorf("%s ran on a hard-linked file: %v", tool, err)
		}
	}
}
