package sqlite

import (
	"context"
	"database/sql"
)

// The Store's writes run on one connection that it holds for its whole life
// (s.conn), and a write transaction is begun and ended by statements on it
// (writeTx) rather than by database/sql's Tx.
//
// Why by hand: a sql.Tx starts a goroutine to watch its context for as long as
// it lives, even a context that can never end, and another for every query
// made inside it; with four transactions a turn and a query in two of them,
// that was some 3.7 goroutines a turn, each a hand-off that wakes a thread on
// a mostly idle machine (`perf` put sql.(*DB).BeginTx's goroutine start and
// futex wake-up at 2% of the server's CPU under load). On a held connection,
// a statement with a context that cannot end starts none. Every write of the
// Store holds writeMu (see writing), so nothing else uses the connection while
// a transaction is open; the statements prepared on it (statements.go) run on
// it inside or outside a transaction alike, so a write calls them as they
// are (s.stmts.x), in a transaction or not.

// A writeTx is a write transaction on the Store's write connection. Every path
// that begins one ends it, by Commit or by a deferred Rollback: one left open
// would take in the one-statement writes that follow (Acquire's, sessions',
// grants') and make none of them durable.
type writeTx struct {
	conn *sql.Conn
	done bool
}

// begin starts a write transaction that takes SQLite's write lock at once
// (BEGIN IMMEDIATE), waiting at most busy_timeout for another process's.
// The caller holds writeMu.
func (s *Store) begin(ctx context.Context) (*writeTx, error) {
	if _, err := s.conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return nil, err
	}
	return &writeTx{conn: s.conn}, nil
}

// Commit commits the transaction. When COMMIT fails (an I/O error, a full
// disk), SQLite may keep the transaction open: it is rolled back, so that the
// connection is ready for the next one.
func (t *writeTx) Commit() error {
	if t.done {
		return sql.ErrTxDone
	}
	t.done = true
	if _, err := t.conn.ExecContext(context.Background(), "COMMIT"); err != nil {
		_, _ = t.conn.ExecContext(context.Background(), "ROLLBACK")
		return err
	}
	return nil
}

// Rollback rolls the transaction back; after Commit or Rollback it does
// nothing (it is deferred after every begin). A transaction SQLite has
// already rolled back itself (an interrupted statement, an I/O error) makes
// ROLLBACK fail, which is ignored: either way none of it stays.
func (t *writeTx) Rollback() error {
	if t.done {
		return sql.ErrTxDone
	}
	t.done = true
	_, _ = t.conn.ExecContext(context.Background(), "ROLLBACK")
	return nil
}

// ExecContext runs a statement inside the transaction.
func (t *writeTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return t.conn.ExecContext(ctx, query, args...)
}
