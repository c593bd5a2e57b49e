package undo

import (
	"path"
	"strings"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"

	"github.com/ailab/ai-lab/tools"
)

// A Preview is what an undo or redo would do, worked out without changing
// anything: the turns and runs it would take back or re-apply, and each path
// with what it holds now and would hold after, in the order and with the
// actions the real one would list.
type Preview struct {
	Op    Op // its ID is empty: no op was made
	Files []FilePreview
}

// A FilePreview is one path a previewed undo or redo would change.
type FilePreview struct {
	File
	// Now is what the path holds now, After what it would hold after.
	Now, After State
	// Diff is the unified diff from Now to After for a text file that
	// returns (restored), cut to maxPreviewLines lines or maxPreviewBytes.
	Diff string
	// DiffCut is set when Diff was cut.
	DiffCut bool
}

// Bounds of a preview's diff per file.
const (
	maxPreviewLines = 200
	maxPreviewBytes = 32 << 10
)

// PreviewUndo says what Undo would do with req, changing nothing: the same
// errors (nothing to undo, a *ConflictError unless req.Force) and the same
// files.
func (k *Keeper) PreviewUndo(ws *tools.Workspace, req Request) (Preview, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	_, j, err := k.planUndo(ws, req)
	if err != nil {
		return Preview{}, err
	}
	return k.preview(ws, j, "undo", req.Force)
}

// PreviewRedo says what Redo would do with req, changing nothing.
func (k *Keeper) PreviewRedo(ws *tools.Workspace, req Request) (Preview, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	_, j, err := k.planRedo(ws, req)
	if err != nil {
		return Preview{}, err
	}
	return k.preview(ws, j, "redo", req.Force)
}

// preview checks a plan as run would and walks its steps over a virtual
// copy of the paths they touch, so that each path's end state, and whether
// a folder would be empty when its rmdir comes, is known without a change.
func (k *Keeper) preview(ws *tools.Workspace, j journal, verb string, force bool) (Preview, error) {
	if err := k.refusal(ws, j.Steps, verb, force); err != nil {
		return Preview{}, err
	}
	v := virtualTree{k: k, ws: ws, now: map[string]looked{}, state: map[string]State{}}
	for i := range j.Steps {
		s := &j.Steps[i]
		switch s.Op {
		case opSet:
			v.set(s.Path, s.Want)
		case opRename:
			from := v.get(s.From)
			v.set(s.Path, from)
			v.set(s.From, State{Kind: tools.EntryNone})
		case opMkdir:
			if v.get(s.Path).Kind == tools.EntryNone {
				v.set(s.Path, State{Kind: tools.EntryDir})
			}
		case opRmdir:
			if v.get(s.Path).Kind != tools.EntryDir || !v.empty(s.Path) {
				s.Skipped = true // as RemoveEmptyDir would leave it
				continue
			}
			v.set(s.Path, State{Kind: tools.EntryNone})
		}
	}
	j.Op.ID = ""
	j.Op.Files = files(j.Steps)
	out := Preview{Op: j.Op, Files: make([]FilePreview, len(j.Op.Files))}
	for i, f := range j.Op.Files {
		now := v.real(f.Path)
		fp := FilePreview{File: f, Now: now.st, After: v.get(f.Path)}
		if f.Action == ActionRestored && fp.After.Kind == tools.EntryFile {
			fp.Diff, fp.DiffCut = k.previewDiff(f.Path, now, fp.After)
		}
		out.Files[i] = fp
	}
	return out, nil
}

// previewDiff is the unified diff of a path that returns, from what it
// holds now to what it would hold after; "" when either side is not text
// that was kept.
func (k *Keeper) previewDiff(p string, now looked, after State) (string, bool) {
	var a string
	switch now.st.Kind {
	case tools.EntryNone:
	case tools.EntryFile:
		if now.data == nil || !utf8.Valid(now.data) {
			return "", false
		}
		a = string(now.data)
	default:
		return "", false
	}
	if after.Hash == "" {
		return "", false
	}
	data, err := k.blob(after.Hash)
	if err != nil || !utf8.Valid(data) {
		return "", false
	}
	if a == string(data) {
		return "", false
	}
	return cutDiff(udiff.Unified(p+" (now)", p+" (after)", a, string(data)))
}

// cutDiff bounds a diff to maxPreviewLines lines and maxPreviewBytes bytes,
// cut at a line's end, and reports whether it cut.
func cutDiff(d string) (string, bool) {
	cut := false
	if n := strings.Count(d, "\n"); n > maxPreviewLines {
		i := 0
		for range maxPreviewLines {
			i += strings.IndexByte(d[i:], '\n') + 1
		}
		d, cut = d[:i], true
	}
	if len(d) > maxPreviewBytes {
		i := strings.LastIndexByte(d[:maxPreviewBytes], '\n') + 1
		d, cut = d[:i], true
	}
	return d, cut
}

// A looked is what a path held when the preview first read it.
type looked struct {
	st   State
	data []byte
	err  error
}

// virtualTree is the workspace as a previewed plan would leave it: the
// paths the plan touched, over what the workspace holds now.
type virtualTree struct {
	k     *Keeper
	ws    *tools.Workspace
	now   map[string]looked // the real state, read once per path
	state map[string]State  // what the plan left so far
}

func (v *virtualTree) real(p string) looked {
	if l, ok := v.now[p]; ok {
		return l
	}
	st, data, err := v.k.look(v.ws, p)
	l := looked{st: st, data: data, err: err}
	v.now[p] = l
	return l
}

func (v *virtualTree) get(p string) State {
	if s, ok := v.state[p]; ok {
		return s
	}
	return v.real(p).st
}

func (v *virtualTree) set(p string, s State) {
	v.real(p) // keep what it holds now, for the preview's Now
	v.state[p] = s
}

// empty reports whether the folder p would hold nothing at this point of
// the plan: each name in it now is gone, and the plan put nothing there.
func (v *virtualTree) empty(p string) bool {
	names, err := v.ws.Names(p)
	if err != nil {
		return false
	}
	for _, n := range names {
		if v.get(path.Join(p, n)).Kind != tools.EntryNone {
			return false
		}
	}
	for q, s := range v.state {
		if path.Dir(q) == p && s.Kind != tools.EntryNone {
			return false
		}
	}
	return true
}
