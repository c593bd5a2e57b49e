package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ailab/ai-lab/store"
)

// CreateSession adds an empty session; both of its times are at. Creating an id
// that already exists is an error.
func (s *Store) CreateSession(ctx context.Context, id, title string, at time.Time) (err error) {
	defer s.settle(&err)
	defer s.wrote()
	defer s.writing()()
	res, err := s.conn.ExecContext(ctx,
		`INSERT INTO sessions (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)
		 ON CONFLICT (id) DO NOTHING`,
		id, title, millis(at), millis(at))
	if err != nil {
		return fmt.Errorf("create session %s: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("create session %s: %w", id, err)
	} else if n == 0 {
		return fmt.Errorf("session %s already exists; pick a new session id", id)
	}
	return nil
}

// Session returns the session id, or an error wrapping store.ErrNotFound.
func (s *Store) Session(ctx context.Context, id string) (_ store.Session, err error) {
	defer s.settle(&err)
	row := s.read.QueryRowContext(ctx,
		`SELECT id, title, created_at, updated_at, pending IS NOT NULL FROM sessions WHERE id = ?`, id)
	sess, err := scanSession(row)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Session{}, fmt.Errorf("session %s: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return store.Session{}, fmt.Errorf("read session %s: %w", id, err)
	}
	return sess, nil
}

// Sessions returns every session, the most recently updated first.
func (s *Store) Sessions(ctx context.Context) (_ []store.Session, err error) {
	defer s.settle(&err)
	rows, err := s.read.QueryContext(ctx,
		`SELECT id, title, created_at, updated_at, pending IS NOT NULL FROM sessions
		 ORDER BY updated_at DESC, id DESC`)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer rows.Close()
	out := []store.Session{}
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		out = append(out, sess)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return out, nil
}

func scanSession(row interface{ Scan(...any) error }) (store.Session, error) {
	var sess store.Session
	var created, updated int64
	if err := row.Scan(&sess.ID, &sess.Title, &created, &updated, &sess.PendingApproval); err != nil {
		return store.Session{}, err
	}
	sess.CreatedAt, sess.UpdatedAt = fromMillis(created), fromMillis(updated)
	return sess, nil
}

// DeleteSession removes a session with its messages and pending approval, or returns
// an error wrapping store.ErrNotFound. Its ledger records and traces stay, for audit.
func (s *Store) DeleteSession(ctx context.Context, id string) (err error) {
	defer s.settle(&err)
	defer s.wrote()
	defer s.writing()()
	res, err := s.conn.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	} else if n == 0 {
		return fmt.Errorf("session %s: %w", id, store.ErrNotFound)
	}
	return nil
}

// Messages returns the session's messages in the order they were appended, or an
// error wrapping store.ErrNotFound for an unknown session.
func (s *Store) Messages(ctx context.Context, sessionID string) (_ []json.RawMessage, err error) {
	defer s.settle(&err)
	// One read transaction, so an unknown session and an empty one are told apart
	// from the same snapshot.
	tx, err := s.read.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("read messages of session %s: %w", sessionID, err)
	}
	defer tx.Rollback()
	var one int
	err = tx.QueryRowContext(ctx, `SELECT 1 FROM sessions WHERE id = ?`, sessionID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("session %s: %w", sessionID, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read messages of session %s: %w", sessionID, err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT body FROM messages WHERE session_id = ? ORDER BY id`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("read messages of session %s: %w", sessionID, err)
	}
	defer rows.Close()
	out := []json.RawMessage{}
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			return nil, fmt.Errorf("read messages of session %s: %w", sessionID, err)
		}
		out = append(out, json.RawMessage(body))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read messages of session %s: %w", sessionID, err)
	}
	return out, nil
}

// Pending returns the session's pending-approval JSON as Save stored it, nil
// when nothing is pending, or an error wrapping store.ErrNotFound for an unknown session.
func (s *Store) Pending(ctx context.Context, sessionID string) (_ json.RawMessage, err error) {
	defer s.settle(&err)
	var pending sql.NullString
	err = s.read.QueryRowContext(ctx, `SELECT pending FROM sessions WHERE id = ?`, sessionID).Scan(&pending)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("session %s: %w", sessionID, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read pending approval of session %s: %w", sessionID, err)
	}
	if !pending.Valid {
		return nil, nil
	}
	return json.RawMessage(pending.String), nil
}

// Save writes sv in one transaction and returns the session's new version (its
// save count). An unknown session is an error wrapping store.ErrNotFound, a lost lease
// one wrapping store.ErrLeaseLost; both store nothing. Every message and the pending
// state must be valid JSON, because a stored corrupt message would break every
// later read of the session.
func (s *Store) Save(ctx context.Context, sv store.Save) (_ int64, err error) {
	defer s.settle(&err)
	defer s.wrote()
	for i, m := range sv.Messages {
		if !json.Valid(m) {
			return 0, fmt.Errorf("save turn of session %s: message %d is not valid JSON", sv.SessionID, i)
		}
	}
	var pendingText sql.NullString
	if len(sv.Pending) > 0 && string(sv.Pending) != "null" {
		if !json.Valid(sv.Pending) {
			return 0, fmt.Errorf("save turn of session %s: the pending approval is not valid JSON", sv.SessionID)
		}
		pendingText = sql.NullString{String: string(sv.Pending), Valid: true}
	}
	var version int64
	fail := func(err error) error {
		return fmt.Errorf("save turn of session %s: %w", sv.SessionID, err)
	}
	err = s.grouped(ctx, false, fail, func(ctx context.Context, tx *writeTx) error {
		// The session row is updated first: no row means an unknown session
		// or a lost lease, and the rollback then leaves nothing behind.
		err := s.stmts.saveSession.QueryRowContext(ctx,
			pendingText, millis(sv.At), sv.SessionID, millis(sv.At), string(sv.Owner), sv.Release).Scan(&version)
		if errors.Is(err, sql.ErrNoRows) {
			var one int
			if s.read.QueryRowContext(ctx, `SELECT 1 FROM sessions WHERE id = ?`, sv.SessionID).Scan(&one) != nil {
				return fmt.Errorf("session %s: %w", sv.SessionID, store.ErrNotFound)
			}
			return fmt.Errorf("save turn of session %s: %w", sv.SessionID, store.ErrLeaseLost)
		}
		if err != nil {
			return fail(err)
		}
		if len(sv.Messages) > 0 {
			stmt := s.stmts.appendMessage
			for _, m := range sv.Messages {
				if _, err := stmt.ExecContext(ctx, sv.SessionID, string(m)); err != nil {
					return fail(err)
				}
			}
		}
		if sv.Trace != nil {
			if err := s.appendTrace(ctx, tx, *sv.Trace, sv.TraceFrom); err != nil {
				return fail(err)
			}
		}
		// The lease was checked above in this transaction.
		if err := s.finishRuns(ctx, tx, sv.Owner, sv.Finished); err != nil {
			return fail(err)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return version, nil
}
