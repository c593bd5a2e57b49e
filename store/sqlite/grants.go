package sqlite

import (
	"context"
	"fmt"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/store"
)

// AddGrant stores a session grant, or does nothing when the session already
// has the same tool and pattern granted; it returns the grant in force. An
// unknown session is an error wrapping store.ErrNotFound.
func (s *Store) AddGrant(ctx context.Context, sessionID string, g api.SessionGrant) (_ api.SessionGrant, err error) {
	defer s.settle(&err)
	defer s.wrote()
	defer s.writing()()
	var one int
	if err := s.read.QueryRowContext(ctx, `SELECT 1 FROM sessions WHERE id = ?`, sessionID).Scan(&one); err != nil {
		return api.SessionGrant{}, fmt.Errorf("session %s: %w", sessionID, store.ErrNotFound)
	}
	if _, err := s.conn.ExecContext(ctx, `
INSERT INTO grants (grant_id, session_id, tool_name, pattern, created_at) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (session_id, tool_name, pattern) DO NOTHING`,
		g.GrantID, sessionID, g.ToolName, g.Pattern, millis(g.CreatedAt)); err != nil {
		return api.SessionGrant{}, fmt.Errorf("grant %s on session %s: %w", g.ToolName, sessionID, err)
	}
	var created int64
	err = s.read.QueryRowContext(ctx, `SELECT grant_id, created_at FROM grants WHERE session_id = ? AND tool_name = ? AND pattern = ?`,
		sessionID, g.ToolName, g.Pattern).Scan(&g.GrantID, &created)
	if err != nil {
		return api.SessionGrant{}, fmt.Errorf("grant %s on session %s: %w", g.ToolName, sessionID, err)
	}
	g.CreatedAt = fromMillis(created)
	return g, nil
}

// Grants lists a session's grants, oldest first.
func (s *Store) Grants(ctx context.Context, sessionID string) (_ []api.SessionGrant, err error) {
	defer s.settle(&err)
	rows, err := s.stmts.grants.QueryContext(ctx, sessionID)
	if err != nil {
		return nil, fmt.Errorf("list the grants of session %s: %w", sessionID, err)
	}
	defer rows.Close()
	out := []api.SessionGrant{}
	for rows.Next() {
		var g api.SessionGrant
		var created int64
		if err := rows.Scan(&g.GrantID, &g.ToolName, &g.Pattern, &created); err != nil {
			return nil, fmt.Errorf("list the grants of session %s: %w", sessionID, err)
		}
		g.CreatedAt = fromMillis(created)
		out = append(out, g)
	}
	return out, rows.Err()
}

// RevokeGrant deletes one grant of a session, or returns an error wrapping
// store.ErrNotFound when the session has no such grant.
func (s *Store) RevokeGrant(ctx context.Context, sessionID, grantID string) (err error) {
	defer s.settle(&err)
	defer s.wrote()
	defer s.writing()()
	res, err := s.conn.ExecContext(ctx, `DELETE FROM grants WHERE session_id = ? AND grant_id = ?`, sessionID, grantID)
	if err != nil {
		return fmt.Errorf("revoke grant %s: %w", grantID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("grant %s of session %s: %w", grantID, sessionID, store.ErrNotFound)
	}
	return nil
}
