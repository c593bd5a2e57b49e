package verify

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ailab/ai-lab/tools"
)

func TestExtractClaims(t *testing.T) {
	type want struct {
		id, tool string
		kind     ClaimKind
	}
	cases := []struct {
		name string
		text string
		want []want
	}{
		{"no claims", "The weather is nice {and braces} in prose.", nil},
		{"bare id takes its tool from the prefix", "see " + searchID + ".", []want{{searchID, "web_search", ClaimBare}}},
		{"colon mention", "execution_id: " + readID, []want{{readID, "read_webpage", ClaimMention}}},
		{"equals mention", "execution_id=" + readID, []want{{readID, "read_webpage", ClaimMention}}},
		{"quoted mention in broken JSON", `"execution_id": "` + readID + `",`, []want{{readID, "read_webpage", ClaimMention}}},
		{"parenthesised mention", "(execution_id: " + readID + ")", []want{{readID, "read_webpage", ClaimMention}}},
		{"spaced mention with backticks", "Execution ID: `" + readID + "`", []want{{readID, "read_webpage", ClaimMention}}},
		{"malformed mention", "(execution_id: speed-42)", []want{{"speed-42", "", ClaimMention}}},
		{"placeholder is no claim", "cite it as execution_id: <id>", nil},
		{"tool named right before a mention", "run_speed_test (execution_id: " + searchID + ")", []want{{searchID, "run_speed_test", ClaimMention}}},
		{"tool named right before a bare id", "run_speed_test: " + searchID, []want{{searchID, "run_speed_test", ClaimBare}}},
		{"catalog tool in backticks before a mention", "`read_file` (execution_id: " + searchID + ")", []want{{searchID, "read_file", ClaimMention}}},
		{"bold tool name before a mention", "**run_speed_test** (execution_id: " + searchID + ")", []want{{searchID, "run_speed_test", ClaimMention}}},
		{"quoted file name is not a tool", "`old_notes` (execution_id: " + searchID + ")", []want{{searchID, "web_search", ClaimMention}}},
		{"path is not a tool", "docs/my_plan (" + searchID + ")", []want{{searchID, "web_search", ClaimBare}}},
		{"previous id is not a tool name", readID + " " + searchID, []want{{readID, "read_webpage", ClaimBare}, {searchID, "web_search", ClaimBare}}},
		{"JSON claim with tool_name", `{"tool_name": "web_search", "execution_id": "` + searchID + `"}`, []want{{searchID, "web_search", ClaimJSON}}},
		{"JSON claim with tool", `{"tool": "read_file", "result": "x"}`, []want{{"", "read_file", ClaimJSON}}},
		{"JSON claim with function string", `{"function": "run_speed_test", "output": 3}`, []want{{"", "run_speed_test", ClaimJSON}}},
		{"JSON claim with only an id takes the tool from the id", `{"execution_id": "` + searchID + `", "result": {"n": 1}}`, []want{{searchID, "web_search", ClaimJSON}}},
		{"JSON claim naming its tool with name", `{"name": "read_file", "execution_id": "` + searchID + `"}`, []want{{searchID, "read_file", ClaimJSON}}},
		{"JSON claim beats the bare id inside it", `{"tool_name": "run_speed_test", "execution_id": "` + searchID + `"}`, []want{{searchID, "run_speed_test", ClaimJSON}}},
		{"nested claim inside a plain object", `{"results": [{"tool_name": "web_search", "execution_id": "` + searchID + `"}]}`, []want{{searchID, "web_search", ClaimJSON}}},
		{"braces inside strings", `{"tool_name": "web_search", "note": "a } and a { and \" quote", "execution_id": "` + searchID + `"}`, []want{{searchID, "web_search", ClaimJSON}}},
		{"fenced JSON claim", "```json\n{\"tool_name\": \"run_speed_test\", \"result\": {}}\n```", []want{{"", "run_speed_test", ClaimJSON}}},
		{"JSON claim with trailing commas", "```json\n{\n  \"tool\": \"run_speed_test\",\n  \"result\": {\"mbps\": [900,],},\n}\n```", []want{{"", "run_speed_test", ClaimJSON}}},
		{"comma before a brace inside a string stays", `{"tool_name": "web_search", "note": ",}", "execution_id": "` + searchID + `",}`, []want{{searchID, "web_search", ClaimJSON}}},
		{"text-format call is no claim", `{"name": "web_search", "parameters": {"query": "x"}}`, nil},
		{"tool plus arguments only is a call", `{"tool": "web_search", "arguments": {"query": "x"}}`, nil},
		{"OpenAI tool_calls shape is a call", `{"id": "call_1", "function": {"name": "web_search", "arguments": "{}"}}`, nil},
		{"tool plus arguments plus result is a claim", `{"tool": "web_search", "arguments": {"query": "x"}, "result": []}`, []want{{"", "web_search", ClaimJSON}}},
		{"echoed denial is no claim", `{"tool_name": "delete_file", "status": "denied", "message": "The user denied this tool call."}`, nil},
		{"echoed error is no claim", `{"tool_name": "read_webpage", "error": "timeout"}`, nil},
		{"status ok without id is a claim", `{"tool_name": "read_webpage", "status": "ok"}`, []want{{"", "read_webpage", ClaimJSON}}},
		{"same id twice is one claim", searchID + " and again " + searchID, []want{{searchID, "web_search", ClaimBare}}},
		// Before malformed ids were reported this case expected no claim at
		// all; an id-shaped word that is not in the format is now a claim.
		{"id glued to a word is a malformed id", "Xweb_search_1763769600123_9f86d081", []want{{"Xweb_search_1763769600123_9f86d081", "xweb_search", ClaimMalformed}}},
		{"execution_id_extra is not a mention", "execution_ids: 4", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ExtractClaims(tc.text)
			var gw []want
			for _, c := range got {
				gw = append(gw, want{c.ExecutionID, c.ToolName, c.Kind})
				if c.Offset < 0 || c.Offset+len(c.Raw) > len(tc.text) || tc.text[c.Offset:c.Offset+len(c.Raw)] != c.Raw {
					t.Errorf("claim %+v: Raw is not the text at Offset", c)
				}
			}
			if !slices.Equal(gw, tc.want) {
				t.Fatalf("claims = %+v, want %+v", gw, tc.want)
			}
		})
	}
}

// TestFindExecutionIDsMatchesPattern holds the hand-written scanner to the
// contract's regular expression.
func TestFindExecutionIDsMatchesPattern(t *testing.T) {
	for _, text := range idCorpus {
		assertSameAsPattern(t, text)
	}
}

var idCorpus = []string{
	"",
	searchID,
	"x " + searchID + " y " + readID,
	"a_1_1763769600123_9f86d081",
	"ab_1763769600123_9f86d081_1763769600123_9f86d082 tail",
	"Web_search_1763769600123_9f86d081",
	"1web_search_1763769600123_9f86d081",
	"web_search_17637696001234_9f86d081",
	"web_search_1763769600123_9f86d0811",
	"web_search_1763769600123_9F86D081",
	"_1763769600123_9f86d081",
	"é" + searchID + "é",
	"(" + searchID + ")," + searchID + "_",
	"web__1763769600123_9f86d081",
	"a_1763769600123_9f86d081-b_1763769600123_9f86d081",
}

func assertSameAsPattern(t *testing.T, text string) {
	t.Helper()
	var want [][2]int
	for _, m := range tools.ExecutionIDPattern.FindAllStringSubmatchIndex(text, -1) {
		want = append(want, [2]int{m[0], m[1]})
		if got := idPrefix(text[m[0]:m[1]]); got != text[m[2]:m[3]] {
			t.Errorf("idPrefix(%q) = %q, pattern says %q", text[m[0]:m[1]], got, text[m[2]:m[3]])
		}
	}
	var got [][2]int
	for _, s := range findExecutionIDs(text) {
		got = append(got, [2]int{s.Start, s.End})
	}
	if !slices.Equal(got, want) {
		t.Errorf("findExecutionIDs(%q) = %v, pattern finds %v", text, got, want)
	}
}

func TestNewExecutionIDIsFound(t *testing.T) {
	for _, name := range tools.Names {
		id := tools.NewExecutionID(name, now)
		claims := ExtractClaims(fmt.Sprintf("result (%s).", id))
		if len(claims) != 1 || claims[0].ExecutionID != id || claims[0].ToolName != name {
			t.Errorf("claims of %s = %+v", id, claims)
		}
	}
}

func FuzzExtractClaims(f *testing.F) {
	for _, s := range idCorpus {
		f.Add(s)
	}
	f.Add(`{"tool_name": "run_speed_test", "result": {"a": "}"}} {{{ "execution_id": "x"`)
	f.Add("execution_id: " + readID + " {\"name\": \"web_search\", \"parameters\": {}}")
	f.Add(strings.Repeat("{\"", 50))
	f.Add("web_search #1763769600123-9f86d081 (execution_id: web_search-1763769600123-9F86D081) gave a 404")
	f.Add("execution_id: web_search_17637696001234_9f86d08 " + searchID + "_1763769600123_abcdef12")
	f.Fuzz(func(t *testing.T, text string) {
		for _, c := range ExtractClaims(text) {
			if c.Offset < 0 || c.Offset+len(c.Raw) > len(text) || text[c.Offset:c.Offset+len(c.Raw)] != c.Raw {
				t.Fatalf("claim %+v is not at its offset", c)
			}
			if c.ExecutionID == "" && (c.Kind != ClaimJSON || c.ToolName == "") {
				t.Fatalf("claim %+v has neither id nor JSON tool", c)
			}
			if c.Kind == ClaimMalformed && (c.Raw != c.ExecutionID || idPrefix(c.ExecutionID) != "") {
				t.Fatalf("malformed claim %+v is a well-formed id", c)
			}
			_ = c.ReportsFailure() // must not panic on any stretch of text
		}
		assertSameAsPattern(t, text)
	})
}

// malformedShape is what findMalformedIDs may ever report: a word, one to
// three separators, ten to sixteen digits, and maybe a separator and hex digits.
var malformedShape = regexp.MustCompile(`^[A-Za-z0-9_]+[ _\-#:.=/]{1,3}[0-9]{10,16}(?:[_\-.:/# ][0-9A-Fa-f]{6,10})?$`)

// FuzzMalformedIDs holds the near-miss finder to its shape, keeps it off
// real ids, and checks that a real id put into any text is never reported.
func FuzzMalformedIDs(f *testing.F) {
	for _, s := range idCorpus {
		f.Add(s, 0)
	}
	f.Add("web_search #1763769600123-9f86d081 and web_search_1763769600123 and WEB_SEARCH_1763769600123_9F86D081", 3)
	f.Add("2026-11-21T23:00:00.123Z 1763769600123 550e8400-e29b-41d4-a716-446655440000 +1 555-123-4567", 10)
	f.Add("files__read_text-17637696001234-9f86d08 x_1763769600123_9f86d081_1763769600123_9F86D082", 40)
	f.Fuzz(func(t *testing.T, text string, at int) {
		names := append(slices.Clone(tools.Names), "files__read_text")
		exact := findExecutionIDs(text)
		last := 0
		for _, s := range findMalformedIDs(text, names) {
			if s.Start < last || s.End <= s.Start || s.End > len(text) {
				t.Fatalf("span %+v is out of order or out of %q", s, text)
			}
			last = s.End
			raw := text[s.Start:s.End]
			if !malformedShape.MatchString(raw) {
				t.Fatalf("reported %q, which has not the shape of an id", raw)
			}
			if s.Start > 0 && isWordByte(text[s.Start-1]) || s.End < len(text) && isWordByte(text[s.End]) {
				t.Fatalf("reported %q, which is part of a longer word in %q", raw, text)
			}
			for _, e := range exact {
				if e.Start < s.End && s.Start < e.End {
					t.Fatalf("reported %q, which overlaps the real id %q", raw, text[e.Start:e.End])
				}
			}
		}

		// A real id set apart by spaces is never a near-miss.
		at = min(max(at, 0), len(text))
		with := text[:at] + " " + searchID + " " + text[at:]
		for _, s := range findMalformedIDs(with, names) {
			if s.Start <= at+1 && at+1+len(searchID) <= s.End {
				t.Fatalf("the real id inserted at %d is reported as malformed: %q", at, with[s.Start:s.End])
			}
		}
	})
}
