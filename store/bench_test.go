package store

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
)

// BenchmarkRecordExecution measures one ledger write, the cost every tool run pays
// twice (at start and at end).
func BenchmarkRecordExecution(b *testing.B) {
	ctx := context.Background()
	s, _ := openTest(b)
	e := api.Execution{ToolName: "web_search", Arguments: json.RawMessage(`{"query":"go 1.26 release notes","max_results":5}`),
		SessionID: "s_bench", StartedAt: t0, DurationMS: 812, Completed: true}
	b.SetBytes(int64(len(e.Arguments)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		e.ExecutionID = fmt.Sprintf("web_search_1763769600123_%08x", i)
		i++
		if err := s.RecordExecution(ctx, e); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "records/s")
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
		if err := s.SaveTrace(ctx, tr); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range []struct {
		name   string
		filter TraceFilter
	}{
		{"newest_50", TraceFilter{}},
		{"common_tool", TraceFilter{Tool: "read_webpage"}},
		{"rare_tool", TraceFilter{Tool: "delete_file"}},
		{"failed_min_duration", TraceFilter{FailedOnly: true, MinDuration: 4 * time.Second}},
		{"window", TraceFilter{Since: t0.Add(2 * time.Hour), Until: t0.Add(2*time.Hour + 30*time.Minute)}},
		{"all_filters", TraceFilter{Tool: "web_search", FailedOnly: true, MinDuration: time.Second,
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
