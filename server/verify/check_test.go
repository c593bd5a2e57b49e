package verify

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// memLedger is an in-memory Ledger keyed by execution id.
type memLedger map[string]Record

func (l memLedger) Lookup(_ context.Context, id string) (Record, bool, error) {
	r, ok := l[id]
	return r, ok, nil
}

type failingLedger struct{}

func (failingLedger) Lookup(context.Context, string) (Record, bool, error) {
	return Record{}, false, errors.New("database is locked")
}

var now = time.UnixMilli(1763769600123 + 60_000).UTC()

const (
	searchID   = "web_search_1763769600123_9f86d081"
	readID     = "read_webpage_1763769600500_0a1b2c3d"
	otherID    = "web_search_1763769600200_aaaaaaaa"
	oldID      = "web_search_1763769000000_bbbbbbbb"
	failedID   = "read_webpage_1763769600700_cccccccc"
	earlierID  = "read_file_1763769400000_dddddddd" // an earlier turn, 260 s before now
	pendingID  = "write_file_1763769600900_eeeeeeee"
	mislabelID = "read_file_1763769600950_ffffffff" // ledger says web_search ran
)

func testLedger() memLedger {
	rec := func(id, tool, session string, startMS int64, completed bool, err string) Record {
		return Record{ExecutionID: id, ToolName: tool, SessionID: session, StartedAt: time.UnixMilli(startMS), Completed: completed, Error: err}
	}
	return memLedger{
		searchID:   rec(searchID, "web_search", "s_1", 1763769600123, true, ""),
		readID:     rec(readID, "read_webpage", "s_1", 1763769600500, true, ""),
		otherID:    rec(otherID, "web_search", "s_2", 1763769600200, true, ""),
		oldID:      rec(oldID, "web_search", "s_1", 1763769000000, true, ""),
		failedID:   rec(failedID, "read_webpage", "s_1", 1763769600700, true, "fetch https://example.com: 404 Not Found"),
		earlierID:  rec(earlierID, "read_file", "s_1", 1763769400000, true, ""),
		pendingID:  rec(pendingID, "write_file", "s_1", 1763769600900, false, ""),
		mislabelID: rec(mislabelID, "web_search", "s_1", 1763769600950, true, ""),
	}
}

func testValidator() Validator {
	return Validator{Window: 5 * time.Minute, Now: func() time.Time { return now }}
}

func TestCheck(t *testing.T) {
	cases := []struct {
		name  string
		reply string
		codes []string // expected issue codes, in order
		want  []string // substrings of the messages, in order
	}{
		{
			name:  "honest reply with real ids",
			reply: "Go 1.26 is out (web_search, execution_id: " + searchID + "). The release notes page (" + readID + ") lists the changes.",
		},
		{
			name:  "id from an earlier turn of the same session inside the window",
			reply: "As the file showed earlier (" + earlierID + "), the plan is ready.",
		},
		{
			name:  "honest JSON claim",
			reply: "```json\n{\"execution_id\": \"" + searchID + "\", \"tool_name\": \"web_search\", \"result\": {\"query\": \"go\"}}\n```",
		},
		{
			name:  "fabricated id",
			reply: "Your speed is 940 Mbit/s (execution_id: run_speed_test_1763769600999_12345678).",
			codes: []string{CodeNotFound},
			want:  []string{"execution id run_speed_test_1763769600999_12345678 is not in the ledger"},
		},
		{
			name:  "malformed id in a mention",
			reply: "Connection is fine (execution_id: abc123).",
			codes: []string{CodeNotFound},
			want:  []string{"execution id abc123 is not in the ledger"},
		},
		{
			name:  "well-formed id from another session",
			reply: "I found it: " + otherID + ".",
			codes: []string{CodeNotFound},
			want:  []string{"execution id " + otherID + " is not in the ledger"},
		},
		{
			name:  "expired id",
			reply: "Earlier search: " + oldID,
			codes: []string{CodeExpired},
			want:  []string{"older than the 5m0s"},
		},
		{
			name:  "honest JSON claim with an id and no tool field",
			reply: `Search results: {"execution_id": "` + searchID + `", "result": {"results": []}}`,
		},
		{
			name:  "id cited for the wrong tool in JSON",
			reply: `{"tool_name": "run_speed_test", "execution_id": "` + searchID + `", "result": {"download_mbps": 940}}`,
			codes: []string{CodeWrongTool},
			want:  []string{"belongs to a run of web_search, not run_speed_test"},
		},
		{
			name:  "id cited for the wrong tool right before a mention",
			reply: "check_internet_connection (execution_id: " + searchID + ") says you are online.",
			codes: []string{CodeWrongTool},
			want:  []string{"not check_internet_connection"},
		},
		{
			name:  "id whose own prefix disagrees with the ledger",
			reply: "The file says hello (" + mislabelID + ").",
			codes: []string{CodeWrongTool},
			want:  []string{"belongs to a run of web_search, not read_file"},
		},
		{
			name:  "failed run cited as success",
			reply: "The page says the service is up (execution_id=" + failedID + ").",
			codes: []string{CodeFailedRun},
			want:  []string{"execution " + failedID + " of read_webpage failed (fetch https://example.com: 404 Not Found), it cannot be cited as a result"},
		},
		{
			name:  "failed run honestly reported as failed",
			reply: "**read_webpage** `https://example.com`: failed: fetch https://example.com: 404 Not Found (execution_id: " + failedID + ").\n**web_search** `go`: 3 results (execution_id: " + searchID + ").",
		},
		{
			name:  "failed run in JSON with its error",
			reply: `{"execution_id": "` + failedID + `", "tool_name": "read_webpage", "error": "404 Not Found"}`,
		},
		{
			name:  "failure words about another claim do not excuse a failed run",
			reply: "The search failed (" + searchID + ") but the page (" + failedID + ") shows the service is up.",
			codes: []string{CodeFailedRun},
			want:  []string{"execution " + failedID + " of read_webpage failed"},
		},
		{
			name:  "failed run cited as success in JSON",
			reply: `{"execution_id": "` + failedID + `", "tool_name": "read_webpage", "result": {"content": "all good"}}`,
			codes: []string{CodeFailedRun},
		},
		{
			name:  "run that never completed",
			reply: "Saved (" + pendingID + ").",
			codes: []string{CodeFailedRun},
			want:  []string{"never completed"},
		},
		{
			name:  "JSON claim without id",
			reply: "Results:\n```json\n{\"tool_name\": \"run_speed_test\", \"result\": {\"download_mbps\": 940, \"nested\": {\"a\": \"}\"}}}\n```",
			codes: []string{CodeMissingID},
			want:  []string{"tool claim for run_speed_test missing execution_id"},
		},
		{
			name:  "several problems are all reported",
			reply: "{\"tool\": \"web_search\", \"output\": []} and " + otherID + " and " + searchID,
			codes: []string{CodeMissingID, CodeNotFound},
		},
		{
			name:  "announced but not called",
			reply: "I'll check this using the web_search tool.",
			codes: []string{CodeAnnouncedNotCalled},
			want:  []string{"announces web_search"},
		},
		{
			name:  "text-format call is not a claim",
			reply: `{"name": "web_search", "parameters": {"query": "go"}}`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			issues, err := testValidator().Check(context.Background(), "s_1", tc.reply, testLedger())
			if err != nil {
				t.Fatalf("Check: %v", err)
			}
			var codes []string
			for _, is := range issues {
				codes = append(codes, is.Code)
			}
			if strings.Join(codes, ",") != strings.Join(tc.codes, ",") {
				t.Fatalf("codes = %v, want %v; issues: %+v", codes, tc.codes, issues)
			}
			for i, w := range tc.want {
				if !strings.Contains(issues[i].Message, w) {
					t.Errorf("issue %d = %q, want it to contain %q", i, issues[i].Message, w)
				}
			}
		})
	}
}

func TestCheckLedgerError(t *testing.T) {
	_, err := testValidator().Check(context.Background(), "s_1", "see "+searchID, failingLedger{})
	if err == nil || !strings.Contains(err.Error(), "database is locked") {
		t.Fatalf("err = %v, want the ledger's error", err)
	}
}

func TestCheckDefaults(t *testing.T) {
	// The zero Validator uses the wall clock and a five-minute window.
	l := memLedger{}
	id := "web_search_" + strings.Repeat("1", 13) + "_00000000"
	fresh := fmt.Sprintf("web_search_%013d_00000000", time.Now().UnixMilli())
	l[id] = Record{ExecutionID: id, ToolName: "web_search", SessionID: "s", StartedAt: time.UnixMilli(1111111111111), Completed: true}
	l[fresh] = Record{ExecutionID: fresh, ToolName: "web_search", SessionID: "s", StartedAt: time.Now(), Completed: true}
	issues, err := Validator{}.Check(context.Background(), "s", id+" "+fresh, l)
	if err != nil {
		t.Fatal(err)
	}
	if len(issues) != 1 || issues[0].Code != CodeExpired || !strings.Contains(issues[0].Message, id) {
		t.Fatalf("issues = %+v, want one expiry of the 2005 id", issues)
	}
}

func TestMessages(t *testing.T) {
	issues := []Issue{
		{Code: CodeNotFound, Message: "execution id x is not in the ledger: no tool run with that id was found in this session"},
		{Code: CodeAnnouncedNotCalled, Message: "the reply announces read_webpage (\"I will read that page\") but ends the turn without calling it", Tool: "read_webpage"},
	}
	re := RepromptMessage(issues)
	for _, w := range []string{issues[0].Message, issues[1].Message, "Call the read_webpage tool now", "<tool:read_webpage>", "do not describe", "Cite only execution ids"} {
		if !strings.Contains(re, w) {
			t.Errorf("RepromptMessage lacks %q:\n%s", w, re)
		}
	}
	un := UnverifiedReply(issues)
	for _, w := range []string{"could not be verified", "- " + issues[0].Message, "- " + issues[1].Message} {
		if !strings.Contains(un, w) {
			t.Errorf("UnverifiedReply lacks %q:\n%s", w, un)
		}
	}
	if got := Messages(issues); len(got) != 2 || got[1] != issues[1].Message {
		t.Errorf("Messages = %q", got)
	}
	if strings.Contains(RepromptMessage(issues[:1]), "Call the") {
		t.Error("RepromptMessage asks for a tool call though no tool was announced")
	}
}

// TestCheckMCPToolIDs: an MCP tool's ids carry its name as tools.IDPrefix
// writes it; citing one for that tool passes, for another tool does not.
func TestCheckMCPToolIDs(t *testing.T) {
	const id = "files__read_text_1763769600300_12345678"
	ledger := memLedger{id: {ExecutionID: id, ToolName: "Files__Read-Text", SessionID: "s_1", StartedAt: time.UnixMilli(1763769600300), Completed: true}}
	v := Validator{Window: 5 * time.Minute, Now: func() time.Time { return now }, Tools: []string{"Files__Read-Text", "web_search"},
		Turn: []Run{{ToolName: "Files__Read-Text", ExecutionID: id, Status: "ok"}}}
	for _, tc := range []struct {
		reply string
		code  string
	}{
		{"The file says hello (execution_id: " + id + ").", ""},
		{`{"tool_name": "Files__Read-Text", "execution_id": "` + id + `", "result": "hello"}`, ""},
		{`{"tool_name": "web_search", "execution_id": "` + id + `", "result": "hello"}`, CodeWrongTool},
	} {
		issues, err := v.Check(context.Background(), "s_1", tc.reply, ledger)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if len(issues) > 0 {
			got = issues[0].Code
		}
		if got != tc.code {
			t.Errorf("%q: issues %+v, want code %q", tc.reply, issues, tc.code)
		}
	}
}
