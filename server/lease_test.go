package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/llm/llmtest"
	"github.com/ailab/ai-lab/server"
	"github.com/ailab/ai-lab/store"
	"github.com/ailab/ai-lab/store/sqlite"
)

// leaseRig is a server whose session leases last 300 ms (renewed every 100
// ms), over a faultStore, after a first quick turn that made its session;
// other is a second store on the same state, as another ai-server process on
// the same state_dir opens it.
type leaseRig struct {
	*rig
	fs      *faultStore
	other   *sqlite.Store
	session string
}

func newLeaseRig(t *testing.T, fs *faultStore, slow llmtest.Step) leaseRig {
	t.Helper()
	t.Cleanup(server.SetLeaseTerm(300 * time.Millisecond))
	dir := t.TempDir()
	model := llmtest.NewServer(t, llmtest.Text("hello"), slow)
	cfg := rigConfig(t, dir, "moderate", model.URL())
	r := newRig(t, dir, cfg, wireModels(30*time.Second), func(db *sqlite.Store) server.Store {
		fs.Store = db
		return fs
	})
	var first api.TurnReply
	if code := r.call("POST", "/chat", api.ChatRequest{Message: "hi"}, &first); code != 200 {
		t.Fatalf("first turn: %d %+v", code, first)
	}
	other, err := sqlite.Open(filepath.Join(dir, "state", server.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	return leaseRig{rig: r, fs: fs, other: other, session: first.SessionID}
}

// chat plays a turn on the rig's session in the background; the returned
// function waits for its status and how long it took.
func (lr leaseRig) chat() (wait func() (int, time.Duration)) {
	var code int
	var took time.Duration
	var wg sync.WaitGroup
	wg.Add(1)
	start := time.Now()
	go func() {
		defer wg.Done()
		code = doJSONQuiet(lr.http.URL, lr.token, "POST", "/chat", api.ChatRequest{Message: "take your time", SessionID: lr.session}, nil)
		took = time.Since(start)
	}()
	return func() (int, time.Duration) { wg.Wait(); return code, took }
}

// TestALongTurnKeepsItsLease: a turn that outlasts its lease term renews the
// lease while it runs, so another process on the same state cannot take the
// session over under it, however long the model takes.
func TestALongTurnKeepsItsLease(t *testing.T) {
	lr := newLeaseRig(t, &faultStore{}, llmtest.Delay(1200*time.Millisecond, llmtest.Text("done")))
	wait := lr.chat()
	start := time.Now()
	for _, at := range []time.Duration{500 * time.Millisecond, 1000 * time.Millisecond} {
		time.Sleep(time.Until(start.Add(at)))
		_, err := lr.other.Acquire(context.Background(), lr.session, store.NewOwner(), time.Now(), time.Minute)
		if !errors.Is(err, store.ErrBusy) {
			t.Fatalf("another process acquired the session %v into a turn that holds it: %v, want ErrBusy", at, err)
		}
	}
	if code, _ := wait(); code != 200 {
		t.Fatalf("the long turn answered %d, want 200", code)
	}
}

// TestALostLeaseStopsTheTurn: a server whose renewals stall past its lease
// loses the session to another process; the next renewal finds the lease
// gone and stops the turn at once, without waiting for the model, and none of
// its writes lands over the new holder's.
func TestALostLeaseStopsTheTurn(t *testing.T) {
	gate := make(chan struct{})
	fs := &faultStore{blocks: map[string]func(){"Renew": func() { <-gate }}}
	lr := newLeaseRig(t, fs, llmtest.Delay(5*time.Second, llmtest.Text("too late")))
	before, err := lr.other.Messages(context.Background(), lr.session)
	if err != nil {
		t.Fatal(err)
	}
	wait := lr.chat()
	time.Sleep(600 * time.Millisecond) // the first renewal is stuck; the lease lapses
	successor := store.NewOwner()
	lease, err := lr.other.Acquire(context.Background(), lr.session, successor, time.Now(), time.Minute)
	if err != nil || !lease.TookOver {
		t.Fatalf("the other process could not take the lapsed session over: %+v %v", lease, err)
	}
	close(gate) // the stuck renewal now finds the lease taken
	code, took := wait()
	if code == 200 {
		t.Errorf("the turn that lost its lease answered 200")
	}
	if took > 3*time.Second {
		t.Errorf("the turn ended %v after it began, want it stopped when its renewal found the lease lost (the model answers at 5 s)", took)
	}
	after, err := lr.other.Messages(context.Background(), lr.session)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Errorf("the session has %d messages after the lost turn, want the %d it had: the old holder wrote over its successor", len(after), len(before))
	}
	if _, err := lr.other.Save(context.Background(), store.Save{SessionID: lr.session, Owner: successor, At: time.Now(),
		Messages: []json.RawMessage{json.RawMessage(`{"role":"user","content":"mine now"}`)}}); err != nil {
		t.Errorf("the successor cannot save under its lease: %v", err)
	}
}
