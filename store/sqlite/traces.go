package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/store"
)

// saveTrace inserts a call chain or updates the one with the same trace id,
// calls included, in one transaction. It is not part of store.Backend (the
// server saves chains with the turn's Save); it fills the database in tests
// and benchmarks.
func (s *Store) saveTrace(ctx context.Context, t api.Trace) (err error) {
	defer s.settle(&err)
	defer s.wrote()
	defer s.writing()()
	tx, err := s.begin(ctx)
	if err != nil {
		return fmt.Errorf("save trace %s: %w", t.TraceID, err)
	}
	defer tx.Rollback()
	if err := s.appendTrace(ctx, tx, t, 0); err != nil {
		return fmt.Errorf("save trace %s: %w", t.TraceID, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("save trace %s: %w", t.TraceID, err)
	}
	return nil
}

// putTraceRow stores the chain's row. A chain saved whole (the first save of a
// turn's chain) is upserted; a later save updates the duration and success
// only (see endTraceRow), and upserts when that finds the row not as given.
func (s *Store) putTraceRow(ctx context.Context, tx *writeTx, t api.Trace, whole bool) error {
	args := []any{t.TraceID, t.SessionID, millis(t.StartedAt), t.DurationMS, t.Success}
	if !whole {
		res, err := s.stmts.endTraceRow.ExecContext(ctx, args...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n > 0 {
			return err
		}
	}
	_, err := s.stmts.saveTraceRow.ExecContext(ctx, args...)
	return err
}

// appendTrace upserts the chain's row and writes its calls from index from on.
// A chain spans a /chat and its /chat/approve continuations and grows with each
// model round; the calls saved before are not written again. From 0 replaces
// the stored chain whole.
func (s *Store) appendTrace(ctx context.Context, tx *writeTx, t api.Trace, from int) error {
	whole := from <= 0 || from > len(t.Calls)
	if err := s.putTraceRow(ctx, tx, t, whole); err != nil {
		return err
	}
	if whole {
		// A whole chain replaces what was stored under its id.
		from = 0
		for _, clear := range []*sql.Stmt{s.stmts.clearTraceCalls, s.stmts.clearTraceTools} {
			if _, err := clear.ExecContext(ctx, t.TraceID); err != nil {
				return err
			}
		}
	}
	if from == len(t.Calls) {
		return nil
	}
	call := s.stmts.appendTraceCall
	tool := s.stmts.indexTraceTool
	for i := from; i < len(t.Calls); i++ {
		c := t.Calls[i]
		if _, err := call.ExecContext(ctx, t.TraceID, i, c.CallID, c.ParentID, c.Kind, c.ToolName,
			c.ExecutionID, store.ArgumentsJSON(c.Arguments), millis(c.StartedAt), c.DurationMS,
			c.Success, c.Error, c.Result); err != nil {
			return fmt.Errorf("call %s: %w", c.CallID, err)
		}
		if c.ToolName != "" {
			if _, err := tool.ExecContext(ctx, c.ToolName, millis(t.StartedAt), t.TraceID); err != nil {
				return fmt.Errorf("call %s: %w", c.CallID, err)
			}
		}
	}
	return nil
}

const traceColumns = `t.trace_id, t.session_id, t.started_at, t.duration_ms, t.success`

// Trace returns one call chain with its calls in call order, or an error wrapping
// store.ErrNotFound.
func (s *Store) Trace(ctx context.Context, id string) (_ api.Trace, err error) {
	defer s.settle(&err)
	tx, err := s.read.BeginTx(ctx, nil)
	if err != nil {
		return api.Trace{}, fmt.Errorf("read trace %s: %w", id, err)
	}
	defer tx.Rollback()
	t, err := scanTrace(tx.QueryRowContext(ctx, `SELECT `+traceColumns+` FROM traces t WHERE t.trace_id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return api.Trace{}, fmt.Errorf("trace %s: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return api.Trace{}, fmt.Errorf("read trace %s: %w", id, err)
	}
	chains := []api.Trace{t}
	if err := loadCalls(ctx, tx, chains); err != nil {
		return api.Trace{}, fmt.Errorf("read trace %s: %w", id, err)
	}
	return chains[0], nil
}

// Traces returns the call chains that match every set field of f, with their calls,
// the most recently started first.
func (s *Store) Traces(ctx context.Context, f store.TraceFilter) (_ []api.Trace, err error) {
	defer s.settle(&err)
	// With a tool, the chains come from trace_tools in its key order; CROSS JOIN
	// keeps SQLite from driving the loop from traces instead.
	from, started, id := `traces t`, `t.started_at`, `t.trace_id`
	var where []string
	var args []any
	if f.Tool != "" {
		from, started, id = `trace_tools k CROSS JOIN traces t ON t.trace_id = k.trace_id`, `k.started_at`, `k.trace_id`
		where = append(where, `k.tool_name = ?`)
		args = append(args, f.Tool)
	}
	if !f.Since.IsZero() {
		where = append(where, started+` >= ?`)
		args = append(args, millis(f.Since))
	}
	if !f.Until.IsZero() {
		where = append(where, started+` < ?`)
		args = append(args, millis(f.Until))
	}
	if f.MinDuration > 0 {
		// Durations are whole milliseconds, so round the bound up: 1.5ms admits 2ms, not 1ms.
		where = append(where, `t.duration_ms >= ?`)
		args = append(args, int64((f.MinDuration+time.Millisecond-1)/time.Millisecond))
	}
	if f.FailedOnly {
		where = append(where, `t.success = 0`)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = store.DefaultTraceLimit
	}
	limit = min(limit, store.MaxTraceLimit)
	args = append(args, limit)

	query := `SELECT ` + traceColumns + ` FROM ` + from
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, ` AND `)
	}
	query += ` ORDER BY ` + started + ` DESC, ` + id + ` DESC LIMIT ?`

	tx, err := s.read.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("list traces: %w", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list traces: %w", err)
	}
	chains := []api.Trace{}
	for rows.Next() {
		t, err := scanTrace(rows)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("list traces: %w", err)
		}
		chains = append(chains, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list traces: %w", err)
	}
	if err := loadCalls(ctx, tx, chains); err != nil {
		return nil, fmt.Errorf("list traces: %w", err)
	}
	return chains, nil
}

func scanTrace(row interface{ Scan(...any) error }) (api.Trace, error) {
	var t api.Trace
	var started int64
	if err := row.Scan(&t.TraceID, &t.SessionID, &started, &t.DurationMS, &t.Success); err != nil {
		return api.Trace{}, err
	}
	t.StartedAt = fromMillis(started)
	t.Calls = []api.TraceCall{}
	return t, nil
}

// loadCalls fills the calls of chains with one query, in call order.
func loadCalls(ctx context.Context, tx *sql.Tx, chains []api.Trace) error {
	if len(chains) == 0 {
		return nil
	}
	index := make(map[string]int, len(chains))
	args := make([]any, len(chains))
	for i, t := range chains {
		index[t.TraceID] = i
		args[i] = t.TraceID
	}
	// At most store.MaxTraceLimit placeholders, far below SQLite's limit on bound variables.
	rows, err := tx.QueryContext(ctx, `
SELECT trace_id, call_id, parent_id, kind, tool_name, execution_id, arguments,
	started_at, duration_ms, success, error, result
FROM trace_calls WHERE trace_id IN (?`+strings.Repeat(`, ?`, len(chains)-1)+`)
ORDER BY trace_id, seq`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var traceID, arguments string
		var started int64
		var c api.TraceCall
		if err := rows.Scan(&traceID, &c.CallID, &c.ParentID, &c.Kind, &c.ToolName, &c.ExecutionID,
			&arguments, &started, &c.DurationMS, &c.Success, &c.Error, &c.Result); err != nil {
			return err
		}
		c.Arguments = json.RawMessage(arguments)
		c.StartedAt = fromMillis(started)
		i := index[traceID]
		chains[i].Calls = append(chains[i].Calls, c)
	}
	return rows.Err()
}

// PruneTraces deletes the chains started before olderThan and those beyond the
// newest keep, with their calls, and reports how many chains went. A zero olderThan
// keeps chains of any age; keep <= 0 keeps any number.
func (s *Store) PruneTraces(ctx context.Context, olderThan time.Time, keep int) (_ int, err error) {
	defer s.settle(&err)
	defer s.wrote()
	defer s.writing()()
	var where []string
	var args []any
	if !olderThan.IsZero() {
		where = append(where, `started_at < ?`)
		args = append(args, millis(olderThan))
	}
	if keep > 0 {
		where = append(where, `trace_id IN (SELECT trace_id FROM traces ORDER BY started_at DESC, trace_id DESC LIMIT -1 OFFSET ?)`)
		args = append(args, keep)
	}
	if len(where) == 0 {
		return 0, nil
	}
	res, err := s.conn.ExecContext(ctx, `DELETE FROM traces WHERE `+strings.Join(where, ` OR `), args...)
	if err != nil {
		return 0, fmt.Errorf("prune traces: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("prune traces: %w", err)
	}
	return int(n), nil
}
