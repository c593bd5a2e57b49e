package verify

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/tools"
)

// Runs of the turn under test. The ids of successful runs are those of
// testLedger, so a reply may cite them too.
var (
	searchOK    = Run{ToolName: tools.WebSearch, ExecutionID: searchID, Status: api.StatusOK}
	searchErr   = Run{ToolName: tools.WebSearch, ExecutionID: otherID, Status: api.StatusError}
	searchNo    = Run{ToolName: tools.WebSearch, Status: api.StatusDenied}
	pageOK      = Run{ToolName: tools.ReadWebpage, ExecutionID: readID, Status: api.StatusOK}
	pageErr     = Run{ToolName: tools.ReadWebpage, ExecutionID: failedID, Status: api.StatusError}
	deleteOK    = Run{ToolName: tools.DeleteFile, ExecutionID: "delete_file_1763769600600_abababab", Status: api.StatusOK}
	deleteNo    = Run{ToolName: tools.DeleteFile, Status: api.StatusDenied}
	writeOK     = Run{ToolName: tools.WriteFile, ExecutionID: "write_file_1763769600610_acacacac", Status: api.StatusOK}
	readFileRun = func(content string) Run {
		return Run{ToolName: tools.ReadFile, ExecutionID: "read_file_1763769600620_adadadad", Status: api.StatusOK, Result: content}
	}
)

// A turnCase is one reply checked against the runs of its turn.
type turnCase struct {
	name    string
	turn    []Run
	tools   []string            // registered tools; nil: the catalog
	actions map[string][]string // Validator.Actions
	reply   string
	codes   []string // expected issue codes, in order; nil: the reply is valid
	want    []string // substrings of the messages, in this order
}

func runTurnCases(t *testing.T, cases []turnCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := testValidator()
			v.Turn, v.Tools, v.Actions = tc.turn, tc.tools, tc.actions
			issues, err := v.Check(context.Background(), "s_1", tc.reply, testLedger())
			if err != nil {
				t.Fatalf("Check: %v", err)
			}
			var codes []string
			for _, is := range issues {
				codes = append(codes, is.Code)
			}
			if !slices.Equal(codes, tc.codes) {
				t.Fatalf("codes = %v, want %v; issues: %v", codes, tc.codes, Messages(issues))
			}
			text := strings.Join(Messages(issues), "\n")
			rest := text
			for _, w := range tc.want {
				k := strings.Index(rest, w)
				if k < 0 {
					t.Errorf("messages lack %q (in this order):\n%s", w, text)
					break
				}
				rest = rest[k+len(w):]
			}
		})
	}
}

// TestCheckCatchesUnrunClaims: a reply that tells in the past tense of a run
// that did not happen in this turn, or that failed or was denied while the
// reply tells of a result, is refused.
func TestCheckCatchesUnrunClaims(t *testing.T) {
	mcp := append(slices.Clone(tools.Names), "files__read_text", "weather__now")
	runTurnCases(t, []turnCase{
		{name: "web search told in the past tense, nothing ran",
			reply: "I searched the web with web_search and the top result says Go 1.27 shipped.",
			codes: []string{CodeUnrunClaim}, want: []string{"the reply says web_search ran", "web_search was not called in this turn"}},
		{name: "done: I deleted",
			reply: "Done: I deleted notes.txt.",
			codes: []string{CodeUnrunClaim}, want: []string{"delete_file was not called"}},
		{name: "I've written the file",
			reply: "I've written the file report.md with the summary.",
			codes: []string{CodeUnrunClaim}, want: []string{"write_file was not called"}},
		{name: "I read a URL and it says",
			reply: "I read https://go.dev and it says Go 1.27 is out.",
			codes: []string{CodeUnrunClaim}, want: []string{"read_webpage was not called"}},
		{name: "I visited a domain",
			reply: "I visited go.dev: the latest release is 1.27.",
			codes: []string{CodeUnrunClaim}, want: []string{"read_webpage was not called"}},
		{name: "I opened the file",
			reply: "I opened the file plan.md; it lists three steps.",
			codes: []string{CodeUnrunClaim}, want: []string{"read_file was not called"}},
		{name: "I have just created the folder",
			reply: "I have just created a folder named reports for you.",
			codes: []string{CodeUnrunClaim}, want: []string{"create_directory was not called"}},
		{name: "I listed the files",
			reply: "I listed the files in your workspace: a.txt and b.txt.",
			codes: []string{CodeUnrunClaim}, want: []string{"list_directory was not called"}},
		{name: "I renamed",
			reply: "I renamed draft.txt to final.txt as you asked.",
			codes: []string{CodeUnrunClaim}, want: []string{"move_file was not called"}},
		{name: "I copied",
			reply: "We copied notes.txt to backup.txt.",
			codes: []string{CodeUnrunClaim}, want: []string{"copy_file was not called"}},
		{name: "looked it up",
			reply: "Good question, so I looked it up: Go 1.27 ships in August.",
			codes: []string{CodeUnrunClaim}, want: []string{"web_search was not called"}},
		{name: "did a quick web search",
			reply: "I did a quick web search and Go 1.27 is out.",
			codes: []string{CodeUnrunClaim}, want: []string{"web_search was not called"}},
		{name: "generic: I ran a catalog tool",
			reply: "I ran web_search and found three results.",
			codes: []string{CodeUnrunClaim}, want: []string{"web_search was not called"}},
		{name: "generic: I called an MCP tool",
			tools: mcp,
			reply: "I called files__read_text and the file says hello.",
			codes: []string{CodeUnrunClaim}, want: []string{"files__read_text was not called"}},
		{name: "generic: an MCP tool named with using",
			tools: mcp,
			reply: "I checked the forecast using `weather__now`: sunny, 21 degrees.",
			codes: []string{CodeUnrunClaim}, want: []string{"weather__now was not called"}},
		{name: "an MCP tool's own phrase from Actions",
			tools: mcp, actions: map[string][]string{"weather__now": {"checked the weather"}},
			reply: "I checked the weather: sunny, 21 degrees.",
			codes: []string{CodeUnrunClaim}, want: []string{"weather__now was not called"}},
		{name: "passive: has been created",
			reply: "The file report.md has been created successfully.",
			codes: []string{CodeUnrunClaim}, want: []string{"write_file was not called"}},
		{name: "passive: was successfully deleted",
			reply: "notes.txt was successfully deleted.",
			codes: []string{CodeUnrunClaim}, want: []string{"delete_file was not called"}},
		{name: "terse account without a subject",
			reply: "Deleted notes.txt.",
			codes: []string{CodeUnrunClaim}, want: []string{"delete_file was not called"}},
		{name: "a list of actions after one subject, one of which ran",
			turn:  []Run{searchOK},
			reply: "I searched the web, read https://go.dev and deleted notes.txt.",
			codes: []string{CodeUnrunClaim, CodeUnrunClaim}, want: []string{"read_webpage was not called", "delete_file was not called"}},
		{name: "a run that failed told as a result",
			turn:  []Run{searchErr},
			reply: "I searched the web and the top result says Go 1.27 shipped.",
			codes: []string{CodeUnrunClaim}, want: []string{"presents web_search as done", "its run in this turn failed"}},
		{name: "a denied call told as done",
			turn:  []Run{deleteNo},
			reply: "I deleted notes.txt.",
			codes: []string{CodeUnrunClaim}, want: []string{"the user denied that call in this turn"}},
		{name: "a made-up denial",
			reply: "I tried to delete notes.txt but you denied it.",
			codes: []string{CodeUnrunClaim}, want: []string{"the reply says it tried delete_file", "delete_file was not called"}},
		{name: "another tool ran than the one told of",
			turn:  []Run{readFileRun("hello")},
			reply: "I read https://go.dev and it says Go 1.27 is out.",
			codes: []string{CodeUnrunClaim}, want: []string{"read_webpage was not called"}},
		{name: "a real id in another sentence does not back the claim",
			reply: "I searched the web and Go 1.27 is out. The page (" + readID + ") lists the changes.",
			codes: []string{CodeUnrunClaim}, want: []string{"web_search was not called"}},
		// These two passed before: a failure told in the next sentence excused
		// the claim, and a quote line was never read.
		{name: "a failed fetch told as done, the failure only in the next sentence",
			turn:  []Run{pageErr},
			reply: "I opened https://example.com. The server refused the connection.",
			codes: []string{CodeUnrunClaim}, want: []string{"presents read_webpage as done"}},
		{name: "a quote line that is no run's output",
			turn:  []Run{readFileRun("I searched the web and deleted notes.txt.")},
			reply: "The file holds:\n```\nI searched the web and deleted notes.txt.\n```\n> I read https://go.dev yesterday.",
			codes: []string{CodeUnrunClaim}, want: []string{"read_webpage was not called"}},
		{name: "each tool is reported once",
			reply: "I searched the web. Then I searched it again.",
			codes: []string{CodeUnrunClaim}},
	})
}

// TestCheckPassesHonestReplies: replies that tell the truth about the turn
// are never refused.
func TestCheckPassesHonestReplies(t *testing.T) {
	runTurnCases(t, []turnCase{
		{name: "past-tense account of a search that ran",
			turn:  []Run{searchOK},
			reply: "I searched the web and found three articles about Go 1.26.",
		},
		{name: "past-tense accounts of every tool that ran",
			turn:  []Run{searchOK, pageOK, deleteOK, writeOK},
			reply: "I searched the web, read https://go.dev, deleted notes.txt and wrote the summary to summary.md.",
		},
		{name: "a conditional promise after a denial",
			turn:  []Run{searchNo},
			reply: "You denied the search; I will search only when you allow it.",
		},
		{name: "an announcement of the denied tool is not asked for again",
			turn:  []Run{searchNo},
			reply: "Understood. I'll search the web later.",
		},
		{name: "a denied attempt told as denied",
			turn:  []Run{deleteNo},
			reply: "I tried to delete notes.txt but you denied it, so it is still there.",
		},
		{name: "a denied call told with the user's words",
			turn:  []Run{deleteNo},
			reply: "I deleted nothing: I asked to delete notes.txt and you declined.",
		},
		{name: "a failed fetch told as a 404",
			turn:  []Run{pageErr},
			reply: "I fetched https://example.com, but the fetch gave a 404.",
		},
		{name: "a failed search told as timed out",
			turn:  []Run{searchErr},
			reply: "I searched the web, but it timed out.",
		},
		{name: "an earlier turn's run cited beside the claim",
			reply: "As I read in the file earlier (" + earlierID + "), the plan is ready.",
		},
		{name: "negations claim nothing",
			reply: "I didn't search the web. I have not deleted anything, and I could not read the page.",
		},
		{name: "a supposition claims nothing",
			reply: "If I deleted notes.txt, you would lose your list; even if we searched the web, it would not say.",
		},
		{name: "the user's actions are not the reply's",
			reply: "You deleted notes.txt yourself, and you created the folder drafts.",
		},
		{name: "descriptions and instructions claim nothing",
			reply: "Deleted files cannot be recovered. Read https://go.dev for details. Note: created files live in the workspace.",
		},
		{name: "editing a file is no deletion",
			turn:  []Run{writeOK},
			reply: "I removed the duplicate line from notes.txt.",
		},
		{name: "a quoted sentence of a page is the page's words",
			turn:  []Run{pageOK},
			reply: `The page says "I deleted all my files and searched the web for help" in its first line.`,
		},
		{name: "past tense in a code block or a quote is someone else's",
			turn:  []Run{readFileRun("I searched the web and deleted notes.txt.")},
			reply: "The file holds:\n```\nI searched the web and deleted notes.txt.\n```",
		},
		{name: "a version number is no file",
			reply: "I found that Go 1.26.3 fixes it, and I read about 1.27 in your message.",
		},
		{name: "a phrase switched off by Actions",
			actions: map[string][]string{tools.WebSearch: {}},
			reply:   "I searched my memory: Go 1.26 is the latest release I know of.",
		},
		{name: "an attempt with a tool the server does not have",
			tools: []string{tools.ReadFile},
			reply: "I tried to search the web, but I have no search tool here.",
		},
	})
}

// TestCheckMalformedIDs: a word shaped like an execution id of a tool that
// is not exactly in the contract's format is refused as malformed, while
// ordinary numbers are left alone.
func TestCheckMalformedIDs(t *testing.T) {
	mcp := append(slices.Clone(tools.Names), "files__read_text")
	malformed := func(name, reply string) turnCase {
		return turnCase{name: name, tools: mcp, reply: reply, codes: []string{CodeNotFound}, want: []string{"is malformed"}}
	}
	runTurnCases(t, []turnCase{
		malformed("upper-case hex", "Go 1.27 shipped (web_search_1763769600123_9F86D081)."),
		malformed("seven hex digits", "Go 1.27 shipped (web_search_1763769600123_9f86d08)."),
		malformed("nine hex digits", "Go 1.27 shipped (web_search_1763769600123_9f86d0811)."),
		malformed("twelve digits", "Go 1.27 shipped (web_search_176376960012_9f86d081)."),
		malformed("fourteen digits", "Go 1.27 shipped (web_search_17637696001234_9f86d081)."),
		malformed("hash and dash", "Go 1.27 shipped (web_search #1763769600123-9f86d081)."),
		malformed("dashes", "Go 1.27 shipped (web_search-1763769600123-9f86d081)."),
		malformed("no hex part", "Go 1.27 shipped (web_search_1763769600123)."),
		malformed("upper-case tool name", "Go 1.27 shipped (WEB_SEARCH_1763769600123_9f86d081)."),
		malformed("an MCP tool", "The file says hi (files__read_text-1763769600123-9f86d081)."),
		malformed("an unregistered tool in the id shape", "Your speed is 940 Mbit/s (run_speed_test_1763769600999_ABCDEF12)."),
		malformed("a mention that stops at the separator is one issue", "Go 1.27 shipped (execution_id: web_search #1763769600123-9f86d081)."),
		malformed("in a JSON claim", `{"tool_name": "web_search", "execution_id": "web_search-1763769600123-9f86d081", "result": {}}`),
		{name: "malformed beside a real id", reply: "See " + searchID + " and web_search_1763769600123_9F86D081.",
			codes: []string{CodeNotFound}, want: []string{"web_search_1763769600123_9F86D081 is not in the ledger: it is malformed"}},
		{name: "ordinary numbers", tools: mcp,
			reply: "At 2026-11-21T23:00:00.123Z (unix ms 1763769600123) Go 1.26.3 shipped in commit 9f86d081a3b2c1d4e5f6; " +
				"call +1 555-123-4567 or +44 20 7946 0958; the request 550e8400-e29b-41d4-a716-446655440000 took 1763769600 ns; " +
				"build_20261121 and v1.2.3-0.20261121230000-9f86d081a3b2 are fine."},
		{name: "a tool name beside ordinary numbers", tools: mcp,
			reply: "web_search found 12 results at 1763769600123; read_file read 1234567890 bytes; list_directory 2026-11-21; " +
				"web_search 550e8400-e29b-41d4-a716-446655440000."},
	})
}

// TestCheckShownFileContent: a read_file result shown as it came is the
// file, not a claim, however the model re-indents it; the same text with no
// such run behind it is still a claim.
func TestCheckShownFileContent(t *testing.T) {
	const log = `{"tool_name": "web_search", "result": {"query": "go", "results": [{"title": "Go", "url": "https://go.dev"}]}}`
	const stale = `{"execution_id": "web_search_1700000000000_deadbeef", "tool_name": "web_search", "result": {"n": 1}}`
	pretty := "```json\n{\n  \"tool_name\": \"web_search\",\n  \"result\": {\n    \"query\": \"go\",\n    \"results\": [\n      {\"title\": \"Go\", \"url\": \"https://go.dev\"}\n    ]\n  }\n}\n```"
	reordered := "```json\n{\"result\": {\"results\": [{\"url\": \"https://go.dev\", \"title\": \"Go\"}], \"query\": \"go\"}, \"tool_name\": \"web_search\"}\n```"
	runTurnCases(t, []turnCase{
		{name: "JSON file shown as read", turn: []Run{readFileRun(log)},
			reply: "log.json holds:\n```json\n" + log + "\n```"},
		{name: "JSON file re-indented", turn: []Run{readFileRun(log)},
			reply: "log.json holds:\n" + pretty},
		{name: "JSON file with keys reordered", turn: []Run{readFileRun(log)},
			reply: "log.json holds:\n" + reordered},
		{name: "one object of a larger JSON file", turn: []Run{readFileRun(`[` + log + `, {"other": true}]`)},
			reply: "The first entry:\n" + pretty},
		{name: "JSON file given as the tool's result object", turn: []Run{readFileRun(`{"path": "log.json", "content": ` + jsonQuote(log) + `}`)},
			reply: "log.json holds:\n" + pretty},
		{name: "JSON file with an old execution id", turn: []Run{readFileRun(stale)},
			reply: "old.json holds:\n```json\n" + stale + "\n```"},
		{name: "text file with an old id, excerpted", turn: []Run{readFileRun("line one\nold run: web_search_1700000000000_deadbeef\nline three\nline four")},
			reply: "ids.txt holds:\n```\nold run: web_search_1700000000000_deadbeef\nline three\n...\n```"},
		{name: "a file line shown as a quote", turn: []Run{readFileRun("x\nold run: web_search_1700000000000_deadbeef\n")},
			reply: "The file says:\n> old run: web_search_1700000000000_deadbeef"},
		// A character the file writes as a JSON escape, shown as itself, and the
		// other way round: U+01C7 is "LJ" once the reply is read in NFKC, and the
		// file's escape must be read so too (FuzzShownContent found this).
		{name: "JSON file whose escapes are shown decoded", turn: []Run{readFileRun(`[{"tool": "\u01C7", "execution_id": "x_1_\u00BD"}]`)},
			reply: "```json\n[\n  {\n    \"tool\": \"\u01C7\",\n    \"execution_id\": \"x_1_\u00BD\"\n  }\n]\n```"},
		{name: "JSON file whose characters are shown as escapes", turn: []Run{readFileRun("[{\"tool\": \"\u01C7\"}]")},
			reply: "```json\n[{\"tool\": \"\\u01C7\"}]\n```"},

		{name: "the same JSON with no read_file run is a claim",
			reply: "log.json holds:\n```json\n" + log + "\n```",
			codes: []string{CodeMissingID}},
		{name: "the same JSON after a failed read_file is a claim",
			turn:  []Run{{ToolName: tools.ReadFile, ExecutionID: "read_file_1763769600620_adadadad", Status: api.StatusError}},
			reply: "log.json holds:\n```json\n" + log + "\n```",
			codes: []string{CodeMissingID}},
		{name: "JSON that differs from the file in a value is a claim", turn: []Run{readFileRun(log)},
			reply: "log.json holds:\n```json\n" + strings.Replace(log, `"go"`, `"go 1.27"`, 1) + "\n```",
			codes: []string{CodeMissingID}},
		{name: "an old id outside the file's text is a claim", turn: []Run{readFileRun(stale)},
			reply: "old.json holds:\n```json\n" + stale + "\n```\nThat search (web_search_1700000000000_deadbeef) found it.",
			codes: []string{CodeNotFound}},
		{name: "an old id on a line the file lacks is a claim", turn: []Run{readFileRun("line one")},
			reply: "```\nline one\nrun: web_search_1700000000000_deadbeef\n```",
			codes: []string{CodeNotFound}},
	})
}

func jsonQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}

// TestCheckFailureReports: a failed run cited by its id may be described in
// any honest way.
func TestCheckFailureReports(t *testing.T) {
	var cases []turnCase
	for _, words := range []string{
		"The fetch gave a 404",
		"read_webpage returned HTTP 500",
		"The page was not found",
		"The server refused the connection",
		"It timed out",
		"Permission denied",
		"The site answered 403 Forbidden",
		"The page was unavailable",
		"The request was rejected",
		"The server answered with status 503",
	} {
		cases = append(cases, turnCase{name: words, turn: []Run{pageErr}, reply: words + " (execution_id: " + failedID + ")."})
	}
	cases = append(cases,
		turnCase{name: "a success status is no failure", turn: []Run{pageErr},
			reply: "The page loaded with 200 OK in 1.404 s, 4040 bytes (execution_id: " + failedID + ").",
			codes: []string{CodeFailedRun}},
		turnCase{name: "content told as real is refused", turn: []Run{pageErr},
			reply: "The page says the service is up (execution_id: " + failedID + ").",
			codes: []string{CodeFailedRun}},
	)
	runTurnCases(t, cases)
}

// TestRepromptAfterDenial: once the user denied a tool in the turn, nothing
// the re-prompt says asks the model to call it.
func TestRepromptAfterDenial(t *testing.T) {
	callsSearch := regexp.MustCompile(`(?i)(\b(call|use|run|invoke)\s+(the\s+)?web_search|<tool:web_search>)`)
	v := testValidator()
	v.Turn = []Run{searchNo}
	for _, reply := range []string{
		"I'll search the web right away.",
		"I searched the web and Go 1.27 is out.",
		"Go 1.27 is out (execution_id: web_search_1763769600999_12345678).",
		"I'll use web_search to look again. I searched the web and Go 1.27 is out (web_search #1763769600123-9f86d081).",
	} {
		issues, err := v.Check(context.Background(), "s_1", reply, testLedger())
		if err != nil {
			t.Fatal(err)
		}
		if len(issues) == 0 && strings.HasPrefix(reply, "I'll search") {
			continue // nothing to re-prompt for: the announcement is dropped
		}
		if len(issues) == 0 {
			t.Fatalf("%q passed", reply)
		}
		for _, is := range issues {
			if !slices.Equal(is.Denied, []string{tools.WebSearch}) {
				t.Errorf("issue %+v does not carry the denial", is)
			}
		}
		re := RepromptMessage(issues)
		if m := callsSearch.FindString(re); m != "" {
			t.Errorf("re-prompt for %q asks for web_search (%q):\n%s", reply, m, re)
		}
		if !strings.Contains(re, "The user denied web_search in this turn") {
			t.Errorf("re-prompt for %q does not say web_search was denied:\n%s", reply, re)
		}
	}

	// Issues made elsewhere may still announce a denied tool; the re-prompt
	// must hold to the denial all the same.
	issues := []Issue{
		{Code: CodeAnnouncedNotCalled, Message: "the reply announces web_search", Tool: tools.WebSearch, Denied: []string{tools.WebSearch}},
		{Code: CodeAnnouncedNotCalled, Message: "the reply announces read_webpage", Tool: tools.ReadWebpage, Denied: []string{tools.WebSearch}},
	}
	re := RepromptMessage(issues)
	if m := callsSearch.FindString(re); m != "" {
		t.Errorf("re-prompt asks for the denied web_search (%q):\n%s", m, re)
	}
	if !strings.Contains(re, "Call the read_webpage tool now") {
		t.Errorf("re-prompt no longer asks for the announced read_webpage:\n%s", re)
	}
}

// TestCheckWithoutDenialStillAsks is the control of TestRepromptAfterDenial:
// the same announcement without a denial is refused and the re-prompt asks
// for the call.
func TestCheckWithoutDenialStillAsks(t *testing.T) {
	issues, err := testValidator().Check(context.Background(), "s_1", "I'll search the web right away.", testLedger())
	if err != nil {
		t.Fatal(err)
	}
	if len(issues) != 1 || issues[0].Code != CodeAnnouncedNotCalled || len(issues[0].Denied) != 0 {
		t.Fatalf("issues = %+v, want one announcement", issues)
	}
	if re := RepromptMessage(issues); !strings.Contains(re, "Call the web_search tool now") {
		t.Errorf("re-prompt does not ask for the call:\n%s", re)
	}
}

// TestRepromptForUnrunClaims: the re-prompt tells the model to report only
// what ran.
func TestRepromptForUnrunClaims(t *testing.T) {
	issues, err := testValidator().Check(context.Background(), "s_1", "Done: I deleted notes.txt.", testLedger())
	if err != nil {
		t.Fatal(err)
	}
	re := RepromptMessage(issues)
	for _, w := range []string{issues[0].Message, "Tell only of tool runs that happened in this turn", "If you need data you do not have, call the tool"} {
		if !strings.Contains(re, w) {
			t.Errorf("re-prompt lacks %q:\n%s", w, re)
		}
	}
}

// FuzzUnrunClaims runs the past-tense reader on any text. Whatever the
// words, a turn in which every tool ran successfully backs every claim, a
// reply shown only inside a code block claims nothing, and an issue names a
// tool the Validator knows.
func FuzzUnrunClaims(f *testing.F) {
	f.Add("I searched the web with web_search and the top result says Go 1.27 shipped.")
	f.Add("Done: I deleted notes.txt. I've written the file report.md, read https://go.dev and ran files__read_text.")
	f.Add("The file report.md has been created successfully. notes.txt was successfully deleted. Deleted a.txt.")
	f.Add(`I tried to delete notes.txt but you denied it; the page says "I deleted it" — I looked it up, then copied it.`)
	f.Add("**write_file**: wrote `a.txt` (2 bytes). Result: removed it, and then I listed the files, moved them.")
	f.Add("I\u2019ve been there. We have just now gone ahead and made the folder \u201cdrafts x\u201d, were successfully been")
	f.Fuzz(func(t *testing.T, reply string) {
		known := append(slices.Clone(tools.Names), "files__read_text")
		actions := map[string][]string{"files__read_text": {"read the text of <file>", "<file>", "x <it> y"}}
		var all []Run
		for _, n := range known {
			all = append(all, Run{ToolName: n, ExecutionID: n + "_1763769600123_00000000", Status: api.StatusOK})
		}
		v := testValidator()
		v.Tools, v.Actions = known, actions
		issues, err := v.Check(context.Background(), "s_1", reply, testLedger())
		if err != nil {
			t.Fatal(err)
		}
		for _, is := range issues {
			if is.Code == CodeUnrunClaim && (!slices.Contains(known, is.Tool) || !strings.Contains(is.Message, is.Tool)) {
				t.Fatalf("unrun claim of an unknown tool: %+v", is)
			}
		}

		v.Turn = all
		issues, err = v.Check(context.Background(), "s_1", reply, testLedger())
		if err != nil {
			t.Fatal(err)
		}
		for _, is := range issues {
			if is.Code == CodeUnrunClaim {
				t.Fatalf("every tool ran, yet: %s", is.Message)
			}
		}

		if strings.Contains(reply, "```") || strings.Contains(reply, "~~~") {
			return
		}
		// A code block is read for claims of runs (it used to be skipped,
		// which let "```\nI deleted notes.txt\n```" through), but it
		// announces nothing; with every tool run it claims nothing unrun.
		issues, err = v.Check(context.Background(), "s_1", "```\n"+reply+"\n```", testLedger())
		if err != nil {
			t.Fatal(err)
		}
		for _, is := range issues {
			if is.Code == CodeUnrunClaim || is.Code == CodeAnnouncedNotCalled {
				t.Fatalf("text in a code block, every tool run: %s", is.Message)
			}
		}
		v.Turn = nil
		issues, err = v.Check(context.Background(), "s_1", "```\n"+reply+"\n```", testLedger())
		if err != nil {
			t.Fatal(err)
		}
		for _, is := range issues {
			if is.Code == CodeAnnouncedNotCalled {
				t.Fatalf("text in a code block announced a tool: %s", is.Message)
			}
		}
	})
}

// FuzzShownContent: whatever a file holds, a reply that shows it in a code
// block as read_file returned it, or re-indented when it is JSON, passes.
func FuzzShownContent(f *testing.F) {
	f.Add(`{"tool_name": "web_search", "result": {"query": "go", "results": []}}`)
	f.Add(`{"execution_id": "web_search_1700000000000_deadbeef", "tool_name": "web_search", "result": {"n": 1.50}}`)
	f.Add("old run: web_search_1700000000000_deadbeef\n...\nexecution_id: x_1763769600123_ABCDEF12\n> quoted")
	f.Add(`[{"tool": "run_speed_test", "output": "\u003c940\u003e"}, {"a": {"execution_id": "nope"}}]`)
	f.Fuzz(func(t *testing.T, file string) {
		if strings.Contains(file, "```") || strings.Contains(file, "~~~") {
			return // the file would end the code block that shows it
		}
		v := testValidator()
		v.Turn = []Run{readFileRun(file)}
		check := func(reply string) {
			t.Helper()
			issues, err := v.Check(context.Background(), "s_1", reply, testLedger())
			if err != nil {
				t.Fatal(err)
			}
			if len(issues) > 0 {
				t.Fatalf("the file shown as read failed validation: %v\nreply:\n%s", Messages(issues), reply)
			}
		}
		check("```\n" + file + "\n```")
		var v2 any
		if json.Unmarshal([]byte(file), &v2) == nil {
			pretty, err := json.MarshalIndent(v2, "", "  ")
			if err == nil {
				check("```json\n" + string(pretty) + "\n```")
			}
		}
	})
}

// FuzzRepromptAfterDenial: whatever the reply says, once the user denied
// web_search in the turn, the re-prompt's instructions never ask for it.
func FuzzRepromptAfterDenial(f *testing.F) {
	f.Add("I'll use web_search to look again. I searched the web (web_search #1763769600123-9f86d081).")
	f.Add("Let me search the web. {\"tool_name\": \"web_search\", \"result\": []}")
	f.Add("I will call read_webpage and web_search now.")
	callsSearch := regexp.MustCompile(`(?i)(\b(call|use|run|invoke)\s+(the\s+)?web_search|<tool:web_search>)`)
	f.Fuzz(func(t *testing.T, reply string) {
		v := testValidator()
		v.Turn = []Run{searchNo, pageOK}
		issues, err := v.Check(context.Background(), "s_1", reply, testLedger())
		if err != nil {
			t.Fatal(err)
		}
		// The reply's own words come back inside the messages; only what
		// the re-prompt itself says is under test.
		for i := range issues {
			issues[i].Message = "(message)"
		}
		if m := callsSearch.FindString(RepromptMessage(issues)); m != "" {
			t.Fatalf("the re-prompt asks for the denied web_search (%q):\n%s", m, RepromptMessage(issues))
		}
	})
}
