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

// Acquire takes the lease of a session for owner until now+term. It is one
// transaction in the database, so of two processes only one gets it. It fails
// with store.ErrBusy while another owner's lease runs and its process lives, and with
// an error wrapping store.ErrNotFound for an unknown session. Taking over from an
// ended or expired owner marks that owner's unfinished runs of the session as
// store.Interrupted, since nobody will record their outcome.
func (s *Store) Acquire(ctx context.Context, sessionID string, owner store.Owner, now time.Time, term time.Duration) (_ store.Lease, err error) {
	defer s.settle(&err)
	defer s.wrote()
	// A lease nobody holds (or owner holds already) is taken in one
	// statement; any other case is looked at in a transaction.
	var pending sql.NullString
	var version int64
	err = s.grouped(ctx, true, nil, func(ctx context.Context, tx *writeTx) error {
		return s.stmts.takeFreeLease.QueryRowContext(ctx, sessionID, string(owner), millis(now.Add(term))).Scan(&version, &pending)
	})
	if err == nil {
		lease := store.Lease{Version: version}
		if pending.Valid {
			lease.Pending = json.RawMessage(pending.String)
		}
		return lease, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return store.Lease{}, fmt.Errorf("take session %s: %w", sessionID, err)
	}
	defer s.writing()()
	tx, err := s.begin(ctx)
	if err != nil {
		return store.Lease{}, fmt.Errorf("take session %s: %w", sessionID, err)
	}
	defer tx.Rollback()
	var holder sql.NullString
	var until int64
	err = s.stmts.leaseOf.QueryRowContext(ctx, sessionID).Scan(&holder, &until, &version, &pending)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Lease{}, fmt.Errorf("session %s: %w", sessionID, store.ErrNotFound)
	}
	if err != nil {
		return store.Lease{}, fmt.Errorf("take session %s: %w", sessionID, err)
	}
	other := holder.Valid && holder.String != "" && store.Owner(holder.String) != owner
	if other && until > millis(now) && !store.Owner(holder.String).Gone() {
		return store.Lease{Version: version}, fmt.Errorf("session %s (held by %s): %w", sessionID, holder.String, store.ErrBusy)
	}
	if _, err := s.stmts.takeLease.ExecContext(ctx, string(owner), millis(now.Add(term)), sessionID); err != nil {
		return store.Lease{}, fmt.Errorf("take session %s: %w", sessionID, err)
	}
	if other {
		if _, err := s.stmts.interruptRuns.ExecContext(ctx, store.Interrupted, sessionID); err != nil {
			return store.Lease{}, fmt.Errorf("take session %s: %w", sessionID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return store.Lease{}, fmt.Errorf("take session %s: %w", sessionID, err)
	}
	lease := store.Lease{Version: version, TookOver: other}
	if pending.Valid {
		lease.Pending = json.RawMessage(pending.String)
	}
	return lease, nil
}

// Renew moves the end of owner's lease to until. It fails with store.ErrLeaseLost
// when owner no longer holds it.
func (s *Store) Renew(ctx context.Context, sessionID string, owner store.Owner, until time.Time) (err error) {
	defer s.settle(&err)
	defer s.wrote()
	return s.grouped(ctx, true, nil, func(ctx context.Context, tx *writeTx) error {
		res, err := s.stmts.renewLease.ExecContext(ctx, millis(until), sessionID, string(owner))
		if err != nil {
			return fmt.Errorf("renew session %s: %w", sessionID, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("renew session %s: %w", sessionID, store.ErrLeaseLost)
		}
		return nil
	})
}

// Release gives up owner's lease; releasing a lease owner does not hold is a
// no-op, so a release after a lost lease never frees another owner's.
func (s *Store) Release(ctx context.Context, sessionID string, owner store.Owner) (err error) {
	defer s.settle(&err)
	defer s.wrote()
	return s.grouped(ctx, true, nil, func(ctx context.Context, tx *writeTx) error {
		if _, err := s.stmts.releaseLease.ExecContext(ctx, sessionID, string(owner)); err != nil {
			return fmt.Errorf("release session %s: %w", sessionID, err)
		}
		return nil
	})
}
