// Package sqlite is the store.Backend that keeps ai-server's state in one
// SQLite file under server.state_dir (modernc.org/sqlite, pure Go). Several
// processes may open the same file: leases and ledger starts are single
// statements or immediate transactions, so SQLite's own locking makes them
// atomic across processes.
//
// Everything SQLite-specific stays here: result codes, pragmas, the WAL and its
// checkpoints. Callers see only the store package's types and errors (a damaged
// file is a store.DamageError). It must never import the server, call the
// network, or decide policy; it only stores and finds.
//
// Times are stored as INTEGER unix milliseconds in UTC; tool arguments as JSON
// text in the form store.ArgumentsJSON gives.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the pure-Go "sqlite" driver

	"github.com/ailab/ai-lab/store"
)

// A Store is the SQLite state database. It is safe for concurrent use by many
// goroutines.
//
// Writes go through a pool of exactly one connection, so writers of this process
// queue in Go instead of racing for SQLite's write lock (which would surface as
// "database is locked"); reads use a separate pool and, thanks to WAL mode, never
// wait for writers.
type Store struct {
	path  string
	write *sql.DB
	conn  *sql.Conn // write's one connection, held for the Store's life (writetx.go)
	read  *sql.DB
	ckpt  *sql.DB // the checkpointer's connection
	fresh bool

	stopCkpt  chan struct{}
	ckptDone  chan struct{}
	closeOnce sync.Once
	kick      chan struct{} // wakes the checkpointer after writes
	writes    atomic.Uint64 // writes of this Store, so every few wake the checkpointer
	lastWrite atomic.Int64  // unix nanoseconds of this Store's last write
	dormant   atomic.Bool   // the checkpointer looks only every dormantEvery
	looks     atomic.Int64  // the checkpointer's ticks, for tests
	walPeak   atomic.Int64  // the largest WAL size seen, in bytes
	// writeMu is held by every write of this Store (see writing).
	writeMu sync.Mutex
	// commits groups the writes of every turn (see grouped).
	commits commits

	stmts statements
}

var _ store.Backend = (*Store)(nil)

// busyTimeoutMS bounds how long a connection waits for a lock held by another
// process on the same file (two servers pointed at one state_dir), or by a
// checkpoint waiting for readers, before failing.
const busyTimeoutMS = 5000

// checkpointBusyMS is how long a RESTART or TRUNCATE checkpoint waits for the
// readers still on the WAL before it gives up until the next tick.
const checkpointBusyMS = 250

// Bounds of the write-ahead log. Under steady load some reader always uses the
// WAL, so SQLite never restarts it on its own and it grows without end; the
// checkpointer (see checkpoints) keeps it within these.
const (
	// walLimitBytes is the size past which the WAL is checkpointed with
	// RESTART at once, whatever the load: the next commit then writes from
	// the start of the file and cuts it back to walKeepBytes. It equals
	// walKeepBytes so that under load the file is reused in place rather
	// than cut and grown again (on ext4, growing a file allocates blocks and
	// cutting it frees them, which cost the server more CPU than the
	// writes).
	walLimitBytes = 4 << 20
	// walKeepBytes is journal_size_limit: a WAL that restarts is cut back to it.
	walKeepBytes = 4 << 20
	// checkpointEvery is how often the checkpointer looks at the WAL; writes
	// also wake it (every kickEvery of them).
	checkpointEvery = 250 * time.Millisecond
	kickEvery       = 16
	// passiveEvery is how often, while writes come, the WAL is copied into the
	// database file without waiting for anyone.
	passiveEvery = time.Second
	// idleAfter is how long the WAL must stay unchanged, with no write of this
	// Store, before it is truncated to zero.
	idleAfter = 2 * time.Second
)

// dormantEvery is how often the checkpointer looks at an empty WAL once this
// Store has not written for idleAfter, so that an idle server does not wake
// four times a second; its next write wakes it at once. The look still comes,
// slowly, for a WAL another process left behind. A var for tests.
var dormantEvery = 30 * time.Second

// Open opens the state database at path, creating its parent directory (mode 0700)
// and the file (mode 0600) when they do not exist, and brings its schema up to date.
// A file that is damaged or not a database is an error wrapping store.ErrDamaged
// whose message says what to do.
func Open(path string) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("cannot resolve the state database path %q: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the state directory %s: %w; check server.state_dir", filepath.Dir(abs), err)
	}
	// SQLite would create the file with the umask's mode; conversations are private,
	// so create it first with 0600 (SQLite gives the -wal and -shm files the same mode).
	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot open the state database %s: %w; check server.state_dir", abs, err)
	}
	f.Close()

	// synchronous=NORMAL is durable against a killed process in WAL mode (only a power
	// loss can drop the last commits), and much faster than FULL.
	write, err := sql.Open("sqlite", dsn(abs, url.Values{
		"_pragma": {
			fmt.Sprintf("busy_timeout(%d)", busyTimeoutMS),
			"journal_mode(WAL)",
			"synchronous(NORMAL)",
			"foreign_keys(1)",
			// Checkpoints (which fsync) run on their own connection in the
			// background, not inside some request's commit: see checkpoints.
			"wal_autocheckpoint(0)",
			fmt.Sprintf("journal_size_limit(%d)", walKeepBytes),
			// Group commit puts each write in a SAVEPOINT, and SQLite keeps what a
			// savepoint (or a statement inside a transaction) would roll back in a
			// sub-journal that spills to a temporary file past 64 KiB: some 30
			// extra writes a turn under load. In memory it lives only as long as
			// its transaction.
			"temp_store(MEMORY)",
		},
		"_txlock": {"immediate"},
	}))
	if err != nil {
		return nil, fmt.Errorf("cannot open the state database %s: %w", abs, err)
	}
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxLifetime(0)
	write.SetConnMaxIdleTime(0)
	if err := quickCheck(context.Background(), write); err != nil {
		write.Close()
		return nil, damage(abs, err)
	}
	fresh, err := migrate(context.Background(), write)
	if err != nil {
		write.Close()
		if damaged(err) {
			return nil, damage(abs, err)
		}
		return nil, fmt.Errorf("cannot prepare the state database %s: %w", abs, err)
	}

	read, err := sql.Open("sqlite", dsn(abs, url.Values{
		"_pragma": {
			fmt.Sprintf("busy_timeout(%d)", busyTimeoutMS),
			"foreign_keys(1)",
			"query_only(1)",
		},
	}))
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("cannot open the state database %s: %w", abs, err)
	}
	readers := max(4, runtime.GOMAXPROCS(0))
	read.SetMaxOpenConns(readers)
	read.SetMaxIdleConns(readers)
	if err := read.Ping(); err != nil {
		write.Close()
		read.Close()
		return nil, fmt.Errorf("cannot open the state database %s: %w", abs, err)
	}
	// The checkpointer waits for readers with its own, shorter busy timeout:
	// it holds the Store's write lock meanwhile (see checkpoint), and a
	// checkpoint that could not finish is tried again on the next tick.
	ckpt, err := sql.Open("sqlite", dsn(abs, url.Values{"_pragma": {
		fmt.Sprintf("busy_timeout(%d)", checkpointBusyMS),
		fmt.Sprintf("journal_size_limit(%d)", walKeepBytes),
	}}))
	if err != nil {
		write.Close()
		read.Close()
		return nil, fmt.Errorf("cannot open the state database %s: %w", abs, err)
	}
	ckpt.SetMaxOpenConns(1)
	conn, err := write.Conn(context.Background())
	if err != nil {
		write.Close()
		read.Close()
		ckpt.Close()
		return nil, fmt.Errorf("cannot open the state database %s: %w", abs, err)
	}
	st := &Store{path: abs, write: write, conn: conn, read: read, ckpt: ckpt, fresh: fresh,
		stopCkpt: make(chan struct{}), ckptDone: make(chan struct{}), kick: make(chan struct{}, 1)}
	if err := st.prepare(); err != nil {
		close(st.ckptDone)
		st.Close()
		return nil, fmt.Errorf("cannot prepare the state database %s: %w", abs, err)
	}
	go st.checkpoints()
	return st, nil
}

// Path is the database file's absolute path.
func (s *Store) Path() string { return s.path }

// Fresh reports whether this Open created the schema: the file was new or
// empty. A caller that expected earlier state (a token file from an earlier
// start) warns, because a lost or truncated database looks exactly like this.
func (s *Store) Fresh() bool { return s.fresh }

// WALBytes returns the size of the write-ahead log now and the largest size
// this Store has seen since it opened (its high-water mark), in bytes.
func (s *Store) WALBytes() (now, peak int64) {
	now = s.walSize()
	return now, s.walPeak.Load()
}

// walSize stats the WAL file (0 when there is none) and raises the high-water
// mark.
func (s *Store) walSize() int64 {
	fi, err := os.Stat(s.path + "-wal")
	if err != nil {
		return 0
	}
	n := fi.Size()
	for {
		peak := s.walPeak.Load()
		if n <= peak || s.walPeak.CompareAndSwap(peak, n) {
			return n
		}
	}
}

// writing takes the Store's write lock and returns what releases it. Writes
// queue on this mutex rather than on database/sql's pool of one connection:
// the pool hands the connection to the longest waiter, which must first be
// scheduled, so under load every commit waited for a goroutine wake-up while
// the connection sat idle (a convoy); a mutex lets a running goroutine take it
// at once. The pool's connection is back by the time the lock is released, so
// no write ever waits in the pool.
func (s *Store) writing() func() {
	s.writeMu.Lock()
	return s.writeMu.Unlock
}

// wrote notes a write of this Store: the checkpointer learns when the store
// was last busy and, every kickEvery writes or at the first write after it went
// dormant, looks at the WAL's size at once.
func (s *Store) wrote() {
	s.lastWrite.Store(time.Now().UnixNano())
	// lastWrite is stored before dormant is read, and the checkpointer sets
	// dormant before it reads lastWrite: either this write sees it dormant
	// and wakes it, or it sees this write and stays awake.
	if n := s.writes.Add(1); n%kickEvery == 0 || (s.dormant.Load() && s.dormant.CompareAndSwap(true, false)) {
		select {
		case s.kick <- struct{}{}:
		default:
		}
	}
}

// checkpoints keeps the WAL bounded, on its own connection. SQLite's automatic
// checkpoint would run inside whichever commit crossed the threshold and fsync
// there, holding the one write connection (and every turn waiting for it) for
// as long as a busy disk takes; and a PASSIVE checkpoint alone never lets the
// WAL restart while some reader still uses it, which under steady load is
// always. So:
//   - while writes come, a PASSIVE checkpoint (it waits for nobody) copies the
//     WAL into the database file every passiveEvery;
//   - once the WAL passes walLimitBytes, a RESTART checkpoint takes the write
//     lock, copies everything and waits (busy_timeout at most) for the readers
//     still on the WAL. Readers that start meanwhile read the database file,
//     not the WAL, and every read here is one short statement or transaction,
//     so the wait ends; the next commit writes from the start of the WAL and
//     cuts the file back to walKeepBytes;
//   - once the WAL has not changed for idleAfter, a TRUNCATE checkpoint
//     empties it (this comes first: a WAL left over the limit by the last
//     writes is not restarted again and again, it is emptied);
//   - once it is empty and this Store has not written for idleAfter, the
//     checkpointer goes dormant: it looks every dormantEvery until a write
//     wakes it.
func (s *Store) checkpoints() {
	defer close(s.ckptDone)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	var lastSize int64
	lastChange := time.Now()
	lastPassive := time.Now()
	asleep := false
	wake := func() {
		if asleep {
			asleep = false
			s.dormant.Store(false)
			t.Reset(checkpointEvery)
		}
	}
	for {
		select {
		case <-s.stopCkpt:
			return
		case <-s.kick:
			wake()
			if s.walSize() > walLimitBytes {
				s.checkpoint("RESTART")
			}
		case now := <-t.C:
			s.looks.Add(1)
			size := s.walSize()
			if size != lastSize {
				lastSize, lastChange = size, now
			}
			busy := time.Unix(0, s.lastWrite.Load())
			if busy.After(lastChange) {
				lastChange = busy
			}
			switch {
			case size > 0 && now.Sub(lastChange) >= idleAfter:
				s.checkpoint("TRUNCATE")
			case size > walLimitBytes:
				s.checkpoint("RESTART")
			case size > 0 && now.Sub(lastPassive) >= passiveEvery:
				s.checkpoint("PASSIVE")
				lastPassive = now
			}
			switch {
			case size > 0 || now.Sub(lastChange) < idleAfter:
				wake() // another process wrote while this one slept
			case !asleep:
				s.dormant.Store(true)
				if time.Unix(0, s.lastWrite.Load()).After(lastChange) {
					s.dormant.Store(false) // a write came meanwhile
					break
				}
				asleep = true
				t.Reset(dormantEvery)
			}
		}
	}
}

// checkpoint runs one checkpoint of the given mode. A checkpoint that could
// not finish (busy, or cut short by Close) is tried again on a later tick.
//
// A RESTART or TRUNCATE checkpoint needs SQLite's write lock, and a writer that
// commits back to back takes it again at once every time (the busy handler
// polls; nothing queues), so it would wait out its busy_timeout and fail
// while the WAL grows without end. So the frames are first copied by a
// PASSIVE checkpoint, which waits for nobody, and then the Store's own write
// lock is held for the short rest: the writers of this process queue on it
// while the WAL is restarted.
func (s *Store) checkpoint(mode string) {
	var busy, log, done int
	if mode != "PASSIVE" {
		_ = s.ckpt.QueryRow("PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &log, &done)
		defer s.writing()()
	}
	_ = s.ckpt.QueryRow("PRAGMA wal_checkpoint("+mode+")").Scan(&busy, &log, &done)
}

// quickCheck runs SQLite's quick integrity check, which reads every page but
// skips the index cross-checks of a full integrity_check, so a damaged file is
// found at start rather than as a failed request later.
func quickCheck(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, "PRAGMA quick_check(5)")
	if err != nil {
		return err
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s", store.ErrDamaged, strings.Join(problems, "; "))
	}
	return nil
}

// SQLite's primary result codes this package tells apart.
const (
	sqliteCorrupt    = 11 // SQLITE_CORRUPT: damaged pages
	sqliteConstraint = 19 // SQLITE_CONSTRAINT: here, a second start of one call
	sqliteNotADB     = 26 // SQLITE_NOTADB: not a database at all
)

// damaged reports whether err comes from a damaged or foreign database file.
func damaged(err error) bool {
	if errors.Is(err, store.ErrDamaged) {
		return true
	}
	code := sqliteCode(err)
	return code == sqliteCorrupt || code == sqliteNotADB
}

// damage is err as the store.DamageError of the database at path.
func damage(path string, err error) error {
	return &store.DamageError{Advice: damageAdvice(path), Err: err}
}

// damageAdvice is the sentence that tells a person what to do about a damaged
// state database at path.
func damageAdvice(path string) string {
	return fmt.Sprintf("the state database %s is damaged or is not an SQLite database: stop ai-server, move it aside (mv %s %s.damaged) and start again with an empty one, or point server.state_dir at another folder; what it held can sometimes be recovered with `sqlite3 %s.damaged .recover`", path, path, path, path)
}

// settle is deferred by every method: an error that says the file is damaged
// becomes a store.DamageError, so callers see the domain error and its advice
// instead of SQLite's result code.
func (s *Store) settle(err *error) {
	if *err == nil || !damaged(*err) {
		return
	}
	if _, ok := store.DamageAdvice(*err); ok {
		return
	}
	*err = damage(s.path, *err)
}

// sqliteCode returns the primary SQLite result code inside err, 0 when none.
func sqliteCode(err error) int {
	var coded interface{ Code() int }
	if errors.As(err, &coded) {
		return coded.Code() & 0xff // extended codes keep the primary in the low byte
	}
	return 0
}

// dsn builds a file: URI so that any byte of the path ('?', '#', '%') is escaped
// instead of being taken for the start of the driver's parameters.
func dsn(abs string, params url.Values) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: params.Encode()}
	return u.String()
}

// Close closes the database; pending writes have already been committed, so a
// Close after the last call loses nothing.
func (s *Store) Close() error {
	s.closeOnce.Do(func() { close(s.stopCkpt) })
	<-s.ckptDone
	return errors.Join(s.stmts.close(), s.conn.Close(), s.read.Close(), s.ckpt.Close(), s.write.Close())
}

// migrations are the schema steps in order; PRAGMA user_version counts how many a
// database has applied. Append new steps, never edit a released one.
var migrations = []string{
	// 1: sessions, messages, pending approvals, the execution ledger and traces.
	`
CREATE TABLE sessions (
	id         TEXT PRIMARY KEY,
	title      TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	pending    TEXT -- the server's pending-approval JSON; NULL when nothing waits
);
CREATE INDEX sessions_by_updated ON sessions (updated_at DESC, id DESC);

CREATE TABLE messages (
	id         INTEGER PRIMARY KEY, -- grows with every append, so it is the append order
	session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	body       TEXT NOT NULL
);
CREATE INDEX messages_by_session ON messages (session_id, id);

-- No foreign key to sessions: the ledger and traces outlive a deleted session (audit).
CREATE TABLE executions (
	execution_id TEXT PRIMARY KEY,
	tool_name    TEXT NOT NULL,
	arguments    TEXT NOT NULL,
	session_id   TEXT NOT NULL,
	started_at   INTEGER NOT NULL,
	duration_ms  INTEGER NOT NULL,
	completed    INTEGER NOT NULL,
	error        TEXT NOT NULL
);
CREATE INDEX executions_by_session ON executions (session_id, started_at);

CREATE TABLE traces (
	trace_id    TEXT PRIMARY KEY,
	session_id  TEXT NOT NULL,
	started_at  INTEGER NOT NULL,
	duration_ms INTEGER NOT NULL,
	success     INTEGER NOT NULL
);
CREATE INDEX traces_by_started ON traces (started_at DESC, trace_id DESC);
CREATE INDEX traces_by_duration ON traces (duration_ms, started_at);
CREATE INDEX traces_by_success ON traces (success, started_at DESC);
CREATE INDEX traces_by_session ON traces (session_id, started_at);

CREATE TABLE trace_calls (
	trace_id     TEXT NOT NULL REFERENCES traces (trace_id) ON DELETE CASCADE,
	seq          INTEGER NOT NULL, -- call order within the chain
	call_id      TEXT NOT NULL,
	parent_id    TEXT NOT NULL,
	kind         TEXT NOT NULL,
	tool_name    TEXT NOT NULL,
	execution_id TEXT NOT NULL,
	arguments    TEXT NOT NULL,
	started_at   INTEGER NOT NULL,
	duration_ms  INTEGER NOT NULL,
	success      INTEGER NOT NULL,
	error        TEXT NOT NULL,
	result       TEXT NOT NULL,
	PRIMARY KEY (trace_id, seq)
) WITHOUT ROWID;

-- One row per tool a chain called, carrying the chain's start: GET /traces?tool=
-- walks this key newest first and stops at the limit, whether the tool is common
-- or rare (an index on trace_calls alone makes one of the two cases a full scan).
CREATE TABLE trace_tools (
	tool_name  TEXT NOT NULL,
	started_at INTEGER NOT NULL,
	trace_id   TEXT NOT NULL REFERENCES traces (trace_id) ON DELETE CASCADE,
	PRIMARY KEY (tool_name, started_at, trace_id)
) WITHOUT ROWID;
CREATE INDEX trace_tools_by_trace ON trace_tools (trace_id);
`,
	// 2: at-most-once runs. A session's lease (owner and expiry) makes claiming a
	// turn atomic across processes; version counts its saves. A ledger record names
	// the call it ran (trace, round and tool_call_id: unique, so one call can start
	// only once), who decided it, and the tool message the model got, so a resumed
	// turn reports the recorded outcome instead of running the call again.
	`
ALTER TABLE sessions ADD COLUMN lease_owner TEXT;
ALTER TABLE sessions ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
ALTER TABLE executions ADD COLUMN call_key TEXT;
ALTER TABLE executions ADD COLUMN decision TEXT NOT NULL DEFAULT '';
ALTER TABLE executions ADD COLUMN outcome TEXT;
CREATE UNIQUE INDEX executions_by_call ON executions (call_key) WHERE call_key IS NOT NULL;
CREATE INDEX executions_by_started ON executions (started_at);
`,
	// 3: session grants (CONTRACT section 11): later calls of a tool whose
	// argument matches the pattern run without asking, in that session only.
	`
CREATE TABLE grants (
	grant_id   TEXT PRIMARY KEY,
	session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	tool_name  TEXT NOT NULL,
	pattern    TEXT NOT NULL,
	created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX grants_by_session ON grants (session_id, tool_name, pattern);
`,
	// 4: the approval policy's reason beside its decision ("rule 2 in
	// config.yaml: allow write_file in notes/").
	`
ALTER TABLE executions ADD COLUMN reason TEXT NOT NULL DEFAULT '';
`,
	// 5: undo (package undo): a record per file-changing run, the content
	// blobs they name, and named states (session logs, the journal).
	`
CREATE TABLE undo_records (
	seq  INTEGER PRIMARY KEY,
	data BLOB NOT NULL
);
CREATE TABLE undo_blobs (
	hash TEXT PRIMARY KEY,
	data BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE undo_states (
	key  TEXT PRIMARY KEY,
	data BLOB NOT NULL
) WITHOUT ROWID;
`,
	// 6: fewer pages written per turn. Every save moves a session's
	// updated_at and a trace's duration and success, so each of these indexes
	// cost a page (two WAL writes) on every turn; what they served is cheap
	// without them: the session list reads every session anyway, and the
	// duration and failure filters of GET /traces walk traces_by_started
	// newest first up to their limit.
	`
DROP INDEX sessions_by_updated;
DROP INDEX traces_by_duration;
DROP INDEX traces_by_success;
`,
}

// migrate applies the migrations a database has not seen yet, each in its own
// transaction together with the user_version bump, so a crash never leaves a
// half-applied step behind.
// It reports whether the database had no schema at all (fresh).
func migrate(ctx context.Context, db *sql.DB) (fresh bool, err error) {
	for {
		version, done, err := migrateOne(ctx, db)
		switch {
		case err != nil:
			return false, err
		case done:
			return fresh, nil
		case version == 0:
			fresh = true
		}
	}
}

// migrateOne applies the next step; version is the schema version it found.
func migrateOne(ctx context.Context, db *sql.DB) (version int, done bool, err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, false, err
	}
	defer tx.Rollback()
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return 0, false, err
	}
	switch {
	case version > len(migrations):
		return version, false, fmt.Errorf("its schema version is %d but this ai-server knows only up to %d; run a newer ai-server or point server.state_dir elsewhere", version, len(migrations))
	case version == len(migrations):
		return version, true, nil
	}
	if _, err := tx.ExecContext(ctx, migrations[version]); err != nil {
		return version, false, fmt.Errorf("schema step %d: %w", version+1, err)
	}
	// PRAGMA takes no bound parameters; version is our own integer.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", version+1)); err != nil {
		return version, false, err
	}
	return version, false, tx.Commit()
}

// millis is how a time is stored.
func millis(t time.Time) int64 { return t.UnixMilli() }

// fromMillis is how a stored time comes back.
func fromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
