package verify

import (
	"context"
	"fmt"
	"testing"
	"time"
)

type probeLedger map[string]Record

func (l probeLedger) Lookup(_ context.Context, id string) (Record, bool, error) {
	r, ok := l[id]
	return r, ok, nil
}

func TestZZProbe(t *testing.T) {
	now := time.Unix(1763769600, 0)
	id := "web_search_1763769600123_9f86d081"
	led := probeLedger{id: {ExecutionID: id, ToolName: "web_search", SessionID: "s1", StartedAt: now, Completed: true}}
	v := Validator{Now: func() time.Time { return now.Add(time.Minute) }}
	replies := []string{
		"Here: {\"tool_name\": \"run_speed_test\", \"result\": {\"down\": 100}}",
		"```json\n{\"tool\": \"run_speed_test\", \"output\": {\"a\": \"}{\"}}\n```",
		"I'll check this using the web_search tool.",
		"Let me search the web for Go 1.26.",
		"I will read that page.",
		"I will read that page now",
		"I'll look that up for you.",
		"Let me check the weather online.",
		"I searched the web (execution_id: " + id + ").",
		"You can search the web for it.",
		"If you like, I can search the web.",
		"I could search the web for it if you want.",
		"I'll be happy to search the web for that.",
		"Next, I'll fetch https://go.dev/doc.",
		"I'm going to use web_search to find it.",
		"I will now run web_search for you.",
		"Let me read notes.txt.",
		"I'll write the summary to notes.txt.",
		"check_internet_connection (execution_id: check_internet_connection_1763769600123_9f86d081) ok",
		"execution_id: web_search_1763769600123_9f86d082",
		"read_file (execution_id: " + id + ")",
		"The results: web_search_1763769600123_9f86d081 shows",
		"Let me know if you want me to search more.",
		"I will search the web for that later if needed.",
		"I'll now search for recent news about Go.",
		"Let me search.",
		"Let me look into this.",
		"I'll search for it.",
		"Searching the web for go now...",
		"I'll use the web_search tool.",
		"I'll now read the webpage at https://example.com",
	}
	for _, r := range replies {
		is, _ := v.Check(context.Background(), "s1", r, led)
		fmt.Printf("%q\n   -> %v\n", r, is)
	}
	is, _ := v.Check(context.Background(), "s2", "(execution_id: "+id+")", led)
	fmt.Println("other session:", is)
}
