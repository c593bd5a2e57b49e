package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ailab/ai-lab/api"
)

// RecordExecution inserts the ledger record of a tool run, or replaces the record
// with the same execution id: a run is recorded when it starts (Completed false)
// and again when it ends.
func (s *Store) RecordExecution(ctx context.Context, e api.Execution) error {
	_, err := s.stmts.recordExecution.ExecContext(ctx,
		e.ExecutionID, e.ToolName, argumentsText(e.Arguments), e.SessionID,
		millis(e.StartedAt), e.DurationMS, e.Completed, e.Error)
	if err != nil {
		return fmt.Errorf("record execution %s: %w", e.ExecutionID, err)
	}
	return nil
}

// recordExecutionSQL is prepared once at Open: every tool run records twice, and
// parsing the statement each time was a measurable share of the write.
const recordExecutionSQL = `
INSERT INTO executions (execution_id, tool_name, arguments, session_id, started_at, duration_ms, completed, error)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (execution_id) DO UPDATE SET
	tool_name = excluded.tool_name, arguments = excluded.arguments, session_id = excluded.session_id,
	started_at = excluded.started_at, duration_ms = excluded.duration_ms,
	completed = excluded.completed, error = excluded.error`

// A Start is the ledger's start record of one call, written before it runs.
type Start struct {
	Execution api.Execution // ExecutionID, ToolName, Arguments, SessionID, StartedAt, Decision
	// CallKey names the call within its turn (trace, round, tool_call_id); a
	// second start of the same key is refused with ErrCallStarted.
	CallKey string
	Owner   Owner // must hold the session's lease
}

// StartExecution commits the start record of a run before it runs (CONTRACT
// section 9). It fails with ErrCallStarted when the call has a record already,
// and with ErrLeaseLost when st.Owner does not hold the session's lease: in
// both cases the call must not run.
func (s *Store) StartExecution(ctx context.Context, st Start) error {
	e := st.Execution
	res, err := s.stmts.startExecution.ExecContext(ctx, e.ExecutionID, e.ToolName, argumentsText(e.Arguments),
		e.SessionID, millis(e.StartedAt), st.CallKey, e.Decision, string(st.Owner), e.Reason)
	if sqliteCode(err) == sqliteConstraint {
		return fmt.Errorf("start %s (%s): %w", e.ExecutionID, st.CallKey, ErrCallStarted)
	}
	if err != nil {
		return fmt.Errorf("record the start of %s: %w", e.ExecutionID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("record the start of %s: %w", e.ExecutionID, ErrLeaseLost)
	}
	return nil
}

// sqliteConstraint is SQLITE_CONSTRAINT: here, a second start of one call.
const sqliteConstraint = 19

// FinishExecution records how a started run ended: its duration, whether it
// completed, its error, and outcome, the tool message the model got (kept so a
// resumed turn can report it instead of running the call again).
func (s *Store) FinishExecution(ctx context.Context, e api.Execution, outcome string) error {
	if _, err := s.stmts.finishExecution.ExecContext(ctx, e.ExecutionID, e.DurationMS, e.Completed, e.Error, outcome); err != nil {
		return fmt.Errorf("record the end of %s: %w", e.ExecutionID, err)
	}
	return nil
}

// CallOutcome returns the ledger record of the call named callKey and the tool
// message it produced ("" when the run never recorded an end), or an error
// wrapping ErrNotFound when the call never started.
func (s *Store) CallOutcome(ctx context.Context, callKey string) (api.Execution, string, error) {
	var outcome sql.NullString
	e, err := scanExecution(s.read.QueryRowContext(ctx, `SELECT `+executionColumns+`, outcome FROM executions WHERE call_key = ?`, callKey), &outcome)
	if errors.Is(err, sql.ErrNoRows) {
		return api.Execution{}, "", fmt.Errorf("call %s: %w", callKey, ErrNotFound)
	}
	if err != nil {
		return api.Execution{}, "", fmt.Errorf("read call %s: %w", callKey, err)
	}
	return e, outcome.String, nil
}

// PruneExecutions deletes the ledger records of runs started before olderThan,
// except those of sessions that wait for decisions (a paused turn may still
// consult them), and reports how many went.
func (s *Store) PruneExecutions(ctx context.Context, olderThan time.Time) (int, error) {
	res, err := s.write.ExecContext(ctx, `
DELETE FROM executions WHERE started_at < ?
AND session_id NOT IN (SELECT id FROM sessions WHERE pending IS NOT NULL)`, millis(olderThan))
	if err != nil {
		return 0, fmt.Errorf("prune the execution ledger: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("prune the execution ledger: %w", err)
	}
	return int(n), nil
}

const executionColumns = `execution_id, tool_name, arguments, session_id, started_at, duration_ms, completed, error, decision, reason`

func scanExecution(row interface{ Scan(...any) error }, extra ...any) (api.Execution, error) {
	var e api.Execution
	var args string
	var started int64
	dst := append([]any{&e.ExecutionID, &e.ToolName, &args, &e.SessionID, &started, &e.DurationMS, &e.Completed, &e.Error, &e.Decision, &e.Reason}, extra...)
	if err := row.Scan(dst...); err != nil {
		return api.Execution{}, err
	}
	e.Arguments = json.RawMessage(args)
	e.StartedAt = fromMillis(started)
	return e, nil
}

// Execution returns the ledger record of a run, or an error wrapping ErrNotFound.
func (s *Store) Execution(ctx context.Context, id string) (api.Execution, error) {
	e, err := scanExecution(s.read.QueryRowContext(ctx, `SELECT `+executionColumns+` FROM executions WHERE execution_id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return api.Execution{}, fmt.Errorf("execution %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return api.Execution{}, fmt.Errorf("read execution %s: %w", id, err)
	}
	return e, nil
}

// argumentsText is the stored form of tool arguments; see the package doc.
func argumentsText(raw json.RawMessage) string {
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
