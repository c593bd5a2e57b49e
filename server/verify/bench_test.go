package verify

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// bigReply builds a 20 KB reply citing 20 real ids in the three claim forms,
// with prose, JSON and braces between them, and the ledger that backs it.
func bigReply() (string, memLedger) {
	l := memLedger{}
	var b strings.Builder
	filler := "Go 1.26 brings iterator helpers {see notes} and faster builds; the release notes page lists each change in detail. "
	for i := 0; b.Len() < 20<<10; i++ {
		if i < 20 {
			id := fmt.Sprintf("web_search_%013d_%08x", 1763769600123+int64(i), i)
			l[id] = Record{ExecutionID: id, ToolName: "web_search", SessionID: "s_1", StartedAt: time.UnixMilli(1763769600123 + int64(i)), Completed: true}
			switch i % 3 {
			case 0:
				fmt.Fprintf(&b, "```json\n{\"execution_id\": %q, \"tool_name\": \"web_search\", \"result\": {\"results\": [{\"title\": \"a {b}\"}]}}\n```\n", id)
			case 1:
				fmt.Fprintf(&b, "According to web_search (execution_id: %s), ", id)
			case 2:
				fmt.Fprintf(&b, "source %s. ", id)
			}
		}
		b.WriteString(filler)
	}
	return b.String()[:20<<10], l
}

func BenchmarkCheck20KB(b *testing.B) {
	reply, l := bigReply()
	v := testValidator()
	ctx := context.Background()
	issues, err := v.Check(ctx, "s_1", reply, l)
	if err != nil || len(issues) != 0 {
		b.Fatalf("the benchmark reply must be valid: %v %+v", err, issues)
	}
	b.SetBytes(int64(len(reply)))
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		_, _ = v.Check(ctx, "s_1", reply, l)
	}
}

// reportCPU starts measuring process CPU time; the returned func reports it
// per operation as cpu-µs/op.
func reportCPU(b *testing.B) func() {
	start, ok := processCPU()
	return func() {
		end, ok2 := processCPU()
		if ok && ok2 && b.N > 0 {
			b.ReportMetric(float64((end-start).Nanoseconds())/1e3/float64(b.N), "cpu-µs/op")
		}
	}
}

func BenchmarkExtractClaims20KB(b *testing.B) {
	reply, _ := bigReply()
	if n := len(ExtractClaims(reply)); n != 20 {
		b.Fatalf("found %d claims, want 20", n)
	}
	b.SetBytes(int64(len(reply)))
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		ExtractClaims(reply)
	}
}

func BenchmarkParseTextCalls20KB(b *testing.B) {
	reply, _ := bigReply()
	reply = reply[:len(reply)-200] + `<tool:web_search>{"query": "go"}</tool>` + ` {"name": "read_file", "parameters": {"path": "a"}}`
	known := []string{"web_search", "read_file"}
	if calls, _ := ParseTextCalls(reply, known); len(calls) != 2 {
		b.Fatalf("found %d calls, want 2", len(calls))
	}
	b.SetBytes(int64(len(reply)))
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		ParseTextCalls(reply, known)
	}
}
