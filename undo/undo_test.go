package undo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ailab/ai-lab/store/sqlite"
	"github.com/ailab/ai-lab/tools"
)

// A bench is a workspace with its file tools and an undo Keeper.
type bench struct {
	t     testing.TB
	dir   string // the workspace folder
	state string // the state database
	db    *sqlite.Store
	ws    *tools.Workspace
	k     *Keeper
	tools map[string]tools.Tool
	now   time.Time
	n     int
}

var testLimits = Limits{MaxBytes: 256 << 20, MaxAge: 168 * time.Hour, MaxFileBytes: 16 << 20}

func newBench(t testing.TB) *bench {
	t.Helper()
	root := t.TempDir()
	b := &bench{t: t, dir: filepath.Join(root, "ws"), state: filepath.Join(root, "state.db"), now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	b.open(testLimits)
	return b
}

// open (re)opens the workspace and the Keeper, as a restarted server does.
func (b *bench) open(lim Limits) {
	b.t.Helper()
	ws, err := tools.OpenWorkspace(b.dir)
	if err != nil {
		b.t.Fatal(err)
	}
	b.t.Cleanup(func() { ws.Close() })
	if b.db != nil {
		b.db.Close() // the restart: the old process's store goes
	}
	db, err := sqlite.Open(b.state)
	if err != nil {
		b.t.Fatal(err)
	}
	b.db = db
	b.t.Cleanup(func() { db.Close() })
	k, err := Open(db, lim, func() time.Time { return b.now })
	if err != nil {
		b.t.Fatal(err)
	}
	if err := k.Recover(ws); err != nil {
		b.t.Fatal(err)
	}
	b.ws, b.k = ws, k
	b.tools = map[string]tools.Tool{}
	for _, tl := range tools.FileTools(ws) {
		b.tools[tl.Name()] = tl
	}
}

// call runs a file tool as the server does: record, run, finish.
func (b *bench) call(turn int, name string, args map[string]string) {
	b.t.Helper()
	raw, _ := json.Marshal(args)
	tl := b.tools[name]
	ws, ch, err := tl.(tools.Changer).Changes(raw)
	if err != nil {
		b.t.Fatalf("%s %v: %v", name, args, err)
	}
	b.n++
	p, err := b.k.Begin(ws, Run{ExecutionID: fmt.Sprintf("x%d", b.n), Session: "s1", TraceID: fmt.Sprintf("t%d", turn), Turn: turn, Tool: name}, ch)
	if err != nil {
		b.t.Fatal(err)
	}
	if _, err := tl.Run(context.Background(), raw); err != nil {
		b.t.Fatalf("%s %v: %v", name, args, err)
	}
	if err := p.Finish(); err != nil {
		b.t.Fatal(err)
	}
}

func (b *bench) write(p, content string) {
	b.t.Helper()
	full := filepath.Join(b.dir, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// tree is the workspace as path=content lines (folders end in /), sorted.
func (b *bench) tree() string {
	b.t.Helper()
	var lines []string
	_ = filepath.WalkDir(b.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == b.dir {
			return err
		}
		rel, _ := filepath.Rel(b.dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type()&os.ModeSymlink != 0:
			t, _ := os.Readlink(p)
			lines = append(lines, rel+"->"+t)
		case d.IsDir():
			lines = append(lines, rel+"/")
		default:
			data, _ := os.ReadFile(p)
			lines = append(lines, rel+"="+string(data))
		}
		return nil
	})
	return strings.Join(lines, "\n")
}

func (b *bench) undo(turn int, force bool) (Result, error) {
	return b.k.Undo(b.ws, Request{Session: "s1", Turn: turn, Force: force, By: "test"})
}

func (b *bench) redo(force bool) (Result, error) {
	return b.k.Redo(b.ws, Request{Session: "s1", Force: force, By: "test"})
}

func (b *bench) mustUndo(turn int) Result {
	b.t.Helper()
	r, err := b.undo(turn, false)
	if err != nil {
		b.t.Fatalf("undo turn %d: %v", turn, err)
	}
	return r
}

func (b *bench) mustRedo() Result {
	b.t.Helper()
	r, err := b.redo(false)
	if err != nil {
		b.t.Fatalf("redo: %v", err)
	}
	return r
}

func listed(r Result) string { return listedFiles(r.Op.Files) }

// listedFiles is path:action<from, comma-separated.
func listedFiles(files []File) string {
	var out []string
	for _, f := range files {
		l := f.Path + ":" + f.Action
		if f.From != "" {
			l += "<" + f.From
		}
		out = append(out, l)
	}
	return strings.Join(out, ",")
}

func TestEachToolUndoneAndRedone(t *testing.T) {
	cases := []struct {
		name  string
		setup map[string]string
		tool  string
		args  map[string]string
		files string
	}{
		{"write_file overwrites", map[string]string{"notes.txt": "old"}, tools.WriteFile, map[string]string{"path": "notes.txt", "content": "new"}, "notes.txt:restored"},
		{"write_file creates with folders", nil, tools.WriteFile, map[string]string{"path": "a/b/new.txt", "content": "x"}, "a/b/new.txt:removed,a/b:removed,a:removed"},
		{"delete_file", map[string]string{"gone.txt": "keep me"}, tools.DeleteFile, map[string]string{"path": "gone.txt"}, "gone.txt:restored"},
		{"move_file", map[string]string{"src.txt": "moved"}, tools.MoveFile, map[string]string{"source": "src.txt", "destination": "d/dst.txt"}, "src.txt:moved_back<d/dst.txt,d:removed"},
		{"move_file folder", map[string]string{"dir/x.txt": "1", "dir/y.txt": "2"}, tools.MoveFile, map[string]string{"source": "dir", "destination": "dir2"}, "dir:moved_back<dir2"},
		{"copy_file", map[string]string{"src.txt": "copied"}, tools.CopyFile, map[string]string{"source": "src.txt", "destination": "copy.txt"}, "copy.txt:removed"},
		{"create_directory", nil, tools.CreateDirectory, map[string]string{"path": "p/q"}, "p/q:removed,p:removed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newBench(t)
			for p, c := range tc.setup {
				b.write(p, c)
			}
			before := b.tree()
			b.call(1, tc.tool, tc.args)
			after := b.tree()
			if after == before {
				t.Fatal("the tool changed nothing")
			}
			r := b.mustUndo(0)
			if got := b.tree(); got != before {
				t.Fatalf("after undo:\n%s\nwant:\n%s", got, before)
			}
			if got := listed(r); got != tc.files {
				t.Errorf("files %s, want %s", got, tc.files)
			}
			if len(r.Op.Turns) != 1 || r.Op.Turns[0] != 1 {
				t.Errorf("turns %v", r.Op.Turns)
			}
			b.mustRedo()
			if got := b.tree(); got != after {
				t.Fatalf("after redo:\n%s\nwant:\n%s", got, after)
			}
			if _, err := b.redo(false); !errors.Is(err, ErrNothing) {
				t.Errorf("second redo: %v, want ErrNothing", err)
			}
		})
	}
}

func TestChainUndoneFromTheMiddle(t *testing.T) {
	b := newBench(t)
	b.write("notes.txt", "v0")
	b.call(1, tools.WriteFile, map[string]string{"path": "notes.txt", "content": "v1"})
	t1 := b.tree()
	b.call(2, tools.WriteFile, map[string]string{"path": "notes.txt", "content": "v2"})
	b.call(2, tools.WriteFile, map[string]string{"path": "report.md", "content": "r"})
	b.call(3, tools.MoveFile, map[string]string{"source": "report.md", "destination": "old/report.md"})
	b.call(3, tools.WriteFile, map[string]string{"path": "notes.txt", "content": "v3"})
	r := b.mustUndo(2)
	if got := b.tree(); got != t1 {
		t.Fatalf("after undo of turn 2:\n%s\nwant:\n%s", got, t1)
	}
	if fmt.Sprint(r.Op.Turns) != "[3 2]" {
		t.Errorf("turns %v, want [3 2]", r.Op.Turns)
	}
	if !strings.Contains(r.Note, "The user undid turns 3, 2") || !strings.Contains(r.Note, "notes.txt restored") || !strings.Contains(r.Note, "report.md removed") {
		t.Errorf("note %q", r.Note)
	}
	if u := b.k.Undone("s1"); len(u) != 4 || u["x1"] {
		t.Errorf("undone %v", u)
	}
	// Turn 1 is still there to undo; turn 2 is not.
	if _, err := b.undo(2, false); !errors.Is(err, ErrNothing) {
		t.Errorf("undo of an undone turn: %v", err)
	}
	b.mustUndo(1)
	if got := b.tree(); got != "notes.txt=v0" {
		t.Fatalf("after undo of turn 1: %s", got)
	}
	if ops := b.k.Ops("s1"); len(ops) != 2 || ops[0].By != "test" || len(ops[0].Runs) != 4 {
		t.Errorf("ops %+v", ops)
	}
}

func TestConflictRefusedWithItsDiffThenForced(t *testing.T) {
	b := newBench(t)
	b.write("notes.txt", "line one\n")
	b.write("other.txt", "o\n")
	b.call(1, tools.WriteFile, map[string]string{"path": "notes.txt", "content": "line one\nline two\n"})
	b.call(1, tools.DeleteFile, map[string]string{"path": "other.txt"})
	b.write("notes.txt", "line one\nline two\nthe user's line\n")
	mine := b.tree()
	_, err := b.undo(1, false)
	var ce *ConflictError
	if !errors.As(err, &ce) || !errors.Is(err, ErrConflict) {
		t.Fatalf("undo = %v, want a conflict", err)
	}
	if len(ce.Conflicts) != 1 || ce.Conflicts[0].Path != "notes.txt" || !strings.Contains(ce.Conflicts[0].Diff, "+the user's line") {
		t.Fatalf("conflicts %+v", ce.Conflicts)
	}
	if !strings.Contains(err.Error(), "notes.txt changed since turn 1") || !strings.Contains(err.Error(), "force") {
		t.Errorf("message %q", err)
	}
	if got := b.tree(); got != mine {
		t.Fatalf("a refused undo changed the workspace:\n%s", got)
	}
	if _, err := b.undo(1, true); err != nil {
		t.Fatal(err)
	}
	if got := b.tree(); got != "notes.txt=line one\n\nother.txt=o\n" {
		t.Fatalf("after forced undo:\n%q", got)
	}
}

func TestRestartBetweenRunAndUndo(t *testing.T) {
	b := newBench(t)
	b.write("notes.txt", "before")
	b.call(1, tools.WriteFile, map[string]string{"path": "notes.txt", "content": "after"})
	b.open(testLimits)
	b.mustUndo(1)
	if got := b.tree(); got != "notes.txt=before" {
		t.Fatalf("got %s", got)
	}
	b.open(testLimits)
	b.mustRedo()
	if got := b.tree(); got != "notes.txt=after" {
		t.Fatalf("got %s", got)
	}
}

func TestInterruptedRunIsMarked(t *testing.T) {
	b := newBench(t)
	b.write("notes.txt", "before")
	raw, _ := json.Marshal(map[string]string{"path": "notes.txt", "content": "half"})
	ws, ch, _ := b.tools[tools.WriteFile].(tools.Changer).Changes(raw)
	if _, err := b.k.Begin(ws, Run{ExecutionID: "x1", Session: "s1", Turn: 1, Tool: tools.WriteFile}, ch); err != nil {
		t.Fatal(err)
	}
	b.write("notes.txt", "ha") // the process dies mid-write
	b.open(testLimits)
	_, err := b.undo(1, false)
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("undo = %v, want a conflict naming the interrupted run", err)
	}
	if _, err := b.undo(1, true); err != nil {
		t.Fatal(err)
	}
	if got := b.tree(); got != "notes.txt=before" {
		t.Fatalf("got %s", got)
	}
}

// TestKillInTheMiddleOfAnUndo stops an undo after k changes of the
// workspace, as a killed process would, then reopens: the workspace must be
// untouched (the journal was not done), and a done journal must be finished.
func TestKillInTheMiddleOfAnUndo(t *testing.T) {
	for k := 1; k <= 4; k++ {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			b := newBench(t)
			b.write("a.txt", "a0")
			b.write("b.txt", "b0")
			b.write("c.txt", "c0")
			b.call(1, tools.WriteFile, map[string]string{"path": "a.txt", "content": "a1"})
			b.call(1, tools.DeleteFile, map[string]string{"path": "b.txt"})
			b.call(1, tools.MoveFile, map[string]string{"source": "c.txt", "destination": "sub/c.txt"})
			b.call(1, tools.WriteFile, map[string]string{"path": "new.txt", "content": "n"})
			before := b.tree()
			b.k.faultAfter = k
			if _, err := b.undo(1, false); !errors.Is(err, errFault) {
				t.Fatalf("undo = %v, want the fault", err)
			}
			if b.tree() == before {
				t.Fatal("the fault hook stopped before any change")
			}
			b.open(testLimits) // the restart
			if got := b.tree(); got != before {
				t.Fatalf("after restart:\n%s\nwant untouched:\n%s", got, before)
			}
			b.mustUndo(1)
			if got := b.tree(); got != "a.txt=a0\nb.txt=b0\nc.txt=c0" {
				t.Fatalf("after undo:\n%s", got)
			}
		})
	}
}

func TestKillAfterTheUndoWasDoneFinishesIt(t *testing.T) {
	b := newBench(t)
	b.write("a.txt", "a0")
	b.call(1, tools.WriteFile, map[string]string{"path": "a.txt", "content": "a1"})
	b.mustUndo(1)
	// Put the journal back as a process killed between done and commit left it.
	st, _ := b.k.session("s1")
	op := st.Ops[0]
	st.Undone, st.Redo, st.Ops = map[string]string{}, nil, nil
	if err := b.k.saveSession("s1", st); err != nil {
		t.Fatal(err)
	}
	if err := b.k.putJournal(journal{Session: "s1", Op: op, Done: true}); err != nil {
		t.Fatal(err)
	}
	b.open(testLimits)
	if got := b.tree(); got != "a.txt=a0" {
		t.Fatalf("got %s", got)
	}
	if u := b.k.Undone("s1"); !u["x1"] {
		t.Fatalf("the done undo was not finished: %v", u)
	}
}

func TestEvictionBySize(t *testing.T) {
	b := newBench(t)
	lim := testLimits
	lim.MaxBytes = 250
	b.open(lim)
	b.write("f.txt", strings.Repeat("0", 100))
	for turn := 1; turn <= 4; turn++ {
		b.now = b.now.Add(time.Minute)
		b.call(turn, tools.WriteFile, map[string]string{"path": "f.txt", "content": strings.Repeat(fmt.Sprint(turn), 100)})
	}
	if got := b.k.Bytes(); got > 250 {
		t.Fatalf("kept %d bytes, over the limit", got)
	}
	if _, err := b.undo(4, false); err != nil {
		t.Fatalf("the newest turn must stay undoable: %v", err)
	}
	_, err := b.undo(1, false)
	if !errors.Is(err, ErrNothing) || !strings.Contains(err.Error(), "evicted") {
		t.Fatalf("undo of an evicted turn = %v", err)
	}
	blobs := 0
	for c := range 5 {
		if _, err := b.db.UndoBlob(context.Background(), hashOf([]byte(strings.Repeat(fmt.Sprint(c), 100)))); err == nil {
			blobs++
		}
	}
	if blobs > 3 {
		t.Errorf("%d contents left in the store; evicted contents must go", blobs)
	}
}

func TestEvictionByAge(t *testing.T) {
	b := newBench(t)
	b.write("f.txt", "0")
	b.call(1, tools.WriteFile, map[string]string{"path": "f.txt", "content": "1"})
	b.now = b.now.Add(200 * time.Hour)
	b.call(2, tools.WriteFile, map[string]string{"path": "g.txt", "content": "2"})
	_, err := b.undo(1, false)
	if !errors.Is(err, ErrNothing) || !strings.Contains(err.Error(), "turn 1 can no longer be undone") {
		t.Fatalf("undo of an old turn = %v", err)
	}
	b.mustUndo(2)
}

// TestRecordsAreBoundedInNumber: past MaxRecords the oldest runs go
// (evicted, then forgotten), in memory and in the store, so a long stream of
// tiny changes cannot grow the records without end; an evicted record is
// forgotten too once it is twice undo.max_age old.
func TestRecordsAreBoundedInNumber(t *testing.T) {
	b := newBench(t)
	lim := testLimits
	lim.MaxRecords = 3
	b.open(lim)
	for turn := 1; turn <= 10; turn++ {
		b.now = b.now.Add(time.Minute)
		b.call(turn, tools.WriteFile, map[string]string{"path": fmt.Sprintf("f%d.txt", turn), "content": "x"})
	}
	stored, err := b.db.UndoRecords(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b.k.mu.Lock()
	inMemory := len(b.k.recs)
	b.k.mu.Unlock()
	if inMemory > 6 || len(stored) > 6 {
		t.Errorf("%d records in memory, %d stored, after 10 runs with MaxRecords 3; want at most 3 live and 3 evicted", inMemory, len(stored))
	}
	b.mustUndo(10)
	if _, err := b.undo(5, false); !errors.Is(err, ErrNothing) {
		t.Errorf("undo of a turn past the bound = %v", err)
	}

	// Twice max_age later, the evicted ones are forgotten as well.
	b.now = b.now.Add(3 * lim.MaxAge)
	b.call(11, tools.WriteFile, map[string]string{"path": "g.txt", "content": "y"})
	stored, _ = b.db.UndoRecords(context.Background())
	if len(stored) != 1 {
		t.Errorf("%d records stored after 3 x max_age; want only the newest run's", len(stored))
	}
}

func TestTooBigIsNotKept(t *testing.T) {
	b := newBench(t)
	lim := testLimits
	lim.MaxFileBytes = 10
	b.open(lim)
	b.write("big.bin", strings.Repeat("x", 20))
	raw, _ := json.Marshal(map[string]string{"path": "big.bin", "content": "y"})
	ws, ch, _ := b.tools[tools.WriteFile].(tools.Changer).Changes(raw)
	if why := Undoable(ws, ch, lim); !strings.Contains(why, "cannot be undone: big.bin is 20 bytes, over undo.max_file_bytes (10 bytes)") {
		t.Errorf("Undoable = %q", why)
	}
	b.call(1, tools.WriteFile, map[string]string{"path": "big.bin", "content": "y"})
	if _, err := b.undo(1, false); !errors.Is(err, ErrNothing) || !strings.Contains(err.Error(), "max_file_bytes") {
		t.Fatalf("undo = %v", err)
	}
}

func TestPlantedLinksAreNotFollowed(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.txt")
	t.Run("symlink at the file", func(t *testing.T) {
		b := newBench(t)
		if err := os.WriteFile(outside, []byte("secret"), 0o644); err != nil {
			t.Fatal(err)
		}
		b.write("notes.txt", "old")
		b.call(1, tools.WriteFile, map[string]string{"path": "notes.txt", "content": "new"})
		os.Remove(filepath.Join(b.dir, "notes.txt"))
		if err := os.Symlink(outside, filepath.Join(b.dir, "notes.txt")); err != nil {
			t.Fatal(err)
		}
		if _, err := b.undo(1, false); !errors.Is(err, ErrConflict) {
			t.Fatalf("undo = %v, want a conflict", err)
		}
		if _, err := b.undo(1, true); err != nil {
			t.Fatal(err)
		}
		if data, _ := os.ReadFile(outside); string(data) != "secret" {
			t.Fatalf("the file outside was written through the link: %q", data)
		}
		if got := b.tree(); got != "notes.txt=old" {
			t.Fatalf("got %s", got)
		}
	})
	t.Run("symlink on the way", func(t *testing.T) {
		b := newBench(t)
		out := t.TempDir()
		b.write("d/notes.txt", "old")
		b.call(1, tools.WriteFile, map[string]string{"path": "d/notes.txt", "content": "new"})
		os.RemoveAll(filepath.Join(b.dir, "d"))
		if err := os.Symlink(out, filepath.Join(b.dir, "d")); err != nil {
			t.Fatal(err)
		}
		_, err := b.undo(1, true)
		if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "goes through a symbolic link") {
			t.Fatalf("forced undo through a link = %v, want a hard conflict", err)
		}
		if entries, _ := os.ReadDir(out); len(entries) != 0 {
			t.Fatalf("undo wrote outside the workspace: %v", entries)
		}
	})
	t.Run("hard link", func(t *testing.T) {
		b := newBench(t)
		if err := os.WriteFile(outside, []byte("secret"), 0o644); err != nil {
			t.Fatal(err)
		}
		b.write("notes.txt", "old")
		b.call(1, tools.WriteFile, map[string]string{"path": "notes.txt", "content": "new"})
		os.Remove(filepath.Join(b.dir, "notes.txt"))
		if err := os.Link(outside, filepath.Join(b.dir, "notes.txt")); err != nil {
			t.Skip("no hard links here:", err)
		}
		if _, err := b.undo(1, false); !errors.Is(err, ErrConflict) {
			t.Fatalf("undo = %v, want a conflict", err)
		}
		if _, err := b.undo(1, true); err != nil {
			t.Fatal(err)
		}
		if data, _ := os.ReadFile(outside); string(data) != "secret" {
			t.Fatalf("the file outside was written through the hard link: %q", data)
		}
	})
}

// BenchmarkWrite100KB runs a 100 KB write_file over a 100 KB file, plain
// and with its undo record (Changes, Begin, the run, Finish); the difference
// is what recording adds.
func BenchmarkWrite100KB(b *testing.B) {
	for _, recorded := range []bool{false, true} {
		b.Run(map[bool]string{false: "plain", true: "recorded"}[recorded], func(b *testing.B) {
			bb := newBench(b)
			bb.write("f.txt", strings.Repeat("x", 100<<10))
			tl := bb.tools[tools.WriteFile]
			raws := [2]json.RawMessage{}
			for i := range raws {
				raws[i], _ = json.Marshal(map[string]string{"path": "f.txt", "content": strings.Repeat(fmt.Sprint(i), 100<<10)})
			}
			var recording time.Duration
			b.ResetTimer()
			cpu := cpuTime()
			defer func() { b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op") }()
			for i := range b.N {
				raw := raws[i%2]
				var p *Pending
				t0 := time.Now()
				if recorded {
					ws, ch, err := tl.(tools.Changer).Changes(raw)
					if err != nil {
						b.Fatal(err)
					}
					if p, err = bb.k.Begin(ws, Run{ExecutionID: fmt.Sprint(i), Session: "s1", Turn: i + 1, Tool: tools.WriteFile}, ch); err != nil {
						b.Fatal(err)
					}
				}
				recording += time.Since(t0)
				if _, err := tl.Run(context.Background(), raw); err != nil {
					b.Fatal(err)
				}
				if recorded {
					t1 := time.Now()
					if err := p.Finish(); err != nil {
						b.Fatal(err)
					}
					recording += time.Since(t1)
				}
			}
			if recorded {
				b.ReportMetric(float64(recording.Nanoseconds())/float64(b.N), "record-ns/op")
			}
		})
	}
}

// BenchmarkUndo100Files measures undoing one turn that overwrote 100 files.
func BenchmarkUndo100Files(b *testing.B) {
	var cpuTotal time.Duration
	for range b.N {
		b.StopTimer()
		bb := newBench(b)
		for i := range 100 {
			bb.write(fmt.Sprintf("f%03d.txt", i), strings.Repeat("old ", 256))
		}
		for i := range 100 {
			bb.call(1, tools.WriteFile, map[string]string{"path": fmt.Sprintf("f%03d.txt", i), "content": strings.Repeat("new ", 256)})
		}
		b.StartTimer()
		cpu := cpuTime()
		bb.mustUndo(1)
		cpuTotal += cpuTime() - cpu
	}
	b.ReportMetric(float64(cpuTotal.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// TestUndo100Files undoes a turn that overwrote 100 files; its speed is
// measured by BenchmarkUndo100Files, not here.
func TestUndo100Files(t *testing.T) {
	b := newBench(t)
	for i := range 100 {
		b.write(fmt.Sprintf("f%03d.txt", i), strings.Repeat("old ", 256))
		b.call(1, tools.WriteFile, map[string]string{"path": fmt.Sprintf("f%03d.txt", i), "content": strings.Repeat("new ", 256)})
	}
	r := b.mustUndo(1)
	if len(r.Op.Files) != 100 {
		t.Errorf("%d files", len(r.Op.Files))
	}
	for i := range 100 {
		got, _ := os.ReadFile(filepath.Join(b.dir, fmt.Sprintf("f%03d.txt", i)))
		if string(got) != strings.Repeat("old ", 256) {
			t.Fatalf("f%03d.txt not restored: %.20q", i, got)
		}
	}
}

func TestAnotherWorkspaceIsRefused(t *testing.T) {
	b := newBench(t)
	b.write("notes.txt", "old")
	b.call(1, tools.WriteFile, map[string]string{"path": "notes.txt", "content": "new"})
	other, err := tools.OpenWorkspace(filepath.Join(t.TempDir(), "other"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	_, err = b.k.Undo(other, Request{Session: "s1"})
	if !errors.Is(err, ErrNothing) || !strings.Contains(err.Error(), "tools.workspace is now") {
		t.Fatalf("undo in another workspace = %v", err)
	}
}
