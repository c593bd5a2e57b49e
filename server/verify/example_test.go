package verify_test

import (
	"context"
	"fmt"
	"time"

	"github.com/ailab/ai-lab/server/verify"
	"github.com/ailab/ai-lab/tools"
)

// runs is a one-run ledger for the examples.
type runs map[string]verify.Record

func (r runs) Lookup(_ context.Context, id string) (verify.Record, bool, error) {
	rec, ok := r[id]
	return rec, ok, nil
}

func ExampleValidator_Check() {
	started := time.Date(2026, 11, 21, 23, 0, 0, 0, time.UTC)
	id := "web_search_1763766000000_9f86d081"
	ledger := runs{id: {ExecutionID: id, ToolName: tools.WebSearch, SessionID: "s_1", StartedAt: started, Completed: true}}
	v := verify.Validator{Window: 5 * time.Minute, Now: func() time.Time { return started.Add(time.Minute) }}

	reply := "Go 1.26 is out (execution_id: " + id + "). Your speed is 940 Mbit/s " +
		`{"tool_name": "run_speed_test", "result": {"mbps": 940}}. Let me search the web for more.`
	issues, err := v.Check(context.Background(), "s_1", reply, ledger)
	if err != nil {
		panic(err)
	}
	for _, is := range issues {
		fmt.Println(is.Code+":", is.Message)
	}
	// Output:
	// missing_execution_id: tool claim for run_speed_test missing execution_id
	// announced_not_called: the reply announces web_search ("Let me search the web for more") but ends the turn without calling it
}

func ExampleParseTextCalls() {
	calls, visible := verify.ParseTextCalls("Checking the notes.\n<tool:read_file>{\"path\": \"notes.txt\"}</tool>", tools.Names)
	for _, c := range calls {
		fmt.Printf("%s %s %q\n", c.Name, c.Arguments, c.Err)
	}
	fmt.Println(visible)
	// Output:
	// read_file {"path":"notes.txt"} ""
	// Checking the notes.
}
