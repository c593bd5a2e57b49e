package store

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

func raw(ss ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(ss))
	for i, s := range ss {
		out[i] = json.RawMessage(s)
	}
	return out
}

func TestCreateSession(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	if err := s.CreateSession(ctx, "s_1", "plan a trip", t0); err != nil {
		t.Fatal(err)
	}
	got, err := s.Session(ctx, "s_1")
	if err != nil {
		t.Fatal(err)
	}
	want := Session{ID: "s_1", Title: "plan a trip", CreatedAt: t0.Truncate(time.Millisecond).UTC(), UpdatedAt: t0.Truncate(time.Millisecond).UTC()}
	if got != want {
		t.Errorf("Session = %+v, want %+v", got, want)
	}

	// The title is set once: creating the id again fails and changes nothing.
	err = s.CreateSession(ctx, "s_1", "other", t0.Add(time.Hour))
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("second CreateSession: err = %v, want already exists", err)
	}
	if again, _ := s.Session(ctx, "s_1"); again != want {
		t.Errorf("after the refused create, Session = %+v, want %+v", again, want)
	}
	if msgs, err := s.Messages(ctx, "s_1"); err != nil || msgs == nil || len(msgs) != 0 {
		t.Errorf("Messages of a new session = %#v, %v; want an empty non-nil slice", msgs, err)
	}
	if p, err := s.Pending(ctx, "s_1"); err != nil || p != nil {
		t.Errorf("Pending of a new session = %s, %v; want nil, nil", p, err)
	}
}

func TestSessionsNewestUpdatedFirst(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	if got, err := s.Sessions(ctx); err != nil || got == nil || len(got) != 0 {
		t.Fatalf("Sessions of an empty store = %#v, %v; want an empty non-nil slice", got, err)
	}
	for i, id := range []string{"s_a", "s_b", "s_c"} {
		if err := s.CreateSession(ctx, id, id, t0.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	// A turn on the oldest session brings it to the top.
	if err := s.SaveTurn(ctx, "s_a", raw(`{"m":1}`), json.RawMessage(`{"p":1}`), t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	got, err := s.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, sess := range got {
		ids = append(ids, sess.ID)
	}
	if want := []string{"s_a", "s_c", "s_b"}; !slices.Equal(ids, want) {
		t.Errorf("Sessions order = %v, want %v", ids, want)
	}
	if !got[0].PendingApproval || got[1].PendingApproval {
		t.Errorf("PendingApproval flags = %v, %v; want true, false", got[0].PendingApproval, got[1].PendingApproval)
	}
	if !got[0].UpdatedAt.Equal(t0.Add(time.Hour).Truncate(time.Millisecond)) || !got[0].CreatedAt.Equal(t0.Truncate(time.Millisecond)) {
		t.Errorf("times of s_a = %v / %v", got[0].CreatedAt, got[0].UpdatedAt)
	}
}

func TestSaveTurnAppendsInOrder(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	for _, id := range []string{"s_1", "s_2"} {
		if err := s.CreateSession(ctx, id, id, t0); err != nil {
			t.Fatal(err)
		}
	}
	turns := [][]json.RawMessage{
		raw(`{"role":"user","content":"one"}`, `{"role":"assistant","content":"two"}`),
		nil, // a turn that only changes the pending state appends nothing
		raw(`{"role":"tool","content":"three"}`),
		raw(`{"role":"user", "content":  "spacing kept" }`),
	}
	for i, turn := range turns {
		if err := s.SaveTurn(ctx, "s_1", turn, nil, t0.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
		// Interleave another session so append order cannot come from luck of ids.
		if err := s.SaveTurn(ctx, "s_2", raw(`{"other":true}`), nil, t0); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Messages(ctx, "s_1")
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
	sess, _ := s.Session(ctx, "s_1")
	if want := t0.Add(3 * time.Second).Truncate(time.Millisecond); !sess.UpdatedAt.Equal(want) {
		t.Errorf("updated_at = %v, want %v", sess.UpdatedAt, want)
	}
}

func TestSaveTurnPending(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	if err := s.CreateSession(ctx, "s_1", "t", t0); err != nil {
		t.Fatal(err)
	}
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
			if err := s.SaveTurn(ctx, "s_1", nil, c.pending, t0); err != nil {
				t.Fatal(err)
			}
			got, err := s.Pending(ctx, "s_1")
			if err != nil {
				t.Fatal(err)
			}
			if c.want == "" && got != nil || c.want != "" && string(got) != c.want {
				t.Errorf("Pending = %q, want %q", got, c.want)
			}
			sess, _ := s.Session(ctx, "s_1")
			if sess.PendingApproval != (c.want != "") {
				t.Errorf("PendingApproval = %v, want %v", sess.PendingApproval, c.want != "")
			}
		})
	}
}

// countRows looks under the API, so a leak that no method would show is caught.
func countRows(t *testing.T, s *Store, table string) int {
	t.Helper()
	var n int
	if err := s.read.QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSaveTurnIsAllOrNothing(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name     string
		session  string
		messages []json.RawMessage
		pending  json.RawMessage
		setup    func(t *testing.T, s *Store)
		wantErr  string
	}{
		{
			name: "unknown session", session: "ghost",
			messages: raw(`{"a":1}`, `{"b":2}`), pending: json.RawMessage(`{"p":1}`),
			wantErr: "not found",
		},
		{
			name: "invalid message JSON", session: "s_1",
			messages: raw(`{"a":1}`, `{"b":`), pending: json.RawMessage(`{"p":1}`),
			wantErr: "message 1 is not valid JSON",
		},
		{
			name: "invalid pending JSON", session: "s_1",
			messages: raw(`{"a":1}`), pending: json.RawMessage(`{"p":`),
			wantErr: "pending approval is not valid JSON",
		},
		{
			// A failure inside the transaction, after the session row and the first
			// message were written, must roll all of it back.
			name: "insert fails midway", session: "s_1",
			messages: raw(`{"a":1}`, `"boom"`), pending: json.RawMessage(`{"p":1}`),
			setup: func(t *testing.T, s *Store) {
				if _, err := s.write.Exec(`CREATE TRIGGER boom BEFORE INSERT ON messages
					WHEN NEW.body = '"boom"' BEGIN SELECT RAISE(ABORT, 'boom'); END`); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: "boom",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := openTest(t)
			if err := s.CreateSession(ctx, "s_1", "t", t0); err != nil {
				t.Fatal(err)
			}
			if c.setup != nil {
				c.setup(t, s)
			}
			err := s.SaveTurn(ctx, c.session, c.messages, c.pending, t0.Add(time.Hour))
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("SaveTurn err = %v, want one containing %q", err, c.wantErr)
			}
			if n := countRows(t, s, "messages"); n != 0 {
				t.Errorf("%d messages left behind", n)
			}
			sess, _ := s.Session(ctx, "s_1")
			if sess.PendingApproval || !sess.UpdatedAt.Equal(t0.Truncate(time.Millisecond)) {
				t.Errorf("session changed by a failed SaveTurn: %+v", sess)
			}
			if _, err := s.Session(ctx, "ghost"); err == nil {
				t.Error("a failed SaveTurn created a session")
			}
		})
	}
}

func TestDeleteSession(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	for _, id := range []string{"s_gone", "s_kept"} {
		if err := s.CreateSession(ctx, id, id, t0); err != nil {
			t.Fatal(err)
		}
		if err := s.SaveTurn(ctx, id, raw(`{"m":1}`, `{"m":2}`), json.RawMessage(`{"p":1}`), t0); err != nil {
			t.Fatal(err)
		}
	}
	exec := sampleExecution("s_gone")
	if err := s.RecordExecution(ctx, exec); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveTrace(ctx, sampleTrace("t_1", "s_gone", t0, 10, true, "read_file")); err != nil {
		t.Fatal(err)
	}

	if err := s.DeleteSession(ctx, "s_gone"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Session(ctx, "s_gone"); err == nil {
		t.Error("the session is still there")
	}
	if n := countRows(t, s, "messages"); n != 2 {
		t.Errorf("%d messages left, want only the 2 of s_kept", n)
	}
	if p, err := s.Pending(ctx, "s_kept"); err != nil || p == nil {
		t.Errorf("the other session's pending state went: %s, %v", p, err)
	}
	if _, err := s.Execution(ctx, exec.ExecutionID); err != nil {
		t.Errorf("the ledger record went with the session: %v", err)
	}
	if _, err := s.Trace(ctx, "t_1"); err != nil {
		t.Errorf("the trace went with the session: %v", err)
	}
	// The id is free again, with a fresh title and no old messages.
	if err := s.CreateSession(ctx, "s_gone", "again", t0); err != nil {
		t.Fatal(err)
	}
	if msgs, _ := s.Messages(ctx, "s_gone"); len(msgs) != 0 {
		t.Errorf("a recreated session sees %d old messages", len(msgs))
	}
}
