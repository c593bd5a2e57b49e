package store

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
)

// sampleTrace is a chain of one model round with one tool call per name under it.
func sampleTrace(id, session string, started time.Time, durationMS int64, success bool, tools ...string) api.Trace {
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

func traceIDs(ts []api.Trace) []string {
	ids := []string{}
	for _, t := range ts {
		ids = append(ids, t.TraceID)
	}
	return ids
}

func TestSaveTraceRoundTripAndUpsert(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	first := sampleTrace("t_1", "s_1", t0, 10, false, "web_search")
	grown := api.Trace{TraceID: "t_1", SessionID: "s_1", StartedAt: t0, DurationMS: 5400, Success: true,
		Calls: []api.TraceCall{
			{CallID: "m1", Kind: api.CallModel, Arguments: json.RawMessage(`{}`), StartedAt: t0, DurationMS: 900, Success: true},
			{CallID: "c1", ParentID: "m1", Kind: api.CallTool, ToolName: "web_search",
				ExecutionID: "web_search_1763769600123_9f86d081", Arguments: json.RawMessage(`{"query":"go 1.26","token":"***"}`),
				StartedAt: t0.Add(901 * time.Millisecond), DurationMS: 812, Success: true, Result: "three results"},
			{CallID: "c2", ParentID: "m1", Kind: api.CallTool, ToolName: "delete_file",
				Arguments: json.RawMessage(`{"path":"a.txt"}`), StartedAt: t0.Add(2 * time.Second),
				Success: false, Error: "the user denied this call"},
			{CallID: "m2", Kind: api.CallModel, Arguments: json.RawMessage(`{}`), StartedAt: t0.Add(5 * time.Second), DurationMS: 400, Success: true},
		}}
	shrunk := sampleTrace("t_1", "s_1", t0, 20, true)

	for _, c := range []struct {
		name string
		save api.Trace
	}{
		{"first save", first},
		{"saved again after an approval with more calls", grown},
		{"saved again with fewer calls", shrunk},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := s.SaveTrace(ctx, c.save); err != nil {
				t.Fatal(err)
			}
			got, err := s.Trace(ctx, "t_1")
			if err != nil {
				t.Fatal(err)
			}
			want := c.save
			want.StartedAt = want.StartedAt.Truncate(time.Millisecond).UTC()
			want.Calls = slices.Clone(want.Calls)
			for i := range want.Calls {
				want.Calls[i].StartedAt = want.Calls[i].StartedAt.Truncate(time.Millisecond).UTC()
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Trace =\n%+v\nwant\n%+v", got, want)
			}
			if n := countRows(t, s, "trace_calls"); n != len(c.save.Calls) {
				t.Errorf("%d call rows stored, want %d", n, len(c.save.Calls))
			}
			// The tool filter follows the latest save: tools of earlier saves are gone.
			called := map[string]bool{}
			for _, call := range c.save.Calls {
				called[call.ToolName] = true
			}
			for _, tool := range []string{"web_search", "delete_file"} {
				found, err := s.Traces(ctx, TraceFilter{Tool: tool})
				if err != nil {
					t.Fatal(err)
				}
				if (len(found) == 1) != called[tool] || len(found) > 1 {
					t.Errorf("Traces(tool=%s) found %d chains, want the chain only if it called %s", tool, len(found), tool)
				}
			}
		})
	}
	if n := countRows(t, s, "traces"); n != 1 {
		t.Errorf("%d chain rows for one trace id, want 1", n)
	}
}

func TestTracesFilters(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	base := t0.Truncate(time.Millisecond)
	at := func(m int) time.Time { return base.Add(time.Duration(m) * time.Minute) }
	for _, tr := range []api.Trace{
		sampleTrace("t_a", "s_1", at(0), 100, true, "web_search"),
		sampleTrace("t_b", "s_1", at(1), 2500, false, "read_webpage", "web_search"),
		sampleTrace("t_c", "s_2", at(2), 50, false, "read_file"),
		sampleTrace("t_d", "s_2", at(3), 3000, true),
		sampleTrace("t_e", "s_3", at(4), 1000, false, "web_search"),
		sampleTrace("t_f", "s_3", at(4), 10, true, "read_file", "read_file"),
	} {
		if err := s.SaveTrace(ctx, tr); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name   string
		filter TraceFilter
		want   []string
	}{
		{"no filter: newest first, ties by id", TraceFilter{}, []string{"t_f", "t_e", "t_d", "t_c", "t_b", "t_a"}},
		{"tool", TraceFilter{Tool: "web_search"}, []string{"t_e", "t_b", "t_a"}},
		{"tool called twice in one chain", TraceFilter{Tool: "read_file"}, []string{"t_f", "t_c"}},
		{"tool never called", TraceFilter{Tool: "delete_file"}, []string{}},
		{"since is inclusive", TraceFilter{Since: at(2)}, []string{"t_f", "t_e", "t_d", "t_c"}},
		{"until is exclusive", TraceFilter{Until: at(2)}, []string{"t_b", "t_a"}},
		{"since and until", TraceFilter{Since: at(1), Until: at(4)}, []string{"t_d", "t_c", "t_b"}},
		{"min duration", TraceFilter{MinDuration: time.Second}, []string{"t_e", "t_d", "t_b"}},
		{"min duration rounds up to whole ms", TraceFilter{MinDuration: time.Second + 500*time.Microsecond}, []string{"t_d", "t_b"}},
		{"failed only", TraceFilter{FailedOnly: true}, []string{"t_e", "t_c", "t_b"}},
		{"limit", TraceFilter{Limit: 2}, []string{"t_f", "t_e"}},
		{"tool and failed", TraceFilter{Tool: "web_search", FailedOnly: true}, []string{"t_e", "t_b"}},
		{"every filter at once", TraceFilter{Tool: "web_search", FailedOnly: true, MinDuration: 2 * time.Second,
			Since: at(1), Until: at(5), Limit: 10}, []string{"t_b"}},
		{"filters that exclude each other", TraceFilter{Tool: "read_file", FailedOnly: true, Since: at(3)}, []string{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := s.Traces(ctx, c.filter)
			if err != nil {
				t.Fatal(err)
			}
			if ids := traceIDs(got); !slices.Equal(ids, c.want) {
				t.Fatalf("Traces = %v, want %v", ids, c.want)
			}
			if got == nil {
				t.Error("Traces returned nil; want an empty slice so the API answers []")
			}
			// Each chain comes with all of its calls, in call order.
			for _, tr := range got {
				full, err := s.Trace(ctx, tr.TraceID)
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

func TestTracesLimitBounds(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	for i := range MaxTraceLimit + 20 {
		if err := s.SaveTrace(ctx, sampleTrace(fmt.Sprintf("t_%04d", i), "s_1", t0.Add(time.Duration(i)*time.Second), 5, true)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name  string
		limit int
		want  int
	}{
		{"zero means the default", 0, DefaultTraceLimit},
		{"negative means the default", -3, DefaultTraceLimit},
		{"a small limit", 7, 7},
		{"the maximum", MaxTraceLimit, MaxTraceLimit},
		{"above the maximum is clamped", MaxTraceLimit + 10, MaxTraceLimit},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := s.Traces(ctx, TraceFilter{Limit: c.limit})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != c.want {
				t.Errorf("Limit %d gave %d chains, want %d", c.limit, len(got), c.want)
			}
			if len(got) > 0 && got[0].TraceID != fmt.Sprintf("t_%04d", MaxTraceLimit+19) {
				t.Errorf("first chain = %s, want the newest", got[0].TraceID)
			}
		})
	}
}

func TestPruneTraces(t *testing.T) {
	ctx := context.Background()
	base := t0.Truncate(time.Millisecond)
	at := func(m int) time.Time { return base.Add(time.Duration(m) * time.Minute) }
	for _, c := range []struct {
		name      string
		olderThan time.Time
		keep      int
		wantGone  int
		wantLeft  []string
	}{
		{"no limits prune nothing", time.Time{}, 0, 0, []string{"t_5", "t_4", "t_3", "t_2", "t_1", "t_0"}},
		{"by age", at(2), 0, 2, []string{"t_5", "t_4", "t_3", "t_2"}},
		{"by count", time.Time{}, 4, 2, []string{"t_5", "t_4", "t_3", "t_2"}},
		{"count above the total", time.Time{}, 10, 0, []string{"t_5", "t_4", "t_3", "t_2", "t_1", "t_0"}},
		{"age and count together, count stricter", at(1), 3, 3, []string{"t_5", "t_4", "t_3"}},
		{"age and count together, age stricter", at(4), 5, 4, []string{"t_5", "t_4"}},
		{"everything too old", at(60), 10, 6, []string{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := openTest(t)
			for i := range 6 {
				if err := s.SaveTrace(ctx, sampleTrace(fmt.Sprintf("t_%d", i), "s_1", at(i), 5, true, "read_file")); err != nil {
					t.Fatal(err)
				}
			}
			gone, err := s.PruneTraces(ctx, c.olderThan, c.keep)
			if err != nil {
				t.Fatal(err)
			}
			if gone != c.wantGone {
				t.Errorf("PruneTraces reported %d gone, want %d", gone, c.wantGone)
			}
			left, err := s.Traces(ctx, TraceFilter{})
			if err != nil {
				t.Fatal(err)
			}
			if ids := traceIDs(left); !slices.Equal(ids, c.wantLeft) {
				t.Errorf("left = %v, want %v", ids, c.wantLeft)
			}
			// Two calls per chain: the calls of pruned chains must go with them.
			if n := countRows(t, s, "trace_calls"); n != 2*len(c.wantLeft) {
				t.Errorf("%d call rows left, want %d", n, 2*len(c.wantLeft))
			}
			if n := countRows(t, s, "trace_tools"); n != len(c.wantLeft) {
				t.Errorf("%d tool index rows left, want %d", n, len(c.wantLeft))
			}
		})
	}
}

// A chain saved again with a later start must be found by the tool filter at its
// new start only, never at the old one.
func TestSaveTraceMovesToolIndexWithStart(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	base := t0.Truncate(time.Millisecond)
	for _, started := range []time.Time{base, base.Add(time.Hour)} {
		if err := s.SaveTrace(ctx, sampleTrace("t_1", "s_1", started, 5, true, "web_search")); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name   string
		filter TraceFilter
		want   []string
	}{
		{"window around the old start", TraceFilter{Tool: "web_search", Until: base.Add(30 * time.Minute)}, []string{}},
		{"window around the new start", TraceFilter{Tool: "web_search", Since: base.Add(30 * time.Minute)}, []string{"t_1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := s.Traces(ctx, c.filter)
			if err != nil {
				t.Fatal(err)
			}
			if ids := traceIDs(got); !slices.Equal(ids, c.want) {
				t.Errorf("Traces = %v, want %v", ids, c.want)
			}
		})
	}
}
