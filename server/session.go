package server

import (
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ailab/ai-lab/llm"
	"github.com/ailab/ai-lab/store"
)

// leaseTerm is how long a session's lease lasts without renewal. A holder renews
// it every leaseTerm/3 while its request runs; another process takes over a
// lapsed lease, or at once when the holder's process has ended.
var leaseTerm = 30 * time.Second // a variable for tests

// A heldSession is a session this request has to itself: the in-process lock
// (requests of one server queue in Go) and the lease in the database (requests
// of other servers on the same state_dir queue there), renewed while it is held.
// Its history is the session's conversation as of the lease.
type heldSession struct {
	s      *Server
	id     string
	unlock func()
	ctx    context.Context // the request's context, also cancelled when the lease is lost
	cancel context.CancelCauseFunc
	// renewal renews the lease every leaseTerm/3 while the session is held;
	// renewing is held while a renewal runs, and stopped says close began.
	renewal  *time.Timer
	renewing sync.Mutex
	stopped  bool
	history  *history
	pending  json.RawMessage // the session's pending state when it was taken
	// released is set once a save gave the lease up.
	released bool
}

// errLeaseLost cancels a turn whose lease another process took over.
var errLeaseLost = errors.New("another ai-server process took this session over")

// hold takes the session for this request, waiting while another request (of
// this server or another) holds it; it gives up when ctx ends.
func (s *Server) hold(ctx context.Context, id string) (*heldSession, error) {
	unlock, err := s.locks.lock(ctx, id)
	if err != nil {
		return nil, err
	}
	lease, err := s.acquire(ctx, id)
	if err != nil {
		unlock()
		return nil, err
	}
	h := &heldSession{s: s, id: id, unlock: unlock, pending: lease.Pending}
	h.ctx, h.cancel = context.WithCancelCause(ctx)
	if lease.TookOver {
		s.log.Warn("took over a session whose ai-server process ended or stopped renewing; its unfinished runs are marked interrupted", "session_id", id)
	}
	h.history, err = s.histories.load(context.WithoutCancel(ctx), s.store, id, lease.Version)
	if err != nil {
		h.close()
		return nil, err
	}
	// A timer rather than a goroutine waiting on a ticker: most turns end
	// before the first renewal, and then cost no goroutine and no wake-up.
	h.renewing.Lock()
	h.renewal = time.AfterFunc(leaseTerm/3, h.renew)
	h.renewing.Unlock()
	s.running.add(id, h)
	return h, nil
}

// errCancelledByUser ends a turn cancelled with POST /sessions/{id}/cancel.
var errCancelledByUser = errors.New("the user cancelled the turn")

// runningTurns are the sessions whose turn runs on this server, so a cancel
// can reach them.
type runningTurns struct {
	mu    sync.Mutex
	bySID map[string]*heldSession
}

func (rt *runningTurns) add(id string, h *heldSession) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.bySID == nil {
		rt.bySID = map[string]*heldSession{}
	}
	rt.bySID[id] = h
}

func (rt *runningTurns) remove(id string, h *heldSession) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.bySID[id] == h {
		delete(rt.bySID, id)
	}
}

// cancel cancels the session's running turn and reports whether there was one.
func (rt *runningTurns) cancel(id string) bool {
	rt.mu.Lock()
	h := rt.bySID[id]
	rt.mu.Unlock()
	if h == nil {
		return false
	}
	h.cancel(errCancelledByUser)
	return true
}

// acquire takes the session's lease in the database, polling while another
// process holds it.
func (s *Server) acquire(ctx context.Context, id string) (store.Lease, error) {
	wait := 5 * time.Millisecond
	for {
		lease, err := s.store.Acquire(ctx, id, s.owner, s.now(), leaseTerm)
		if !errors.Is(err, store.ErrBusy) {
			if errors.Is(err, store.ErrNotFound) {
				return lease, s.sessionErr(id, err)
			}
			return lease, err
		}
		select {
		case <-ctx.Done():
			return lease, context.Cause(ctx)
		case <-time.After(wait):
		}
		wait = min(2*wait, 250*time.Millisecond)
	}
}

// renew renews the lease and sets the next renewal, until close; a lost lease
// cancels the turn, so a process that stalled past its lease never writes over
// its successor's work (the store refuses its writes too).
func (h *heldSession) renew() {
	h.renewing.Lock()
	defer h.renewing.Unlock()
	if h.stopped {
		return
	}
	err := h.s.store.Renew(context.WithoutCancel(h.ctx), h.id, h.s.owner, h.s.now().Add(leaseTerm))
	if errors.Is(err, store.ErrLeaseLost) {
		h.s.log.Error("lost the lease of a session; its turn stops", "session_id", h.id)
		h.cancel(errLeaseLost)
		return
	}
	if err != nil {
		h.s.log.Warn("renewing a session's lease failed", "session_id", h.id, "err", err)
	}
	h.renewal.Reset(leaseTerm / 3)
}

// close stops renewing, gives the lease up unless a save already did, and
// unlocks the session in this process.
func (h *heldSession) close() {
	h.s.running.remove(h.id, h)
	// Waits for a renewal under way, so none runs after the release.
	h.renewing.Lock()
	h.stopped = true
	if h.renewal != nil {
		h.renewal.Stop()
	}
	h.renewing.Unlock()
	if !h.released {
		if err := h.s.store.Release(context.WithoutCancel(h.ctx), h.id, h.s.owner); err != nil {
			h.s.log.Warn("releasing a session's lease failed; it lapses by itself", "session_id", h.id, "err", err)
		}
	}
	h.cancel(nil)
	h.unlock()
}

// sessionLocks serializes requests on one session within this server;
// different sessions run concurrently.
type sessionLocks struct {
	mu    sync.Mutex
	locks map[string]*sessionLock
}

type sessionLock struct {
	ch    chan struct{} // holds one token while the session is locked
	users int
}

// lock takes the session's lock and returns its release; it gives up when ctx
// ends first, so a request whose client left does not wait for its turn.
func (l *sessionLocks) lock(ctx context.Context, id string) (unlock func(), err error) {
	l.mu.Lock()
	if l.locks == nil {
		l.locks = map[string]*sessionLock{}
	}
	sl := l.locks[id]
	if sl == nil {
		sl = &sessionLock{ch: make(chan struct{}, 1)}
		l.locks[id] = sl
	}
	sl.users++
	l.mu.Unlock()
	done := func() {
		l.mu.Lock()
		sl.users--
		if sl.users == 0 {
			delete(l.locks, id)
		}
		l.mu.Unlock()
	}
	select {
	case sl.ch <- struct{}{}:
		return func() { <-sl.ch; done() }, nil
	case <-ctx.Done():
		done()
		return nil, context.Cause(ctx)
	}
}

// A history is a session's conversation decoded, with what the context window
// needs precomputed: the size of each message and where each user turn starts.
// It is shared read-only between requests: appends copy.
type history struct {
	version int64 // the session's save count this history is of
	msgs    []llm.Message
	// sums[i] is the size of msgs[:i] in characters.
	sums []int
	// used is shared by the histories whose msgs (and sums) share one backing
	// array: how many messages of it are taken. Only the history that reaches
	// that far may append in place; any other copies.
	used *atomic.Int64
}

func (h *history) len() int { return len(h.msgs) }

// with returns a history with msgs appended, at version; h is unchanged.
// The newest history of a session appends in place when its arrays have room
// (what earlier histories see, their own prefix, never changes), so a save
// costs what it adds, not the length of the session.
func (h *history) with(version int64, msgs []llm.Message) *history {
	n := &history{version: version}
	old := len(h.msgs)
	if h.used != nil && cap(h.msgs)-old >= len(msgs) && cap(h.sums)-len(h.sums) >= len(msgs) &&
		h.used.CompareAndSwap(int64(old), int64(old+len(msgs))) {
		n.msgs = append(h.msgs, msgs...)
		n.sums = append(h.sums, make([]int, len(msgs))...)
		n.used = h.used
	} else {
		size := max(2*(old+len(msgs)), 16)
		n.msgs = append(make([]llm.Message, 0, size), h.msgs...)
		n.msgs = append(n.msgs, msgs...)
		n.sums = append(make([]int, 0, size+1), h.sums...)
		n.sums = append(n.sums, make([]int, len(msgs))...)
		n.used = new(atomic.Int64)
		n.used.Store(int64(len(n.msgs)))
	}
	for i := old; i < len(n.msgs); i++ {
		n.sums[i+1] = n.sums[i] + messageSize(n.msgs[i])
	}
	return n
}

// messageSize is what a message counts toward llm.context_chars.
func messageSize(m llm.Message) int {
	n := len(m.Content)
	for _, c := range m.ToolCalls {
		n += len(c.Name) + len(c.Arguments)
	}
	return n
}

// histories keeps the decoded conversations of recently used sessions, so a
// turn does not re-read and re-decode a long session from the database: the
// session's version (its save count, read with the lease) says whether the
// copy is current. Bounded to maxHistories sessions and maxHistoryChars
// characters of messages in all, least recently used out (the one just used
// always stays).
type histories struct {
	mu    sync.Mutex
	byID  map[string]*list.Element // of *keptHistory
	order list.List                // least recently used at the front
	total int                      // the characters of every kept history
}

// A keptHistory is one entry of histories.
type keptHistory struct {
	id string
	h  *history
}

const maxHistories = 256

// maxHistoryChars bounds the messages kept decoded in memory, in characters
// (a variable for tests). A session dropped from memory is read again from
// the database on its next turn.
var maxHistoryChars = 64 << 20

// chars is the size of the history's messages in characters.
func (h *history) chars() int {
	if len(h.sums) == 0 {
		return 0
	}
	return h.sums[len(h.sums)-1]
}

// load returns the session's history at version, from memory when current.
func (hs *histories) load(ctx context.Context, st Store, id string, version int64) (*history, error) {
	var h *history
	hs.mu.Lock()
	if e := hs.byID[id]; e != nil {
		h = e.Value.(*keptHistory).h
	}
	hs.mu.Unlock()
	if h != nil && h.version == version {
		hs.touch(id, h)
		return h, nil
	}
	raws, err := st.Messages(ctx, id)
	if err != nil {
		return nil, err
	}
	msgs := make([]llm.Message, len(raws))
	for i, raw := range raws {
		if err := json.Unmarshal(raw, &msgs[i]); err != nil {
			return nil, fmt.Errorf("a stored message of %s is unreadable: %w", id, err)
		}
	}
	h = (&history{sums: []int{0}}).with(version, msgs)
	hs.touch(id, h)
	return h, nil
}

// put records the history a save produced.
func (hs *histories) put(id string, h *history) { hs.touch(id, h) }

// forget drops a session (deleted).
func (hs *histories) forget(id string) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if e := hs.byID[id]; e != nil {
		hs.drop(e)
	}
}

func (hs *histories) touch(id string, h *history) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if hs.byID == nil {
		hs.byID = map[string]*list.Element{}
	}
	if e := hs.byID[id]; e != nil {
		k := e.Value.(*keptHistory)
		hs.total += h.chars() - k.h.chars()
		k.h = h
		hs.order.MoveToBack(e)
	} else {
		hs.byID[id] = hs.order.PushBack(&keptHistory{id: id, h: h})
		hs.total += h.chars()
	}
	for hs.order.Len() > 1 && (hs.order.Len() > maxHistories || hs.total > maxHistoryChars) {
		hs.drop(hs.order.Front())
	}
}

// drop removes one entry; hs.mu is held.
func (hs *histories) drop(e *list.Element) {
	k := hs.order.Remove(e).(*keptHistory)
	delete(hs.byID, k.id)
	hs.total -= k.h.chars()
}
