package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ailab/ai-lab/api"
)

// RecordExecution inserts the ledger record of a tool run, or replaces the record
// with the same execution id: a run is recorded when it starts (Completed false)
// and again when it ends.
func (s *Store) RecordExecution(ctx context.Context, e api.Execution) error {
	_, err := s.recordExecution.ExecContext(ctx,
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

// Execution returns the ledger record of a run, or an error wrapping ErrNotFound.
func (s *Store) Execution(ctx context.Context, id string) (api.Execution, error) {
	var e api.Execution
	var args string
	var started int64
	err := s.read.QueryRowContext(ctx, `
SELECT execution_id, tool_name, arguments, session_id, started_at, duration_ms, completed, error
FROM executions WHERE execution_id = ?`, id).Scan(
		&e.ExecutionID, &e.ToolName, &args, &e.SessionID, &started, &e.DurationMS, &e.Completed, &e.Error)
	if errors.Is(err, sql.ErrNoRows) {
		return api.Execution{}, fmt.Errorf("execution %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return api.Execution{}, fmt.Errorf("read execution %s: %w", id, err)
	}
	e.Arguments = json.RawMessage(args)
	e.StartedAt = fromMillis(started)
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
