package sqlite

import (
	"context"
	"fmt"
	"sync"
)

// Group commit. Every turn writes the state database four times (its lease,
// a run's start, the round, the answer), and with many sessions at once the
// writes of one process queue for its one write connection. Each transaction
// costs the same fixed work whatever it holds: SQLite's locks, the WAL's
// index, and the pages every write touches (a table's and its indexes' last
// leaf) written again. So the writes that wait while one commits are committed
// together, in one transaction, by whichever of them is first (the leader);
// the others wait for its word. A write that runs alone, as every write does
// when the server is not busy, runs exactly as it would without any of this.
//
// Inside a shared transaction each write runs within a savepoint of its own:
// a write that fails (a refused start, a lost lease) is rolled back to its
// savepoint and reports its own error, and the others commit. A caller's call
// returns only once the transaction holding its write has committed, so
// "committed when the call returns" holds as before.
//
// database/sql has no group commit of its own and no driver we could use does
// it, so it is written here.

// A groupWrite is one caller's write waiting to be committed.
type groupWrite struct {
	ctx context.Context
	// do makes the write. tx is nil only for a write marked alone-able
	// (one statement) that runs by itself: it then runs on the write
	// connection as its own transaction.
	do  func(ctx context.Context, tx *writeTx) error
	one bool // do is one statement, so it needs no transaction when alone
	// fail, when set, says what failed when the write's own transaction
	// could not begin or commit.
	fail func(error) error
	err  error
	// lead tells a waiting write the outcome: true when it is to lead the
	// next group itself, false when its write is done and err says how.
	lead chan bool
}

// commits is the group commit's state: whether some write leads a group now,
// and the writes that wait for the next one.
type commits struct {
	mu      sync.Mutex
	leading bool
	queue   []*groupWrite
	spare   []*groupWrite // the slice the last group used, reused for the next queue

	// Counted for tests and benchmarks (under mu).
	groups, grouped int
	// alone makes every write commit by itself, as before group commit (set
	// only by benchmarks, to compare the two in one run).
	alone bool
}

// grouped runs do as part of a group commit and returns its error once the
// write is committed, or rolled back when do failed. one says that do is a
// single statement, which needs no transaction of its own when it runs alone.
//
// fail, when not nil, wraps the error of a transaction that could not begin or
// commit, so that it says what was being written.
func (s *Store) grouped(ctx context.Context, one bool, fail func(error) error, do func(ctx context.Context, tx *writeTx) error) error {
	w := &groupWrite{ctx: ctx, do: do, one: one, fail: fail}
	c := &s.commits
	if c.alone {
		defer s.writing()()
		s.commitAlone(w)
		return w.err
	}
	c.mu.Lock()
	if c.leading {
		w.lead = make(chan bool, 1)
		c.queue = append(c.queue, w)
		c.mu.Unlock()
		if !<-w.lead {
			return w.err
		}
	} else {
		c.leading = true
		c.mu.Unlock()
	}
	// This write leads. The Store's write lock is taken before the group is
	// closed, so the writes that queue while another kind of write or a
	// checkpoint holds it join this group.
	unlock := s.writing()
	c.mu.Lock()
	group := append(c.spare[:0], w)
	group = append(group, c.queue...)
	c.queue, c.spare = c.queue[:0], nil
	c.groups++
	c.grouped += len(group)
	c.mu.Unlock()

	s.commitGroup(group)
	unlock()

	c.mu.Lock()
	var next *groupWrite
	if len(c.queue) > 0 {
		next = c.queue[0]
		c.queue = c.queue[1:]
	} else {
		c.leading = false
	}
	c.mu.Unlock()
	if next != nil {
		next.lead <- true
	}
	for _, o := range group[1:] {
		o.lead <- false
	}
	err := w.err
	clear(group)
	c.mu.Lock()
	c.spare = group
	c.mu.Unlock()
	return err
}

// commitGroup commits the writes of group, setting each one's err.
func (s *Store) commitGroup(group []*groupWrite) {
	if len(group) == 1 {
		s.commitAlone(group[0])
		return
	}
	if s.commitTogether(group) {
		return
	}
	// Nothing of the group was committed (the transaction could not begin
	// or commit, or SQLite rolled it back under a failing write): each write
	// is made again on its own, so it succeeds or fails by itself.
	for _, w := range group {
		s.commitAlone(w)
	}
}

// commitAlone makes one write in a transaction of its own (or as its one
// statement).
func (s *Store) commitAlone(w *groupWrite) {
	if err := w.ctx.Err(); err != nil {
		w.err = err
		return
	}
	if w.one {
		w.err = run(w, nil)
		return
	}
	// Begun, like the write itself, without the caller's cancellation (see
	// run): its context was checked just above.
	tx, err := s.begin(context.WithoutCancel(w.ctx))
	if err != nil {
		w.err = w.failed(err)
		return
	}
	if w.err = run(w, tx); w.err != nil {
		_ = tx.Rollback()
		return
	}
	if err := tx.Commit(); err != nil {
		w.err = w.failed(err)
	}
}

// failed is err, said as the write's fail says it.
func (w *groupWrite) failed(err error) error {
	if w.fail == nil {
		return err
	}
	return w.fail(err)
}

// commitTogether makes every write of group in one transaction, each in a
// savepoint of its own, and reports whether the transaction committed. When
// it did not, the writes' errors mean nothing and nothing was written.
//
// A caller's context ends its own write only: one that ended before its turn
// is not made; the statements run without it, since cancelling a statement
// in a transaction would roll back the writes of the others.
func (s *Store) commitTogether(group []*groupWrite) bool {
	tx, err := s.begin(context.Background())
	if err != nil {
		return false
	}
	ctx := context.Background()
	for _, w := range group {
		if err := w.ctx.Err(); err != nil {
			w.err = err
			continue
		}
		if _, err := tx.ExecContext(ctx, "SAVEPOINT grouped"); err != nil {
			_ = tx.Rollback()
			return false
		}
		if w.err = run(w, tx); w.err != nil {
			// Had SQLite rolled the whole transaction back (a full disk,
			// an I/O error), the savepoint is gone and this fails.
			if _, err := tx.ExecContext(ctx, "ROLLBACK TO grouped"); err != nil {
				_ = tx.Rollback()
				return false
			}
		}
		if _, err := tx.ExecContext(ctx, "RELEASE grouped"); err != nil {
			_ = tx.Rollback()
			return false
		}
	}
	return tx.Commit() == nil
}

// run calls w's write with its context stripped of cancellation: its caller's
// context was checked before the write began, a statement interrupted inside
// a shared transaction would roll back the others' writes, and for a write
// that is one statement outside a transaction (Acquire's) a cancellable
// context costs database/sql and the driver a goroutine each. A panic inside
// a write becomes its error: the writes waiting on the leader must always
// get their answer.
func run(w *groupWrite, tx *writeTx) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("store write panicked: %v", r)
		}
	}()
	return w.do(context.WithoutCancel(w.ctx), tx)
}
