package undo

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"

	"github.com/ailab/ai-lab/store"
	"github.com/ailab/ai-lab/tools"
)

// ErrNothing is matched (errors.Is) by an undo or redo that has nothing to
// do: no turn changed files, the turn was undone already, or its records
// were evicted. The error's text says which.
var ErrNothing = errors.New("nothing to undo")

// ErrConflict is matched (errors.Is) by an undo or redo refused because a
// file changed since the turn; the error is a *ConflictError.
var ErrConflict = errors.New("files changed since the turn")

type nothingError struct{ msg string }

func (e *nothingError) Error() string        { return e.msg }
func (e *nothingError) Is(target error) bool { return target == ErrNothing }

func nothing(format string, a ...any) error { return &nothingError{msg: fmt.Sprintf(format, a...)} }

// A Conflict is one path that does not hold what the plan expects.
type Conflict struct {
	Path string `json:"path"`
	// Why says what differs, e.g. "changed since turn 3".
	Why string `json:"why"`
	// Diff is the unified diff from what the turn left to what the file
	// holds now (text files only, cut to maxDiff bytes).
	Diff string `json:"diff,omitempty"`
	// Hard is set for a conflict force cannot override (a path that now goes
	// through a link, or a destination that is taken).
	Hard bool `json:"hard,omitempty"`
}

// A ConflictError is an undo or redo refused, nothing changed, because files
// changed since the turn.
type ConflictError struct {
	Verb      string // "undo" or "redo"
	Conflicts []Conflict
}

func (e *ConflictError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cannot %s: ", e.Verb)
	hard := false
	for i, c := range e.Conflicts {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s %s", c.Path, c.Why)
		hard = hard || c.Hard
	}
	b.WriteString("; nothing was changed")
	if !hard {
		b.WriteString(`, send "force": true to overwrite these changes`)
	}
	for _, c := range e.Conflicts {
		if c.Diff != "" {
			b.WriteString("\n" + c.Diff)
		}
	}
	return b.String()
}

// Is makes errors.Is(err, ErrConflict) true.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// maxDiff bounds the diff shown per conflicting file.
const maxDiff = 4000

// A Request asks for an undo or a redo.
type Request struct {
	Session string
	// Turn is the 1-based user turn to undo, with every later one; 0 is the
	// last turn that changed files. Redo ignores it.
	Turn  int
	Force bool
	By    string // who asks, for the log
}

// A Result is a done undo or redo.
type Result struct {
	Op Op
	// Note is what the model is told on its next turn, e.g. "The user undid
	// turn 3: notes.txt restored, report.md removed."
	Note string
}

// Step operations.
const (
	opSet    = "set"    // make Path hold Want
	opRename = "rename" // move From to Path
	opRmdir  = "rmdir"  // remove the folder Path when empty
	opMkdir  = "mkdir"  // create the folder Path
)

// A step is one change of the workspace in a plan.
type step struct {
	Op     string `json:"op"`
	Path   string `json:"path"`
	From   string `json:"from,omitempty"`
	Want   State  `json:"want"`
	Expect State  `json:"expect"`
	Action string `json:"action"`
	Turn   int    `json:"turn"`
	// Unknown is set when the run was interrupted, so what it left is unknown.
	Unknown bool `json:"unknown,omitempty"`
	// Pre is what Path held just before the step, kept to roll it back.
	Pre State `json:"pre"`
	// Skipped is set for an rmdir that left a folder that is not empty.
	Skipped bool `json:"skipped,omitempty"`
}

// A journal is an undo or redo being applied, stored before the workspace
// changes so that Recover can finish or roll it back after a kill.
type journal struct {
	Session string  `json:"session"`
	Op      Op      `json:"op"`
	Steps   []step  `json:"steps"`
	Redo    string  `json:"redo,omitempty"` // the undo op a redo re-applies
	Done    bool    `json:"done"`
	Records []int64 `json:"records"`
	// Workspace is the folder the steps change.
	Workspace string `json:"workspace"`
}

// journalKey is the vault key of the journal of an undo or redo under way.
const journalKey = "journal"

// putJournal stores j, so a restart can finish or roll it back.
func (k *Keeper) putJournal(j journal) error {
	b, err := json.Marshal(j)
	if err != nil {
		return err
	}
	return k.vault.PutUndoState(bg, journalKey, b)
}

// dropJournal removes the journal.
func (k *Keeper) dropJournal() error { return k.vault.PutUndoState(bg, journalKey, nil) }

// Undo restores the workspace as it was before turn req.Turn of the session,
// undoing later turns first, newest run first. Every path is checked before
// any changes: a file changed since its turn is a *ConflictError unless
// req.Force. A failure midway puts back what was changed.
func (k *Keeper) Undo(ws *tools.Workspace, req Request) (Result, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	st, j, err := k.planUndo(ws, req)
	if err != nil {
		return Result{}, err
	}
	return k.run(ws, req, "undo", st, j)
}

// planUndo is the plan of an undo of req.Turn: the runs it takes back,
// newest first, and their steps. Call it with k.mu held.
func (k *Keeper) planUndo(ws *tools.Workspace, req Request) (*sessionState, journal, error) {
	st, err := k.session(req.Session)
	if err != nil {
		return nil, journal{}, err
	}
	var active []*Record
	for _, r := range k.recs {
		if r.Session == req.Session && st.Undone[r.ExecutionID] == "" {
			active = append(active, r)
		}
	}
	turn := req.Turn
	if turn == 0 {
		for _, r := range active {
			turn = max(turn, r.Turn)
		}
		if turn == 0 {
			return nil, journal{}, nothing("no turn of this session changed files that are not undone already")
		}
	}
	var sel []*Record
	for _, r := range active {
		if r.Turn >= turn {
			sel = append(sel, r)
		}
	}
	if len(sel) == 0 || !slices.ContainsFunc(sel, func(r *Record) bool { return r.Turn == turn }) && req.Turn != 0 {
		return nil, journal{}, nothing("turn %d changed no files, or its changes are undone already", turn)
	}
	slices.Reverse(sel) // newest first
	for _, r := range sel {
		if r.Evicted {
			return nil, journal{}, k.evicted(r, "undone", turn)
		}
		if r.NotUndoable != "" {
			return nil, journal{}, nothing("turn %d cannot be undone: %s", r.Turn, r.NotUndoable)
		}
		if err := sameWorkspace(r, ws); err != nil {
			return nil, journal{}, err
		}
	}
	var steps []step
	for _, r := range sel {
		steps = append(steps, undoSteps(r)...)
	}
	op := Op{ID: "u_" + randomHex(), Kind: "undo", At: k.now().UTC(), By: req.By, Force: req.Force}
	for _, r := range sel {
		op.Runs = append(op.Runs, r.ExecutionID)
		if !slices.Contains(op.Turns, r.Turn) {
			op.Turns = append(op.Turns, r.Turn)
		}
	}
	return st, journal{Session: req.Session, Op: op, Steps: steps, Records: seqs(sel), Workspace: ws.Dir()}, nil
}

// evicted is the nothing-to-undo error of a turn whose records were
// evicted: it says plainly that the turn can no longer be undone (or
// redone), and which limit took its kept copies. asked is the turn the user
// asked for, named when it differs.
func (k *Keeper) evicted(r *Record, verb string, asked int) error {
	why := fmt.Sprintf("to keep the undo records within undo.max_bytes (%s)", size(k.lim.MaxBytes))
	if k.lim.MaxAge > 0 && r.At.Before(k.now().Add(-k.lim.MaxAge)) {
		why = fmt.Sprintf("because they were older than undo.max_age (%s)", k.lim.MaxAge)
	}
	also := ""
	if asked != 0 && asked != r.Turn {
		also = fmt.Sprintf(", so turn %d cannot be either", asked)
	}
	return nothing("turn %d can no longer be %s: the copies of its files that undo kept were evicted %s%s", r.Turn, verb, why, also)
}

// Redo re-applies what the session's last undo reverted, under the same
// conflict rule as Undo.
func (k *Keeper) Redo(ws *tools.Workspace, req Request) (Result, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	st, j, err := k.planRedo(ws, req)
	if err != nil {
		return Result{}, err
	}
	return k.run(ws, req, "redo", st, j)
}

// planRedo is the plan of a redo: the runs the last undo reverted, oldest
// first, and their steps. Call it with k.mu held.
func (k *Keeper) planRedo(ws *tools.Workspace, req Request) (*sessionState, journal, error) {
	st, err := k.session(req.Session)
	if err != nil {
		return nil, journal{}, err
	}
	if len(st.Redo) == 0 {
		return nil, journal{}, nothing("nothing to redo: no undo of this session is left to re-apply")
	}
	undoID := st.Redo[len(st.Redo)-1]
	var sel []*Record // oldest first
	for _, r := range k.recs {
		if r.Session == req.Session && st.Undone[r.ExecutionID] == undoID {
			sel = append(sel, r)
		}
	}
	if len(sel) == 0 {
		return nil, journal{}, nothing("nothing to redo: the runs of the last undo are gone")
	}
	var steps []step
	op := Op{ID: "r_" + randomHex(), Kind: "redo", At: k.now().UTC(), By: req.By, Force: req.Force}
	for _, r := range sel {
		if r.Evicted {
			return nil, journal{}, k.evicted(r, "redone", 0)
		}
		if err := sameWorkspace(r, ws); err != nil {
			return nil, journal{}, err
		}
		steps = append(steps, redoSteps(r)...)
		op.Runs = append(op.Runs, r.ExecutionID)
		if !slices.Contains(op.Turns, r.Turn) {
			op.Turns = append(op.Turns, r.Turn)
		}
	}
	return st, journal{Session: req.Session, Op: op, Steps: steps, Redo: undoID, Records: seqs(sel), Workspace: ws.Dir()}, nil
}

// sameWorkspace refuses a record of a run in another workspace folder than
// ws (tools.workspace changed since): its paths mean other files here.
func sameWorkspace(r *Record, ws *tools.Workspace) error {
	if r.Workspace != "" && r.Workspace != ws.Dir() {
		return nothing("turn %d changed files in the workspace %s, but tools.workspace is now %s; set it back to undo that turn", r.Turn, r.Workspace, ws.Dir())
	}
	return nil
}

func seqs(rs []*Record) []int64 {
	out := make([]int64, len(rs))
	for i, r := range rs {
		out[i] = r.Seq
	}
	return out
}

// undoSteps are the steps that undo one run.
func undoSteps(r *Record) []step {
	var out []step
	if r.Move && len(r.Paths) == 2 {
		src, dst := r.Paths[0], r.Paths[1]
		out = append(out, step{Op: opRename, From: dst.Path, Path: src.Path, Expect: dst.After, Action: ActionMovedBack, Turn: r.Turn, Unknown: !r.Finished})
	} else {
		for i := len(r.Paths) - 1; i >= 0; i-- {
			pc := r.Paths[i]
			switch {
			case pc.Before.Kind == tools.EntryNone && pc.After.Kind == tools.EntryDir:
				out = append(out, step{Op: opRmdir, Path: pc.Path, Action: ActionRemoved, Turn: r.Turn})
			case pc.Before.Kind == tools.EntryDir:
				// A folder the run found and left: nothing to put back.
			default:
				a := ActionRestored
				if pc.Before.Kind == tools.EntryNone {
					a = ActionRemoved
				}
				out = append(out, step{Op: opSet, Path: pc.Path, Want: pc.Before, Expect: pc.After, Action: a, Turn: r.Turn, Unknown: !r.Finished})
			}
		}
	}
	for i := len(r.Created) - 1; i >= 0; i-- {
		out = append(out, step{Op: opRmdir, Path: r.Created[i], Action: ActionRemoved, Turn: r.Turn})
	}
	return out
}

// redoSteps are the steps that re-apply one undone run.
func redoSteps(r *Record) []step {
	var out []step
	for _, d := range r.Created {
		out = append(out, step{Op: opMkdir, Path: d, Action: ActionRestored, Turn: r.Turn})
	}
	if r.Move && len(r.Paths) == 2 {
		src, dst := r.Paths[0], r.Paths[1]
		return append(out, step{Op: opRename, From: src.Path, Path: dst.Path, Expect: src.Before, Action: ActionMovedBack, Turn: r.Turn})
	}
	for _, pc := range r.Paths {
		switch {
		case pc.Before.Kind == tools.EntryNone && pc.After.Kind == tools.EntryDir:
			out = append(out, step{Op: opMkdir, Path: pc.Path, Action: ActionRestored, Turn: r.Turn})
		case pc.Before.Kind == tools.EntryDir:
		default:
			a := ActionRestored
			if pc.After.Kind == tools.EntryNone {
				a = ActionRemoved
			}
			out = append(out, step{Op: opSet, Path: pc.Path, Want: pc.After, Expect: pc.Before, Action: a, Turn: r.Turn})
		}
	}
	return out
}

// look reads what p holds now, with a file's content when it is within the
// size limit; a path that went outside the workspace or through a link is an
// error.
func (k *Keeper) look(ws *tools.Workspace, p string) (State, []byte, error) {
	e, err := ws.Inspect(p, k.lim.MaxFileBytes)
	if err != nil {
		return State{}, nil, err
	}
	st := State{Kind: e.Kind, Size: e.Size, Mode: e.Mode, Target: e.Target}
	if e.Kind == tools.EntryFile && e.Data != nil {
		st.Hash = hashOf(e.Data)
	}
	return st, e.Data, nil
}

// check finds the paths that do not hold what the plan expects, following
// the plan's own changes as it goes (a path several runs changed is checked
// against the newest).
func (k *Keeper) check(ws *tools.Workspace, steps []step, verb string) []Conflict {
	virtual := map[string]State{}
	var out []Conflict
	seen := map[string]bool{}
	add := func(c Conflict) {
		if !seen[c.Path] {
			seen[c.Path] = true
			out = append(out, c)
		}
	}
	state := func(p string) (State, []byte, error) {
		if s, ok := virtual[p]; ok {
			return s, nil, nil
		}
		return k.look(ws, p)
	}
	for _, s := range steps {
		switch s.Op {
		case opSet:
			cur, data, err := state(s.Path)
			switch {
			case err != nil:
				add(Conflict{Path: s.Path, Why: "cannot be reached: " + err.Error(), Hard: true})
			case s.Unknown:
				add(Conflict{Path: s.Path, Why: fmt.Sprintf("may be half written: the run of turn %d was interrupted", s.Turn)})
			case !cur.same(s.Expect):
				add(Conflict{Path: s.Path, Why: fmt.Sprintf("changed since turn %d", s.Turn), Diff: k.diff(s.Path, s.Expect, cur, data)})
			}
			virtual[s.Path] = s.Want
		case opRename:
			cur, _, err := state(s.From)
			switch {
			case err != nil:
				add(Conflict{Path: s.From, Why: "cannot be reached: " + err.Error(), Hard: true})
			case cur.Kind == tools.EntryNone:
				add(Conflict{Path: s.From, Why: fmt.Sprintf("is gone since turn %d", s.Turn), Hard: true})
			case s.Unknown || !cur.same(s.Expect):
				add(Conflict{Path: s.From, Why: fmt.Sprintf("changed since turn %d", s.Turn)})
			}
			if dst, _, err := state(s.Path); err != nil {
				add(Conflict{Path: s.Path, Why: "cannot be reached: " + err.Error(), Hard: true})
			} else if dst.Kind != tools.EntryNone {
				add(Conflict{Path: s.Path, Why: fmt.Sprintf("is taken, so %s cannot be moved back there", s.From), Hard: true})
			}
			virtual[s.Path], virtual[s.From] = cur, State{Kind: tools.EntryNone}
		case opMkdir:
			if cur, _, err := state(s.Path); err != nil {
				add(Conflict{Path: s.Path, Why: "cannot be reached: " + err.Error(), Hard: true})
			} else if cur.Kind != tools.EntryNone && cur.Kind != tools.EntryDir {
				add(Conflict{Path: s.Path, Why: "is a file now, not a folder", Hard: true})
			}
			virtual[s.Path] = State{Kind: tools.EntryDir}
		case opRmdir:
			if _, _, err := state(s.Path); err != nil {
				add(Conflict{Path: s.Path, Why: "cannot be reached: " + err.Error(), Hard: true})
			}
			virtual[s.Path] = State{Kind: tools.EntryNone}
		}
	}
	return out
}

// diff is the unified diff of a conflicting file, from what the turn left to
// what it holds now, for text that was kept; "" otherwise.
func (k *Keeper) diff(p string, left, now State, nowData []byte) string {
	var a, b string
	if left.Kind == tools.EntryFile && left.Hash != "" {
		data, err := k.blob(left.Hash)
		if err != nil || !utf8.Valid(data) {
			return ""
		}
		a = string(data)
	}
	if now.Kind == tools.EntryFile {
		if nowData == nil || !utf8.Valid(nowData) {
			return ""
		}
		b = string(nowData)
	}
	d := udiff.Unified(p+" (as the turn left it)", p+" (now)", a, b)
	if len(d) > maxDiff {
		d = d[:maxDiff] + "\n[diff cut]"
	}
	return d
}

// run checks and applies a plan with its journal.
func (k *Keeper) run(ws *tools.Workspace, req Request, verb string, st *sessionState, j journal) (Result, error) {
	if err := k.refusal(ws, j.Steps, verb, req.Force); err != nil {
		return Result{}, err
	}
	// The pre-images: what each path holds now, kept so a failure can put it back.
	var blobs []store.UndoBlob
	for i := range j.Steps {
		s := &j.Steps[i]
		if s.Op == opRename {
			continue
		}
		pre, err := k.capture(ws, s.Path, 1<<62, &blobs)
		if err != nil {
			return Result{}, err
		}
		s.Pre = pre
	}
	if err := k.vault.PutUndoBlobs(bg, blobs); err != nil {
		return Result{}, fmt.Errorf("keeping what the %s replaces: %w", verb, err)
	}
	if err := k.putJournal(j); err != nil {
		return Result{}, fmt.Errorf("writing the undo journal: %w", err)
	}
	for i := range j.Steps {
		if k.faultAfter > 0 && i == k.faultAfter {
			return Result{}, errFault
		}
		if err := k.apply(ws, &j.Steps[i]); err != nil {
			k.rollback(ws, j.Steps[:i+1])
			_ = k.dropJournal()
			return Result{}, fmt.Errorf("cannot %s: %w; what was changed is put back", verb, err)
		}
	}
	j.Op.Files = files(j.Steps)
	j.Done = true
	if err := k.putJournal(j); err != nil {
		k.rollback(ws, j.Steps)
		_ = k.dropJournal()
		return Result{}, fmt.Errorf("writing the undo journal: %w", err)
	}
	if err := k.commit(st, j); err != nil {
		return Result{}, err
	}
	return Result{Op: j.Op, Note: note(j.Op)}, nil
}

// refusal is the *ConflictError that refuses a plan, or nil when it may
// run: a conflict refuses it unless force, and a hard one always does (then
// only the hard ones are named, as force would override the rest).
func (k *Keeper) refusal(ws *tools.Workspace, steps []step, verb string, force bool) error {
	conflicts := k.check(ws, steps, verb)
	if len(conflicts) == 0 || force && !slices.ContainsFunc(conflicts, func(c Conflict) bool { return c.Hard }) {
		return nil
	}
	if force {
		conflicts = slices.DeleteFunc(conflicts, func(c Conflict) bool { return !c.Hard })
	}
	return &ConflictError{Verb: verb, Conflicts: conflicts}
}

// apply makes one step's change.
func (k *Keeper) apply(ws *tools.Workspace, s *step) error {
	switch s.Op {
	case opSet:
		return k.put(ws, s.Path, s.Want)
	case opRename:
		return ws.Rename(s.From, s.Path)
	case opMkdir:
		return ws.MakeDir(s.Path)
	case opRmdir:
		removed, err := ws.RemoveEmptyDir(s.Path)
		s.Skipped = !removed
		return err
	}
	return fmt.Errorf("unknown undo step %q", s.Op)
}

// put makes p hold st.
func (k *Keeper) put(ws *tools.Workspace, p string, st State) error {
	switch st.Kind {
	case tools.EntryNone:
		if e, err := ws.Inspect(p, 0); err == nil && e.Kind == tools.EntryDir {
			_, err := ws.RemoveEmptyDir(p)
			return err
		}
		return ws.RemoveFile(p)
	case tools.EntryFile:
		if st.Hash == "" {
			return fmt.Errorf("the content of %s was not kept", p)
		}
		data, err := k.blob(st.Hash)
		if err != nil {
			return err
		}
		return ws.PutFile(p, data, st.Mode)
	case tools.EntrySymlink:
		return ws.PutSymlink(p, st.Target)
	case tools.EntryDir:
		return ws.MakeDir(p)
	}
	return fmt.Errorf("cannot put back %s: it was not a regular file, folder or link", p)
}

// rollback undoes applied steps, newest first; each is idempotent, so a
// rollback after a kill may repeat steps that never ran.
func (k *Keeper) rollback(ws *tools.Workspace, steps []step) {
	for i := len(steps) - 1; i >= 0; i-- {
		s := steps[i]
		switch s.Op {
		case opSet:
			_ = k.put(ws, s.Path, s.Pre)
		case opRename:
			to, _ := ws.Inspect(s.Path, 0)
			from, _ := ws.Inspect(s.From, 0)
			if to.Kind != tools.EntryNone && to.Kind != "" && from.Kind == tools.EntryNone {
				_ = ws.Rename(s.Path, s.From)
			}
		case opRmdir:
			if s.Pre.Kind == tools.EntryDir {
				_ = ws.MakeDir(s.Path)
			}
		case opMkdir:
			if s.Pre.Kind == tools.EntryNone {
				_, _ = ws.RemoveEmptyDir(s.Path)
			}
		}
	}
}

// commit records a done undo or redo in the session's state and the log,
// then drops the journal.
func (k *Keeper) commit(st *sessionState, j journal) error {
	if st.Undone == nil {
		st.Undone = map[string]string{}
	}
	for _, id := range j.Op.Runs {
		if j.Op.Kind == "undo" {
			st.Undone[id] = j.Op.ID
		} else {
			delete(st.Undone, id)
		}
	}
	if j.Op.Kind == "undo" {
		st.Redo = append(st.Redo, j.Op.ID)
	} else if n := len(st.Redo); n > 0 && st.Redo[n-1] == j.Redo {
		st.Redo = st.Redo[:n-1]
	}
	if !slices.ContainsFunc(st.Ops, func(o Op) bool { return o.ID == j.Op.ID }) {
		st.Ops = append(st.Ops, j.Op)
	}
	if err := k.saveSession(j.Session, st); err != nil {
		return fmt.Errorf("recording the %s: %w", j.Op.Kind, err)
	}
	return k.dropJournal()
}

// Recover finishes an undo or redo a killed process marked done, or rolls
// back one it had not finished, so the workspace is either fully restored or
// untouched. Call it once at start, before the first turn.
func (k *Keeper) Recover(ws *tools.Workspace) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	b, err := k.vault.UndoState(bg, journalKey)
	if err != nil {
		return err
	}
	if b == nil {
		return nil
	}
	var j journal
	if err := json.Unmarshal(b, &j); err != nil {
		// Not a journal this version can read; it was written before any step ran.
		return k.dropJournal()
	}
	if j.Done {
		st, err := k.session(j.Session)
		if err != nil {
			return err
		}
		return k.commit(st, j)
	}
	if j.Workspace != "" && j.Workspace != ws.Dir() {
		other, err := tools.OpenWorkspace(j.Workspace)
		if err != nil {
			return fmt.Errorf("an unfinished undo in %s cannot be rolled back: %w", j.Workspace, err)
		}
		defer other.Close()
		ws = other
	}
	k.rollback(ws, j.Steps)
	return k.dropJournal()
}

// files lists the paths a plan changed with the last action on each, in the
// order they were first changed.
func files(steps []step) []File {
	var out []File
	at := map[string]int{}
	for _, s := range steps {
		if s.Skipped {
			continue
		}
		p := s.Path
		from := ""
		if s.Op == opRename {
			from = s.From
		}
		if i, ok := at[p]; ok {
			out[i].Action, out[i].From = s.Action, from
			continue
		}
		at[p] = len(out)
		out = append(out, File{Path: p, Action: s.Action, From: from})
	}
	if out == nil {
		out = []File{}
	}
	return out
}

// note is what the model is told of an undo or redo.
func note(op Op) string {
	verb := "undid"
	if op.Kind == "redo" {
		verb = "redid"
	}
	turns := make([]string, len(op.Turns))
	for i, t := range op.Turns {
		turns[i] = fmt.Sprint(t)
	}
	word := "turn"
	if len(turns) > 1 {
		word = "turns"
	}
	parts := make([]string, len(op.Files))
	for i, f := range op.Files {
		parts[i] = f.Path + " " + strings.ReplaceAll(f.Action, "_", " ")
	}
	s := fmt.Sprintf("The user %s %s %s", verb, word, strings.Join(turns, ", "))
	if len(parts) > 0 {
		s += ": " + strings.Join(parts, ", ")
	}
	return s + ". The workspace is as it is now; do not rely on what those turns' tool runs reported."
}

func randomHex() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
