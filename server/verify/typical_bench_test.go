package verify

import (
	"context"
	"testing"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/tools"
)

// typicalReply is a reply of the usual size and shape: a few paragraphs of
// markdown that tell of the turn's runs with a list, a table and a quote.
const typicalReply = "I searched the web and read the release notes at https://go.dev/doc/go1.26 (execution_id: " + searchID + ").\n\n" +
	"## What changed\n\n" +
	"- Iterators got new helpers in the standard library.\n" +
	"- Builds are faster, and the toolchain caches more.\n" +
	"- The `go vet` analyzers learned two new checks.\n\n" +
	"| Step | Result |\n|---|---|\n| web_search | ok |\n| read_webpage | ok |\n\n" +
	"> Go 1.26 is a minor release focused on performance.\n\n" +
	"I also deleted notes.txt as you asked, and wrote the summary to summary.md. " +
	"Let me know if you want more detail on any of these changes, or if I should compare them with Go 1.25."

func BenchmarkCheckTypical(b *testing.B) {
	v := testValidator()
	v.Turn = []Run{
		{ToolName: tools.WebSearch, ExecutionID: searchID, Status: api.StatusOK},
		{ToolName: tools.ReadWebpage, ExecutionID: readID, Status: api.StatusOK},
		{ToolName: tools.DeleteFile, ExecutionID: "delete_file_1763769600600_abababab", Status: api.StatusOK},
		{ToolName: tools.WriteFile, ExecutionID: "write_file_1763769600610_acacacac", Status: api.StatusOK},
	}
	l := testLedger()
	ctx := context.Background()
	if issues, err := v.Check(ctx, "s_1", typicalReply, l); err != nil || len(issues) != 0 {
		b.Fatalf("the typical reply must be valid: %v %+v", err, issues)
	}
	b.SetBytes(int64(len(typicalReply)))
	b.ReportAllocs()
	for b.Loop() {
		_, _ = v.Check(ctx, "s_1", typicalReply, l)
	}
}
