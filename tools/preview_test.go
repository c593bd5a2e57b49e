package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ailab/ai-lab/api"
)

// previewOf asks the named file tool of a fresh workspace for its preview.
func previewOf(t *testing.T, ws *Workspace, name, args string) *api.Preview {
	t.Helper()
	for _, tool := range FileTools(ws) {
		if tool.Name() != name {
			continue
		}
		p, ok := tool.(Previewer)
		if !ok {
			t.Fatalf("%s has no preview", name)
		}
		got, err := p.Preview(context.Background(), json.RawMessage(args))
		if err != nil {
			t.Fatalf("%s preview: %v", name, err)
		}
		return got
	}
	t.Fatalf("no tool %s", name)
	return nil
}

func TestPreviewsSayWhatACallChanges(t *testing.T) {
	dir := t.TempDir()
	ws, err := OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("one\ntwo\nthree\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "old.txt"), []byte(strings.Repeat("line\n", 9)), 0o600)
	os.WriteFile(filepath.Join(dir, "blob.bin"), []byte{0, 1, 2, 0, 4}, 0o600)
	os.Mkdir(filepath.Join(dir, "drafts"), 0o755)

	t.Run("a new file needs none", func(t *testing.T) {
		if p := previewOf(t, ws, WriteFile, `{"path": "new.txt", "content": "x"}`); p != nil {
			t.Fatalf("preview of a new file: %+v", p)
		}
	})
	t.Run("an overwrite is a diff", func(t *testing.T) {
		p := previewOf(t, ws, WriteFile, `{"path": "notes.txt", "content": "one\n2\nthree\nfour\n"}`)
		if p == nil || p.Kind != api.PreviewOverwrite || p.Added != 2 || p.Removed != 1 || p.Size != 14 {
			t.Fatalf("%+v", p)
		}
		if p.Summary != "overwrites notes.txt (+2 −1)" || !strings.Contains(p.Diff, "-two\n") || !strings.Contains(p.Diff, "+four\n") || !strings.HasPrefix(p.Diff, "--- a/notes.txt\n+++ b/notes.txt\n") {
			t.Fatalf("summary %q, diff:\n%s", p.Summary, p.Diff)
		}
	})
	t.Run("an overwrite with the same text says so", func(t *testing.T) {
		p := previewOf(t, ws, WriteFile, `{"path": "notes.txt", "content": "one\ntwo\nthree\n"}`)
		if p.Summary != "overwrites notes.txt with the same content" || p.Diff != "" {
			t.Fatalf("%+v", p)
		}
	})
	t.Run("a binary file is named, not diffed", func(t *testing.T) {
		p := previewOf(t, ws, WriteFile, `{"path": "blob.bin", "content": "text"}`)
		if p.Summary != "overwrites blob.bin (5 bytes, not text)" || p.Diff != "" {
			t.Fatalf("%+v", p)
		}
	})
	t.Run("a long diff is cut", func(t *testing.T) {
		p := previewOf(t, ws, WriteFile, `{"path": "old.txt", "content": "`+strings.Repeat("other\\n", 1000)+`"}`)
		if !p.DiffTruncated || strings.Count(p.Diff, "\n") > maxDiffLines || p.Added != 1000 {
			t.Fatalf("truncated %v, %d lines, +%d", p.DiffTruncated, strings.Count(p.Diff, "\n"), p.Added)
		}
	})
	t.Run("a delete names size and first lines", func(t *testing.T) {
		p := previewOf(t, ws, DeleteFile, `{"path": "old.txt"}`)
		if p.Kind != api.PreviewDelete || p.Summary != "deletes old.txt (45 bytes)" || p.Head != strings.TrimRight(strings.Repeat("line\n", headLines), "\n") {
			t.Fatalf("%+v", p)
		}
		if p := previewOf(t, ws, DeleteFile, `{"path": "missing.txt"}`); p != nil {
			t.Fatalf("preview of a missing file: %+v", p)
		}
	})
	t.Run("a move or copy onto an existing file says it will fail", func(t *testing.T) {
		for _, tool := range []string{MoveFile, CopyFile} {
			p := previewOf(t, ws, tool, `{"source": "notes.txt", "destination": "old.txt"}`)
			if p.Kind != api.PreviewReplace || p.Summary != "old.txt already exists (45 bytes); "+tool+" never overwrites, so this call will fail" || p.Head == "" {
				t.Fatalf("%s: %+v", tool, p)
			}
			if p := previewOf(t, ws, tool, `{"source": "notes.txt", "destination": "free.txt"}`); p != nil {
				t.Fatalf("%s onto a free path: %+v", tool, p)
			}
		}
	})
	t.Run("one byte is a byte", func(t *testing.T) {
		os.WriteFile(filepath.Join(dir, "one.txt"), []byte("x"), 0o600)
		if p := previewOf(t, ws, DeleteFile, `{"path": "one.txt"}`); p.Summary != "deletes one.txt (1 byte)" {
			t.Fatalf("%+v", p)
		}
	})
	t.Run("a path outside is no preview", func(t *testing.T) {
		for _, tool := range FileTools(ws) {
			if tool.Name() == WriteFile {
				if p, err := tool.(Previewer).Preview(context.Background(), json.RawMessage(`{"path": "../x", "content": ""}`)); err == nil || p != nil {
					t.Fatalf("preview of an escape: %+v %v", p, err)
				}
			}
		}
	})
}
