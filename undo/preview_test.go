package undo

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ailab/ai-lab/tools"
)

// previewed is a preview's files as listed does a Result's.
func previewed(p Preview) string {
	files := make([]File, len(p.Files))
	for i, f := range p.Files {
		files[i] = f.File
	}
	return listedFiles(files)
}

// TestPreviewChangesNothingAndMatchesTheUndo: for every file tool, a
// preview of the undo and then of the redo leaves the workspace as it was,
// and lists the turns and files the real undo and redo then report.
func TestPreviewChangesNothingAndMatchesTheUndo(t *testing.T) {
	cases := []struct {
		name  string
		setup map[string]string
		tool  string
		args  map[string]string
	}{
		{"write_file overwrites", map[string]string{"notes.txt": "old\n"}, tools.WriteFile, map[string]string{"path": "notes.txt", "content": "new\n"}},
		{"write_file creates with folders", nil, tools.WriteFile, map[string]string{"path": "a/b/new.txt", "content": "x"}},
		{"write_file into a folder the user fills", map[string]string{"a/mine.txt": "m"}, tools.WriteFile, map[string]string{"path": "a/b/new.txt", "content": "x"}},
		{"delete_file", map[string]string{"gone.txt": "keep me"}, tools.DeleteFile, map[string]string{"path": "gone.txt"}},
		{"move_file", map[string]string{"src.txt": "moved"}, tools.MoveFile, map[string]string{"source": "src.txt", "destination": "d/dst.txt"}},
		{"copy_file", map[string]string{"src.txt": "copied"}, tools.CopyFile, map[string]string{"source": "src.txt", "destination": "copy.txt"}},
		{"create_directory", nil, tools.CreateDirectory, map[string]string{"path": "p/q"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newBench(t)
			for p, c := range tc.setup {
				b.write(p, c)
			}
			b.call(1, tc.tool, tc.args)
			if tc.name == "write_file into a folder the user fills" {
				b.write("a/b/later.txt", "the user's") // a/b stays: it is not empty
			}
			after := b.tree()
			pv, err := b.k.PreviewUndo(b.ws, Request{Session: "s1"})
			if err != nil {
				t.Fatal(err)
			}
			if got := b.tree(); got != after {
				t.Fatalf("the preview changed the workspace:\n%s\nwant:\n%s", got, after)
			}
			r := b.mustUndo(0)
			if got, want := previewed(pv), listed(r); got != want {
				t.Errorf("preview lists %s, the undo did %s", got, want)
			}
			if fmt.Sprint(pv.Op.Turns) != fmt.Sprint(r.Op.Turns) || fmt.Sprint(pv.Op.Runs) != fmt.Sprint(r.Op.Runs) {
				t.Errorf("preview turns %v runs %v, undo %v %v", pv.Op.Turns, pv.Op.Runs, r.Op.Turns, r.Op.Runs)
			}
			undone := b.tree()
			rp, err := b.k.PreviewRedo(b.ws, Request{Session: "s1"})
			if err != nil {
				t.Fatal(err)
			}
			if got := b.tree(); got != undone {
				t.Fatalf("the redo preview changed the workspace:\n%s", got)
			}
			rr := b.mustRedo()
			if got, want := previewed(rp), listed(rr); got != want {
				t.Errorf("redo preview lists %s, the redo did %s", got, want)
			}
		})
	}
}

// TestPreviewSizesAndDiff: a file that returns carries its sizes now and
// after and the diff from now to after; a removed one its size now only.
func TestPreviewSizesAndDiff(t *testing.T) {
	b := newBench(t)
	b.write("notes.txt", "one\ntwo\n")
	b.call(1, tools.WriteFile, map[string]string{"path": "notes.txt", "content": "one\nTWO\nthree\n"})
	b.call(2, tools.WriteFile, map[string]string{"path": "new.txt", "content": "12345"})
	pv, err := b.k.PreviewUndo(b.ws, Request{Session: "s1", Turn: 1})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(pv.Op.Turns) != "[2 1]" {
		t.Fatalf("turns %v, want [2 1]", pv.Op.Turns)
	}
	byPath := map[string]FilePreview{}
	for _, f := range pv.Files {
		byPath[f.Path] = f
	}
	n := byPath["notes.txt"]
	if n.Action != ActionRestored || n.Now.Size != 14 || n.After.Size != 8 || n.After.Kind != tools.EntryFile {
		t.Errorf("notes.txt %+v", n)
	}
	for _, want := range []string{"--- notes.txt (now)", "+++ notes.txt (after)", "-TWO", "-three", "+two"} {
		if !strings.Contains(n.Diff, want) {
			t.Errorf("diff lacks %q:\n%s", want, n.Diff)
		}
	}
	nw := byPath["new.txt"]
	if nw.Action != ActionRemoved || nw.Now.Size != 5 || nw.After.Kind != tools.EntryNone || nw.Diff != "" {
		t.Errorf("new.txt %+v", nw)
	}
}

// TestPreviewDiffIsBounded: a long file's diff stops at 200 lines and says so.
func TestPreviewDiffIsBounded(t *testing.T) {
	b := newBench(t)
	var old strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&old, "line %d\n", i)
	}
	b.write("long.txt", old.String())
	b.call(1, tools.WriteFile, map[string]string{"path": "long.txt", "content": "short\n"})
	pv, err := b.k.PreviewUndo(b.ws, Request{Session: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	f := pv.Files[0]
	if !f.DiffCut || strings.Count(f.Diff, "\n") != maxPreviewLines || !strings.HasSuffix(f.Diff, "\n") {
		t.Errorf("cut %v, %d lines", f.DiffCut, strings.Count(f.Diff, "\n"))
	}
}

// TestPreviewConflictIsTheUndosConflict: a file changed since the turn
// refuses the preview as it refuses the undo; forced, the preview shows the
// user's change as what goes.
func TestPreviewConflictIsTheUndosConflict(t *testing.T) {
	b := newBench(t)
	b.write("notes.txt", "one\n")
	b.call(1, tools.WriteFile, map[string]string{"path": "notes.txt", "content": "one\ntwo\n"})
	b.write("notes.txt", "one\ntwo\nmine\n")
	mine := b.tree()
	_, perr := b.k.PreviewUndo(b.ws, Request{Session: "s1"})
	_, uerr := b.undo(0, false)
	var pce, uce *ConflictError
	if !errors.As(perr, &pce) || !errors.As(uerr, &uce) || perr.Error() != uerr.Error() {
		t.Fatalf("preview %v\nundo %v", perr, uerr)
	}
	pv, err := b.k.PreviewUndo(b.ws, Request{Session: "s1", Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := b.tree(); got != mine {
		t.Fatalf("the preview changed the workspace: %s", got)
	}
	if len(pv.Files) != 1 || !strings.Contains(pv.Files[0].Diff, "-mine") {
		t.Errorf("forced preview %+v", pv.Files)
	}
}

// TestPreviewOfAnEvictedTurn says plainly that the turn can no longer be
// undone, and which limit took it.
func TestPreviewOfAnEvictedTurn(t *testing.T) {
	b := newBench(t)
	lim := testLimits
	lim.MaxBytes = 250
	b.open(lim)
	b.write("f.txt", strings.Repeat("0", 100))
	b.call(1, tools.WriteFile, map[string]string{"path": "f.txt", "content": strings.Repeat("1", 100)})
	b.call(2, tools.WriteFile, map[string]string{"path": "f.txt", "content": strings.Repeat("2", 100)})
	_, err := b.k.PreviewUndo(b.ws, Request{Session: "s1", Turn: 1})
	if !errors.Is(err, ErrNothing) || !strings.Contains(err.Error(), "turn 1 can no longer be undone") || !strings.Contains(err.Error(), "undo.max_bytes (250 bytes)") {
		t.Fatalf("preview of an evicted turn = %v", err)
	}
	b.now = b.now.Add(200 * time.Hour)
	b.k.Evict()
	_, err = b.k.PreviewUndo(b.ws, Request{Session: "s1", Turn: 2})
	if !errors.Is(err, ErrNothing) || !strings.Contains(err.Error(), "older than undo.max_age (168h0m0s)") {
		t.Fatalf("preview of an old turn = %v", err)
	}
}

// BenchmarkPreview100Files measures the preview of undoing one turn that
// overwrote 100 files of 1 KB, each with its diff.
func BenchmarkPreview100Files(b *testing.B) {
	bb := newBench(b)
	for i := range 100 {
		bb.write(fmt.Sprintf("f%03d.txt", i), strings.Repeat("old line\n", 114))
		bb.call(1, tools.WriteFile, map[string]string{"path": fmt.Sprintf("f%03d.txt", i), "content": strings.Repeat("new line\n", 114)})
	}
	cpu := cpuTime()
	b.ResetTimer()
	for range b.N {
		pv, err := bb.k.PreviewUndo(bb.ws, Request{Session: "s1"})
		if err != nil || len(pv.Files) != 100 {
			b.Fatalf("%d files, %v", len(pv.Files), err)
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
