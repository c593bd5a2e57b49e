package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// An Owner names one holder of session leases: a host, a process on it and one
// Store value in that process (two servers in one test process are two owners).
type Owner string

// NewOwner returns a fresh owner name for this process: host/pid/random.
func NewOwner() Owner {
	host, _ := os.Hostname()
	host = strings.ReplaceAll(host, "/", "_")
	var b [6]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return Owner(fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b[:])))
}

// gone reports whether the process that holds owner is known to have ended:
// it ran on this host and its pid no longer exists. A holder on another host,
// or one whose state cannot be told, counts as alive; its lease then ends by
// expiry alone.
func (o Owner) gone() bool {
	parts := strings.Split(string(o), "/")
	if len(parts) != 3 {
		return false
	}
	host, _ := os.Hostname()
	if parts[0] != strings.ReplaceAll(host, "/", "_") {
		return false
	}
	pid, err := strconv.Atoi(parts[1])
	if err != nil || pid <= 0 || pid == os.Getpid() {
		return false
	}
	return processGone(pid)
}

// ErrBusy means another live owner holds the session's lease: a turn of that
// session runs in another ai-server process on the same state_dir.
var ErrBusy = errors.New("the session is in use by another ai-server process")

// ErrLeaseLost means a write was refused because the writer no longer holds
// the session's lease (it expired and another owner took it, or the session is
// gone); nothing of the write was stored.
var ErrLeaseLost = errors.New("the session's lease is held by another owner")

// ErrCallStarted means a ledger start record for the same call already exists:
// the call started before (in this process or another) and must not run again.
var ErrCallStarted = errors.New("this tool call already started")

// Interrupted is the ledger error of a run whose process stopped before it
// recorded an outcome (CONTRACT section 9).
const Interrupted = "interrupted: the server stopped while this ran"

// A Lease is a session held by one owner: what Acquire found.
type Lease struct {
	Version int64 // the session's save count when the lease was taken
	// Pending is the session's pending state as Save stored it (nil: none),
	// read in the same transaction as the lease.
	Pending json.RawMessage
	// TookOver is set when the lease was taken from another owner whose process
	// ended or whose lease expired; its unfinished runs are now marked Interrupted.
	TookOver bool
}

// Acquire takes the lease of a session for owner until now+term. It is one
// transaction in the database, so of two processes only one gets it. It fails
// with ErrBusy while another owner's lease runs and its process lives, and with
// an error wrapping ErrNotFound for an unknown session. Taking over from an
// ended or expired owner marks that owner's unfinished runs of the session as
// Interrupted, since nobody will record their outcome.
func (s *Store) Acquire(ctx context.Context, sessionID string, owner Owner, now time.Time, term time.Duration) (Lease, error) {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return Lease{}, fmt.Errorf("take session %s: %w", sessionID, err)
	}
	defer tx.Rollback()
	var holder, pending sql.NullString
	var until, version int64
	err = tx.StmtContext(ctx, s.stmts.leaseOf).QueryRowContext(ctx, sessionID).Scan(&holder, &until, &version, &pending)
	if errors.Is(err, sql.ErrNoRows) {
		return Lease{}, fmt.Errorf("session %s: %w", sessionID, ErrNotFound)
	}
	if err != nil {
		return Lease{}, fmt.Errorf("take session %s: %w", sessionID, err)
	}
	other := holder.Valid && holder.String != "" && Owner(holder.String) != owner
	if other && until > millis(now) && !Owner(holder.String).gone() {
		return Lease{Version: version}, fmt.Errorf("session %s (held by %s): %w", sessionID, holder.String, ErrBusy)
	}
	if _, err := tx.StmtContext(ctx, s.stmts.takeLease).ExecContext(ctx, string(owner), millis(now.Add(term)), sessionID); err != nil {
		return Lease{}, fmt.Errorf("take session %s: %w", sessionID, err)
	}
	if other {
		if _, err := tx.StmtContext(ctx, s.stmts.interruptRuns).ExecContext(ctx, Interrupted, sessionID); err != nil {
			return Lease{}, fmt.Errorf("take session %s: %w", sessionID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return Lease{}, fmt.Errorf("take session %s: %w", sessionID, err)
	}
	lease := Lease{Version: version, TookOver: other}
	if pending.Valid {
		lease.Pending = json.RawMessage(pending.String)
	}
	return lease, nil
}

// Renew moves the end of owner's lease to until. It fails with ErrLeaseLost
// when owner no longer holds it.
func (s *Store) Renew(ctx context.Context, sessionID string, owner Owner, until time.Time) error {
	res, err := s.stmts.renewLease.ExecContext(ctx, millis(until), sessionID, string(owner))
	if err != nil {
		return fmt.Errorf("renew session %s: %w", sessionID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("renew session %s: %w", sessionID, ErrLeaseLost)
	}
	return nil
}

// Release gives up owner's lease; releasing a lease owner does not hold is a
// no-op, so a release after a lost lease never frees another owner's.
func (s *Store) Release(ctx context.Context, sessionID string, owner Owner) error {
	if _, err := s.stmts.releaseLease.ExecContext(ctx, sessionID, string(owner)); err != nil {
		return fmt.Errorf("release session %s: %w", sessionID, err)
	}
	return nil
}
