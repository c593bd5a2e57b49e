package undo

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/ailab/ai-lab/store"
	"github.com/ailab/ai-lab/tools"
)

// A Vault keeps a Keeper's records, blobs and states across restarts: the
// server's store (store.Backend) is one.
type Vault = store.UndoVault

// A Keeper keeps the undo records of one state store. It is safe for
// concurrent use within one process; one process owns a store's undo records
// at a time.
type Keeper struct {
	vault Vault
	now   func() time.Time

	mu       sync.Mutex
	lim      Limits
	recs     []*Record // by Seq, oldest first
	seq      int64
	refs     map[string]int   // blob hash to the records that use it
	sizes    map[string]int64 // blob hash to its size
	bytes    int64            // total size of the kept blobs
	sessions map[string]*sessionState

	// faultAfter, when > 0, stops an undo or redo after that many changes of
	// the workspace as a killed process would (tests only).
	faultAfter int
}

// bg is the context of the vault's calls: an undo record is kept or a
// workspace change finished even when the request that caused it went away.
var bg = context.Background()

// Open opens the undo records kept in v. now is the clock (nil: time.Now).
func Open(v Vault, lim Limits, now func() time.Time) (*Keeper, error) {
	if now == nil {
		now = time.Now
	}
	k := &Keeper{vault: v, now: now, lim: lim, refs: map[string]int{}, sizes: map[string]int64{}, sessions: map[string]*sessionState{}}
	stored, err := v.UndoRecords(bg)
	if err != nil {
		return nil, fmt.Errorf("reading the undo records: %w", err)
	}
	for _, sr := range stored {
		var r Record
		if json.Unmarshal(sr.Data, &r) != nil {
			continue // not a record this version can read
		}
		k.recs = append(k.recs, &r)
		k.seq = max(k.seq, r.Seq)
		k.hold(&r)
	}
	sort.Slice(k.recs, func(i, j int) bool { return k.recs[i].Seq < k.recs[j].Seq })
	return k, nil
}

// SetLimits puts new limits in force (a config change); they apply from the
// next recorded run.
func (k *Keeper) SetLimits(lim Limits) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.lim = lim
}

// Limits returns the limits in force.
func (k *Keeper) Limits() Limits {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.lim
}

// hold counts the blobs of r as used.
func (k *Keeper) hold(r *Record) {
	for h, size := range r.blobs() {
		if k.refs[h] == 0 {
			k.bytes += size
			k.sizes[h] = size
		}
		k.refs[h]++
	}
}

// drop releases the blobs of r and returns those no record uses any more,
// for the caller to delete.
func (k *Keeper) drop(r *Record) []string {
	var gone []string
	for h := range r.blobs() {
		if k.refs[h]--; k.refs[h] <= 0 {
			delete(k.refs, h)
			k.bytes -= k.sizes[h]
			delete(k.sizes, h)
			gone = append(gone, h)
		}
	}
	return gone
}

// A Pending is the record of a run that has begun; call Finish (or Finished,
// then Kept) after the run.
type Pending struct {
	k   *Keeper
	ws  *tools.Workspace
	rec *Record
	ch  tools.Changes
	// begun is the record as Prepare gave it to be stored before the run.
	begun []byte
}

// Begin records what the run will replace, before it runs: the state of
// every path in ch (the content of files kept as blobs) and the folders it
// will create. The record is stored before Begin returns, so a process killed
// mid-run leaves a record marked unfinished. A run whose files are over
// undo.max_file_bytes is recorded as one that cannot be undone.
func (k *Keeper) Begin(ws *tools.Workspace, run Run, ch tools.Changes) (*Pending, error) {
	p, put, err := k.Prepare(ws, run, ch)
	if err != nil {
		return nil, err
	}
	if err := k.vault.PutUndoRecord(bg, put.Record, put.Blobs); err != nil {
		return nil, fmt.Errorf("keeping the undo record: %w", err)
	}
	return p, nil
}

// Prepare is Begin without the write: it returns the record for the caller to
// store before the run, with the run's own start record (store.Start.Undo), so
// the two take one write. The run must not start unless put is stored.
func (k *Keeper) Prepare(ws *tools.Workspace, run Run, ch tools.Changes) (_ *Pending, put store.UndoPut, _ error) {
	k.mu.Lock()
	lim := k.lim
	k.mu.Unlock()
	rec := &Record{Run: run, At: k.now().UTC(), Move: ch.Move, Workspace: ws.Dir()}
	var blobs []store.UndoBlob
	for i, p := range ch.Paths {
		if i < ch.Reads {
			continue
		}
		st, err := k.capture(ws, p, lim.MaxFileBytes, &blobs)
		if err != nil {
			return nil, put, err
		}
		if st.Kind == tools.EntryFile && st.Hash == "" && !ch.Move {
			rec.NotUndoable = fmt.Sprintf("%s is over undo.max_file_bytes (%s), so its content was not kept", p, size(lim.MaxFileBytes))
		}
		if st.Kind == tools.EntryOther {
			rec.NotUndoable = fmt.Sprintf("%s is not a regular file, folder or link", p)
		}
		rec.Paths = append(rec.Paths, PathChange{Path: p, Before: st})
		for _, d := range ws.Missing(p) {
			if !slices.Contains(rec.Created, d) {
				rec.Created = append(rec.Created, d)
			}
		}
	}
	k.mu.Lock()
	k.seq++
	rec.Seq = k.seq
	k.mu.Unlock()
	put, err := encodeRecord(rec, blobs)
	if err != nil {
		return nil, put, err
	}
	return &Pending{k: k, ws: ws, rec: rec, ch: ch, begun: put.Record.Data}, put, nil
}

// encodeRecord is r as the vault keeps it, with the blobs it adds.
func encodeRecord(r *Record, blobs []store.UndoBlob) (store.UndoPut, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return store.UndoPut{}, err
	}
	return store.UndoPut{Record: store.UndoRecord{Seq: r.Seq, Data: b}, Blobs: blobs}, nil
}

// putRecord stores r with the blobs it adds, in one step.
func (k *Keeper) putRecord(r *Record, blobs []store.UndoBlob) error {
	put, err := encodeRecord(r, blobs)
	if err != nil {
		return err
	}
	if err := k.vault.PutUndoRecord(bg, put.Record, put.Blobs); err != nil {
		return fmt.Errorf("keeping the undo record: %w", err)
	}
	return nil
}

// capture reads what p holds now into a State; a file's content of at most
// max bytes is added to blobs, to be stored with the record.
func (k *Keeper) capture(ws *tools.Workspace, p string, max int64, blobs *[]store.UndoBlob) (State, error) {
	e, err := ws.Inspect(p, max)
	if err != nil {
		return State{}, err
	}
	st := State{Kind: e.Kind, Size: e.Size, Mode: e.Mode, Target: e.Target}
	if e.Kind == tools.EntryFile && e.Data != nil {
		st.Hash = hashOf(e.Data)
		if !slices.ContainsFunc(*blobs, func(b store.UndoBlob) bool { return b.Hash == st.Hash }) {
			*blobs = append(*blobs, store.UndoBlob{Hash: st.Hash, Data: e.Data})
		}
	}
	return st, nil
}

// Finish records what the run left behind and keeps the record within the
// limits, the oldest records going first. A run that failed without changing
// anything leaves a record that undoes nothing, which is dropped.
func (p *Pending) Finish() error {
	put, err := p.Finished()
	if err != nil || put == nil {
		return err
	}
	if err := p.k.vault.PutUndoRecord(bg, put.Record, put.Blobs); err != nil {
		return fmt.Errorf("keeping the undo record: %w", err)
	}
	p.Kept()
	return nil
}

// Finished is Finish without the record's write: it reads what the run left
// and returns the finished record for the caller to store with the run's end
// record (store.Finish.Undo), one write instead of two; once it is stored, the
// caller calls Kept. A run that changed nothing returns nil: its record is
// dropped here.
func (p *Pending) Finished() (*store.UndoPut, error) {
	k := p.k
	lim := k.Limits()
	changed := false
	var blobs []store.UndoBlob
	for i := range p.rec.Paths {
		pc := &p.rec.Paths[i]
		st, err := k.capture(p.ws, pc.Path, lim.MaxFileBytes, &blobs)
		if err != nil {
			// A path that went out of reach mid-run: undo will see it as changed.
			st = State{Kind: tools.EntryOther}
		}
		pc.After = st
		changed = changed || !st.same(pc.Before) || st.Kind != pc.Before.Kind
	}
	var created []string
	for _, d := range p.rec.Created {
		if e, err := p.ws.Inspect(d, 0); err == nil && e.Kind == tools.EntryDir {
			created = append(created, d)
		}
	}
	p.rec.Created = created
	changed = changed || len(created) > 0
	p.rec.Finished = true
	if !changed {
		k.mu.Lock()
		gone := k.release(p.rec)
		k.mu.Unlock()
		return nil, k.vault.DeleteUndoRecord(bg, p.rec.Seq, gone)
	}
	put, err := encodeRecord(p.rec, blobs)
	if err != nil {
		return nil, err
	}
	return &put, nil
}

// Kept counts the record Finished returned once it is stored: undo can take
// the run back from now on, and the oldest records go to keep within the
// limits. A record whose write failed is counted by Begun instead.
func (p *Pending) Kept() {
	k := p.k
	k.mu.Lock()
	defer k.mu.Unlock()
	k.recs = append(k.recs, p.rec)
	k.hold(p.rec)
	if st := k.sessions[p.rec.Session]; st != nil && len(st.Redo) > 0 {
		// New changes after an undo: what it reverted can no longer be redone.
		st.Redo = nil
		_ = k.saveSession(p.rec.Session, st)
	} else if st == nil {
		if st, err := k.session(p.rec.Session); err == nil && len(st.Redo) > 0 {
			st.Redo = nil
			_ = k.saveSession(p.rec.Session, st)
		}
	}
	k.evict()
}

// Begun counts the record as the store holds it when what the run left could
// not be read or stored (Finished failed, or the write carrying its result
// did): begun, with the run's end unknown. Undo then treats the run as one
// that was cut short, here as after a restart: its files may be half written,
// so taking it back needs force. Without this, undo in this process would
// leave the run's changes in place and report the turn undone.
func (p *Pending) Begun() {
	var r Record
	if json.Unmarshal(p.begun, &r) != nil {
		return
	}
	k := p.k
	k.mu.Lock()
	defer k.mu.Unlock()
	k.recs = append(k.recs, &r)
	k.hold(&r)
	k.evict()
}

// release returns the blobs of a dropped, never counted record that no
// counted record uses, for the caller to delete.
func (k *Keeper) release(r *Record) []string {
	var gone []string
	for h := range r.blobs() {
		if k.refs[h] == 0 {
			gone = append(gone, h)
		}
	}
	return gone
}

// Evict applies the limits now: records older than undo.max_age go, then the
// oldest until the kept contents fit undo.max_bytes.
func (k *Keeper) Evict() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.evict()
}

func (k *Keeper) evict() {
	maxRecords := k.lim.MaxRecords
	if maxRecords <= 0 {
		maxRecords = DefaultMaxRecords
	}
	now := k.now()
	cutoff := now.Add(-k.lim.MaxAge)
	live := 0
	for _, r := range k.recs {
		if !r.Evicted {
			live++
		}
	}
	for _, r := range k.recs {
		if r.Evicted {
			continue
		}
		if !r.At.Before(cutoff) && k.bytes <= k.lim.MaxBytes && live <= maxRecords {
			break
		}
		gone := k.drop(r)
		live--
		r.Evicted, r.Paths, r.Created = true, nil, nil
		if k.putRecord(r, nil) == nil {
			_ = k.vault.DeleteUndoBlobs(bg, gone)
		}
	}
	// An evicted record stays so that an undo of its turn can say why it
	// cannot be done, until it is twice undo.max_age old or the records are
	// over maxRecords; then it goes too, oldest first.
	forget := now.Add(-2 * k.lim.MaxAge)
	kept := k.recs[:0]
	for i, r := range k.recs {
		if r.Evicted && (r.At.Before(forget) || len(k.recs)-i > maxRecords) {
			if k.vault.DeleteUndoRecord(bg, r.Seq, nil) == nil {
				continue
			}
		}
		kept = append(kept, r)
	}
	clear(k.recs[len(kept):])
	k.recs = kept
}

// Bytes is the size of the contents kept now.
func (k *Keeper) Bytes() int64 {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.bytes
}

// Undoable says, before a call runs, whether its change could be undone:
// "" when it could, else why not ("cannot be undone: ..."), for the approval
// table. It reads only sizes and kinds, never contents.
func Undoable(ws *tools.Workspace, ch tools.Changes, lim Limits) string {
	if ch.Move {
		return ""
	}
	for i, p := range ch.Paths {
		if i < ch.Reads {
			continue
		}
		e, err := ws.Inspect(p, 0)
		if err != nil {
			continue // the run will be refused with this error
		}
		switch {
		case e.Kind == tools.EntryFile && e.Size > lim.MaxFileBytes:
			return fmt.Sprintf("cannot be undone: %s is %s, over undo.max_file_bytes (%s)", p, size(e.Size), size(lim.MaxFileBytes))
		case e.Kind == tools.EntryOther:
			return fmt.Sprintf("cannot be undone: %s is not a regular file, folder or link", p)
		}
	}
	return ""
}

// size writes n bytes for people.
func size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20:
		return fmt.Sprintf("%.3g MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.3g KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// A sessionState is what undo keeps per session: which runs are undone, the
// undos that may be redone, and the log of every undo and redo.
type sessionState struct {
	// Undone maps the execution id of each undone run to the op that undid it.
	Undone map[string]string `json:"undone"`
	// Redo lists the undo ops that redo may re-apply, the last one last.
	Redo []string `json:"redo,omitempty"`
	// Ops is the log of undos and redos, oldest first.
	Ops []Op `json:"ops"`
}

// An Op is one undo or redo, as the log keeps it.
type Op struct {
	ID    string    `json:"id"`
	Kind  string    `json:"kind"` // "undo" or "redo"
	At    time.Time `json:"at"`
	By    string    `json:"by"` // who asked, e.g. the API client
	Force bool      `json:"force,omitempty"`
	Turns []int     `json:"turns"`
	Runs  []string  `json:"runs"` // execution ids
	Files []File    `json:"files"`
}

// A File is one path an undo or redo changed.
type File struct {
	Path   string `json:"path"`
	Action string `json:"action"` // ActionRestored, ActionRemoved or ActionMovedBack
	// From is where a moved-back path comes from (ActionMovedBack only).
	From string `json:"from,omitempty"`
}

// Actions of a File (the API's UndoFile actions).
const (
	ActionRestored  = "restored"
	ActionRemoved   = "removed"
	ActionMovedBack = "moved_back"
)

// sessionKey is the vault key of a session's undo state.
func sessionKey(id string) string { return "session:" + id }

// session returns the session's state, loading it once.
func (k *Keeper) session(id string) (*sessionState, error) {
	if st := k.sessions[id]; st != nil {
		return st, nil
	}
	st := &sessionState{Undone: map[string]string{}}
	b, err := k.vault.UndoState(bg, sessionKey(id))
	switch {
	case b == nil && err == nil:
	case err != nil:
		return nil, err
	default:
		if err := json.Unmarshal(b, st); err != nil {
			return nil, fmt.Errorf("the undo state of session %s is unreadable: %w", id, err)
		}
		if st.Undone == nil {
			st.Undone = map[string]string{}
		}
	}
	k.sessions[id] = st
	return st, nil
}

func (k *Keeper) saveSession(id string, st *sessionState) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return k.vault.PutUndoState(bg, sessionKey(id), b)
}

// Undone returns the execution ids of the session's undone runs.
func (k *Keeper) Undone(session string) map[string]bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	st, err := k.session(session)
	out := map[string]bool{}
	if err != nil {
		return out
	}
	for id := range st.Undone {
		out[id] = true
	}
	return out
}

// Ops returns the log of the session's undos and redos, oldest first.
func (k *Keeper) Ops(session string) []Op {
	k.mu.Lock()
	defer k.mu.Unlock()
	st, err := k.session(session)
	if err != nil {
		return nil
	}
	return slices.Clone(st.Ops)
}
