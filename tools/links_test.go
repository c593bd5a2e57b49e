package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// linkFixture is newFixture plus outside/planted.txt, hard-linked into the
// workspace as notes.txt (and reached through alias -> notes.txt, a symlink
// that stays inside). It skips on systems that do not report link counts.
func linkFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t)
	planted := filepath.Join(f.outside, "planted.txt")
	if err := os.WriteFile(planted, []byte("outside data"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(planted, filepath.Join(f.dir, "notes.txt")); err != nil {
		t.Skipf("cannot make a hard link here: %v", err)
	}
	if err := os.Symlink("notes.txt", filepath.Join(f.dir, "alias")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(planted)
	if err != nil {
		t.Fatal(err)
	}
	if _, known := hardLinks(fi); !known {
		t.Skip("this system does not report hard link counts")
	}
	return f
}

func TestFileToolsRefuseHardLinks(t *testing.T) {
	const planted = "has 2 hard links, so it may be a file outside the workspace under another name; file tools refuse files with more than one hard link, so "
	cases := []struct {
		name, tool, args, want string
	}{
		{"read", ReadFile, `{"path":"notes.txt"}`, "path notes.txt " + planted + fixCopyIn},
		{"read through a symlink inside", ReadFile, `{"path":"alias"}`, "path alias " + planted},
		{"write over it", WriteFile, `{"path":"notes.txt","content":"pwned"}`, "path notes.txt " + planted + fixCopyIn},
		{"write over it through a symlink inside", WriteFile, `{"path":"alias","content":""}`, "path alias " + planted},
		{"delete", DeleteFile, `{"path":"notes.txt"}`, "path notes.txt " + planted},
		{"move it", MoveFile, `{"source":"notes.txt","destination":"moved.txt"}`, "source notes.txt " + planted},
		{"move onto it", MoveFile, `{"source":"hello.txt","destination":"notes.txt"}`, "destination notes.txt " + planted + fixOtherDst},
		{"copy it", CopyFile, `{"source":"notes.txt","destination":"new/copy.txt"}`, "source notes.txt " + planted},
		{"copy it through a symlink inside", CopyFile, `{"source":"alias","destination":"copy.txt"}`, "source alias " + planted},
		{"copy onto it", CopyFile, `{"source":"hello.txt","destination":"notes.txt"}`, "destination notes.txt " + planted + fixOtherDst},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := linkFixture(t)
			before := snapshot(t, filepath.Dir(f.dir))
			res, err := f.run(t, c.tool, c.args)
			if err == nil {
				t.Fatalf("%s %s ran and returned %+v; want it refused", c.tool, c.args, res)
			}
			if !errors.Is(err, ErrHardLink) || !errors.Is(err, ErrOutsideWorkspace) {
				t.Errorf("error %q does not match ErrHardLink and ErrOutsideWorkspace", err)
			}
			if err.Error() != c.want && !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q\ndoes not say %q", err, c.want)
			}
			if strings.Contains(err.Error(), f.dir) || strings.Contains(err.Error(), f.outside) {
				t.Errorf("error %q shows a host path", err)
			}
			if after := snapshot(t, filepath.Dir(f.dir)); !mapsEqual(before, after) {
				t.Errorf("a refused call changed the disk:\nbefore %v\nafter  %v", before, after)
			}
			if got := f.readHost(t, "../outside/planted.txt"); got != "outside data" {
				t.Errorf("the outside file now holds %q", got)
			}
		})
	}
}

// TestHardLinksCountedOnTheOpenedFile: a link made after the file was
// opened (the race a check by name would lose) is still refused, and the
// file is neither truncated nor written.
func TestHardLinksCountedOnTheOpenedFile(t *testing.T) {
	f := newFixture(t)
	h, err := f.ws.root.OpenFile("hello.txt", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if fi, _ := h.Stat(); fi != nil {
		if _, known := hardLinks(fi); !known {
			t.Skip("this system does not report hard link counts")
		}
	}
	other := filepath.Join(f.outside, "other-name.txt")
	if err := os.Link(filepath.Join(f.dir, "hello.txt"), other); err != nil {
		t.Skipf("cannot make a hard link here: %v", err)
	}
	if _, err := writeChecked(h, "hello.txt", "pwned"); !errors.Is(err, ErrHardLink) {
		t.Fatalf("writeChecked = %v, want the hard-link refusal", err)
	}
	if b, _ := os.ReadFile(other); string(b) != "hello, world\n" {
		t.Errorf("the linked file now holds %q", b)
	}
}

// TestSingleLinkFilesStillWork guards the other side: the check must not
// refuse ordinary files, nor folders (which always have several links).
func TestSingleLinkFilesStillWork(t *testing.T) {
	f := linkFixture(t)
	for _, c := range []struct{ tool, args string }{
		{ReadFile, `{"path":"hello.txt"}`},
		{WriteFile, `{"path":"hello.txt","content":"new"}`},
		{CopyFile, `{"source":"hello.txt","destination":"copy.txt"}`},
		{MoveFile, `{"source":"sub","destination":"sub2"}`},
		{MoveFile, `{"source":"alias","destination":"alias2"}`},
		{DeleteFile, `{"path":"alias2"}`},
		{DeleteFile, `{"path":"copy.txt"}`},
	} {
		if _, err := f.run(t, c.tool, c.args); err != nil {
			t.Errorf("%s %s: %v", c.tool, c.args, err)
		}
	}
}
