package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fixture is a workspace next to a folder it must never reach.
type fixture struct {
	ws      *Workspace
	dir     string // the workspace folder
	outside string // a sibling folder with secret.txt in it
	tools   map[string]Tool
}

// newFixture lays out:
//
//	outside/secret.txt
//	ws/hello.txt, ws/sub/inner.txt, ws/bin.dat (binary)
//	ws/out      -> ../outside           (directory link leading out)
//	ws/abs      -> <abs>/outside        (absolute link)
//	ws/secret   -> ../outside/secret.txt (final-component link leading out)
//	ws/dangling -> ../outside/nope      (dangling link leading out)
//	ws/inlink   -> sub                  (link that stays inside)
//	ws/loop     -> loop
func newFixture(t testing.TB) *fixture {
	t.Helper()
	base := t.TempDir()
	f := &fixture{dir: filepath.Join(base, "ws"), outside: filepath.Join(base, "outside")}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(f.outside, 0o755))
	must(os.WriteFile(filepath.Join(f.outside, "secret.txt"), []byte("top secret"), 0o644))
	ws, err := OpenWorkspace(f.dir) // creates ws/
	must(err)
	t.Cleanup(func() { ws.Close() })
	f.ws = ws
	must(os.MkdirAll(filepath.Join(f.dir, "sub"), 0o755))
	must(os.WriteFile(filepath.Join(f.dir, "hello.txt"), []byte("hello, world\n"), 0o644))
	must(os.WriteFile(filepath.Join(f.dir, "sub", "inner.txt"), []byte("inner"), 0o644))
	must(os.WriteFile(filepath.Join(f.dir, "bin.dat"), []byte("PK\x03\x04\x00\x00binary"), 0o644))
	must(os.Symlink("../outside", filepath.Join(f.dir, "out")))
	must(os.Symlink(f.outside, filepath.Join(f.dir, "abs")))
	must(os.Symlink("../outside/secret.txt", filepath.Join(f.dir, "secret")))
	must(os.Symlink("../outside/nope", filepath.Join(f.dir, "dangling")))
	must(os.Symlink("sub", filepath.Join(f.dir, "inlink")))
	must(os.Symlink("loop", filepath.Join(f.dir, "loop")))
	f.tools = map[string]Tool{}
	for _, tool := range FileTools(ws) {
		f.tools[tool.Name()] = tool
	}
	return f
}

func (f *fixture) run(t testing.TB, tool, args string) (any, error) {
	t.Helper()
	tl, ok := f.tools[tool]
	if !ok {
		t.Fatalf("no tool %s", tool)
	}
	return tl.Run(context.Background(), json.RawMessage(args))
}

// snapshot lists every file under dir with its content, to prove a refused
// call changed nothing.
func snapshot(t testing.TB, dir string, skip ...string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if slices.Contains(skip, p) {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			files[rel] = "-> " + target
		case d.IsDir():
			files[rel+"/"] = ""
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			files[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func (f *fixture) readHost(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.dir, rel))
	if err != nil {
		t.Fatalf("reading %s: %v", rel, err)
	}
	return string(b)
}

func TestPathEscapesAreRefused(t *testing.T) {
	const (
		absolute = "is absolute; file tools take paths relative to the workspace"
		leaves   = "leaves the workspace"
		link     = "symbolic link"
	)
	cases := []struct {
		name, tool, args, want string
	}{
		{"read absolute", ReadFile, `{"path":"/etc/passwd"}`, "path /etc/passwd " + absolute},
		{"read dotdot", ReadFile, `{"path":"../outside/secret.txt"}`, "path ../outside/secret.txt " + leaves},
		{"read dotdot after clean", ReadFile, `{"path":"sub/../../outside/secret.txt"}`, leaves},
		{"read bare dotdot", ReadFile, `{"path":".."}`, leaves},
		{"read link in the middle", ReadFile, `{"path":"out/secret.txt"}`, "path out/secret.txt goes through a symbolic link (out) that points outside the workspace"},
		{"read absolute link", ReadFile, `{"path":"abs/secret.txt"}`, link},
		{"read link at final component", ReadFile, `{"path":"secret"}`, "symbolic link (secret)"},
		{"read dangling link", ReadFile, `{"path":"dangling"}`, "symbolic link (dangling)"},
		{"read link reached through an inside link", ReadFile, `{"path":"inlink/../out/secret.txt"}`, link},
		{"write absolute", WriteFile, `{"path":"/tmp/ailab-escape.txt","content":"x"}`, absolute},
		{"write dotdot", WriteFile, `{"path":"../evil.txt","content":"x"}`, leaves},
		{"write through linked dir", WriteFile, `{"path":"out/evil.txt","content":"x"}`, link},
		{"write new subdir under linked dir", WriteFile, `{"path":"out/new/evil.txt","content":"x"}`, link},
		{"write onto outside link", WriteFile, `{"path":"secret","content":"x"}`, link},
		{"write onto dangling link", WriteFile, `{"path":"dangling","content":"x"}`, link},
		{"delete absolute", DeleteFile, `{"path":"/etc/passwd"}`, absolute},
		{"delete dotdot", DeleteFile, `{"path":"a/../../outside/secret.txt"}`, leaves},
		{"delete through link", DeleteFile, `{"path":"out/secret.txt"}`, link},
		{"delete outside link", DeleteFile, `{"path":"secret"}`, link},
		{"move source outside", MoveFile, `{"source":"out/secret.txt","destination":"stolen.txt"}`, link},
		{"move source absolute", MoveFile, `{"source":"/etc/hosts","destination":"hosts"}`, absolute},
		{"move destination dotdot", MoveFile, `{"source":"hello.txt","destination":"../hello.txt"}`, leaves},
		{"move destination through linked dir", MoveFile, `{"source":"hello.txt","destination":"out/hello.txt"}`, link},
		{"move destination absolute link", MoveFile, `{"source":"hello.txt","destination":"abs/hello.txt"}`, link},
		{"copy source through link", CopyFile, `{"source":"secret","destination":"stolen.txt"}`, link},
		{"copy destination through linked dir", CopyFile, `{"source":"hello.txt","destination":"out/copy.txt"}`, link},
		{"copy destination absolute", CopyFile, `{"source":"hello.txt","destination":"/tmp/copy.txt"}`, absolute},
		{"mkdir absolute", CreateDirectory, `{"path":"/tmp/ailab-dir"}`, absolute},
		{"mkdir dotdot", CreateDirectory, `{"path":"sub/../../x"}`, leaves},
		{"mkdir through linked dir", CreateDirectory, `{"path":"out/newdir"}`, link},
		{"mkdir deep through linked dir", CreateDirectory, `{"path":"out/a/b/c"}`, link},
		{"list absolute", ListDirectory, `{"path":"/"}`, absolute},
		{"list dotdot", ListDirectory, `{"path":".."}`, leaves},
		{"list linked dir", ListDirectory, `{"path":"out"}`, link},
		{"list absolute link", ListDirectory, `{"path":"abs"}`, link},
		{"list link loop", ListDirectory, `{"path":"loop"}`, "symbolic link loop at loop"},
		{"read double-slash absolute", ReadFile, `{"path":"//etc/passwd"}`, absolute},
		{"read backslash-rooted", ReadFile, `{"path":"\\etc\\passwd"}`, absolute},
		{"read dot then dotdot", ReadFile, `{"path":"./../outside/secret.txt"}`, leaves},
		{"read doubled slashes around dotdot", ReadFile, `{"path":"sub//..//../outside/secret.txt"}`, leaves},
		{"list trailing-slash dotdot", ListDirectory, `{"path":"../"}`, leaves},
		{"copy source dotdot", CopyFile, `{"source":"../outside/secret.txt","destination":"stolen.txt"}`, leaves},
		{"move source through link to a folder", MoveFile, `{"source":"out","destination":"mine"}`, link},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			before := snapshot(t, filepath.Dir(f.dir))
			res, err := f.run(t, c.tool, c.args)
			if err == nil {
				t.Fatalf("%s %s ran and returned %+v; want it refused", c.tool, c.args, res)
			}
			if !errors.Is(err, ErrOutsideWorkspace) {
				t.Errorf("error %q does not match ErrOutsideWorkspace", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not say %q", err, c.want)
			}
			if after := snapshot(t, filepath.Dir(f.dir)); !mapsEqual(before, after) {
				t.Errorf("a refused call changed the disk:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestReadFile(t *testing.T) {
	cases := []struct {
		name, args string
		want       ReadFileResult
		wantErr    string
	}{
		{"text file", `{"path":"hello.txt"}`, ReadFileResult{Path: "hello.txt", Content: "hello, world\n", Size: 13}, ""},
		{"nested with dot segments", `{"path":"./sub/./inner.txt"}`, ReadFileResult{Path: "sub/inner.txt", Content: "inner", Size: 5}, ""},
		{"through a link that stays inside", `{"path":"inlink/inner.txt"}`, ReadFileResult{Path: "inlink/inner.txt", Content: "inner", Size: 5}, ""},
		{"utf-8 text", `{"path":"utf8.txt"}`, ReadFileResult{Path: "utf8.txt", Content: "héllo wörld ✓", Size: int64(len("héllo wörld ✓"))}, ""},
		{"empty file", `{"path":"empty.txt"}`, ReadFileResult{Path: "empty.txt", Content: "", Size: 0}, ""},
		{"exactly the limit", `{"path":"limit.txt"}`, ReadFileResult{Path: "limit.txt", Size: MaxReadBytes}, ""},
		{"missing", `{"path":"nope.txt"}`, ReadFileResult{}, "no such file or directory: nope.txt; use list_directory to see what is there"},
		{"directory", `{"path":"sub"}`, ReadFileResult{}, "path sub is a directory; use list_directory"},
		{"workspace root", `{"path":"."}`, ReadFileResult{}, "path . is a directory"},
		{"binary with NUL", `{"path":"bin.dat"}`, ReadFileResult{}, "path bin.dat is a binary file; read_file reads text only"},
		{"invalid utf-8", `{"path":"latin1.txt"}`, ReadFileResult{}, "path latin1.txt is a binary file"},
		{"NUL after the first 8 KiB", `{"path":"late-nul.txt"}`, ReadFileResult{}, "is a binary file"},
		{"over the limit", `{"path":"huge.txt"}`, ReadFileResult{}, "path huge.txt is 2.0 MiB (2097152 bytes), over read_file's limit of 1 MiB (1048576 bytes)"},
		{"one byte over", `{"path":"over.txt"}`, ReadFileResult{}, "(1048577 bytes), over read_file's limit"},
		{"fifo", `{"path":"fifo"}`, ReadFileResult{}, "path fifo is not a regular file"},
		{"file used as a directory", `{"path":"hello.txt/x"}`, ReadFileResult{}, "a part of the path is a file"},
		{"newline in the path", `{"path":"hello.txt\nx"}`, ReadFileResult{}, `path "hello.txt\nx" contains a control character`},
		{"NUL in the path", `{"path":"hello.txt\u0000"}`, ReadFileResult{}, `contains a control character`},
		{"missing path", `{}`, ReadFileResult{}, `argument "path" is required`},
		{"misspelt argument", `{"pth":"hello.txt"}`, ReadFileResult{}, `unknown argument "pth" (expected path)`},
	}
	f := newFixture(t)
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(f.dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("utf8.txt", []byte("héllo wörld ✓"))
	write("empty.txt", nil)
	write("latin1.txt", []byte("caf\xe9"))
	write("late-nul.txt", append(bytes.Repeat([]byte("a"), 9000), 0))
	limit := bytes.Repeat([]byte("x"), MaxReadBytes)
	write("limit.txt", limit)
	write("huge.txt", bytes.Repeat([]byte("x"), 2<<20))
	write("over.txt", bytes.Repeat([]byte("x"), MaxReadBytes+1))
	if err := syscall.Mkfifo(filepath.Join(f.dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := f.run(t, ReadFile, c.args)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := res.(ReadFileResult)
			if c.name == "exactly the limit" {
				c.want.Content = string(limit)
			}
			if got != c.want {
				t.Fatalf("got %+v, want %+v", trimResult(got), trimResult(c.want))
			}
		})
	}
}

func trimResult(r ReadFileResult) ReadFileResult {
	if len(r.Content) > 40 {
		r.Content = r.Content[:40] + "..."
	}
	return r
}

func TestWriteFile(t *testing.T) {
	cases := []struct {
		name, args string
		want       WriteFileResult
		file, body string // what must then be on disk
		wantErr    string
	}{
		{"new file", `{"path":"new.txt","content":"fresh"}`, WriteFileResult{Path: "new.txt", BytesWritten: 5}, "new.txt", "fresh", ""},
		{"overwrite", `{"path":"hello.txt","content":"replaced"}`, WriteFileResult{Path: "hello.txt", BytesWritten: 8, Overwritten: true}, "hello.txt", "replaced", ""},
		{"creates parent folders", `{"path":"a/b/c.txt","content":"deep"}`, WriteFileResult{Path: "a/b/c.txt", BytesWritten: 4}, "a/b/c.txt", "deep", ""},
		{"empty content", `{"path":"empty.txt","content":""}`, WriteFileResult{Path: "empty.txt"}, "empty.txt", "", ""},
		{"overwrite with more", `{"path":"hello.txt","content":"hello, world, and more\n"}`, WriteFileResult{Path: "hello.txt", BytesWritten: 23, Overwritten: true}, "hello.txt", "hello, world, and more\n", ""},
		{"overwrite with nothing", `{"path":"hello.txt","content":""}`, WriteFileResult{Path: "hello.txt", Overwritten: true}, "hello.txt", "", ""},
		{"through an inside link", `{"path":"inlink/via.txt","content":"v"}`, WriteFileResult{Path: "inlink/via.txt", BytesWritten: 1}, "sub/via.txt", "v", ""},
		{"onto a directory", `{"path":"sub","content":"x"}`, WriteFileResult{}, "", "", "path sub is a directory; write_file writes files only"},
		{"onto the workspace", `{"path":".","content":"x"}`, WriteFileResult{}, "", "", "path . is the workspace itself"},
		{"parent is a file", `{"path":"hello.txt/x.txt","content":"x"}`, WriteFileResult{}, "", "", "a part of the path is a file"},
		{"content missing", `{"path":"x.txt"}`, WriteFileResult{}, "", "", `argument "content" is required`},
		{"content not a string", `{"path":"x.txt","content":5}`, WriteFileResult{}, "", "", `argument "content" must be a string, not a number`},
		{"path blank", `{"path":"  ","content":"x"}`, WriteFileResult{}, "", "", `argument "path" must not be empty`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			res, err := f.run(t, WriteFile, c.args)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.(WriteFileResult) != c.want {
				t.Errorf("got %+v, want %+v", res, c.want)
			}
			if got := f.readHost(t, c.file); got != c.body {
				t.Errorf("%s holds %q, want %q", c.file, got, c.body)
			}
		})
	}
}

func TestDeleteFile(t *testing.T) {
	cases := []struct {
		name, args, gone, wantErr string
	}{
		{"file", `{"path":"hello.txt"}`, "hello.txt", ""},
		{"nested file", `{"path":"sub/inner.txt"}`, "sub/inner.txt", ""},
		{"inside link deletes the link, not its target", `{"path":"inlink"}`, "inlink", ""},
		{"missing", `{"path":"nope.txt"}`, "", "no such file: nope.txt; use list_directory to see what is there"},
		{"directory", `{"path":"sub"}`, "", "path sub is a directory; delete_file deletes files only"},
		{"workspace root", `{"path":"."}`, "", "path . is a directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			res, err := f.run(t, DeleteFile, c.args)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := (DeleteFileResult{Path: c.gone, Deleted: true}); res.(DeleteFileResult) != want {
				t.Errorf("got %+v, want %+v", res, want)
			}
			if _, err := os.Lstat(filepath.Join(f.dir, c.gone)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s still there (%v)", c.gone, err)
			}
			if c.gone == "inlink" {
				if _, err := os.Stat(filepath.Join(f.dir, "sub", "inner.txt")); err != nil {
					t.Errorf("deleting the link removed its target: %v", err)
				}
			}
		})
	}
}

func TestMoveAndCopyFile(t *testing.T) {
	cases := []struct {
		name, tool, args string
		want             any
		check            map[string]string // host path -> content ("" with gone = must be missing)
		gone             string
		wantErr          string
	}{
		{"move renames", MoveFile, `{"source":"hello.txt","destination":"renamed.txt"}`,
			MoveFileResult{Source: "hello.txt", Destination: "renamed.txt"}, map[string]string{"renamed.txt": "hello, world\n"}, "hello.txt", ""},
		{"move creates destination folders", MoveFile, `{"source":"hello.txt","destination":"x/y/hello.txt"}`,
			MoveFileResult{Source: "hello.txt", Destination: "x/y/hello.txt"}, map[string]string{"x/y/hello.txt": "hello, world\n"}, "hello.txt", ""},
		{"move a directory", MoveFile, `{"source":"sub","destination":"moved"}`,
			MoveFileResult{Source: "sub", Destination: "moved"}, map[string]string{"moved/inner.txt": "inner"}, "sub", ""},
		{"move refuses to overwrite", MoveFile, `{"source":"hello.txt","destination":"sub/inner.txt"}`,
			nil, map[string]string{"sub/inner.txt": "inner", "hello.txt": "hello, world\n"}, "", "destination sub/inner.txt already exists; move_file does not overwrite"},
		{"move onto a directory", MoveFile, `{"source":"hello.txt","destination":"sub"}`,
			nil, nil, "", "destination sub is an existing directory; give the full new path, e.g. sub/hello.txt"},
		{"move missing source", MoveFile, `{"source":"nope.txt","destination":"x.txt"}`, nil, nil, "", "no such file: nope.txt; use list_directory to see what is there"},
		{"move directory into itself", MoveFile, `{"source":"sub","destination":"sub/deeper/sub"}`, nil, nil, "", "cannot move directory sub into itself"},
		{"move the workspace", MoveFile, `{"source":".","destination":"x"}`, nil, nil, "", "source . is the workspace itself"},
		{"move onto the workspace", MoveFile, `{"source":"hello.txt","destination":"."}`, nil, nil, "", "destination . is the workspace itself"},
		{"move missing destination argument", MoveFile, `{"source":"hello.txt"}`, nil, nil, "", `argument "destination" is required`},
		{"copy", CopyFile, `{"source":"hello.txt","destination":"copy.txt"}`,
			CopyFileResult{Source: "hello.txt", Destination: "copy.txt", BytesCopied: 13}, map[string]string{"copy.txt": "hello, world\n", "hello.txt": "hello, world\n"}, "", ""},
		{"copy creates destination folders", CopyFile, `{"source":"sub/inner.txt","destination":"n/e/w.txt"}`,
			CopyFileResult{Source: "sub/inner.txt", Destination: "n/e/w.txt", BytesCopied: 5}, map[string]string{"n/e/w.txt": "inner"}, "", ""},
		{"copy follows an inside link", CopyFile, `{"source":"inlink/inner.txt","destination":"c.txt"}`,
			CopyFileResult{Source: "inlink/inner.txt", Destination: "c.txt", BytesCopied: 5}, map[string]string{"c.txt": "inner"}, "", ""},
		{"copy refuses to overwrite", CopyFile, `{"source":"hello.txt","destination":"sub/inner.txt"}`,
			nil, map[string]string{"sub/inner.txt": "inner"}, "", "destination sub/inner.txt already exists; copy_file does not overwrite"},
		{"copy a directory", CopyFile, `{"source":"sub","destination":"sub2"}`, nil, nil, "sub2", "source sub is a directory; copy_file copies files only"},
		{"copy missing source", CopyFile, `{"source":"nope.txt","destination":"x.txt"}`, nil, nil, "x.txt", "no such file: nope.txt; use list_directory to see what is there"},
		{"copy misspelt argument", CopyFile, `{"src":"hello.txt","destination":"x.txt"}`, nil, nil, "x.txt", `unknown argument "src" (expected source, destination)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			res, err := f.run(t, c.tool, c.args)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, c.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			} else if res != c.want {
				t.Errorf("got %+v, want %+v", res, c.want)
			}
			for p, body := range c.check {
				if got := f.readHost(t, p); got != body {
					t.Errorf("%s holds %q, want %q", p, got, body)
				}
			}
			if c.gone != "" {
				if _, err := os.Lstat(filepath.Join(f.dir, c.gone)); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("%s exists (%v), want it gone", c.gone, err)
				}
			}
		})
	}
}

func TestCopyKeepsPermissions(t *testing.T) {
	f := newFixture(t)
	if err := os.WriteFile(filepath.Join(f.dir, "run.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := f.run(t, CopyFile, `{"source":"run.sh","destination":"run2.sh"}`); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(f.dir, "run2.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm()&0o100 == 0 {
		t.Errorf("copy mode %v lost the execute bit", fi.Mode())
	}
}

func TestCopyStopsWhenCancelled(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := f.ws.copyFile(ctx, transferArgs{Source: "hello.txt", Destination: "c.txt"})
	if err == nil || !strings.Contains(err.Error(), "cancelled") {
		t.Fatalf("error %v, want a cancellation", err)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "c.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a cancelled copy left c.txt behind (%v)", err)
	}
}

func TestCreateDirectory(t *testing.T) {
	cases := []struct {
		name, args string
		want       CreateDirectoryResult
		wantErr    string
	}{
		{"new", `{"path":"newdir"}`, CreateDirectoryResult{Path: "newdir", Created: true}, ""},
		{"with parents", `{"path":"a/b/c"}`, CreateDirectoryResult{Path: "a/b/c", Created: true}, ""},
		{"already there", `{"path":"sub"}`, CreateDirectoryResult{Path: "sub", Created: false}, ""},
		{"the workspace", `{"path":"."}`, CreateDirectoryResult{Path: ".", Created: false}, ""},
		{"under an inside link", `{"path":"inlink/deeper"}`, CreateDirectoryResult{Path: "inlink/deeper", Created: true}, ""},
		{"a file is there", `{"path":"hello.txt"}`, CreateDirectoryResult{}, "path hello.txt already exists and is a file"},
		{"a file is in the way", `{"path":"hello.txt/x"}`, CreateDirectoryResult{}, "a part of the path is a file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			res, err := f.run(t, CreateDirectory, c.args)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.(CreateDirectoryResult) != c.want {
				t.Errorf("got %+v, want %+v", res, c.want)
			}
			if fi, err := os.Stat(filepath.Join(f.dir, c.want.Path)); err != nil || !fi.IsDir() {
				t.Errorf("%s is not a directory on disk (%v)", c.want.Path, err)
			}
		})
	}
}

func TestListDirectory(t *testing.T) {
	f := newFixture(t)
	res, err := f.run(t, ListDirectory, `{}`)
	if err != nil {
		t.Fatal(err)
	}
	got := res.(ListDirectoryResult)
	want := ListDirectoryResult{Path: ".", Total: 9, Entries: []DirEntry{
		{"abs", "symlink", int64(len(f.outside))},
		{"bin.dat", "file", 12},
		{"dangling", "symlink", int64(len("../outside/nope"))},
		{"hello.txt", "file", 13},
		{"inlink", "symlink", 3},
		{"loop", "symlink", 4},
		{"out", "symlink", int64(len("../outside"))},
		{"secret", "symlink", int64(len("../outside/secret.txt"))},
		{"sub", "dir", 0},
	}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("listing of the root:\ngot  %+v\nwant %+v", got, want)
	}

	cases := []struct {
		name, args, wantErr string
		wantNames           []string
	}{
		{"subfolder", `{"path":"sub"}`, "", []string{"inner.txt"}},
		{"inside link to a folder", `{"path":"inlink"}`, "", []string{"inner.txt"}},
		{"dot explicitly", `{"path":"."}`, "", want.names()},
		{"a file", `{"path":"hello.txt"}`, "path hello.txt is a file, not a directory; use read_file", nil},
		{"missing", `{"path":"nope"}`, "no such file or directory: nope", nil},
		{"wrong type", `{"path":["sub"]}`, `argument "path" must be a string, not an array`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := f.run(t, ListDirectory, c.args)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := res.(ListDirectoryResult).names(); !slices.Equal(got, c.wantNames) {
				t.Errorf("names %v, want %v", got, c.wantNames)
			}
		})
	}
}

func (r ListDirectoryResult) names() []string {
	var names []string
	for _, e := range r.Entries {
		names = append(names, e.Name)
	}
	return names
}

func TestListDirectoryIsBounded(t *testing.T) {
	cases := []struct {
		name      string
		files     int
		truncated bool
	}{
		{"at the bound", MaxListEntries, false},
		{"over the bound", MaxListEntries + 250, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			fillDir(t, filepath.Join(f.dir, "many"), c.files)
			res, err := f.run(t, ListDirectory, `{"path":"many"}`)
			if err != nil {
				t.Fatal(err)
			}
			got := res.(ListDirectoryResult)
			if got.Total != c.files || got.Truncated != c.truncated || len(got.Entries) != min(c.files, MaxListEntries) {
				t.Fatalf("total %d truncated %v entries %d; want %d, %v, %d", got.Total, got.Truncated, len(got.Entries), c.files, c.truncated, min(c.files, MaxListEntries))
			}
			if !slices.IsSorted(got.names()) || got.Entries[0].Name != "f00000.txt" {
				t.Errorf("entries are not the first ones by name: %v...", got.names()[:3])
			}
			if c.truncated && !strings.Contains(got.Note, fmt.Sprintf("first %d of %d", MaxListEntries, c.files)) {
				t.Errorf("note %q does not explain the truncation", got.Note)
			}
			b, err := json.Marshal(got)
			if err != nil || !bytes.Contains(b, []byte(`"truncated":`+fmt.Sprint(c.truncated))) {
				t.Errorf("result does not marshal with truncated: %s %v", b[:min(len(b), 80)], err)
			}
		})
	}
}

func fillDir(t testing.TB, dir string, n int) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// Written in reverse so a listing in creation order would fail the sort check.
	for i := n - 1; i >= 0; i-- {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d.txt", i)), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func BenchmarkListDirectory5000(b *testing.B) {
	f := newFixture(b)
	fillDir(b, filepath.Join(f.dir, "many"), 5000)
	tool := f.tools[ListDirectory]
	args := json.RawMessage(`{"path":"many"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tool.Run(context.Background(), args); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(5000, "entries/op")
}

// BenchmarkWriteFileOverwrite writes a short text over an existing file of the
// same length, as a model rewriting a note does. Its time is mostly the file
// system's: on ext4, a write that first cut the file to nothing had its close
// start the write-back (236 µs an overwrite against 55 here).
func BenchmarkWriteFileOverwrite(b *testing.B) {
	f := newFixture(b)
	content := strings.Repeat("a line of the note\n", 20)
	if err := os.WriteFile(filepath.Join(f.dir, "note.txt"), []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
	tool := f.tools[WriteFile]
	args, _ := json.Marshal(map[string]string{"path": "note.txt", "content": content})
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tool.Run(context.Background(), args); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadFile1MiB(b *testing.B) {
	f := newFixture(b)
	text := bytes.Repeat([]byte("héllo, wörld\n"), MaxReadBytes/len("héllo, wörld\n"))
	if err := os.WriteFile(filepath.Join(f.dir, "big.txt"), text, 0o644); err != nil {
		b.Fatal(err)
	}
	tool := f.tools[ReadFile]
	args := json.RawMessage(`{"path":"big.txt"}`)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tool.Run(context.Background(), args); err != nil {
			b.Fatal(err)
		}
	}
}

func TestFileToolSchemas(t *testing.T) {
	f := newFixture(t)
	for _, tool := range FileTools(f.ws) {
		t.Run(tool.Name(), func(t *testing.T) {
			p := tool.Parameters()
			if p["type"] != "object" || p["additionalProperties"] != false {
				t.Fatalf("schema %v is not a closed object", p)
			}
			props := p["properties"].(map[string]any)
			for _, r := range p["required"].([]string) {
				if _, ok := props[r]; !ok {
					t.Errorf("required %q is not a property", r)
				}
			}
			for name, prop := range props {
				m := prop.(map[string]any)
				if m["type"] != "string" || m["description"] == "" {
					t.Errorf("property %s lacks a type or description: %v", name, m)
				}
			}
			if tool.Description() == "" {
				t.Error("no description")
			}
			if _, err := json.Marshal(p); err != nil {
				t.Errorf("schema does not marshal: %v", err)
			}
			// The schema and the decoder must agree on the argument names.
			_, err := tool.Run(context.Background(), json.RawMessage(`{"zz_unknown":1}`))
			if err == nil || !strings.Contains(err.Error(), "unknown argument") {
				t.Fatalf("unknown argument accepted: %v", err)
			}
			for name := range props {
				if !strings.Contains(err.Error(), name) {
					t.Errorf("error %q does not list schema property %s", err, name)
				}
			}
		})
	}
}

func TestOpenWorkspace(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b", "ws")
	ws, err := OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("workspace folder not created: %v", err)
	}
	if ws.Dir() != dir {
		t.Errorf("Dir() = %q, want %q", ws.Dir(), dir)
	}
	if _, err := OpenWorkspace(" "); err == nil || !strings.Contains(err.Error(), "tools.workspace") {
		t.Errorf("empty workspace: error %v, want one naming tools.workspace", err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenWorkspace(file); err == nil || err.Error() != "cannot create the workspace folder "+file+" (not a directory): set tools.workspace to a folder you can write" {
		t.Errorf("a file as the workspace: error %v, want one sentence naming the reason and tools.workspace", err)
	}
}

func TestCancelledContextRunsNothing(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := f.tools[WriteFile].Run(ctx, json.RawMessage(`{"path":"c.txt","content":"x"}`))
	if err == nil || !strings.Contains(err.Error(), "cancelled") {
		t.Fatalf("error %v, want a cancellation", err)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "c.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a cancelled write ran (%v)", err)
	}
}

// FuzzResolve checks that no path, however odd, makes resolve panic or
// return a path that lands outside the workspace on disk, and that the file
// tools run on it never change anything next to the workspace.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{
		"hello.txt", ".", "..", "../x", "a/../../x", "/etc/passwd", "out/secret.txt", "abs/secret.txt",
		"secret", "dangling", "inlink/inner.txt", "inlink/../out", "loop", "sub/./inner.txt", "a\x00b",
		`..\x`, "C:/x", "//x", "./././..", "sub//inner.txt", "~/x", "",
	} {
		f.Add(s)
	}
	fx := newFixture(f)
	realWS, err := filepath.EvalSymlinks(fx.dir)
	if err != nil {
		f.Fatal(err)
	}
	base := filepath.Dir(fx.dir)
	outsideBefore := snapshot(f, base, fx.dir)
	f.Fuzz(func(t *testing.T, p string) {
		rel, err := fx.ws.resolve(p)
		if err != nil {
			return
		}
		if !filepath.IsLocal(rel) {
			t.Fatalf("resolve(%q) = %q, which is not local", p, rel)
		}
		if real, err := filepath.EvalSymlinks(filepath.Join(fx.dir, rel)); err == nil {
			if r, _ := filepath.Rel(realWS, real); !filepath.IsLocal(r) && r != "." {
				t.Fatalf("resolve(%q) = %q, which is %s on disk, outside the workspace", p, rel, real)
			}
		}
		ctx := context.Background()
		run := func(tool string, args map[string]string) {
			raw, _ := json.Marshal(args)
			if _, err := fx.tools[tool].Run(ctx, raw); err != nil && strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("%s error %q is not one line", tool, err)
			}
		}
		run(WriteFile, map[string]string{"path": p, "content": "fuzz"})
		run(ReadFile, map[string]string{"path": p})
		run(ListDirectory, map[string]string{"path": p})
		run(CreateDirectory, map[string]string{"path": p})
		run(CopyFile, map[string]string{"source": "sub/inner.txt", "destination": p})
		if after := snapshot(t, base, fx.dir); !mapsEqual(outsideBefore, after) {
			t.Fatalf("path %q changed the folder outside the workspace", p)
		}
	})
}

// TestOpErrorRecognisesRootEscapes feeds opError the error os.Root itself
// returns for a symlink leading out, as happens when a link is swapped in
// between resolve's check and the operation: it must still read as a refusal.
func TestOpErrorRecognisesRootEscapes(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		name string
		op   func() error
	}{
		{"open through a linked dir", func() error { _, err := f.ws.root.Open("out/secret.txt"); return err }},
		{"stat an absolute link", func() error { _, err := f.ws.root.Stat("abs"); return err }},
		{"rename into a linked dir", func() error { return f.ws.root.Rename("hello.txt", "out/hello.txt") }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := opError("read", "p", c.op())
			if !errors.Is(err, ErrOutsideWorkspace) || !strings.Contains(err.Error(), "symbolic link that points outside") {
				t.Fatalf("opError gave %q, want a refusal", err)
			}
		})
	}
	if err := opError("read", "p", fs.ErrNotExist); errors.Is(err, ErrOutsideWorkspace) {
		t.Errorf("a missing file read as a refusal: %v", err)
	}
}

// TestOpenNeverWaitsOnAFIFO: the tools look at a path before they open it, and
// refuse what is not a regular file, but a FIFO swapped in between the look
// and the open must not hang the tool: an open without a peer on the other
// end would wait for one for ever. The open returns at once and the tool's
// check of the opened file refuses it.
func TestOpenNeverWaitsOnAFIFO(t *testing.T) {
	f := newFixture(t)
	if err := syscall.Mkfifo(filepath.Join(f.dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []int{os.O_RDONLY, os.O_WRONLY | os.O_CREATE} {
		done := make(chan error, 1)
		go func() {
			file, err := f.ws.open("pipe", flag, 0o644)
			if err == nil {
				var fi fs.FileInfo
				if fi, err = file.Stat(); err == nil && fi.Mode().IsRegular() {
					err = errors.New("the FIFO was opened as a regular file")
				}
				file.Close()
				if err == nil {
					err = errOpenedFIFO
				}
			}
			done <- err
		}()
		select {
		case err := <-done:
			// Read-only, the open succeeds and the opened file is no regular
			// file; write-only, it fails at once (no reader).
			if flag == os.O_RDONLY && err != errOpenedFIFO {
				t.Errorf("open for reading: %v, want the FIFO opened and seen as one", err)
			}
			if flag != os.O_RDONLY && (err == nil || err == errOpenedFIFO) {
				t.Errorf("open for writing with no reader: %v, want an error", err)
			}
		case <-time.After(3 * time.Second):
			t.Fatalf("opening a FIFO (flags %#x) waited for a peer", flag)
		}
	}
}

var errOpenedFIFO = errors.New("opened, and seen to be a FIFO")

// TestWriteCheckedRefusesWhatIsNoFile: writeFile looks at the path before it
// opens it, but what it opened is checked again. A FIFO swapped in between
// (here opened read-write, so that a reader is there) gets nothing written
// into it: the write is refused before a byte goes out.
func TestWriteCheckedRefusesWhatIsNoFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, err := writeChecked(f, "pipe", "into the pipe")
	if n != 0 || err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("writeChecked on a FIFO = %d, %v; want nothing written and a refusal", n, err)
	}
	// The FIFO is in the poller (opened non-blocking): a deadline ends the
	// read that finds nothing.
	if err := f.SetReadDeadline(time.Now().Add(200 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	if k, _ := f.Read(buf); k > 0 {
		t.Fatalf("the FIFO received %q", buf[:k])
	}
}
