package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/config"
	"github.com/ailab/ai-lab/llm"
	"github.com/ailab/ai-lab/store"
	"github.com/ailab/ai-lab/tools"
	"github.com/ailab/ai-lab/undo"
)

// originUndoNote marks the message that tells the model what the user undid
// or redid; it is not a user turn.
const originUndoNote = "undo_note"

// undoKeepers holds each Server's undo records, opened on first use under
// the state store (a Server has no field for them: this file keeps undo apart
// from the rest of the server).
var undoKeepers sync.Map // *Server -> *undoKeeper

type undoKeeper struct {
	once sync.Once
	k    *undo.Keeper
	err  error
}

// undoLimits are the undo.* keys of cfg.
func undoLimits(cfg *config.Config) undo.Limits {
	return undo.Limits{MaxBytes: cfg.Undo.MaxBytes, MaxAge: cfg.Undo.MaxAge, MaxFileBytes: cfg.Undo.MaxFileBytes}
}

// keeper returns the server's undo records with the limits in force. On
// first use it finishes or rolls back an undo a killed process left.
func (s *Server) keeper() (*undo.Keeper, error) {
	v, _ := undoKeepers.LoadOrStore(s, &undoKeeper{})
	uk := v.(*undoKeeper)
	cfg := s.Config()
	uk.once.Do(func() {
		uk.k, uk.err = undo.Open(s.store, undoLimits(cfg), s.now)
		if uk.err != nil {
			return
		}
		ws, err := tools.OpenWorkspace(cfg.Tools.Workspace)
		if err != nil {
			uk.err = err
			return
		}
		defer ws.Close()
		uk.err = uk.k.Recover(ws)
	})
	if uk.err != nil {
		return nil, uk.err
	}
	uk.k.SetLimits(undoLimits(cfg))
	return uk.k, nil
}

// RecoverUndo finishes or rolls back an undo or redo that a killed process
// left half done; the server does it on first use, and a start-up may call
// it first so the workspace is consistent before any request.
func (s *Server) RecoverUndo() error {
	_, err := s.keeper()
	return err
}

// A keptRun is a run whose undo record is prepared: begun is stored with
// the run's start record, and what the run left with its end record.
type keptRun struct {
	p     *undo.Pending
	begun store.UndoPut
	run   *turnRun
	own   *tools.Workspace // a workspace opened for the record, closed by finished or drop
}

// finished reads what the run left and returns the record to store with the
// run's end record (nil: nothing to store); a nil keptRun returns nil.
func (k *keptRun) finished() *store.UndoPut {
	if k == nil || k.p == nil {
		return nil
	}
	defer k.drop()
	put, err := k.p.Finished()
	if err != nil {
		k.run.log.Warn("reading what a run left for undo failed; undoing it will need force", "err", err)
		k.p.Begun()
		k.p = nil
		return nil
	}
	return put
}

// drop closes the workspace the record opened; the run did not start or its
// record is read.
func (k *keptRun) drop() {
	if k != nil && k.own != nil {
		k.own.Close()
		k.own = nil
	}
}

// kept tells the undo records that the finished record is stored (ok) or
// could not be: then the store holds the record as the run began, and undo
// counts it so.
func (k *keptRun) kept(ok bool) {
	switch {
	case k == nil || k.p == nil:
	case ok:
		k.p.Kept()
	default:
		k.p.Begun()
	}
}

// keepForUndo reads what a file tool's call will replace, just before its
// start record (the files are read now, after the user's approval), and
// returns the record to store with that start; an MCP tool's
// call is recorded when what it changes can be known (see outsideChanges).
// A call that changes nothing, or any other tool, keeps nothing.
func (r *turnRun) keepForUndo(tool tools.Tool, c plannedCall, executionID string) (kept *keptRun) {
	if c.Err != "" {
		return nil
	}
	var ws *tools.Workspace
	var changes tools.Changes
	if ch, ok := tool.(tools.Changer); ok {
		var err error
		ws, changes, err = ch.Changes(c.Args)
		if err != nil || ws == nil || len(changes.Paths) == 0 {
			return nil // the run refuses the same way and changes nothing
		}
	} else {
		// An MCP tool: recorded when what it changes can be known.
		id := tools.IdentityOf(tool)
		if id.Source == tools.SourceBuiltin || !id.Action.Changes() {
			return nil
		}
		w, err := tools.OpenWorkspace(r.s.Config().Tools.Workspace)
		if err != nil {
			return nil
		}
		ch, ok := outsideChanges(id, c.Args, w)
		if !ok {
			w.Close()
			return nil
		}
		ws, changes = w, ch
		defer func() {
			if kept == nil {
				w.Close()
			} else {
				kept.own = w
			}
		}()
	}
	k, err := r.s.keeper()
	if err != nil {
		r.log.Warn("the undo records cannot be opened; this run cannot be undone", "err", err)
		return nil
	}
	p, begun, err := k.Prepare(ws, undo.Run{ExecutionID: executionID, Session: r.session, TraceID: r.t.TraceID, Turn: r.turnNumber(), Tool: c.Name}, changes)
	if err != nil {
		r.log.Warn("keeping what a run replaces failed; this run cannot be undone", "execution_id", executionID, "err", err)
		return nil
	}
	return &keptRun{p: p, begun: begun, run: r}
}

// turnNumber is the 1-based number of the turn among the session's user
// turns, as the user counts them.
func (r *turnRun) turnNumber() int {
	n := 0
	count := func(msgs []llm.Message, upTo int) {
		for i, m := range msgs {
			if i > upTo {
				return
			}
			if m.Role == llm.RoleUser && m.Origin == "" {
				n++
			}
		}
	}
	count(r.saved.msgs, r.t.Start)
	if r.t.Start >= r.saved.len() {
		count(r.unsaved, r.t.Start-r.saved.len())
	}
	return n
}

// undoablePreview adds to a pending call's preview why its change could not
// be undone, when that is so; pv is returned unchanged otherwise.
func (r *turnRun) undoablePreview(c plannedCall, pv *api.Preview) *api.Preview {
	tool, ok := r.reg.reg.Get(c.Name)
	if !ok {
		return pv
	}
	ch, ok := tool.(tools.Changer)
	if !ok {
		return pv
	}
	ws, changes, err := ch.Changes(c.Args)
	if err != nil || ws == nil {
		return pv
	}
	why := undo.Undoable(ws, changes, undoLimits(r.cfg))
	if why == "" {
		return pv
	}
	if pv == nil {
		pv = &api.Preview{Kind: api.PreviewOverwrite, Summary: why}
		if len(changes.Paths) > 0 {
			pv.Path = changes.Paths[len(changes.Paths)-1]
		}
	}
	pv.NotUndoable = why
	return pv
}

// markUndone sets Undone on the runs of out's turns that the user undid.
func (s *Server) markUndone(session string, out *api.SessionDetail) {
	k, err := s.keeper()
	if err != nil {
		return
	}
	for _, op := range k.Ops(session) {
		files := make([]api.UndoFile, len(op.Files))
		for i, f := range op.Files {
			files[i] = api.UndoFile{Path: f.Path, Action: f.Action, From: f.From}
		}
		out.UndoLog = append(out.UndoLog, api.UndoOp{ID: op.ID, Kind: op.Kind, At: op.At, By: op.By, Force: op.Force,
			Turns: op.Turns, Runs: op.Runs, Files: files})
	}
	undone := k.Undone(session)
	if len(undone) == 0 {
		return
	}
	for i := range out.Messages {
		for j := range out.Messages[i].ToolsUsed {
			u := &out.Messages[i].ToolsUsed[j]
			u.Undone = undone[u.ExecutionID]
		}
	}
}

// undoWait is how long undo waits for the session before it answers
// session_busy: a request holding it is a turn that runs.
const undoWait = 200 * time.Millisecond

// undo answers POST /sessions/{id}/undo.
func (s *Server) undo(c *gin.Context) { s.undoOrRedo(c, false) }

// redo answers POST /sessions/{id}/redo.
func (s *Server) redo(c *gin.Context) { s.undoOrRedo(c, true) }

// undoOrRedo answers POST /sessions/{id}/undo and /redo.
func (s *Server) undoOrRedo(c *gin.Context, redo bool) {
	id := c.Param("id")
	verb := "undo"
	if redo {
		verb = "redo"
	}
	var req api.UndoRequest
	raw, err := io.ReadAll(c.Request.Body)
	if err != nil {
		s.fail(c, failWith(ErrInvalidRequest, err, "the request body could not be read"))
		return
	}
	if strings.TrimSpace(string(raw)) != "" {
		if err := json.Unmarshal(raw, &req); err != nil {
			s.fail(c, failf(ErrInvalidRequest, "the body must be a JSON object like {\"turn\": 3, \"force\": false}: %v", err))
			return
		}
	}
	if req.Turn < 0 {
		s.fail(c, failf(ErrInvalidRequest, "turn must be 1 or more (or left out for the last turn that changed files)"))
		return
	}
	if _, err := s.store.Session(c.Request.Context(), id); err != nil {
		s.fail(c, s.sessionErr(id, err))
		return
	}
	// A turn that just answered may still hold the session for a moment;
	// one that runs holds it past undoWait.
	ctx, cancel := context.WithTimeout(c.Request.Context(), undoWait)
	defer cancel()
	held, err := s.hold(ctx, id)
	if err != nil {
		if ctx.Err() != nil {
			undoFail(c, api.CodeSessionBusy, fmt.Sprintf("a turn is running on session %s; wait for it to end, or cancel it, then %s", id, verb))
			return
		}
		s.fail(c, err)
		return
	}
	defer held.close()
	if held.pending != nil {
		undoFail(c, api.CodeSessionBusy, fmt.Sprintf("a turn of session %s waits for your approval; decide it first, then %s", id, verb))
		return
	}
	k, err := s.keeper()
	if err != nil {
		s.fail(c, err)
		return
	}
	cfg := s.Config()
	ws, err := tools.OpenWorkspace(cfg.Tools.Workspace)
	if err != nil {
		s.fail(c, err)
		return
	}
	defer ws.Close()
	ureq := undo.Request{Session: id, Turn: req.Turn, Force: req.Force, By: "api client " + c.ClientIP()}
	if req.Preview {
		var pv undo.Preview
		if redo {
			pv, err = k.PreviewRedo(ws, ureq)
		} else {
			pv, err = k.PreviewUndo(ws, ureq)
		}
		if s.undoRefused(c, err) {
			return
		}
		c.JSON(http.StatusOK, previewReply(pv))
		return
	}
	var res undo.Result
	if redo {
		res, err = k.Redo(ws, ureq)
	} else {
		res, err = k.Undo(ws, ureq)
	}
	if s.undoRefused(c, err) {
		return
	}
	s.log.Info(verb+" done", "session_id", id, "turns", res.Op.Turns, "runs", res.Op.Runs, "files", len(res.Op.Files), "force", req.Force, "by", ureq.By)
	// The model is told on its next turn, in the session's history.
	msg := llm.Message{Role: llm.RoleUser, Content: "[ai-server note] " + res.Note, Origin: originUndoNote}
	if b, err := json.Marshal(msg); err == nil {
		bg := context.WithoutCancel(c.Request.Context())
		if v, err := s.store.Save(bg, store.Save{SessionID: id, Owner: s.owner, Messages: []json.RawMessage{b}, At: s.now()}); err != nil {
			s.log.Warn("keeping the undo note for the model failed", "session_id", id, "err", err)
		} else {
			s.histories.put(id, held.history.with(v, []llm.Message{msg}))
		}
	}
	out := api.UndoReply{Turns: res.Op.Turns, Files: make([]api.UndoFile, len(res.Op.Files))}
	for i, f := range res.Op.Files {
		out.Files[i] = api.UndoFile{Path: f.Path, Action: f.Action, From: f.From}
	}
	c.JSON(http.StatusOK, out)
}

// undoRefused answers an undo's or redo's error, if any, and reports
// whether it did: nothing_to_undo with the keeper's sentence, 409 conflict
// with each file and the diff of the user's change, or the failure.
func (s *Server) undoRefused(c *gin.Context, err error) bool {
	var ce *undo.ConflictError
	switch {
	case err == nil:
		return false
	case errors.Is(err, undo.ErrNothing):
		undoFail(c, api.CodeNothingToUndo, err.Error())
	case errors.As(err, &ce):
		body := api.UndoConflictBody{Error: api.ErrorDetail{Code: api.CodeConflict, Message: ce.Error()}, Conflicts: make([]api.UndoConflict, len(ce.Conflicts))}
		for i, x := range ce.Conflicts {
			body.Conflicts[i] = api.UndoConflict{Path: x.Path, Why: x.Why, Diff: x.Diff, Hard: x.Hard}
		}
		c.AbortWithStatusJSON(http.StatusConflict, body)
	default:
		s.fail(c, err)
	}
	return true
}

// previewReply is the answer of a preview: the UndoReply the undo or redo
// would give, with each path's kind, sizes now and after, and diff.
func previewReply(pv undo.Preview) api.UndoReply {
	out := api.UndoReply{Turns: pv.Op.Turns, Files: make([]api.UndoFile, len(pv.Files)), Preview: true}
	for i, f := range pv.Files {
		uf := api.UndoFile{Path: f.Path, Action: f.Action, From: f.From, Kind: f.Now.Kind, Diff: f.Diff, DiffTruncated: f.DiffCut}
		if uf.Kind == tools.EntryNone {
			uf.Kind = f.After.Kind
		}
		if f.Now.Kind == tools.EntryFile {
			uf.SizeNow = &f.Now.Size
		}
		if f.After.Kind == tools.EntryFile {
			uf.SizeAfter = &f.After.Size
		}
		out.Files[i] = uf
	}
	return out
}

// undoFail answers a 409 with code and one sentence.
func undoFail(c *gin.Context, code, msg string) {
	c.AbortWithStatusJSON(http.StatusConflict, api.ErrorBody{Error: api.ErrorDetail{Code: code, Message: msg}})
}
