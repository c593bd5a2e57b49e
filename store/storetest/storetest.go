// Package storetest is the contract of store.Backend as a test suite: every
// backend (store/sqlite, a PostgreSQL one) runs Run from its own tests and
// must pass all of it. The suite checks what the server relies on (the order
// of sessions and messages, the lease, at-most-once starts, fenced writes of
// an owner that lost its lease, atomic saves, grants, traces, pruning) only
// through the Backend interface, racing goroutines where the guarantee is
// about atomicity.
//
// It must never look under the interface (no SQL, no files), never depend on
// a particular backend, and never reach the network; a check that needs a
// backend's insides belongs in that backend's own tests.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/store"
)

// Open returns a new, empty backend for one test; it arranges its own cleanup
// (t.Cleanup) and fails t when it cannot open one.
type Open func(t *testing.T) store.Backend

// Run runs the whole contract against fresh backends from open, one per test.
func Run(t *testing.T, open Open) {
	for _, c := range []struct {
		name string
		test func(t *testing.T, b store.Backend)
	}{
		{"CreateSession", testCreateSession},
		{"SessionsNewestUpdatedFirst", testSessionsNewestUpdatedFirst},
		{"SaveAppendsInOrder", testSaveAppendsInOrder},
		{"SavePending", testSavePending},
		{"SaveIsAllOrNothing", testSaveIsAllOrNothing},
		{"DeleteSession", testDeleteSession},
		{"NotFoundIsWrapped", testNotFoundIsWrapped},
		{"LeaseOneOwnerAtATime", testLeaseOneOwnerAtATime},
		{"LeaseRenewAndRelease", testLeaseRenewAndRelease},
		{"LeaseExpiresAndFencesTheOldOwner", testLeaseExpiresAndFencesTheOldOwner},
		{"PendingIsClaimedWithTheLease", testPendingIsClaimedWithTheLease},
		{"ACallStartsOnce", testACallStartsOnce},
		{"StartNeedsTheLease", testStartNeedsTheLease},
		{"FinishNeedsTheLease", testFinishNeedsTheLease},
		{"SaveFinishesRuns", testSaveFinishesRuns},
		{"RunsCarryTheirUndoRecords", testRunsCarryTheirUndoRecords},
		{"ArgumentsComeBackAsJSON", testArgumentsComeBackAsJSON},
		{"PruneExecutionsKeepsWaitingSessions", testPruneExecutionsKeepsWaitingSessions},
		{"Grants", testGrants},
		{"GrantsAreUnique", testGrantsAreUnique},
		{"TraceRoundTripAndReplace", testTraceRoundTripAndReplace},
		{"SaveAppendsTheTrace", testSaveAppendsTheTrace},
		{"TracesFilters", testTracesFilters},
		{"TracesLimitBounds", testTracesLimitBounds},
		{"TraceToolIndexMovesWithStart", testTraceToolIndexMovesWithStart},
		{"PruneTraces", testPruneTraces},
		{"UndoRecordsAndBlobs", testUndoRecordsAndBlobs},
		{"UndoBlobsAreKeptOnce", testUndoBlobsAreKeptOnce},
		{"UndoStates", testUndoStates},
	} {
		t.Run(c.name, func(t *testing.T) { c.test(t, open(t)) })
	}
}

// T0 has sub-millisecond digits and a non-UTC zone on purpose: a backend must
// give back the same instant, in UTC, at millisecond precision.
var T0 = time.Date(2026, 11, 21, 23, 0, 0, 123_456_789, time.FixedZone("CET", 3600))

// term is a lease term no test outlives.
const term = time.Minute

var ctx = context.Background()

func ms(t time.Time) time.Time { return t.Truncate(time.Millisecond).UTC() }

// Raw turns JSON texts into messages.
func Raw(ss ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(ss))
	for i, s := range ss {
		out[i] = json.RawMessage(s)
	}
	return out
}

// SampleExecution is the start of a web search in session.
func SampleExecution(session string) api.Execution {
	return api.Execution{
		ExecutionID: "web_search_1763769600123_9f86d081", ToolName: "web_search",
		Arguments: json.RawMessage(`{"query":"go 1.26"}`), SessionID: session, StartedAt: T0,
		Decision: api.DecisionUser, Reason: "the user approved it",
	}
}

// SampleTrace is a chain of one model round with one tool call per name under it.
func SampleTrace(id, session string, started time.Time, durationMS int64, success bool, tools ...string) api.Trace {
	t := api.Trace{TraceID: id, SessionID: session, StartedAt: started, DurationMS: durationMS, Success: success,
		Calls: []api.TraceCall{{CallID: id + "_m1", Kind: api.CallModel, Arguments: json.RawMessage(`{}`),
			StartedAt: started, DurationMS: durationMS / 2, Success: true}}}
	for i, tool := range tools {
		t.Calls = append(t.Calls, api.TraceCall{
			CallID: fmt.Sprintf("%s_c%d", id, i), ParentID: id + "_m1", Kind: api.CallTool, ToolName: tool,
			ExecutionID: fmt.Sprintf("%s_1763769600123_%08x", tool, i),
			Arguments:   json.RawMessage(`{"query":"x"}`), StartedAt: started.Add(time.Millisecond),
			DurationMS: 1, Success: success, Result: "result of " + tool,
		})
	}
	return t
}

// TraceIDs lists the ids of chains in order.
func TraceIDs(ts []api.Trace) []string {
	ids := []string{}
	for _, t := range ts {
		ids = append(ids, t.TraceID)
	}
	return ids
}

func mustCreate(t *testing.T, b store.Backend, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if err := b.CreateSession(ctx, id, id, T0); err != nil {
			t.Fatal(err)
		}
	}
}

func mustAcquire(t *testing.T, b store.Backend, id string, o store.Owner, now time.Time) store.Lease {
	t.Helper()
	l, err := b.Acquire(ctx, id, o, now, term)
	if err != nil {
		t.Fatalf("acquire %s: %v", id, err)
	}
	return l
}

// save is a save without a lease, refused while any owner's lease runs.
func save(t *testing.T, b store.Backend, sv store.Save) {
	t.Helper()
	if _, err := b.Save(ctx, sv); err != nil {
		t.Fatal(err)
	}
}

// saveTrace stores a whole chain the way the server does: with a save.
func saveTrace(t *testing.T, b store.Backend, tr api.Trace) {
	t.Helper()
	if _, err := b.Session(ctx, tr.SessionID); errors.Is(err, store.ErrNotFound) {
		mustCreate(t, b, tr.SessionID)
	}
	save(t, b, store.Save{SessionID: tr.SessionID, At: T0, Trace: &tr})
}

func testCreateSession(t *testing.T, b store.Backend) {
	if err := b.CreateSession(ctx, "s_1", "plan a trip", T0); err != nil {
		t.Fatal(err)
	}
	got, err := b.Session(ctx, "s_1")
	if err != nil {
		t.Fatal(err)
	}
	want := store.Session{ID: "s_1", Title: "plan a trip", CreatedAt: ms(T0), UpdatedAt: ms(T0)}
	if got != want || got.CreatedAt.Location() != time.UTC {
		t.Errorf("Session = %+v, want %+v in UTC", got, want)
	}
	// The title is set once: creating the id again fails and changes nothing.
	err = b.CreateSession(ctx, "s_1", "other", T0.Add(time.Hour))
	if err == nil || errors.Is(err, store.ErrNotFound) {
		t.Errorf("second CreateSession: err = %v, want a refusal", err)
	}
	if again, _ := b.Session(ctx, "s_1"); again != want {
		t.Errorf("after the refused create, Session = %+v, want %+v", again, want)
	}
	if msgs, err := b.Messages(ctx, "s_1"); err != nil || msgs == nil || len(msgs) != 0 {
		t.Errorf("Messages of a new session = %#v, %v; want an empty non-nil slice", msgs, err)
	}
	if p, err := b.Pending(ctx, "s_1"); err != nil || p != nil {
		t.Errorf("Pending of a new session = %s, %v; want nil, nil", p, err)
	}
}

func testSessionsNewestUpdatedFirst(t *testing.T, b store.Backend) {
	if got, err := b.Sessions(ctx); err != nil || got == nil || len(got) != 0 {
		t.Fatalf("Sessions of an empty store = %#v, %v; want an empty non-nil slice", got, err)
	}
	for id, minute := range map[string]int{"s_a": 0, "s_b": 1, "s_c": 2, "s_d": 1} {
		if err := b.CreateSession(ctx, id, id, T0.Add(time.Duration(minute)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	// A turn on the oldest session brings it to the top; s_b and s_d tie on
	// their times, and the greater id comes first.
	save(t, b, store.Save{SessionID: "s_a", Messages: Raw(`{"m":1}`), Pending: json.RawMessage(`{"p":1}`), At: T0.Add(time.Hour)})
	got, err := b.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, sess := range got {
		ids = append(ids, sess.ID)
	}
	if want := []string{"s_a", "s_c", "s_d", "s_b"}; !slices.Equal(ids, want) {
		t.Errorf("Sessions order = %v, want %v", ids, want)
	}
	if !got[0].PendingApproval || got[1].PendingApproval {
		t.Errorf("PendingApproval flags = %v, %v; want true, false", got[0].PendingApproval, got[1].PendingApproval)
	}
	if !got[0].UpdatedAt.Equal(ms(T0.Add(time.Hour))) || !got[0].CreatedAt.Equal(ms(T0)) {
		t.Errorf("times of s_a = %v / %v", got[0].CreatedAt, got[0].UpdatedAt)
	}
}

func testSaveAppendsInOrder(t *testing.T, b store.Backend) {
	mustCreate(t, b, "s_1", "s_2")
	turns := [][]json.RawMessage{
		Raw(`{"role":"user","content":"one"}`, `{"role":"assistant","content":"two"}`),
		nil, // a save that only changes the pending state appends nothing
		Raw(`{"role":"tool","content":"three"}`),
		Raw(`{"role":"user", "content":  "spacing kept" }`),
	}
	var versions []int64
	for i, turn := range turns {
		v, err := b.Save(ctx, store.Save{SessionID: "s_1", Messages: turn, At: T0.Add(time.Duration(i) * time.Second)})
		if err != nil {
			t.Fatal(err)
		}
		versions = append(versions, v)
		// Interleave another session so append order cannot come from luck of ids.
		save(t, b, store.Save{SessionID: "s_2", Messages: Raw(`{"other":true}`), At: T0})
	}
	if !slices.IsSorted(versions) || versions[0] == versions[len(versions)-1] {
		t.Errorf("save counts %v do not grow", versions)
	}
	got, err := b.Messages(ctx, "s_1")
	if err != nil {
		t.Fatal(err)
	}
	var want []json.RawMessage
	for _, turn := range turns {
		want = append(want, turn...)
	}
	if len(got) != len(want) {
		t.Fatalf("got %d messages, want %d", len(got), len(want))
	}
	for i := range want {
		if string(got[i]) != string(want[i]) {
			t.Errorf("message %d = %s, want %s", i, got[i], want[i])
		}
	}
	sess, _ := b.Session(ctx, "s_1")
	if want := ms(T0.Add(3 * time.Second)); !sess.UpdatedAt.Equal(want) {
		t.Errorf("updated_at = %v, want %v", sess.UpdatedAt, want)
	}
}

func testSavePending(t *testing.T, b store.Backend) {
	mustCreate(t, b, "s_1")
	// Steps run in order on one session: each starts from the state the last one left.
	for _, c := range []struct {
		name    string
		pending json.RawMessage
		want    string // "" means nothing pending
	}{
		{"set", json.RawMessage(`{"calls":["call_1"]}`), `{"calls":["call_1"]}`},
		{"replace with a chained approval", json.RawMessage(`{"calls":["call_2"]}`), `{"calls":["call_2"]}`},
		{"clear with nil", nil, ""},
		{"set again", json.RawMessage(`{"calls":["call_3"]}`), `{"calls":["call_3"]}`},
		{"clear with JSON null", json.RawMessage(`null`), ""},
		{"clear with empty", json.RawMessage{}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			save(t, b, store.Save{SessionID: "s_1", Pending: c.pending, At: T0})
			got, err := b.Pending(ctx, "s_1")
			if err != nil {
				t.Fatal(err)
			}
			if c.want == "" && got != nil || c.want != "" && string(got) != c.want {
				t.Errorf("Pending = %q, want %q", got, c.want)
			}
			sess, _ := b.Session(ctx, "s_1")
			if sess.PendingApproval != (c.want != "") {
				t.Errorf("PendingApproval = %v, want %v", sess.PendingApproval, c.want != "")
			}
		})
	}
}

func testSaveIsAllOrNothing(t *testing.T, b store.Backend) {
	mustCreate(t, b, "s_1")
	for _, c := range []struct {
		name     string
		session  string
		messages []json.RawMessage
		pending  json.RawMessage
		wantErr  error  // nil: any error
		wantText string // what the error must say
	}{
		{"unknown session", "ghost", Raw(`{"a":1}`), json.RawMessage(`{"p":1}`), store.ErrNotFound, "ghost"},
		{"invalid message JSON", "s_1", Raw(`{"a":1}`, `{"b":`), json.RawMessage(`{"p":1}`), nil, "message 1 is not valid JSON"},
		{"invalid pending JSON", "s_1", Raw(`{"a":1}`), json.RawMessage(`{"p":`), nil, "pending approval is not valid JSON"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := SampleTrace("t_"+c.session, c.session, T0, 5, true, "read_file")
			_, err := b.Save(ctx, store.Save{SessionID: c.session, Messages: c.messages, Pending: c.pending,
				At: T0.Add(time.Hour), Trace: &tr})
			if err == nil || c.wantErr != nil && !errors.Is(err, c.wantErr) || !strings.Contains(err.Error(), c.wantText) {
				t.Fatalf("Save err = %v, want one wrapping %v and saying %q", err, c.wantErr, c.wantText)
			}
			if msgs, _ := b.Messages(ctx, "s_1"); len(msgs) != 0 {
				t.Errorf("%d messages left behind", len(msgs))
			}
			sess, _ := b.Session(ctx, "s_1")
			if sess.PendingApproval || !sess.UpdatedAt.Equal(ms(T0)) {
				t.Errorf("session changed by a failed Save: %+v", sess)
			}
			if _, err := b.Trace(ctx, tr.TraceID); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("a failed Save stored its trace: %v", err)
			}
			if _, err := b.Session(ctx, "ghost"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("a failed Save created a session: %v", err)
			}
		})
	}
}

func testDeleteSession(t *testing.T, b store.Backend) {
	mustCreate(t, b, "s_gone", "s_kept")
	for _, id := range []string{"s_gone", "s_kept"} {
		save(t, b, store.Save{SessionID: id, Messages: Raw(`{"m":1}`, `{"m":2}`), Pending: json.RawMessage(`{"p":1}`), At: T0})
	}
	o := store.NewOwner()
	mustAcquire(t, b, "s_gone", o, time.Now())
	exec := SampleExecution("s_gone")
	if err := b.StartExecution(ctx, store.Start{Execution: exec, CallKey: "t_1/r1/call_1", Owner: o}); err != nil {
		t.Fatal(err)
	}
	tr := SampleTrace("t_1", "s_gone", T0, 10, true, "read_file")
	if _, err := b.Save(ctx, store.Save{SessionID: "s_gone", Owner: o, At: T0, Trace: &tr, Release: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.AddGrant(ctx, "s_gone", api.SessionGrant{GrantID: "g_1", ToolName: "write_file", Pattern: "*", CreatedAt: T0}); err != nil {
		t.Fatal(err)
	}
	if err := b.DeleteSession(ctx, "s_gone"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Session(ctx, "s_gone"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the session is still there: %v", err)
	}
	if _, err := b.Messages(ctx, "s_gone"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("messages of a deleted session: %v", err)
	}
	if msgs, _ := b.Messages(ctx, "s_kept"); len(msgs) != 2 {
		t.Errorf("the other session has %d messages, want 2", len(msgs))
	}
	if p, err := b.Pending(ctx, "s_kept"); err != nil || p == nil {
		t.Errorf("the other session's pending state went: %s, %v", p, err)
	}
	if _, err := b.Execution(ctx, exec.ExecutionID); err != nil {
		t.Errorf("the ledger record went with the session: %v", err)
	}
	if _, err := b.Trace(ctx, "t_1"); err != nil {
		t.Errorf("the trace went with the session: %v", err)
	}
	if err := b.DeleteSession(ctx, "s_gone"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deleting twice: %v", err)
	}
	// The id is free again, with a fresh title, no old messages and no grants.
	if err := b.CreateSession(ctx, "s_gone", "again", T0); err != nil {
		t.Fatal(err)
	}
	if msgs, _ := b.Messages(ctx, "s_gone"); len(msgs) != 0 {
		t.Errorf("a recreated session sees %d old messages", len(msgs))
	}
	if gs, _ := b.Grants(ctx, "s_gone"); len(gs) != 0 {
		t.Errorf("a recreated session has the old grants: %+v", gs)
	}
}

func testNotFoundIsWrapped(t *testing.T, b store.Backend) {
	o := store.NewOwner()
	for _, c := range []struct {
		name string
		call func() error
	}{
		{"Session", func() error { _, err := b.Session(ctx, "nope"); return err }},
		{"DeleteSession", func() error { return b.DeleteSession(ctx, "nope") }},
		{"Messages", func() error { _, err := b.Messages(ctx, "nope"); return err }},
		{"Pending", func() error { _, err := b.Pending(ctx, "nope"); return err }},
		{"Save", func() error { _, err := b.Save(ctx, store.Save{SessionID: "nope", At: T0}); return err }},
		{"Acquire", func() error { _, err := b.Acquire(ctx, "nope", o, time.Now(), term); return err }},
		{"Execution", func() error { _, err := b.Execution(ctx, "nope"); return err }},
		{"CallOutcome", func() error { _, _, err := b.CallOutcome(ctx, "nope"); return err }},
		{"Trace", func() error { _, err := b.Trace(ctx, "nope"); return err }},
		{"AddGrant", func() error {
			_, err := b.AddGrant(ctx, "nope", api.SessionGrant{GrantID: "g", ToolName: "x", Pattern: "*", CreatedAt: T0})
			return err
		}},
		{"RevokeGrant", func() error { return b.RevokeGrant(ctx, "nope", "g") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.call()
			if !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("err = %v, want one wrapping ErrNotFound", err)
			}
			if !strings.Contains(err.Error(), "nope") {
				t.Errorf("err = %q does not name the missing id", err)
			}
		})
	}
}

// testLeaseOneOwnerAtATime: many owners race for one session's lease, round
// after round; each round exactly one wins and the others get ErrBusy.
func testLeaseOneOwnerAtATime(t *testing.T, b store.Backend) {
	mustCreate(t, b, "s_1")
	const racers = 8
	owners := make([]store.Owner, racers)
	for i := range owners {
		owners[i] = store.NewOwner()
	}
	for round := range 20 {
		var wg sync.WaitGroup
		errs := make([]error, racers)
		start := make(chan struct{})
		for i, o := range owners {
			wg.Go(func() {
				<-start
				_, errs[i] = b.Acquire(ctx, "s_1", o, time.Now(), term)
			})
		}
		close(start)
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, store.ErrBusy):
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d owners got the lease (%v)", round, won, errs)
		}
		for _, o := range owners {
			if err := b.Release(ctx, "s_1", o); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func testLeaseRenewAndRelease(t *testing.T, b store.Backend) {
	mustCreate(t, b, "s_1")
	a, other := store.NewOwner(), store.NewOwner()
	now := time.Now()
	mustAcquire(t, b, "s_1", a, now)
	// The holder may take its own lease again (a retry after a lost answer).
	mustAcquire(t, b, "s_1", a, now)
	if err := b.Renew(ctx, "s_1", a, now.Add(2*term)); err != nil {
		t.Fatal(err)
	}
	if err := b.Renew(ctx, "s_1", other, now.Add(term)); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("renew by a non-holder: %v", err)
	}
	// A renewed lease runs past the first term.
	if _, err := b.Acquire(ctx, "s_1", other, now.Add(term+term/2), term); !errors.Is(err, store.ErrBusy) {
		t.Errorf("took a renewed lease before its new end: %v", err)
	}
	// A release by a non-holder frees nothing.
	if err := b.Release(ctx, "s_1", other); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Acquire(ctx, "s_1", other, now, term); !errors.Is(err, store.ErrBusy) {
		t.Errorf("a non-holder's release freed the lease: %v", err)
	}
	if err := b.Release(ctx, "s_1", a); err != nil {
		t.Fatal(err)
	}
	if err := b.Renew(ctx, "s_1", a, now.Add(term)); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("renew after release: %v", err)
	}
	l := mustAcquire(t, b, "s_1", other, now)
	if l.TookOver {
		t.Error("taking a released lease counts as a takeover")
	}
	// Save with Release gives the lease up with the save.
	if _, err := b.Save(ctx, store.Save{SessionID: "s_1", Owner: other, At: T0, Release: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Acquire(ctx, "s_1", a, now, term); err != nil {
		t.Errorf("the lease was not released with the save: %v", err)
	}
}

func testLeaseExpiresAndFencesTheOldOwner(t *testing.T, b store.Backend) {
	mustCreate(t, b, "s_1")
	old, next := store.NewOwner(), store.NewOwner()
	now := time.Now()
	if _, err := b.Acquire(ctx, "s_1", old, now, time.Second); err != nil {
		t.Fatal(err)
	}
	run := SampleExecution("s_1")
	if err := b.StartExecution(ctx, store.Start{Execution: run, CallKey: "t_1/r1/call_1", Owner: old}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Acquire(ctx, "s_1", next, now, term); !errors.Is(err, store.ErrBusy) {
		t.Fatalf("took a running lease: %v", err)
	}
	lease, err := b.Acquire(ctx, "s_1", next, now.Add(2*time.Second), term)
	if err != nil || !lease.TookOver {
		t.Fatalf("an expired lease was not taken over: %+v %v", lease, err)
	}
	// The old owner's unfinished run is marked interrupted.
	got, outcome, err := b.CallOutcome(ctx, "t_1/r1/call_1")
	if err != nil || got.Completed || got.Error != store.Interrupted || outcome != "" {
		t.Fatalf("the old owner's run is %+v %q, %v; want it marked %q", got, outcome, err, store.Interrupted)
	}
	// The old owner, waking up, can neither save nor start nor finish a run
	// nor renew.
	if _, err := b.Save(ctx, store.Save{SessionID: "s_1", Owner: old, Messages: Raw(`{"role":"user"}`), At: now}); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("stale owner's save: %v", err)
	}
	st := store.Start{Execution: SampleExecution("s_1"), CallKey: "t_1/r1/call_2", Owner: old}
	st.Execution.ExecutionID = "web_search_1763769600124_00000002"
	if err := b.StartExecution(ctx, st); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("stale owner's start: %v", err)
	}
	done := run
	done.Completed, done.DurationMS = true, 7
	if err := b.FinishExecution(ctx, old, done, `{"result":"late"}`); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("stale owner's finish: %v", err)
	}
	if err := b.Renew(ctx, "s_1", old, now.Add(term)); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("stale owner's renew: %v", err)
	}
	// Its release frees nothing.
	if err := b.Release(ctx, "s_1", old); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Save(ctx, store.Save{SessionID: "s_1", Owner: next, Messages: Raw(`{"role":"user"}`), At: now}); err != nil {
		t.Errorf("the new owner's save after the old one's release: %v", err)
	}
	// A writer without a lease waits for the running one.
	if _, err := b.Save(ctx, store.Save{SessionID: "s_1", Messages: Raw(`{"role":"user"}`), At: now}); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("an unleased save during a lease: %v", err)
	}
	if msgs, _ := b.Messages(ctx, "s_1"); len(msgs) != 1 {
		t.Errorf("%d messages stored, want only the new owner's 1", len(msgs))
	}
	got, outcome, _ = b.CallOutcome(ctx, "t_1/r1/call_1")
	if got.Completed || got.Error != store.Interrupted || outcome != "" {
		t.Errorf("the stale owner's finish changed the run: %+v %q", got, outcome)
	}
	if _, _, err := b.CallOutcome(ctx, "t_1/r1/call_2"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the stale owner's refused start left a record: %v", err)
	}
}

// testPendingIsClaimedWithTheLease: a session waiting for decisions is
// claimed by exactly one of many racing owners, which reads the pending state
// in the same step; a save by anyone else is refused and changes nothing.
func testPendingIsClaimedWithTheLease(t *testing.T, b store.Backend) {
	mustCreate(t, b, "s_1")
	pending := json.RawMessage(`{"calls":[{"id":"call_1","name":"write_file"}]}`)
	v0, err := b.Save(ctx, store.Save{SessionID: "s_1", Messages: Raw(`{"role":"user"}`), Pending: pending, At: T0})
	if err != nil {
		t.Fatal(err)
	}
	const racers = 8
	leases := make([]store.Lease, racers)
	errs := make([]error, racers)
	owners := make([]store.Owner, racers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range racers {
		owners[i] = store.NewOwner()
		wg.Go(func() {
			<-start
			leases[i], errs[i] = b.Acquire(ctx, "s_1", owners[i], time.Now(), term)
		})
	}
	close(start)
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Fatalf("owners %d and %d both claimed the session", winner, i)
		case err == nil:
			winner = i
		case !errors.Is(err, store.ErrBusy):
			t.Fatal(err)
		}
	}
	if winner < 0 {
		t.Fatal("nobody claimed the session")
	}
	if l := leases[winner]; string(l.Pending) != string(pending) || l.Version != v0 {
		t.Fatalf("the claim read %+v; want pending %s at version %d", l, pending, v0)
	}
	loser := owners[(winner+1)%racers]
	if _, err := b.Save(ctx, store.Save{SessionID: "s_1", Owner: loser, Messages: Raw(`{"x":1}`), At: T0}); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("a non-owner's save: %v", err)
	}
	if got, _ := b.Pending(ctx, "s_1"); string(got) != string(pending) {
		t.Errorf("the pending state after a refused save = %s", got)
	}
	v1, err := b.Save(ctx, store.Save{SessionID: "s_1", Owner: owners[winner], Messages: Raw(`{"role":"tool"}`), At: T0, Release: true})
	if err != nil || v1 <= v0 {
		t.Fatalf("the owner's save: version %d (before %d), %v", v1, v0, err)
	}
	l := mustAcquire(t, b, "s_1", loser, time.Now())
	if l.Pending != nil || l.Version != v1 {
		t.Errorf("the next claim read %+v; want no pending state at version %d", l, v1)
	}
	if msgs, _ := b.Messages(ctx, "s_1"); len(msgs) != 2 {
		t.Errorf("%d messages, want 2", len(msgs))
	}
}

// testACallStartsOnce: many goroutines of the lease holder race to start one
// call; exactly one start is recorded, the rest get ErrCallStarted.
func testACallStartsOnce(t *testing.T, b store.Backend) {
	mustCreate(t, b, "s_1")
	o := store.NewOwner()
	mustAcquire(t, b, "s_1", o, time.Now())
	const racers = 8
	errs := make([]error, racers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range racers {
		wg.Go(func() {
			e := SampleExecution("s_1")
			e.ExecutionID = fmt.Sprintf("web_search_1763769600123_%08x", i)
			<-start
			errs[i] = b.StartExecution(ctx, store.Start{Execution: e, CallKey: "t_1/r1/call_1", Owner: o})
		})
	}
	close(start)
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Fatalf("starts %d and %d both succeeded", winner, i)
		case err == nil:
			winner = i
		case !errors.Is(err, store.ErrCallStarted):
			t.Fatalf("start %d: %v", i, err)
		}
	}
	if winner < 0 {
		t.Fatal("no start succeeded")
	}
	want := SampleExecution("s_1")
	want.ExecutionID = fmt.Sprintf("web_search_1763769600123_%08x", winner)
	got, outcome, err := b.CallOutcome(ctx, "t_1/r1/call_1")
	if err != nil || outcome != "" {
		t.Fatalf("outcome before the end: %q %v", outcome, err)
	}
	if !got.StartedAt.Equal(ms(want.StartedAt)) || got.StartedAt.Location() != time.UTC {
		t.Errorf("started_at = %v, want %v in UTC", got.StartedAt, ms(want.StartedAt))
	}
	if string(got.Arguments) != string(want.Arguments) {
		t.Errorf("arguments = %s, want %s", got.Arguments, want.Arguments)
	}
	got.Arguments, want.Arguments = nil, nil
	got.StartedAt, want.StartedAt = time.Time{}, time.Time{}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("start record = %+v\nwant           %+v", got, want)
	}
	// The same call after a takeover by another owner is still refused.
	if err := b.Release(ctx, "s_1", o); err != nil {
		t.Fatal(err)
	}
	next := store.NewOwner()
	mustAcquire(t, b, "s_1", next, time.Now())
	again := SampleExecution("s_1")
	again.ExecutionID = "web_search_1763769600999_00000001"
	if err := b.StartExecution(ctx, store.Start{Execution: again, CallKey: "t_1/r1/call_1", Owner: next}); !errors.Is(err, store.ErrCallStarted) {
		t.Fatalf("a start of the same call by the next owner: %v", err)
	}
	// The end is recorded by the holder and CallOutcome reports it.
	end := SampleExecution("s_1")
	end.ExecutionID = fmt.Sprintf("web_search_1763769600123_%08x", winner)
	end.Completed, end.DurationMS = true, 12
	if err := b.FinishExecution(ctx, next, end, `{"result":"ok"}`); err != nil {
		t.Fatal(err)
	}
	got, outcome, err = b.CallOutcome(ctx, "t_1/r1/call_1")
	if err != nil || !got.Completed || outcome != `{"result":"ok"}` || got.DurationMS != 12 || got.Decision != api.DecisionUser {
		t.Fatalf("outcome after the end: %+v %q %v", got, outcome, err)
	}
	if e, err := b.Execution(ctx, end.ExecutionID); err != nil || !e.Completed || e.Reason != want.Reason {
		t.Errorf("Execution = %+v, %v", e, err)
	}
	if _, _, err := b.CallOutcome(ctx, "t_1/r1/call_2"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a call that never started: %v", err)
	}
}

func testStartNeedsTheLease(t *testing.T, b store.Backend) {
	mustCreate(t, b, "s_1")
	o := store.NewOwner()
	st := store.Start{Execution: SampleExecution("s_1"), CallKey: "t_1/r1/call_1", Owner: o}
	if err := b.StartExecution(ctx, st); !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("a start without the lease: %v", err)
	}
	holder := store.NewOwner()
	mustAcquire(t, b, "s_1", holder, time.Now())
	if err := b.StartExecution(ctx, st); !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("a start while another owner holds the lease: %v", err)
	}
	if _, _, err := b.CallOutcome(ctx, st.CallKey); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a refused start left a record: %v", err)
	}
	// Refused starts do not burn the call key: the holder's start goes through.
	st.Owner = holder
	if err := b.StartExecution(ctx, st); err != nil {
		t.Fatal(err)
	}
}

// testFinishNeedsTheLease: the old and the new holder of a lease race to
// record a run's end; only the holder's outcome is stored.
func testFinishNeedsTheLease(t *testing.T, b store.Backend) {
	mustCreate(t, b, "s_1")
	old, next := store.NewOwner(), store.NewOwner()
	now := time.Now()
	if _, err := b.Acquire(ctx, "s_1", old, now, time.Second); err != nil {
		t.Fatal(err)
	}
	run := SampleExecution("s_1")
	if err := b.StartExecution(ctx, store.Start{Execution: run, CallKey: "t_1/r1/call_1", Owner: old}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Acquire(ctx, "s_1", next, now.Add(2*time.Second), term); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var oldErr, nextErr error
	start := make(chan struct{})
	wg.Go(func() {
		e := run
		e.Completed, e.DurationMS = true, 99
		<-start
		oldErr = b.FinishExecution(ctx, old, e, `{"result":"from the old owner"}`)
	})
	wg.Go(func() {
		e := run
		e.Error = store.Interrupted
		<-start
		nextErr = b.FinishExecution(ctx, next, e, "")
	})
	close(start)
	wg.Wait()
	if !errors.Is(oldErr, store.ErrLeaseLost) || nextErr != nil {
		t.Fatalf("old owner's finish: %v; new owner's: %v", oldErr, nextErr)
	}
	got, outcome, err := b.CallOutcome(ctx, "t_1/r1/call_1")
	if err != nil || got.Completed || got.DurationMS == 99 || outcome != "" || got.Error != store.Interrupted {
		t.Fatalf("the run after the race: %+v %q %v", got, outcome, err)
	}
	ghost := SampleExecution("s_1")
	ghost.ExecutionID = "web_search_1763769600123_ffffffff"
	if err := b.FinishExecution(ctx, next, ghost, ""); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("finishing a run that never started: %v", err)
	}
}

// testSaveFinishesRuns: a save that carries end records writes them with
// everything else, only for the lease holder, and a record of a run that
// never started fails the whole save.
func testSaveFinishesRuns(t *testing.T, b store.Backend) {
	mustCreate(t, b, "s_1")
	old, next := store.NewOwner(), store.NewOwner()
	now := time.Now()
	mustAcquire(t, b, "s_1", old, now)
	run := SampleExecution("s_1")
	if err := b.StartExecution(ctx, store.Start{Execution: run, CallKey: "t_1/r1/call_1", Owner: old}); err != nil {
		t.Fatal(err)
	}
	done := run
	done.Completed, done.DurationMS = true, 42

	ghost := SampleExecution("s_1")
	ghost.ExecutionID = "web_search_1763769600123_ffffffff"
	_, err := b.Save(ctx, store.Save{SessionID: "s_1", Owner: old, Messages: Raw(`{"a":1}`), At: T0.Add(time.Hour),
		Finished: []store.Finish{{Execution: done, Outcome: `{"result":"ok"}`}, {Execution: ghost}}})
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a save finishing a run that never started: %v, want ErrNotFound", err)
	}
	if msgs, _ := b.Messages(ctx, "s_1"); len(msgs) != 0 {
		t.Errorf("the refused save left %d messages", len(msgs))
	}
	if got, outcome, _ := b.CallOutcome(ctx, "t_1/r1/call_1"); got.Completed || outcome != "" {
		t.Errorf("the refused save finished the run: %+v %q", got, outcome)
	}

	if _, err := b.Save(ctx, store.Save{SessionID: "s_1", Owner: old, Messages: Raw(`{"a":1}`), At: T0.Add(time.Hour),
		Finished: []store.Finish{{Execution: done, Outcome: `{"result":"ok"}`}}}); err != nil {
		t.Fatal(err)
	}
	got, outcome, err := b.CallOutcome(ctx, "t_1/r1/call_1")
	if err != nil || !got.Completed || got.DurationMS != 42 || outcome != `{"result":"ok"}` {
		t.Fatalf("after the save: %+v %q %v", got, outcome, err)
	}

	// A lost lease: the old owner's save changes neither the session nor the run.
	if _, err := b.Acquire(ctx, "s_1", next, now.Add(2*term), term); err != nil {
		t.Fatal(err)
	}
	late := done
	late.Completed, late.Error = false, "late"
	if _, err := b.Save(ctx, store.Save{SessionID: "s_1", Owner: old, Messages: Raw(`{"b":2}`), At: T0.Add(2 * time.Hour),
		Finished: []store.Finish{{Execution: late}}}); !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("a save after the lease was lost: %v, want ErrLeaseLost", err)
	}
	if got, outcome, _ := b.CallOutcome(ctx, "t_1/r1/call_1"); !got.Completed || got.Error != "" || outcome != `{"result":"ok"}` {
		t.Errorf("the old owner's save changed the run: %+v %q", got, outcome)
	}
}

// testRunsCarryTheirUndoRecords: a start record carries the run's undo record
// and the end records of earlier runs; an end record carries the finished undo
// record. Each is written in the same step as the record that carries it, and a
// refused start writes none of them.
func testRunsCarryTheirUndoRecords(t *testing.T, b store.Backend) {
	mustCreate(t, b, "s_1")
	old, next := store.NewOwner(), store.NewOwner()
	now := time.Now()
	mustAcquire(t, b, "s_1", old, now)
	put := func(seq int64, data, blob string) *store.UndoPut {
		return &store.UndoPut{Record: store.UndoRecord{Seq: seq, Data: []byte(data)},
			Blobs: []store.UndoBlob{{Hash: blob, Data: []byte("content of " + blob)}}}
	}
	records := func() map[int64]string {
		t.Helper()
		recs, err := b.UndoRecords(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := map[int64]string{}
		for _, r := range recs {
			out[r.Seq] = string(r.Data)
		}
		return out
	}

	first := SampleExecution("s_1")
	if err := b.StartExecution(ctx, store.Start{Execution: first, CallKey: "t_1/r1/call_1", Owner: old, Undo: put(1, `{"begun":1}`, "h1")}); err != nil {
		t.Fatal(err)
	}
	if got := records(); got[1] != `{"begun":1}` {
		t.Fatalf("undo records after the first start: %v", got)
	}
	if data, err := b.UndoBlob(ctx, "h1"); err != nil || string(data) != "content of h1" {
		t.Fatalf("the first start's blob: %q %v", data, err)
	}

	// The second start carries the first run's end and its finished record.
	done := first
	done.Completed, done.DurationMS = true, 7
	second := SampleExecution("s_1")
	second.ExecutionID = "write_file_1763769600123_00000002"
	ends := []store.Finish{{Execution: done, Outcome: `{"result":1}`, Undo: put(1, `{"finished":1}`, "h2")}}
	if err := b.StartExecution(ctx, store.Start{Execution: second, CallKey: "t_1/r1/call_2", Owner: old, Undo: put(2, `{"begun":2}`, "h3"), Finished: ends}); err != nil {
		t.Fatal(err)
	}
	if got := records(); got[1] != `{"finished":1}` || got[2] != `{"begun":2}` {
		t.Fatalf("undo records after the second start: %v", got)
	}
	if got, outcome, _ := b.CallOutcome(ctx, "t_1/r1/call_1"); !got.Completed || outcome != `{"result":1}` {
		t.Fatalf("the first run after the second start: %+v %q", got, outcome)
	}

	// A refused start (the call started before) writes nothing it carries.
	third := SampleExecution("s_1")
	third.ExecutionID = "write_file_1763769600123_00000003"
	doneSecond := second
	doneSecond.Completed = true
	err := b.StartExecution(ctx, store.Start{Execution: third, CallKey: "t_1/r1/call_2", Owner: old, Undo: put(3, `{"begun":3}`, "h4"),
		Finished: []store.Finish{{Execution: doneSecond, Outcome: `{"result":2}`, Undo: put(2, `{"finished":2}`, "h5")}}})
	if !errors.Is(err, store.ErrCallStarted) {
		t.Fatalf("a second start of call_2: %v, want ErrCallStarted", err)
	}
	if got := records(); got[2] != `{"begun":2}` || got[3] != "" {
		t.Errorf("the refused start wrote undo records: %v", got)
	}
	if got, outcome, _ := b.CallOutcome(ctx, "t_1/r1/call_2"); got.Completed || outcome != "" {
		t.Errorf("the refused start finished the earlier run: %+v %q", got, outcome)
	}
	for _, h := range []string{"h4", "h5"} {
		if _, err := b.UndoBlob(ctx, h); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("the refused start kept blob %s: %v", h, err)
		}
	}

	// An end record of a run that never started refuses the start with it.
	ghost := SampleExecution("s_1")
	ghost.ExecutionID = "web_search_1763769600123_ffffffff"
	if err := b.StartExecution(ctx, store.Start{Execution: third, CallKey: "t_1/r1/call_3", Owner: old,
		Finished: []store.Finish{{Execution: ghost}}}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a start carrying the end of a run that never started: %v, want ErrNotFound", err)
	}
	if _, _, err := b.CallOutcome(ctx, "t_1/r1/call_3"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the refused start was written: %v", err)
	}

	// The save carries the second run's end and its finished record.
	if _, err := b.Save(ctx, store.Save{SessionID: "s_1", Owner: old, Messages: Raw(`{"a":1}`), At: T0.Add(time.Hour),
		Finished: []store.Finish{{Execution: doneSecond, Outcome: `{"result":2}`, Undo: put(2, `{"finished":2}`, "h5")}}}); err != nil {
		t.Fatal(err)
	}
	if got := records(); got[2] != `{"finished":2}` {
		t.Errorf("undo records after the save: %v", got)
	}

	// A lost lease: the old owner's start writes no undo record.
	if _, err := b.Acquire(ctx, "s_1", next, now.Add(2*term), term); err != nil {
		t.Fatal(err)
	}
	if err := b.StartExecution(ctx, store.Start{Execution: third, CallKey: "t_1/r2/call_1", Owner: old, Undo: put(4, `{"begun":4}`, "h6")}); !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("a start after the lease was lost: %v, want ErrLeaseLost", err)
	}
	if got := records(); got[4] != "" {
		t.Errorf("the old owner's start kept an undo record: %v", got)
	}
}

func testArgumentsComeBackAsJSON(t *testing.T, b store.Backend) {
	mustCreate(t, b, "s_1")
	o := store.NewOwner()
	mustAcquire(t, b, "s_1", o, time.Now())
	for i, c := range []struct {
		name string
		in   string
		want string
	}{
		{"object kept byte for byte", `{"path": "a.txt",  "n":1}`, `{"path": "a.txt",  "n":1}`},
		{"surrounding space trimmed", " \n{\"a\":1}\t", `{"a":1}`},
		{"empty becomes an object", ``, `{}`},
		{"null becomes an object", `null`, `{}`},
		{"invalid JSON kept as a string", `{"path": "a.txt"`, `"{\"path\": \"a.txt\""`},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := SampleExecution("s_1")
			e.ExecutionID = fmt.Sprintf("%s%c", e.ExecutionID, 'a'+i)
			e.Arguments = json.RawMessage(c.in)
			if err := b.StartExecution(ctx, store.Start{Execution: e, CallKey: e.ExecutionID, Owner: o}); err != nil {
				t.Fatal(err)
			}
			got, err := b.Execution(ctx, e.ExecutionID)
			if err != nil {
				t.Fatal(err)
			}
			if string(got.Arguments) != c.want {
				t.Errorf("arguments = %s, want %s", got.Arguments, c.want)
			}
			tr := SampleTrace("t_"+e.ExecutionID, "s_1", T0, 1, true, "web_search")
			tr.Calls[1].Arguments = json.RawMessage(c.in)
			if _, err := b.Save(ctx, store.Save{SessionID: "s_1", Owner: o, At: T0, Trace: &tr}); err != nil {
				t.Fatal(err)
			}
			chain, err := b.Trace(ctx, tr.TraceID)
			if err != nil || string(chain.Calls[1].Arguments) != c.want {
				t.Errorf("trace call arguments = %s, %v; want %s", chain.Calls[1].Arguments, err, c.want)
			}
		})
	}
}

func testPruneExecutionsKeepsWaitingSessions(t *testing.T, b store.Backend) {
	mustCreate(t, b, "s_done", "s_paused")
	for i, id := range []string{"s_done", "s_paused"} {
		o := store.NewOwner()
		mustAcquire(t, b, id, o, time.Now())
		e := SampleExecution(id)
		e.ExecutionID = fmt.Sprintf("read_file_1763769600123_%08x", i)
		if err := b.StartExecution(ctx, store.Start{Execution: e, CallKey: e.ExecutionID, Owner: o}); err != nil {
			t.Fatal(err)
		}
		sv := store.Save{SessionID: id, Owner: o, At: T0, Release: true}
		if id == "s_paused" {
			sv.Pending = json.RawMessage(`{"calls":[]}`)
		}
		if _, err := b.Save(ctx, sv); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := b.PruneExecutions(ctx, T0.Add(-time.Hour)); err != nil || n != 0 {
		t.Errorf("pruned %d records younger than the bound, %v", n, err)
	}
	n, err := b.PruneExecutions(ctx, T0.Add(time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("pruned %d, %v; want 1", n, err)
	}
	if _, err := b.Execution(ctx, "read_file_1763769600123_00000000"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the finished session's record stayed: %v", err)
	}
	if _, err := b.Execution(ctx, "read_file_1763769600123_00000001"); err != nil {
		t.Errorf("the paused session's record went: %v", err)
	}
}

func testGrants(t *testing.T, b store.Backend) {
	mustCreate(t, b, "s_1")
	if list, err := b.Grants(ctx, "s_1"); err != nil || list == nil || len(list) != 0 {
		t.Fatalf("grants of a new session = %#v, %v; want an empty non-nil slice", list, err)
	}
	g, err := b.AddGrant(ctx, "s_1", api.SessionGrant{GrantID: "g_1", ToolName: "write_file", Pattern: "notes/*", CreatedAt: T0})
	if err != nil || g.GrantID != "g_1" || !g.CreatedAt.Equal(ms(T0)) {
		t.Fatalf("add: %+v %v", g, err)
	}
	// The same grant again keeps the first one.
	g2, err := b.AddGrant(ctx, "s_1", api.SessionGrant{GrantID: "g_2", ToolName: "write_file", Pattern: "notes/*", CreatedAt: T0.Add(time.Hour)})
	if err != nil || g2.GrantID != "g_1" || !g2.CreatedAt.Equal(ms(T0)) {
		t.Fatalf("add again: %+v %v", g2, err)
	}
	if _, err := b.AddGrant(ctx, "s_1", api.SessionGrant{GrantID: "g_3", ToolName: "web_search", Pattern: "*", CreatedAt: T0.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	list, err := b.Grants(ctx, "s_1")
	if err != nil || len(list) != 2 || list[0].GrantID != "g_1" || list[1].GrantID != "g_3" || list[1].Pattern != "*" {
		t.Fatalf("list: %+v %v", list, err)
	}
	if err := b.RevokeGrant(ctx, "s_1", "g_1"); err != nil {
		t.Fatal(err)
	}
	if err := b.RevokeGrant(ctx, "s_1", "g_1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("revoking twice: %v", err)
	}
	if list, _ := b.Grants(ctx, "s_1"); len(list) != 1 || list[0].GrantID != "g_3" {
		t.Fatalf("after the revoke: %+v", list)
	}
}

// testGrantsAreUnique: goroutines racing to grant the same tool and pattern
// all get one grant back, and one is stored.
func testGrantsAreUnique(t *testing.T, b store.Backend) {
	mustCreate(t, b, "s_1")
	const racers = 8
	got := make([]api.SessionGrant, racers)
	errs := make([]error, racers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range racers {
		wg.Go(func() {
			<-start
			got[i], errs[i] = b.AddGrant(ctx, "s_1", api.SessionGrant{GrantID: fmt.Sprintf("g_%d", i), ToolName: "write_file",
				Pattern: "notes/*", CreatedAt: T0.Add(time.Duration(i) * time.Second)})
		})
	}
	close(start)
	wg.Wait()
	for i := range racers {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if got[i] != got[0] {
			t.Errorf("racer %d got %+v, racer 0 %+v", i, got[i], got[0])
		}
	}
	if list, _ := b.Grants(ctx, "s_1"); len(list) != 1 || list[0] != got[0] {
		t.Errorf("stored grants %+v, want only %+v", list, got[0])
	}
}

func testTraceRoundTripAndReplace(t *testing.T, b store.Backend) {
	first := SampleTrace("t_1", "s_1", T0, 10, false, "web_search")
	grown := api.Trace{TraceID: "t_1", SessionID: "s_1", StartedAt: T0, DurationMS: 5400, Success: true,
		Calls: []api.TraceCall{
			{CallID: "m1", Kind: api.CallModel, Arguments: json.RawMessage(`{}`), StartedAt: T0, DurationMS: 900, Success: true},
			{CallID: "c1", ParentID: "m1", Kind: api.CallTool, ToolName: "web_search",
				ExecutionID: "web_search_1763769600123_9f86d081", Arguments: json.RawMessage(`{"query":"go 1.26","token":"***"}`),
				StartedAt: T0.Add(901 * time.Millisecond), DurationMS: 812, Success: true, Result: "three results"},
			{CallID: "c2", ParentID: "m1", Kind: api.CallTool, ToolName: "delete_file",
				Arguments: json.RawMessage(`{"path":"a.txt"}`), StartedAt: T0.Add(2 * time.Second),
				Success: false, Error: "the user denied this call"},
			{CallID: "m2", Kind: api.CallModel, Arguments: json.RawMessage(`{}`), StartedAt: T0.Add(5 * time.Second), DurationMS: 400, Success: true},
		}}
	shrunk := SampleTrace("t_1", "s_1", T0, 20, true)
	for _, c := range []struct {
		name string
		save api.Trace
	}{
		{"first save", first},
		{"saved again after an approval with more calls", grown},
		{"saved again with fewer calls", shrunk},
	} {
		t.Run(c.name, func(t *testing.T) {
			saveTrace(t, b, c.save)
			got, err := b.Trace(ctx, "t_1")
			if err != nil {
				t.Fatal(err)
			}
			want := c.save
			want.StartedAt = ms(want.StartedAt)
			want.Calls = slices.Clone(want.Calls)
			for i := range want.Calls {
				want.Calls[i].StartedAt = ms(want.Calls[i].StartedAt)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Trace =\n%+v\nwant\n%+v", got, want)
			}
			// The tool filter follows the latest save: tools of earlier saves are gone.
			called := map[string]bool{}
			for _, call := range c.save.Calls {
				called[call.ToolName] = true
			}
			for _, tool := range []string{"web_search", "delete_file"} {
				found, err := b.Traces(ctx, store.TraceFilter{Tool: tool})
				if err != nil {
					t.Fatal(err)
				}
				if (len(found) == 1) != called[tool] || len(found) > 1 {
					t.Errorf("Traces(tool=%s) found %d chains, want the chain only if it called %s", tool, len(found), tool)
				}
			}
		})
	}
	if all, _ := b.Traces(ctx, store.TraceFilter{}); len(all) != 1 {
		t.Errorf("%d chains for one trace id, want 1", len(all))
	}
}

// testSaveAppendsTheTrace: saving a growing chain from the index already
// saved stores the whole chain.
func testSaveAppendsTheTrace(t *testing.T, b store.Backend) {
	mustCreate(t, b, "s_1")
	o := store.NewOwner()
	mustAcquire(t, b, "s_1", o, time.Now())
	tr := SampleTrace("t_a", "s_1", T0, 5, true, "web_search")
	saved := 0
	for round := range 3 {
		if round > 0 {
			tr.Calls = append(tr.Calls, api.TraceCall{CallID: fmt.Sprintf("x%d", round), Kind: api.CallTool, ToolName: "read_file",
				Arguments: json.RawMessage(`{}`), StartedAt: T0, Success: true})
		}
		tr.DurationMS = int64(10 * (round + 1))
		if _, err := b.Save(ctx, store.Save{SessionID: "s_1", Owner: o, At: T0, Trace: &tr, TraceFrom: saved}); err != nil {
			t.Fatal(err)
		}
		saved = len(tr.Calls)
	}
	got, err := b.Trace(ctx, "t_a")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Calls) != len(tr.Calls) || got.DurationMS != 30 || got.Calls[len(got.Calls)-1].CallID != "x2" {
		t.Fatalf("stored chain %+v, want %d calls", got, len(tr.Calls))
	}
	list, err := b.Traces(ctx, store.TraceFilter{Tool: "read_file"})
	if err != nil || len(list) != 1 {
		t.Fatalf("by tool: %v %v", TraceIDs(list), err)
	}
}

func testTracesFilters(t *testing.T, b store.Backend) {
	base := ms(T0)
	at := func(m int) time.Time { return base.Add(time.Duration(m) * time.Minute) }
	for _, tr := range []api.Trace{
		SampleTrace("t_a", "s_1", at(0), 100, true, "web_search"),
		SampleTrace("t_b", "s_1", at(1), 2500, false, "read_webpage", "web_search"),
		SampleTrace("t_c", "s_2", at(2), 50, false, "read_file"),
		SampleTrace("t_d", "s_2", at(3), 3000, true),
		SampleTrace("t_e", "s_3", at(4), 1000, false, "web_search"),
		SampleTrace("t_f", "s_3", at(4), 10, true, "read_file", "read_file"),
	} {
		saveTrace(t, b, tr)
	}
	for _, c := range []struct {
		name   string
		filter store.TraceFilter
		want   []string
	}{
		{"no filter: newest first, ties by id", store.TraceFilter{}, []string{"t_f", "t_e", "t_d", "t_c", "t_b", "t_a"}},
		{"tool", store.TraceFilter{Tool: "web_search"}, []string{"t_e", "t_b", "t_a"}},
		{"tool called twice in one chain", store.TraceFilter{Tool: "read_file"}, []string{"t_f", "t_c"}},
		{"tool never called", store.TraceFilter{Tool: "delete_file"}, []string{}},
		{"since is inclusive", store.TraceFilter{Since: at(2)}, []string{"t_f", "t_e", "t_d", "t_c"}},
		{"until is exclusive", store.TraceFilter{Until: at(2)}, []string{"t_b", "t_a"}},
		{"since and until", store.TraceFilter{Since: at(1), Until: at(4)}, []string{"t_d", "t_c", "t_b"}},
		{"min duration", store.TraceFilter{MinDuration: time.Second}, []string{"t_e", "t_d", "t_b"}},
		{"min duration rounds up to whole ms", store.TraceFilter{MinDuration: time.Second + 500*time.Microsecond}, []string{"t_d", "t_b"}},
		{"failed only", store.TraceFilter{FailedOnly: true}, []string{"t_e", "t_c", "t_b"}},
		{"limit", store.TraceFilter{Limit: 2}, []string{"t_f", "t_e"}},
		{"tool and failed", store.TraceFilter{Tool: "web_search", FailedOnly: true}, []string{"t_e", "t_b"}},
		{"every filter at once", store.TraceFilter{Tool: "web_search", FailedOnly: true, MinDuration: 2 * time.Second,
			Since: at(1), Until: at(5), Limit: 10}, []string{"t_b"}},
		{"filters that exclude each other", store.TraceFilter{Tool: "read_file", FailedOnly: true, Since: at(3)}, []string{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := b.Traces(ctx, c.filter)
			if err != nil {
				t.Fatal(err)
			}
			if ids := TraceIDs(got); !slices.Equal(ids, c.want) {
				t.Fatalf("Traces = %v, want %v", ids, c.want)
			}
			if got == nil {
				t.Error("Traces returned nil; want an empty slice so the API answers []")
			}
			// Each chain comes with all of its calls, in call order.
			for _, tr := range got {
				full, err := b.Trace(ctx, tr.TraceID)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(tr, full) {
					t.Errorf("chain %s from Traces differs from Trace:\n%+v\n%+v", tr.TraceID, tr, full)
				}
			}
		})
	}
}

func testTracesLimitBounds(t *testing.T, b store.Backend) {
	mustCreate(t, b, "s_1")
	// One save per chain would make this the slowest test of the suite; a
	// save carries one chain, so chains go in one per save but share a session.
	for i := range store.MaxTraceLimit + 20 {
		tr := SampleTrace(fmt.Sprintf("t_%04d", i), "s_1", T0.Add(time.Duration(i)*time.Second), 5, true)
		save(t, b, store.Save{SessionID: "s_1", At: T0, Trace: &tr})
	}
	for _, c := range []struct {
		name  string
		limit int
		want  int
	}{
		{"zero means the default", 0, store.DefaultTraceLimit},
		{"negative means the default", -3, store.DefaultTraceLimit},
		{"a small limit", 7, 7},
		{"the maximum", store.MaxTraceLimit, store.MaxTraceLimit},
		{"above the maximum is clamped", store.MaxTraceLimit + 10, store.MaxTraceLimit},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := b.Traces(ctx, store.TraceFilter{Limit: c.limit})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != c.want {
				t.Errorf("Limit %d gave %d chains, want %d", c.limit, len(got), c.want)
			}
			if len(got) > 0 && got[0].TraceID != fmt.Sprintf("t_%04d", store.MaxTraceLimit+19) {
				t.Errorf("first chain = %s, want the newest", got[0].TraceID)
			}
		})
	}
}

// testTraceToolIndexMovesWithStart: a chain saved again with a later start is
// found by the tool filter at its new start only, never at the old one.
func testTraceToolIndexMovesWithStart(t *testing.T, b store.Backend) {
	base := ms(T0)
	for _, started := range []time.Time{base, base.Add(time.Hour)} {
		saveTrace(t, b, SampleTrace("t_1", "s_1", started, 5, true, "web_search"))
	}
	for _, c := range []struct {
		name   string
		filter store.TraceFilter
		want   []string
	}{
		{"window around the old start", store.TraceFilter{Tool: "web_search", Until: base.Add(30 * time.Minute)}, []string{}},
		{"window around the new start", store.TraceFilter{Tool: "web_search", Since: base.Add(30 * time.Minute)}, []string{"t_1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := b.Traces(ctx, c.filter)
			if err != nil {
				t.Fatal(err)
			}
			if ids := TraceIDs(got); !slices.Equal(ids, c.want) {
				t.Errorf("Traces = %v, want %v", ids, c.want)
			}
		})
	}
}

func testPruneTraces(t *testing.T, b store.Backend) {
	base := ms(T0)
	at := func(m int) time.Time { return base.Add(time.Duration(m) * time.Minute) }
	// Each case prunes its own chains: ids carry the case's number.
	for n, c := range []struct {
		name      string
		olderThan time.Time
		keep      int
		wantGone  int
		wantLeft  []int
	}{
		{"no limits prune nothing", time.Time{}, 0, 0, []int{5, 4, 3, 2, 1, 0}},
		{"by age", at(2), 0, 2, []int{5, 4, 3, 2}},
		{"by count", time.Time{}, 4, 2, []int{5, 4, 3, 2}},
		{"count above the total", time.Time{}, 10, 0, []int{5, 4, 3, 2, 1, 0}},
		{"age and count together, count stricter", at(1), 3, 3, []int{5, 4, 3}},
		{"age and count together, age stricter", at(4), 5, 4, []int{5, 4}},
		{"everything too old", at(60), 10, 6, []int{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Start from nothing: prune whatever the last case left.
			if _, err := b.PruneTraces(ctx, at(1000), 0); err != nil {
				t.Fatal(err)
			}
			for i := range 6 {
				saveTrace(t, b, SampleTrace(fmt.Sprintf("t_%d_%d", n, i), "s_1", at(i), 5, true, "read_file"))
			}
			gone, err := b.PruneTraces(ctx, c.olderThan, c.keep)
			if err != nil {
				t.Fatal(err)
			}
			if gone != c.wantGone {
				t.Errorf("PruneTraces reported %d gone, want %d", gone, c.wantGone)
			}
			want := []string{}
			for _, i := range c.wantLeft {
				want = append(want, fmt.Sprintf("t_%d_%d", n, i))
			}
			left, err := b.Traces(ctx, store.TraceFilter{})
			if err != nil {
				t.Fatal(err)
			}
			if ids := TraceIDs(left); !slices.Equal(ids, want) {
				t.Errorf("left = %v, want %v", ids, want)
			}
			// The calls of pruned chains go with them: the tool filter finds
			// only what is left, and a pruned chain is not found.
			byTool, _ := b.Traces(ctx, store.TraceFilter{Tool: "read_file"})
			if ids := TraceIDs(byTool); !slices.Equal(ids, want) {
				t.Errorf("left by tool = %v, want %v", ids, want)
			}
			for i := range 6 {
				id := fmt.Sprintf("t_%d_%d", n, i)
				_, err := b.Trace(ctx, id)
				if kept := slices.Contains(want, id); kept != (err == nil) {
					t.Errorf("Trace(%s): %v, kept %v", id, err, kept)
				}
			}
		})
	}
}

// testUndoRecordsAndBlobs: records come back lowest Seq first with their
// bytes, a put replaces the same Seq, blobs come back exactly (the empty one
// too), and a delete takes the record with the blobs it names, leaving the
// others.
func testUndoRecordsAndBlobs(t *testing.T, b store.Backend) {
	recs, err := b.UndoRecords(ctx)
	if err != nil || recs == nil || len(recs) != 0 {
		t.Fatalf("a new backend's undo records: %v, %v; want an empty, non-nil slice", recs, err)
	}
	blob := func(s string) store.UndoBlob { return store.UndoBlob{Hash: "h-" + s, Data: []byte(s)} }
	if err := b.PutUndoRecord(ctx, store.UndoRecord{Seq: 7, Data: []byte(`{"seq":7}`)}, []store.UndoBlob{blob("seven"), {Hash: "h-empty", Data: []byte{}}}); err != nil {
		t.Fatal(err)
	}
	if err := b.PutUndoRecord(ctx, store.UndoRecord{Seq: 3, Data: []byte(`{"seq":3}`)}, []store.UndoBlob{blob("three")}); err != nil {
		t.Fatal(err)
	}
	if err := b.PutUndoRecord(ctx, store.UndoRecord{Seq: 7, Data: []byte(`{"seq":7,"finished":true}`)}, nil); err != nil {
		t.Fatal(err)
	}
	recs, err = b.UndoRecords(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		got = append(got, fmt.Sprintf("%d=%s", r.Seq, r.Data))
	}
	if want := []string{`3={"seq":3}`, `7={"seq":7,"finished":true}`}; !slices.Equal(got, want) {
		t.Errorf("records = %q, want %q", got, want)
	}
	for _, h := range []string{"seven", "three", "empty"} {
		data, err := b.UndoBlob(ctx, "h-"+h)
		want := h
		if h == "empty" {
			want = ""
		}
		if err != nil || string(data) != want || data == nil {
			t.Errorf("blob h-%s = %q, %v; want %q", h, data, err, want)
		}
	}
	if _, err := b.UndoBlob(ctx, "h-none"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an unknown blob: %v, want ErrNotFound", err)
	}
	if err := b.DeleteUndoRecord(ctx, 7, []string{"h-seven", "h-unknown"}); err != nil {
		t.Fatal(err)
	}
	if err := b.DeleteUndoRecord(ctx, 99, nil); err != nil {
		t.Errorf("deleting a record that is not there: %v", err)
	}
	recs, _ = b.UndoRecords(ctx)
	if len(recs) != 1 || recs[0].Seq != 3 {
		t.Errorf("after the delete: %v", recs)
	}
	if _, err := b.UndoBlob(ctx, "h-seven"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a dropped blob is still there: %v", err)
	}
	if _, err := b.UndoBlob(ctx, "h-empty"); err != nil {
		t.Errorf("a blob not named in the delete went: %v", err)
	}
	if err := b.DeleteUndoBlobs(ctx, []string{"h-three", "h-empty"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.UndoBlob(ctx, "h-three"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("DeleteUndoBlobs left h-three: %v", err)
	}
}

// testUndoBlobsAreKeptOnce: a blob put twice (two records, or racing
// writers) is one blob with its first content, and each put succeeds.
func testUndoBlobsAreKeptOnce(t *testing.T, b store.Backend) {
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			blobs := []store.UndoBlob{{Hash: "shared", Data: []byte("same content")}}
			if i%2 == 0 {
				errs[i] = b.PutUndoBlobs(ctx, blobs)
			} else {
				errs[i] = b.PutUndoRecord(ctx, store.UndoRecord{Seq: int64(i), Data: []byte("{}")}, blobs)
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("put %d: %v", i, err)
		}
	}
	if data, err := b.UndoBlob(ctx, "shared"); err != nil || string(data) != "same content" {
		t.Errorf("shared blob = %q, %v", data, err)
	}
	if err := b.PutUndoBlobs(ctx, []store.UndoBlob{{Hash: "shared", Data: []byte("other")}}); err != nil {
		t.Fatal(err)
	}
	if data, _ := b.UndoBlob(ctx, "shared"); string(data) != "same content" {
		t.Errorf("a second put of a kept hash replaced it: %q", data)
	}
}

// testUndoStates: a state comes back as stored, a put replaces it, nil
// removes it, and an unknown key is nil without an error.
func testUndoStates(t *testing.T, b store.Backend) {
	if data, err := b.UndoState(ctx, "journal"); err != nil || data != nil {
		t.Fatalf("an unknown key: %q, %v; want nil, nil", data, err)
	}
	for _, v := range []string{`{"a":1}`, `{"a":2}`} {
		if err := b.PutUndoState(ctx, "session:s1", []byte(v)); err != nil {
			t.Fatal(err)
		}
		if data, err := b.UndoState(ctx, "session:s1"); err != nil || string(data) != v {
			t.Errorf("state = %q, %v; want %s", data, err, v)
		}
	}
	if err := b.PutUndoState(ctx, "session:s2", []byte("other")); err != nil {
		t.Fatal(err)
	}
	if err := b.PutUndoState(ctx, "session:s1", nil); err != nil {
		t.Fatal(err)
	}
	if data, err := b.UndoState(ctx, "session:s1"); err != nil || data != nil {
		t.Errorf("a removed key: %q, %v", data, err)
	}
	if data, _ := b.UndoState(ctx, "session:s2"); string(data) != "other" {
		t.Errorf("removing one key touched another: %q", data)
	}
}
