// Package store is the contract between ai-server and its durable state:
// sessions with their messages and pending approvals, session leases, the
// execution ledger, session grants and the call-chain traces. It exists so that
// a server restarted between an approval request and the user's decision still
// finishes the turn (CONTRACT section 4), and so that several servers may share
// one state without running a tool call twice.
//
// The package holds the domain types, the sentinel errors and the Backend
// interface with the guarantees every implementation must keep; the
// implementations live in subpackages (store/sqlite), and store/storetest is
// the test suite each of them must pass. It must never import a database
// driver or a backend, the server, or the network, and never decide policy
// (who may see what, what a preset allows): it only says what is stored and
// how it is found.
//
// Conventions every backend keeps:
//   - Times come back as UTC time.Time values truncated to the millisecond, the
//     precision of execution ids.
//   - Messages and pending approvals are the server's own JSON, kept byte for
//     byte.
//   - Tool arguments are kept as JSON: empty or null arguments come back as {}
//     so that every API answer carries an object, and arguments that are not
//     valid JSON (a model can send those) come back as a JSON string holding the
//     raw text, so nothing is lost and every answer stays valid JSON
//     (ArgumentsJSON).
//   - Errors about a missing record wrap ErrNotFound; errors about a damaged
//     store wrap ErrDamaged and carry a DamageError with the advice. Callers
//     test them with errors.Is and never look at a backend's own error codes.
package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/ailab/ai-lab/api"
)

// A Backend keeps ai-server's durable state. Implementations are safe for
// concurrent use by many goroutines and by several processes sharing one state
// (two ai-servers on one state_dir or one database): every guarantee below holds
// across processes, not only within one.
//
// Guarantees about atomicity:
//   - A session's lease has at most one holder at any time: of any number of
//     concurrent Acquire calls for one session, at most one succeeds while the
//     lease runs.
//   - Save, StartExecution and FinishExecution take effect only while their
//     owner holds the session's lease, checked in the same atomic step as the
//     write; a writer that lost its lease changes nothing and gets ErrLeaseLost.
//   - A call's start record is unique per call key: of any number of
//     concurrent StartExecution calls with one key, at most one succeeds and
//     the others get ErrCallStarted, so a call runs at most once.
//   - Save writes everything it carries (messages, pending state, trace, end
//     records of runs, lease release) or nothing, and a process killed after Save returned loses none
//     of it.
type Backend interface {
	// CreateSession adds an empty session whose two times are at. Creating an
	// id that exists is an error (not ErrNotFound) and changes nothing.
	CreateSession(ctx context.Context, id, title string, at time.Time) error
	// Session returns one session, or an error wrapping ErrNotFound.
	Session(ctx context.Context, id string) (Session, error)
	// Sessions returns every session, the most recently updated first (ties:
	// the greater id first); an empty store gives an empty, non-nil slice.
	Sessions(ctx context.Context) ([]Session, error)
	// DeleteSession removes a session with its messages, pending state and
	// grants, or returns an error wrapping ErrNotFound. Its ledger records and
	// traces stay, for audit.
	DeleteSession(ctx context.Context, id string) error
	// Messages returns a session's messages in the order they were saved (an
	// empty, non-nil slice for none), or an error wrapping ErrNotFound.
	Messages(ctx context.Context, sessionID string) ([]json.RawMessage, error)
	// Pending returns a session's pending state as Save stored it, nil when
	// nothing waits, or an error wrapping ErrNotFound.
	Pending(ctx context.Context, sessionID string) (json.RawMessage, error)

	// Acquire takes a session's lease for owner until now+term in one atomic
	// step, and returns the session's save count and pending state read in that
	// same step. It fails with ErrBusy while another owner's lease runs (unless
	// that owner is known to have ended, Owner.Gone), and with ErrNotFound for
	// an unknown session. Taking over from an ended or expired owner marks that
	// owner's unfinished runs of the session as Interrupted and sets TookOver.
	Acquire(ctx context.Context, sessionID string, owner Owner, now time.Time, term time.Duration) (Lease, error)
	// Renew moves the end of owner's lease to until, or fails with
	// ErrLeaseLost when owner no longer holds it.
	Renew(ctx context.Context, sessionID string, owner Owner, until time.Time) error
	// Release gives up owner's lease. Releasing a lease owner does not hold is
	// a no-op: it never frees another owner's lease.
	Release(ctx context.Context, sessionID string, owner Owner) error
	// Save writes one step of a turn atomically and returns the session's new
	// save count; see Save for what it carries. An unknown session is an
	// error wrapping ErrNotFound, a lost lease one wrapping ErrLeaseLost, and
	// invalid JSON an error; all of them store nothing.
	Save(ctx context.Context, sv Save) (int64, error)

	// StartExecution commits a call's start record before the call runs
	// (CONTRACT section 9). It fails with ErrCallStarted when the call key has
	// a record already and with ErrLeaseLost when st.Owner does not hold the
	// session's lease; in both cases nothing is written and the call must not
	// run.
	StartExecution(ctx context.Context, st Start) error
	// FinishExecution records how a started run ended: e's duration, whether it
	// completed, its error, and outcome, the tool message the model got. It
	// fails with ErrLeaseLost, changing nothing, when owner no longer holds the
	// lease of the run's session, and with ErrNotFound when the run never
	// started.
	FinishExecution(ctx context.Context, owner Owner, e api.Execution, outcome string) error
	// CallOutcome returns the record of the call named callKey and its recorded
	// outcome ("" when the run never recorded an end), or an error wrapping
	// ErrNotFound when the call never started.
	CallOutcome(ctx context.Context, callKey string) (api.Execution, string, error)
	// Execution returns the record of one run, or an error wrapping ErrNotFound.
	Execution(ctx context.Context, id string) (api.Execution, error)
	// PruneExecutions deletes the records of runs started before olderThan,
	// except those of sessions with a pending state (a paused turn may still
	// consult them), and reports how many went.
	PruneExecutions(ctx context.Context, olderThan time.Time) (int, error)

	// AddGrant stores a session grant and returns the grant in force: one per
	// session, tool and pattern, so adding the same tool and pattern again
	// returns the first grant unchanged. An unknown session is an error
	// wrapping ErrNotFound.
	AddGrant(ctx context.Context, sessionID string, g api.SessionGrant) (api.SessionGrant, error)
	// Grants lists a session's grants, oldest first (an empty, non-nil slice
	// for none).
	Grants(ctx context.Context, sessionID string) ([]api.SessionGrant, error)
	// RevokeGrant deletes one grant of a session, or returns an error wrapping
	// ErrNotFound when the session has no such grant.
	RevokeGrant(ctx context.Context, sessionID, grantID string) error

	// Trace returns one call chain with its calls in call order, or an error
	// wrapping ErrNotFound.
	Trace(ctx context.Context, id string) (api.Trace, error)
	// Traces returns the chains that match every set field of f, with their
	// calls, the most recently started first (ties: the greater id first).
	Traces(ctx context.Context, f TraceFilter) ([]api.Trace, error)
	// PruneTraces deletes the chains started before olderThan and those beyond
	// the newest keep, with their calls, and reports how many chains went. A
	// zero olderThan keeps chains of any age; keep <= 0 keeps any number.
	PruneTraces(ctx context.Context, olderThan time.Time, keep int) (int, error)

	UndoVault
}

// An UndoVault keeps what undo needs across restarts (package undo): a record
// per file-changing run, the content blobs the records name, and small named
// states (each session's undo log, the journal of an undo under way). The
// payloads are undo's own encoding; a backend stores them as they are. Every
// call is one atomic step.
type UndoVault interface {
	// UndoRecords returns every kept record, lowest Seq first (an empty,
	// non-nil slice for none).
	UndoRecords(ctx context.Context) ([]UndoRecord, error)
	// PutUndoRecord stores rec, replacing the record of the same Seq, together
	// with blobs; a blob whose hash is kept already is not written again.
	PutUndoRecord(ctx context.Context, rec UndoRecord, blobs []UndoBlob) error
	// DeleteUndoRecord removes the record seq (none is not an error) and the
	// blobs named in drop, in one step.
	DeleteUndoRecord(ctx context.Context, seq int64, drop []string) error
	// PutUndoBlobs stores blobs not kept yet.
	PutUndoBlobs(ctx context.Context, blobs []UndoBlob) error
	// DeleteUndoBlobs removes the named blobs (unknown names are ignored).
	DeleteUndoBlobs(ctx context.Context, hashes []string) error
	// UndoBlob returns a blob's content, or an error wrapping ErrNotFound.
	UndoBlob(ctx context.Context, hash string) ([]byte, error)
	// UndoState returns the state stored under key, nil when there is none.
	UndoState(ctx context.Context, key string) ([]byte, error)
	// PutUndoState stores data under key; nil data removes the key.
	PutUndoState(ctx context.Context, key string, data []byte) error
}

// An UndoRecord is one run's undo record as a backend keeps it.
type UndoRecord struct {
	Seq  int64
	Data []byte
}

// An UndoBlob is one content blob named by its SHA-256 in hex.
type UndoBlob struct {
	Hash string
	Data []byte
}

// ErrNotFound means the session, execution, grant or trace asked for is not in
// the store. Errors returned for a missing record wrap it, so test with
// errors.Is.
var ErrNotFound = errors.New("not found in the state database")

// ErrDamaged means the stored state cannot be read as it should: the file or
// database is damaged or is not ai-server's. A backend returns it inside a
// DamageError, whose message says what to do; a server stops using the store
// and shows that sentence.
var ErrDamaged = errors.New("the state database is damaged")

// A DamageError is an ErrDamaged with the sentence that tells a person what to
// do about it.
type DamageError struct {
	// Advice is a full sentence naming the damaged store and how to recover.
	Advice string
	// Err is the backend's own error, kept for logs.
	Err error
}

// Error is the advice followed by the backend's error in parentheses.
func (e *DamageError) Error() string {
	if e.Err == nil {
		return e.Advice
	}
	return e.Advice + " (" + e.Err.Error() + ")"
}

// Unwrap makes errors.Is(err, ErrDamaged) true and keeps the backend's error
// reachable.
func (e *DamageError) Unwrap() []error { return []error{ErrDamaged, e.Err} }

// DamageAdvice returns the advice of the DamageError inside err, and whether
// there is one.
func DamageAdvice(err error) (string, bool) {
	var d *DamageError
	if errors.As(err, &d) {
		return d.Advice, true
	}
	return "", false
}

// A Session is one conversation as the store knows it. Its title is set once, at
// creation.
type Session struct {
	ID              string
	Title           string
	CreatedAt       time.Time
	UpdatedAt       time.Time
	PendingApproval bool // a turn waits for the user's decisions
}

// A Save is one step of a turn: everything it changes is written in one
// atomic step, so after a crash either all of it is stored or none.
type Save struct {
	SessionID string
	// Owner is the lease holder making the save; the save is refused with
	// ErrLeaseLost when it no longer holds the lease. Empty: a writer without a
	// lease, refused while any owner's lease runs.
	Owner    Owner
	Messages []json.RawMessage // appended in order; each must be valid JSON
	Pending  json.RawMessage   // the session's pending state; nil or JSON null clears it
	At       time.Time         // the session's updated_at
	// Trace, when set, is the turn's call chain: its row is upserted and its
	// calls from TraceFrom on are appended (the earlier ones were saved before).
	Trace     *api.Trace
	TraceFrom int
	// Release gives up Owner's lease with this save (the request ends).
	Release bool
	// Finished are end records of runs of this session, written with the save
	// as FinishExecution writes them (a round's last run ends in the save
	// that keeps its result, one write instead of two). A run that never
	// started fails the whole save with ErrNotFound.
	Finished []Finish
}

// A Finish is how a started run ended: Execution's duration, completion and
// error, and Outcome, the tool message the model got.
type Finish struct {
	Execution api.Execution
	Outcome   string
	// Undo, when set, is the run's finished undo record, stored with the end
	// record in the same step as PutUndoRecord stores it: the ledger and undo
	// then agree on whether the run ended.
	Undo *UndoPut
}

// An UndoPut is an undo record to store together with the blobs it adds, as
// PutUndoRecord stores them, inside another write (a run's start or end).
type UndoPut struct {
	Record UndoRecord
	Blobs  []UndoBlob
}

// A Start is the ledger's start record of one call, written before it runs.
type Start struct {
	Execution api.Execution // ExecutionID, ToolName, Arguments, SessionID, StartedAt, Decision, Reason
	// CallKey names the call within its turn (trace, round and tool_call_id); a
	// second start of the same key is refused with ErrCallStarted.
	CallKey string
	Owner   Owner // must hold the session's lease
	// Undo, when set, is the run's undo record as it begins (what the run will
	// replace), stored in the same step, so a run that starts always has it.
	Undo *UndoPut
	// Finished are end records of earlier runs of the session, written in the
	// same step as Save writes them. When the start is refused, none of them
	// is written either.
	Finished []Finish
}

// Bounds of TraceFilter.Limit.
const (
	DefaultTraceLimit = 50
	MaxTraceLimit     = 500
)

// A TraceFilter selects call chains for Traces. Zero fields do not filter.
type TraceFilter struct {
	Tool        string        // chains with at least one call of this tool
	Since       time.Time     // chains started at or after Since
	Until       time.Time     // chains started before Until
	MinDuration time.Duration // chains that lasted at least this long, rounded up to whole milliseconds
	FailedOnly  bool          // chains that did not succeed
	Limit       int           // at most this many chains: DefaultTraceLimit when <= 0, clamped to MaxTraceLimit
}

// ArgumentsJSON is the stored form of tool arguments (see the package doc):
// valid JSON without its surrounding space, {} for empty or null arguments,
// and anything else as a JSON string holding the raw text.
func ArgumentsJSON(raw json.RawMessage) string {
	trimmed := bytes.TrimSpace(raw)
	switch {
	case len(trimmed) == 0, string(trimmed) == "null":
		return "{}"
	case json.Valid(trimmed):
		return string(trimmed)
	}
	quoted, _ := json.Marshal(string(raw)) // a string never fails to marshal
	return string(quoted)
}
