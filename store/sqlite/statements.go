package sqlite

import (
	"context"
	"database/sql"
	"errors"
)

// statements are the writes of every turn, prepared once at Open: parsing them
// for each use was a measurable share of a model round.
type statements struct {
	startExecution  *sql.Stmt
	finishExecution *sql.Stmt
	leaseOf         *sql.Stmt
	takeFreeLease   *sql.Stmt
	takeLease       *sql.Stmt
	renewLease      *sql.Stmt
	releaseLease    *sql.Stmt
	interruptRuns   *sql.Stmt
	saveSession     *sql.Stmt
	appendMessage   *sql.Stmt
	saveTraceRow    *sql.Stmt
	endTraceRow     *sql.Stmt
	appendTraceCall *sql.Stmt
	indexTraceTool  *sql.Stmt
	clearTraceCalls *sql.Stmt
	clearTraceTools *sql.Stmt
	putUndoRecord   *sql.Stmt
	putUndoBlob     *sql.Stmt

	// Reads of every model round or call, prepared on the read pool (each
	// connection of it prepares them once, when it first runs them).
	grants      *sql.Stmt
	execution   *sql.Stmt
	callOutcome *sql.Stmt
}

// each pairs every statement with its SQL.
func (st *statements) each() []struct {
	stmt  **sql.Stmt
	query string
} {
	type pair = struct {
		stmt  **sql.Stmt
		query string
	}
	return []pair{
		{&st.startExecution, statementSQL["startExecution"]},
		{&st.finishExecution, statementSQL["finishExecution"]},
		{&st.leaseOf, statementSQL["leaseOf"]},
		{&st.takeFreeLease, statementSQL["takeFreeLease"]},
		{&st.takeLease, statementSQL["takeLease"]},
		{&st.renewLease, statementSQL["renewLease"]},
		{&st.releaseLease, statementSQL["releaseLease"]},
		{&st.interruptRuns, statementSQL["interruptRuns"]},
		{&st.saveSession, statementSQL["saveSession"]},
		{&st.appendMessage, statementSQL["appendMessage"]},
		{&st.saveTraceRow, statementSQL["saveTraceRow"]},
		{&st.endTraceRow, statementSQL["endTraceRow"]},
		{&st.appendTraceCall, statementSQL["appendTraceCall"]},
		{&st.indexTraceTool, statementSQL["indexTraceTool"]},
		{&st.clearTraceCalls, statementSQL["clearTraceCalls"]},
		{&st.clearTraceTools, statementSQL["clearTraceTools"]},
		{&st.putUndoRecord, statementSQL["putUndoRecord"]},
		{&st.putUndoBlob, statementSQL["putUndoBlob"]},
	}
}

// reads pairs every read statement with its SQL.
func (st *statements) reads() []struct {
	stmt  **sql.Stmt
	query string
} {
	type pair = struct {
		stmt  **sql.Stmt
		query string
	}
	return []pair{
		{&st.grants, `SELECT grant_id, tool_name, pattern, created_at FROM grants WHERE session_id = ? ORDER BY created_at, grant_id`},
		{&st.execution, `SELECT ` + executionColumns + ` FROM executions WHERE execution_id = ?`},
		{&st.callOutcome, `SELECT ` + executionColumns + `, outcome FROM executions WHERE call_key = ?`},
	}
}

// statementSQL holds the SQL of the statements, by field name.
var statementSQL = map[string]string{
	// The start record is written only while owner (?9) holds the session's
	// lease, and call_key is unique: a call starts at most once, whoever tries.
	"startExecution": `
INSERT INTO executions (execution_id, tool_name, arguments, session_id, started_at, duration_ms, completed, error, call_key, decision, reason)
SELECT ?1, ?2, ?3, ?4, ?5, 0, 0, '', ?6, ?7, ?9
WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?4 AND lease_owner = ?8)`,
	// The end record, like the start, is written only while owner (?6) holds
	// the lease of the run's session: a process that lost it cannot overwrite
	// the outcome the new holder recorded.
	"finishExecution": `
UPDATE executions SET duration_ms = ?2, completed = ?3, error = ?4, outcome = ?5
WHERE execution_id = ?1 AND EXISTS (SELECT 1 FROM sessions WHERE id = executions.session_id AND lease_owner = ?6)`,
	"leaseOf": `SELECT lease_owner, lease_until, version, pending FROM sessions WHERE id = ?`,
	// The common case of Acquire in one statement: nobody holds the lease,
	// or its owner (?2) does already.
	"takeFreeLease": `
UPDATE sessions SET lease_owner = ?2, lease_until = ?3
WHERE id = ?1 AND (lease_owner IS NULL OR lease_owner = '' OR lease_owner = ?2)
RETURNING version, pending`,
	"takeLease":    `UPDATE sessions SET lease_owner = ?1, lease_until = ?2 WHERE id = ?3`,
	"renewLease":   `UPDATE sessions SET lease_until = ?1 WHERE id = ?2 AND lease_owner = ?3`,
	"releaseLease": `UPDATE sessions SET lease_owner = NULL, lease_until = 0 WHERE id = ?1 AND lease_owner = ?2`,
	"interruptRuns": `
UPDATE executions SET error = ?1 WHERE session_id = ?2 AND completed = 0 AND error = ''`,
	// A save by an owner needs its lease; a save without one (?5 = '') needs
	// that nobody holds a running lease.
	"saveSession": `
UPDATE sessions SET pending = ?1, updated_at = ?2, version = version + 1,
	lease_owner = CASE WHEN ?6 THEN NULL ELSE lease_owner END,
	lease_until = CASE WHEN ?6 THEN 0 ELSE lease_until END
WHERE id = ?3 AND (lease_owner = ?5 OR (?5 = '' AND (lease_owner IS NULL OR lease_until < ?4)))
RETURNING version`,
	"appendMessage": `INSERT INTO messages (session_id, body) VALUES (?, ?)`,
	// An upsert rather than INSERT OR REPLACE: REPLACE deletes the row first,
	// which would fire the cascade and drop the chain's calls.
	"saveTraceRow": `
INSERT INTO traces (trace_id, session_id, started_at, duration_ms, success) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (trace_id) DO UPDATE SET
	session_id = excluded.session_id, started_at = excluded.started_at,
	duration_ms = excluded.duration_ms, success = excluded.success`,
	// A chain's later saves change only how long it took and whether it
	// succeeded: setting only those rewrites two of the row's four index
	// entries, where the upsert (whose SET names started_at, in every index)
	// rewrites all four. It changes nothing when the row is not as given,
	// and saveTraceRow then writes it.
	"endTraceRow": `UPDATE traces SET duration_ms = ?4, success = ?5 WHERE trace_id = ?1 AND session_id = ?2 AND started_at = ?3`,
	"appendTraceCall": `
INSERT INTO trace_calls (trace_id, seq, call_id, parent_id, kind, tool_name, execution_id, arguments,
	started_at, duration_ms, success, error, result)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (trace_id, seq) DO UPDATE SET
	call_id = excluded.call_id, parent_id = excluded.parent_id, kind = excluded.kind,
	tool_name = excluded.tool_name, execution_id = excluded.execution_id, arguments = excluded.arguments,
	started_at = excluded.started_at, duration_ms = excluded.duration_ms, success = excluded.success,
	error = excluded.error, result = excluded.result`,
	"indexTraceTool": `INSERT OR IGNORE INTO trace_tools (tool_name, started_at, trace_id) VALUES (?, ?, ?)`,
	// A chain saved whole (the first save of every turn's chain) clears what
	// was stored under its id.
	"clearTraceCalls": `DELETE FROM trace_calls WHERE trace_id = ?`,
	"clearTraceTools": `DELETE FROM trace_tools WHERE trace_id = ?`,
	// Undo records and contents ride on the ledger's start and end records.
	"putUndoRecord": `INSERT INTO undo_records (seq, data) VALUES (?, ?) ON CONFLICT (seq) DO UPDATE SET data = excluded.data`,
	"putUndoBlob":   `INSERT INTO undo_blobs (hash, data) VALUES (?, ?) ON CONFLICT (hash) DO NOTHING`,
}

// prepare prepares every write statement on the write connection and every
// read statement on the read pool.
func (s *Store) prepare() error {
	for _, p := range s.stmts.each() {
		st, err := s.conn.PrepareContext(context.Background(), p.query)
		if err != nil {
			return err
		}
		*p.stmt = st
	}
	for _, p := range s.stmts.reads() {
		st, err := s.read.Prepare(p.query)
		if err != nil {
			return err
		}
		*p.stmt = st
	}
	return nil
}

// close closes the prepared statements.
func (st *statements) close() error {
	var errs []error
	for _, p := range append(st.each(), st.reads()...) {
		if *p.stmt != nil {
			errs = append(errs, (*p.stmt).Close())
		}
	}
	return errors.Join(errs...)
}
