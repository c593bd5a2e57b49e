package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/store"
)

// BenchmarkStartFinishExecution measures the ledger writes every tool run
// pays: its start record, committed before it runs, and its end record. It
// reports the WAL's high-water mark too.
func BenchmarkStartFinishExecution(b *testing.B) {
	ctx := context.Background()
	s, _ := openTest(b)
	if err := s.CreateSession(ctx, "s_bench", "t", t0); err != nil {
		b.Fatal(err)
	}
	o := store.NewOwner()
	if _, err := s.Acquire(ctx, "s_bench", o, time.Now(), time.Hour); err != nil {
		b.Fatal(err)
	}
	e := api.Execution{ToolName: "web_search", Arguments: json.RawMessage(`{"query":"go 1.26 release notes","max_results":5}`),
		SessionID: "s_bench", StartedAt: t0}
	b.SetBytes(int64(len(e.Arguments)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		e.ExecutionID = fmt.Sprintf("web_search_1763769600123_%08x", i)
		i++
		if err := s.StartExecution(ctx, store.Start{Execution: e, CallKey: e.ExecutionID, Owner: o}); err != nil {
			b.Fatal(err)
		}
		done := e
		done.DurationMS, done.Completed = 812, true
		if err := s.FinishExecution(ctx, o, done, `{"result":"ok"}`); err != nil {
			b.Fatal(err)
		}
	}
	_, peak := s.WALBytes()
	b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "runs/s")
	b.ReportMetric(float64(peak)/(1<<20), "wal-peak-MB")
}

// BenchmarkTraces measures GET /traces over 10,000 stored chains of three or four
// calls each.
func BenchmarkTraces(b *testing.B) {
	ctx := context.Background()
	s, _ := openTest(b)
	const chains = 10_000
	tools := []string{"web_search", "read_webpage", "read_file", "write_file", "list_directory"}
	for i := range chains {
		called := []string{tools[i%len(tools)], tools[(i/3)%len(tools)]}
		if i%1000 == 0 {
			called = append(called, "delete_file") // a rare tool: ten chains in all
		}
		tr := sampleTrace(fmt.Sprintf("t_%05d", i), fmt.Sprintf("s_%d", i%100), t0.Add(time.Duration(i)*time.Second),
			int64(i%5000), i%7 != 0, called...)
		if err := s.saveTrace(ctx, tr); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range []struct {
		name   string
		filter store.TraceFilter
	}{
		{"newest_50", store.TraceFilter{}},
		{"common_tool", store.TraceFilter{Tool: "read_webpage"}},
		{"rare_tool", store.TraceFilter{Tool: "delete_file"}},
		{"failed_min_duration", store.TraceFilter{FailedOnly: true, MinDuration: 4 * time.Second}},
		{"window", store.TraceFilter{Since: t0.Add(2 * time.Hour), Until: t0.Add(2*time.Hour + 30*time.Minute)}},
		{"all_filters", store.TraceFilter{Tool: "web_search", FailedOnly: true, MinDuration: time.Second,
			Since: t0, Until: t0.Add(chains * time.Second), Limit: 100}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var found int
			for b.Loop() {
				got, err := s.Traces(ctx, c.filter)
				if err != nil {
					b.Fatal(err)
				}
				found = len(got)
			}
			if found == 0 {
				b.Fatal("the filter matched no chain; the benchmark would measure nothing")
			}
			b.ReportMetric(float64(found), "chains/op")
		})
	}
}

// BenchmarkSaveToolTurn measures the save that ends a turn with one tool
// round, as the server makes it: four messages (the user's, the call, the
// tool's result, the answer), the session's row and lease, and the turn's
// trace of three calls, in one transaction, for 100 sessions in turn.
func BenchmarkSaveToolTurn(b *testing.B) {
	ctx := context.Background()
	s, _ := openTest(b)
	owners := make([]store.Owner, 100)
	for i := range owners {
		id := fmt.Sprintf("s_%03d", i)
		if err := s.CreateSession(ctx, id, "t", t0); err != nil {
			b.Fatal(err)
		}
		owners[i] = store.NewOwner()
	}
	msgs := []json.RawMessage{
		json.RawMessage(`{"role":"user","content":"please look at the files in the workspace"}`),
		json.RawMessage(`{"role":"assistant","tool_calls":[{"id":"call_1","name":"list_directory","arguments":"{\"path\":\".\"}"}]}`),
		json.RawMessage(`{"role":"tool","tool_call_id":"call_1","content":"{\"execution_id\":\"list_directory_1763769600123_0a1b2c3d\",\"result\":{\"entries\":[\"a.txt\",\"b.txt\",\"notes/\"]}}"}`),
		json.RawMessage(`{"role":"assistant","content":"The workspace has a.txt, b.txt and notes/ (execution_id: list_directory_1763769600123_0a1b2c3d)."}`),
	}
	var size int64
	for _, m := range msgs {
		size += int64(len(m))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		n := i % len(owners)
		id := fmt.Sprintf("s_%03d", n)
		now := t0.Add(time.Duration(i) * time.Millisecond)
		if _, err := s.Acquire(ctx, id, owners[n], now, time.Hour); err != nil {
			b.Fatal(err)
		}
		tr := api.Trace{TraceID: fmt.Sprintf("t_%d", i), SessionID: id, StartedAt: now, DurationMS: 900, Success: true, Calls: []api.TraceCall{
			{CallID: "c1", Kind: "llm", StartedAt: now, DurationMS: 400, Success: true},
			{CallID: "c2", ParentID: "c1", Kind: "tool", ToolName: "list_directory", ExecutionID: "list_directory_1763769600123_0a1b2c3d", Arguments: json.RawMessage(`{"path":"."}`), StartedAt: now, DurationMS: 1, Success: true, Result: `{"entries":["a.txt"]}`},
			{CallID: "c3", Kind: "llm", StartedAt: now, DurationMS: 400, Success: true},
		}}
		if _, err := s.Save(ctx, store.Save{SessionID: id, Owner: owners[n], Messages: msgs, At: now, Trace: &tr, Release: true}); err != nil {
			b.Fatal(err)
		}
		i++
	}
	_, peak := s.WALBytes()
	b.ReportMetric(float64(peak)/(1<<20), "wal-peak-MB")
}

// BenchmarkConcurrentTurnWrites is the four writes of a turn with one tool
// round (the lease, the run's start with its undo record, the round, the
// answer with the lease's release) made by many sessions at once with no
// pause between turns: the store's capacity. "grouped" commits the writes
// that wait together (group commit), "alone" commits each by itself. It
// reports turns/s and the writes per transaction.
func BenchmarkConcurrentTurnWrites(b *testing.B) {
	for _, sessions := range []int{16, 100} {
		for _, mode := range []string{"alone", "grouped"} {
			b.Run(fmt.Sprintf("sessions=%d/%s", sessions, mode), func(b *testing.B) {
				benchTurnWrites(b, sessions, mode == "alone")
			})
		}
	}
}

func benchTurnWrites(b *testing.B, sessions int, alone bool) {
	ctx := context.Background()
	s, _ := openTest(b)
	s.commits.alone = alone
	for i := range sessions {
		if err := s.CreateSession(ctx, fmt.Sprintf("s_%03d", i), "t", t0); err != nil {
			b.Fatal(err)
		}
	}
	round := []json.RawMessage{
		json.RawMessage(`{"role":"user","content":"please write the notes"}`),
		json.RawMessage(`{"role":"assistant","tool_calls":[{"id":"call_1","name":"write_file","arguments":"{\"path\":\"notes.txt\",\"content\":\"hello\"}"}]}`),
		json.RawMessage(`{"role":"tool","tool_call_id":"call_1","content":"{\"execution_id\":\"write_file_1763769600123_0a1b2c3d\",\"result\":{\"written\":5}}"}`),
	}
	answer := []json.RawMessage{json.RawMessage(`{"role":"assistant","content":"Written (execution_id: write_file_1763769600123_0a1b2c3d)."}`)}
	var next atomic.Int64
	var undoSeq atomic.Int64
	b.ResetTimer()
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	for n := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("s_%03d", n)
			o := store.NewOwner()
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				if err := turnWrites(ctx, s, id, o, i, undoSeq.Add(1), round, answer); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	s.commits.mu.Lock()
	groups, grouped := s.commits.groups, s.commits.grouped
	s.commits.mu.Unlock()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "turns/s")
	if groups > 0 {
		b.ReportMetric(float64(grouped)/float64(groups), "writes/commit")
	}
}

// turnWrites makes the writes of turn i of session id as the server does,
// but for the chain: the server saves it once, whole, with the answer (or
// with a pause for approval, then from where it stopped), where this saves it
// with the round and again with the answer, as a turn continued after an
// approval does. It is left so to keep the figures comparable across rounds.
func turnWrites(ctx context.Context, s *Store, id string, o store.Owner, i, seq int64, round, answer []json.RawMessage) error {
	now := t0.Add(time.Duration(i) * time.Millisecond)
	if _, err := s.Acquire(ctx, id, o, now, time.Hour); err != nil {
		return err
	}
	e := api.Execution{ExecutionID: fmt.Sprintf("write_file_1763769600123_%08x", i), ToolName: "write_file",
		Arguments: json.RawMessage(`{"path":"notes.txt","content":"hello"}`), SessionID: id, StartedAt: now}
	undo := &store.UndoPut{Record: store.UndoRecord{Seq: seq, Data: []byte(`{"execution_id":"` + e.ExecutionID + `","paths":["notes.txt"]}`)}}
	if err := s.StartExecution(ctx, store.Start{Execution: e, CallKey: e.ExecutionID, Owner: o, Undo: undo}); err != nil {
		return err
	}
	done := e
	done.DurationMS, done.Completed = 1, true
	tr := api.Trace{TraceID: fmt.Sprintf("t_%d", i), SessionID: id, StartedAt: now, DurationMS: 900, Success: true, Calls: []api.TraceCall{
		{CallID: "c1", Kind: "llm", StartedAt: now, DurationMS: 400, Success: true},
		{CallID: "c2", ParentID: "c1", Kind: "tool", ToolName: "write_file", ExecutionID: e.ExecutionID, Arguments: e.Arguments, StartedAt: now, DurationMS: 1, Success: true, Result: `{"written":5}`},
	}}
	if _, err := s.Save(ctx, store.Save{SessionID: id, Owner: o, Messages: round, At: now, Trace: &tr,
		Finished: []store.Finish{{Execution: done, Outcome: `{"written":5}`}}}); err != nil {
		return err
	}
	tr.Calls = append(tr.Calls, api.TraceCall{CallID: "c3", Kind: "llm", StartedAt: now, DurationMS: 400, Success: true})
	_, err := s.Save(ctx, store.Save{SessionID: id, Owner: o, Messages: answer, At: now, Trace: &tr, TraceFrom: 2, Release: true})
	return err
}
