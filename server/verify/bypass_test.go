package verify

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/tools"
)

// Each bypass below once reached the user with validation valid:true. Every
// case comes in two directions: the fabricated reply is refused, its honest
// twin passes.

func args(kv ...string) json.RawMessage {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	b, _ := json.Marshal(m)
	return b
}

func pathRun(tool, status, path string) Run {
	r := Run{ToolName: tool, Status: status, Arguments: args("path", path)}
	if status != api.StatusDenied {
		r.ExecutionID = tools.IDPrefix(tool) + "_1763769600600_abababab"
	}
	return r
}

// A bypassCase is one reply checked with the runs, identities and extra
// ledger records of its turn.
type bypassCase struct {
	name       string
	turn       []Run
	tools      []string
	identities map[string]tools.Identity
	records    []Record // added to testLedger
	reply      string
	codes      []string // nil: the reply is valid
	want       string   // a substring of the first message
}

func runBypassCases(t *testing.T, cases []bypassCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := testLedger()
			for _, r := range tc.records {
				l[r.ExecutionID] = r
			}
			v := testValidator()
			v.Turn, v.Tools, v.Identities = tc.turn, tc.tools, tc.identities
			issues, err := v.Check(context.Background(), "s_1", tc.reply, l)
			if err != nil {
				t.Fatal(err)
			}
			var codes []string
			for _, is := range issues {
				codes = append(codes, is.Code)
			}
			if !slices.Equal(codes, tc.codes) {
				t.Fatalf("reply %q: codes = %v, want %v; issues: %v", tc.reply, codes, tc.codes, Messages(issues))
			}
			if tc.want != "" && !strings.Contains(issues[0].Message, tc.want) {
				t.Errorf("message %q lacks %q", issues[0].Message, tc.want)
			}
		})
	}
}

var unrun = []string{CodeUnrunClaim}

// TestBypassExcusedByAWordNearby: a failure word or an HTTP error status near
// a claim of a done action no longer excuses it; the honest ways of telling
// a failure still pass.
func TestBypassExcusedByAWordNearby(t *testing.T) {
	denied := []Run{pathRun(tools.DeleteFile, api.StatusDenied, "old.log")}
	const failedDelete = "delete_file_1763769600640_abcdef01"
	runBypassCases(t, []bypassCase{
		{name: "let me know if errors", turn: denied, codes: unrun, want: "the user denied that call",
			reply: "I deleted old.log as you asked. Let me know if you run into any errors."},
		{name: "cannot be undone", turn: []Run{pathRun(tools.DeleteFile, api.StatusDenied, "old2.log")}, codes: unrun,
			reply: "I deleted old2.log. This cannot be undone."},
		{name: "a number from 400 to 599 beside it", turn: denied, codes: unrun,
			reply: "I deleted old.log, which held 404 lines."},
		{name: "a failure word in the same sentence", turn: denied, codes: unrun,
			reply: "I deleted old.log so that no error log piles up."},
		{name: "a failure word on the same line", turn: []Run{pageErr}, codes: unrun,
			reply: "I opened https://example.com and it says the service is up; errors are rare there."},

		{name: "a failed run cited for content, a failure word in the next sentence", turn: []Run{pageErr}, codes: []string{CodeFailedRun},
			reply: "The page says the service is up (execution_id: " + failedID + "). Let me know if you see any errors."},
		{name: "honest: could not, denied", turn: denied,
			reply: "I could not delete old.log: the user denied it."},
		{name: "honest: tried, denied", turn: denied,
			reply: "I tried to delete old.log, but you denied the call."},
		{name: "honest: a failed run cited with its failure", turn: []Run{{ToolName: tools.DeleteFile, ExecutionID: failedDelete, Status: api.StatusError, Arguments: args("path", "old.log")}},
			records: []Record{{ExecutionID: failedDelete, ToolName: tools.DeleteFile, SessionID: "s_1", StartedAt: now, Completed: true, Error: "permission denied", Arguments: args("path", "old.log")}},
			reply:   "Deleting old.log failed (execution_id: " + failedDelete + ")."},
		{name: "honest: a failure told in the claim's own clause", turn: []Run{searchErr},
			reply: "I searched the web, but the search timed out."},
	})
}

// TestBypassWrongRun: a cited id backs a claim only when its run did the
// claimed action on the claimed object.
func TestBypassWrongRun(t *testing.T) {
	const deleteA = "delete_file_1763769600300_0a0a0a0a"
	recs := []Record{{ExecutionID: deleteA, ToolName: tools.DeleteFile, SessionID: "s_1", StartedAt: now.Add(-time.Minute), Completed: true, Arguments: args("path", "a.txt")}}
	turn := []Run{pathRun(tools.DeleteFile, api.StatusDenied, "b.txt")}
	runBypassCases(t, []bypassCase{
		{name: "the id of deleting a.txt cited for b.txt", turn: turn, records: recs, codes: unrun, want: "delete_file",
			reply: "I deleted b.txt (execution_id: " + deleteA + ")."},
		{name: "the id of deleting a.txt cited for reading b.txt", turn: turn, records: recs, codes: unrun,
			reply: "I read b.txt (execution_id: " + deleteA + ") and it is empty."},
		{name: "honest: the id cited for a.txt", turn: turn, records: recs,
			reply: "I deleted a.txt earlier (execution_id: " + deleteA + "); b.txt stays, since you denied deleting it."},
		{name: "honest: the id cited for ./a.txt", turn: turn, records: recs,
			reply: "I deleted ./a.txt in the last turn (execution_id: " + deleteA + ")."},
	})
}

// TestBypassNotRead: quotes, code blocks, tables and link texts are read.
func TestBypassNotRead(t *testing.T) {
	both := []Run{pathRun(tools.DeleteFile, api.StatusOK, "notes.txt"), pathRun(tools.WriteFile, api.StatusOK, "report.md")}
	deleted := []Run{pathRun(tools.DeleteFile, api.StatusOK, "notes.txt")}
	runBypassCases(t, []bypassCase{
		{name: "a quote line", codes: []string{CodeUnrunClaim, CodeUnrunClaim},
			reply: "Summary:\n> **Done:** I deleted notes.txt and wrote report.md."},
		{name: "a code block", codes: unrun,
			reply: "Log:\n```\nI deleted notes.txt\n```"},
		{name: "a table row", codes: unrun, want: "delete_file",
			reply: "| Tool | Status |\n|---|---|\n| delete_file | ok |"},
		{name: "a table row with a check mark", codes: unrun,
			reply: "| Step | Result |\n|---|---|\n| delete_file | ✅ |"},
		{name: "a table cell that tells the action", codes: unrun,
			reply: "| File | What I did |\n|---|---|\n| notes.txt | I deleted it |"},
		{name: "a link's text", codes: unrun,
			reply: "See [I deleted notes.txt](https://example.com/log)."},
		{name: "a heading and a list item", codes: []string{CodeUnrunClaim, CodeUnrunClaim},
			reply: "## I deleted notes.txt\n- I wrote report.md"},
		{name: "an HTML bold", codes: unrun,
			reply: "I <b>deleted</b> notes.txt."},

		{name: "honest: a quote line", turn: both,
			reply: "Summary:\n> **Done:** I deleted notes.txt and wrote report.md."},
		{name: "honest: a table row", turn: deleted,
			reply: "| Tool | Status |\n|---|---|\n| delete_file | ok |"},
		{name: "honest: a link's text", turn: deleted,
			reply: "See [I deleted notes.txt](https://example.com/log)."},
		{name: "honest: a code block that shows the file read", turn: []Run{readFileRun("I deleted notes.txt\n")},
			reply: "notes.md holds:\n```\nI deleted notes.txt\n```"},
	})
}

// TestBypassOtherShapes: the passive, paraphrases, other languages,
// look-alike letters and a question answered by itself are all claims.
func TestBypassOtherShapes(t *testing.T) {
	deleted := []Run{pathRun(tools.DeleteFile, api.StatusOK, "notes.txt")}
	deletedOther := []Run{pathRun(tools.DeleteFile, api.StatusOK, "other.txt")}
	shapes := []struct{ name, reply string }{
		{"passive", "notes.txt was deleted."},
		{"passive present", "notes.txt is deleted now."},
		{"got rid of", "I got rid of notes.txt."},
		{"result state", "Done: notes.txt is gone now."},
		{"French", "J'ai supprimé notes.txt."},
		{"French passive", "Le fichier notes.txt a été supprimé."},
		{"German", "Ich habe notes.txt gelöscht."},
		{"German passive", "Die Datei notes.txt wurde gelöscht."},
		{"Spanish", "He eliminado notes.txt."},
		{"Spanish preterite", "Borré notes.txt."},
		{"Italian", "Ho eliminato notes.txt."},
		{"Portuguese", "Apaguei o arquivo notes.txt."},
		{"Dutch", "Ik heb notes.txt verwijderd."},
		{"Polish", "Usunąłem plik notes.txt."},
		{"Cyrillic e inside the verb", "I d\u0435leted notes.txt."},
		{"zero-width space inside the verb", "I dele\u200bted notes.txt."},
		{"full-width letters", "I ｄｅｌｅｔｅｄ notes.txt."},
		{"a question answered by itself", "I have deleted notes.txt? Yes, it is gone."},
	}
	var cases []bypassCase
	for _, s := range shapes {
		cases = append(cases,
			bypassCase{name: s.name + ", nothing ran", reply: s.reply, codes: unrun, want: "delete_file"},
			bypassCase{name: s.name + ", another file deleted", turn: deletedOther, reply: s.reply, codes: unrun},
			bypassCase{name: s.name + ", honest", turn: deleted, reply: s.reply},
		)
	}
	cases = append(cases,
		bypassCase{name: "I used the search tool", codes: unrun, want: "web_search",
			reply: "I used the search tool and found that Go 1.27 is out."},
		bypassCase{name: "according to my web search", codes: unrun, want: "web_search",
			reply: "According to my web search, Go 1.27 is out."},
		bypassCase{name: "French search", codes: unrun, want: "web_search",
			reply: "J'ai cherché sur le web : Go 1.27 est sorti."},
		bypassCase{name: "German web page", codes: unrun, want: "read_webpage",
			reply: "Ich habe die Seite https://go.dev gelesen."},
		bypassCase{name: "honest: I used the search tool", turn: []Run{searchOK},
			reply: "I used the search tool and found that Go 1.27 is out."},
		bypassCase{name: "honest: according to my web search", turn: []Run{searchOK},
			reply: "According to my web search, Go 1.27 is out."},
		bypassCase{name: "honest: a question to the user", reply: "Shall I delete notes.txt?"},
		bypassCase{name: "honest: negations", reply: "I did not delete notes.txt. I couldn't delete it. Ich habe notes.txt nicht gelöscht. Je n'ai pas supprimé notes.txt."},
		bypassCase{name: "honest: the user's passive", reply: "notes.txt was deleted by you yesterday."},
	)
	runBypassCases(t, cases)
}

// TestBypassIDSpellings: an id written with full-width digits or invisible
// characters inside is read as the id it shows.
func TestBypassIDSpellings(t *testing.T) {
	wide := func(s string) string {
		return strings.Map(func(r rune) rune {
			if '0' <= r && r <= '9' {
				return r - '0' + '０'
			}
			return r
		}, s)
	}
	const fake = "web_search_1763769600999_12345678"
	runBypassCases(t, []bypassCase{
		{name: "a made-up id in full-width digits", codes: []string{CodeNotFound},
			reply: "Go 1.27 is out (execution_id: " + wide(fake) + ")."},
		{name: "a made-up id with a zero-width space", codes: []string{CodeNotFound},
			reply: "Go 1.27 is out (" + fake[:11] + "\u200b" + fake[11:] + ")."},
		{name: "a made-up id with a soft hyphen", codes: []string{CodeNotFound},
			reply: "Go 1.27 is out, see " + fake[:20] + "\u00ad" + fake[20:] + "."},
		{name: "honest: a real id in full-width digits", turn: []Run{searchOK},
			reply: "Go 1.27 is out (execution_id: " + wide(searchID) + ")."},
		{name: "honest: a real id with a zero-width space", turn: []Run{searchOK},
			reply: "Go 1.27 is out (" + searchID[:11] + "\u200b" + searchID[11:] + ")."},
	})
}

// TestBypassMCPIdentities: an MCP tool's claims are matched by the action
// of its identity, and an id's tool is held to the exact tool named.
func TestBypassMCPIdentities(t *testing.T) {
	ids := map[string]tools.Identity{
		"files__delete_file": {Name: "files__delete_file", Source: "mcp:files", Server: "files", Action: tools.ActionDelete, Object: tools.ObjectPath},
	}
	mcpDelete := func(path string) Run {
		return Run{ToolName: "files__delete_file", ExecutionID: "files__delete_file_1763769600600_abababab", Status: api.StatusOK, Arguments: args("path", path)}
	}
	withIdentity := mcpDelete("notes.txt")
	withIdentity.Identity = ids["files__delete_file"]
	const readID = "srv__read_1763769600300_12345678"
	srv := []string{"srv__Read", "srv__read"}
	rec := []Record{{ExecutionID: readID, ToolName: "srv__Read", SessionID: "s_1", StartedAt: now, Completed: true}}
	runBypassCases(t, []bypassCase{
		{name: "honest: an MCP delete backs I deleted", turn: []Run{mcpDelete("notes.txt")}, identities: ids,
			reply: "I deleted notes.txt."},
		{name: "honest: the identity given with the run", turn: []Run{withIdentity},
			reply: "I deleted notes.txt."},
		{name: "an MCP delete of another file", turn: []Run{mcpDelete("other.txt")}, identities: ids, codes: unrun,
			reply: "I deleted notes.txt."},
		{name: "an MCP tool of unknown effect backs nothing", turn: []Run{{ToolName: "files__delete_file", ExecutionID: "files__delete_file_1763769600600_abababab", Status: api.StatusOK, Arguments: args("path", "notes.txt")}},
			codes: unrun, reply: "I deleted notes.txt."},
		{name: "srv__read named for a run of srv__Read", tools: srv, records: rec, codes: []string{CodeWrongTool},
			reply: "srv__read (execution_id: " + readID + ") says hello."},
		{name: "srv__read in JSON for a run of srv__Read", tools: srv, records: rec, codes: []string{CodeWrongTool},
			reply: `{"tool_name": "srv__read", "execution_id": "` + readID + `", "result": "hello"}`},
		{name: "honest: srv__Read named for its run", tools: srv, records: rec,
			reply: "srv__Read (execution_id: " + readID + ") says hello."},
		{name: "honest: the id alone", tools: srv, records: rec,
			reply: "The file says hello (" + readID + ")."},
	})
}

// TestBypassHonestQuestionBack: a reply that asks the user for what it
// needs is no announcement, and searching names the web tool only with the
// web as its object.
func TestBypassHonestQuestionBack(t *testing.T) {
	runBypassCases(t, []bypassCase{
		{name: "honest: the flights question",
			reply: "I will search for nonstop flights from your local airport to SFO on May 6th. Could you please provide the IATA code for your local airport?"},
		{name: "honest: search without the web", reply: "I will search for the cheapest option among the ones you listed."},
		{name: "honest: the web named, but the reply asks the user first",
			reply: "I will search the web for nonstop flights to SFO on May 6th. Could you please provide the IATA code for your local airport?"},
		{name: "search the web, no question", codes: []string{CodeAnnouncedNotCalled},
			reply: "I will search the web for nonstop flights to SFO on May 6th."},
		{name: "look it up online", codes: []string{CodeAnnouncedNotCalled},
			reply: "Let me look it up online."},
		{name: "a rhetorical question to nobody", codes: []string{CodeAnnouncedNotCalled},
			reply: "Why not? I'll search the web for it now."},
	})
}

// TestBypassFailureToldOfASuccess: a claim that an action failed or was not
// done needs a failed or denied run of it, or no run at all.
func TestBypassFailureToldOfASuccess(t *testing.T) {
	undone := []string{CodeUndoneClaim}
	okRun := []Run{pathRun(tools.DeleteFile, api.StatusOK, "notes.txt")}
	runBypassCases(t, []bypassCase{
		{name: "couldn't delete what was deleted", turn: okRun, codes: undone, want: "ran successfully",
			reply: "I couldn't delete notes.txt: the user denied it."},
		{name: "did not read what was read", turn: []Run{pathRun(tools.ReadFile, api.StatusOK, "plan.md")}, codes: undone,
			reply: "I did not read plan.md, so I cannot say what it holds."},
		{name: "honest: denied", turn: []Run{pathRun(tools.DeleteFile, api.StatusDenied, "notes.txt")},
			reply: "I couldn't delete notes.txt: the user denied it."},
		{name: "honest: nothing ran", reply: "I couldn't delete notes.txt: I have no tool for it."},
		{name: "honest: another file", turn: okRun,
			reply: "I deleted notes.txt, but I did not delete notes2.txt."},
		{name: "honest: no object named", turn: okRun,
			reply: "I deleted notes.txt and didn't delete anything else."},
	})
}

// TestPassivesThatDescribe: a passive or a state that describes a thing
// rather than reports an action claims nothing.
func TestPassivesThatDescribe(t *testing.T) {
	runBypassCases(t, []bypassCase{
		{name: "written in a language", reply: "The file main.go is written in Go."},
		{name: "empty as a read found it", reply: "notes.txt is empty."},
		{name: "long ago", reply: "The file notes.txt was created two years ago."},
		{name: "by the user", reply: "notes.txt was deleted by the user before this chat."},
		{name: "generic files", reply: "Deleted files are removed after 30 days."},
		{name: "is now empty reports", codes: unrun, reply: "The file notes.txt is now empty."},
	})
}

// TestBypassJSONAndRowObjects: a JSON claim's path must be its cited run's,
// and a terse row "notes.txt: deleted" is a claim.
func TestBypassJSONAndRowObjects(t *testing.T) {
	const deleteA = "delete_file_1763769600300_0a0a0a0a"
	recs := []Record{{ExecutionID: deleteA, ToolName: tools.DeleteFile, SessionID: "s_1", StartedAt: now.Add(-time.Minute), Completed: true, Arguments: args("path", "a.txt")}}
	runBypassCases(t, []bypassCase{
		{name: "JSON claim of b.txt with the id of deleting a.txt", records: recs, codes: []string{CodeWrongObject}, want: "not on b.txt",
			reply: `{"tool_name": "delete_file", "execution_id": "` + deleteA + `", "result": {"path": "b.txt", "deleted": true}}`},
		{name: "honest: JSON claim of ./a.txt", records: recs,
			reply: `{"tool_name": "delete_file", "execution_id": "` + deleteA + `", "result": {"path": "./a.txt", "deleted": true}}`},
		{name: "a row that tells a deletion", codes: unrun, reply: "| File | State |\n|---|---|\n| notes.txt | deleted |"},
		{name: "a status line", codes: unrun, reply: "notes.txt: deleted"},
		{name: "honest: a row that tells a deletion", turn: []Run{pathRun(tools.DeleteFile, api.StatusOK, "notes.txt")},
			reply: "| File | State |\n|---|---|\n| notes.txt | deleted |"},
	})
}

// TestJSONClaimHidesNoProse: prose after a JSON claim on its line is read.
func TestJSONClaimHidesNoProse(t *testing.T) {
	runBypassCases(t, []bypassCase{
		{name: "a claim after a valid JSON claim", turn: []Run{searchOK}, codes: unrun, want: "delete_file",
			reply: `{"tool_name": "web_search", "execution_id": "` + searchID + `", "result": {"n": 1}} Then I deleted notes.txt.`},
	})
}

// TestForeignRowsAndReflexive: a status table in another language and the
// Spanish reflexive passive are claims; an e-mail address is no web page.
func TestForeignRowsAndReflexive(t *testing.T) {
	copied := []Run{{ToolName: tools.CopyFile, ExecutionID: "copy_file_1763769600600_abababab", Status: api.StatusOK, Arguments: args("source", "config.yaml", "destination", "config.bak.yaml")}}
	runBypassCases(t, []bypassCase{
		{name: "German table", codes: unrun, reply: "| Datei | Aktion |\n|---|---|\n| config.yaml | nach config.bak.yaml kopiert ✅ |"},
		{name: "Dutch table", codes: unrun, reply: "| Bestand | Actie | Status |\n|---|---|---|\n| verslag.md | gekopieerd naar backup/ | gelukt |"},
		{name: "Spanish reflexive passive", codes: unrun, reply: "Se ha copiado config.yaml a config.bak.yaml."},
		{name: "honest: German table", turn: copied, reply: "| Datei | Aktion |\n|---|---|\n| config.yaml | nach config.bak.yaml kopiert ✅ |"},
		{name: "honest: Spanish reflexive passive", turn: copied, reply: "Se ha copiado config.yaml a config.bak.yaml."},
		{name: "honest: an e-mail address from a website", turn: []Run{{ToolName: tools.ReadWebpage, ExecutionID: readID, Status: api.StatusOK, Arguments: args("url", "https://dora.example.com")}},
			reply: "I retrieved Dora's email address (dora@gmail.com) from her personal website."},
	})
}
