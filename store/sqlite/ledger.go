package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/store"
)

// StartExecution commits the start record of a run before it runs (CONTRACT
// section 9), with the run's undo record and the end records of earlier runs
// when st carries them, in one transaction. It fails with store.ErrCallStarted
// when the call has a record already, and with store.ErrLeaseLost when st.Owner
// does not hold the session's lease: in both cases the call must not run, and
// nothing of st is written.
func (s *Store) StartExecution(ctx context.Context, st store.Start) (err error) {
	defer s.settle(&err)
	defer s.wrote()
	e := st.Execution
	// A start that carries nothing is one statement, its own transaction
	// when it runs alone.
	one := st.Undo == nil && len(st.Finished) == 0
	fail := func(err error) error { return fmt.Errorf("record the start of %s: %w", e.ExecutionID, err) }
	return s.grouped(ctx, one, fail, func(ctx context.Context, tx *writeTx) error {
		// The start goes first: it checks the lease and the call, and when
		// it is refused the rollback leaves nothing of the rest behind.
		res, err := s.stmts.startExecution.ExecContext(ctx, e.ExecutionID, e.ToolName, store.ArgumentsJSON(e.Arguments),
			e.SessionID, millis(e.StartedAt), st.CallKey, e.Decision, string(st.Owner), e.Reason)
		if err := startResult(e, st.CallKey, res, err); err != nil || one {
			return err
		}
		if err := s.finishRuns(ctx, tx, st.Owner, st.Finished); err != nil {
			return fmt.Errorf("record the start of %s: %w", e.ExecutionID, err)
		}
		if st.Undo != nil {
			if err := s.putUndo(ctx, tx, *st.Undo); err != nil {
				return fmt.Errorf("record the start of %s: keep undo record %d: %w", e.ExecutionID, st.Undo.Record.Seq, err)
			}
		}
		return nil
	})
}

// startResult turns the start statement's outcome into the store's errors.
func startResult(e api.Execution, callKey string, res sql.Result, err error) error {
	if sqliteCode(err) == sqliteConstraint {
		return fmt.Errorf("start %s (%s): %w", e.ExecutionID, callKey, store.ErrCallStarted)
	}
	if err != nil {
		return fmt.Errorf("record the start of %s: %w", e.ExecutionID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("record the start of %s: %w", e.ExecutionID, store.ErrLeaseLost)
	}
	return nil
}

// finishRuns writes end records (and their undo records) inside tx, whose
// caller has checked owner's lease already; finishExecution checks it again per
// run, as FinishExecution does. A run that never started is ErrNotFound.
func (s *Store) finishRuns(ctx context.Context, tx *writeTx, owner store.Owner, runs []store.Finish) error {
	if len(runs) == 0 {
		return nil
	}
	stmt := s.stmts.finishExecution
	for _, f := range runs {
		e := f.Execution
		res, err := stmt.ExecContext(ctx, e.ExecutionID, e.DurationMS, e.Completed, e.Error, f.Outcome, string(owner))
		if err != nil {
			return fmt.Errorf("record the end of %s: %w", e.ExecutionID, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("record the end of %s: %w", e.ExecutionID, store.ErrNotFound)
		}
		if f.Undo != nil {
			if err := s.putUndo(ctx, tx, *f.Undo); err != nil {
				return fmt.Errorf("keep undo record %d of %s: %w", f.Undo.Record.Seq, e.ExecutionID, err)
			}
		}
	}
	return nil
}

// FinishExecution records how a started run ended: its duration, whether it
// completed, its error, and outcome, the tool message the model got (kept so a
// resumed turn can report it instead of running the call again). Only the
// holder of the session's lease may: anyone else gets store.ErrLeaseLost and
// changes nothing.
func (s *Store) FinishExecution(ctx context.Context, owner store.Owner, e api.Execution, outcome string) (err error) {
	defer s.settle(&err)
	defer s.wrote()
	defer s.writing()()
	res, err := s.stmts.finishExecution.ExecContext(ctx, e.ExecutionID, e.DurationMS, e.Completed, e.Error, outcome, string(owner))
	if err != nil {
		return fmt.Errorf("record the end of %s: %w", e.ExecutionID, err)
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return nil
	}
	var one int
	err = s.read.QueryRowContext(ctx, `SELECT 1 FROM executions WHERE execution_id = ?`, e.ExecutionID).Scan(&one)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("record the end of %s: %w", e.ExecutionID, store.ErrNotFound)
	case err != nil:
		return fmt.Errorf("record the end of %s: %w", e.ExecutionID, err)
	}
	return fmt.Errorf("record the end of %s: %w", e.ExecutionID, store.ErrLeaseLost)
}

// CallOutcome returns the ledger record of the call named callKey and the tool
// message it produced ("" when the run never recorded an end), or an error
// wrapping store.ErrNotFound when the call never started.
func (s *Store) CallOutcome(ctx context.Context, callKey string) (_ api.Execution, _ string, err error) {
	defer s.settle(&err)
	var outcome sql.NullString
	e, err := scanExecution(s.stmts.callOutcome.QueryRowContext(ctx, callKey), &outcome)
	if errors.Is(err, sql.ErrNoRows) {
		return api.Execution{}, "", fmt.Errorf("call %s: %w", callKey, store.ErrNotFound)
	}
	if err != nil {
		return api.Execution{}, "", fmt.Errorf("read call %s: %w", callKey, err)
	}
	return e, outcome.String, nil
}

// PruneExecutions deletes the ledger records of runs started before olderThan,
// except those of sessions that wait for decisions (a paused turn may still
// consult them), and reports how many went.
func (s *Store) PruneExecutions(ctx context.Context, olderThan time.Time) (_ int, err error) {
	defer s.settle(&err)
	defer s.wrote()
	defer s.writing()()
	res, err := s.conn.ExecContext(ctx, `
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

// Execution returns the ledger record of a run, or an error wrapping store.ErrNotFound.
func (s *Store) Execution(ctx context.Context, id string) (_ api.Execution, err error) {
	defer s.settle(&err)
	e, err := scanExecution(s.stmts.execution.QueryRowContext(ctx, id))
	if errors.Is(err, sql.ErrNoRows) {
		return api.Execution{}, fmt.Errorf("execution %s: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return api.Execution{}, fmt.Errorf("read execution %s: %w", id, err)
	}
	return e, nil
}
