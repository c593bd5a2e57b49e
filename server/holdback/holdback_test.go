package holdback

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/ailab/ai-lab/server/verify"
	"github.com/ailab/ai-lab/tools"
)

// registered is the turn's tool list in the tests: the catalog and one MCP tool.
var registered = append(append([]string{}, tools.Names...), "files__read_text")

const prose = "Go 1.26 was released in February 2026 with several improvements. "

// stream writes text to a fresh Filter in pieces of size n (0: one piece) and
// returns the filter and what every Write released, in order.
func stream(text string, n int) (*Filter, []string) {
	f := New(registered)
	var out []string
	for len(text) > 0 {
		k := len(text)
		if n > 0 {
			k = min(n, k)
		}
		out = append(out, f.Write(text[:k]))
		text = text[k:]
	}
	return f, out
}

// chunkings are the piece sizes every table case is streamed with: one
// piece, single bytes (every word cut), and sizes that cut ids and tags.
var chunkings = []int{0, 1, 2, 3, 4, 7, 13}

func TestFilterShows(t *testing.T) {
	tests := []struct {
		name string
		text string
		// shown is what is released once the whole text is written; the rest
		// must be held.
		shown string
	}{
		{"prose streams sentence by sentence", prose + "It ships faster builds! Is it stable? Yes.\nThe end",
			prose + "It ships faster builds! Is it stable? Yes.\n"},
		{"numbers, versions, URLs and file names stream", "See https://go.dev/doc/go1.26 for notes.txt and v1.26.0 from 2026-02-11. Costs 1,299 USD. ",
			"See https://go.dev/doc/go1.26 for notes.txt and v1.26.0 from 2026-02-11. Costs 1,299 USD. "},
		{"offer streams", "Would you like me to search the web for more? ", "Would you like me to search the web for more? "},
		{"advice to the user streams", "You can search the web for the release notes. ", "You can search the web for the release notes. "},
		{"an unfinished sentence waits", prose + "Its garbage collector", prose},
		{"a mark at the very end waits", prose + "Done.", prose},
		{"a mark inside a word does not end the sentence", prose + "See go.dev/doc and v1.26.0 now", prose},

		{"fabricated execution id", prose + "Source: web_search_1763769600123_9f86d081. More prose.", prose},
		{"execution id split by chunking", prose + "Found via web_sea" + "rch_1763769600123_9f86d081 today. ", prose},
		{"id of an unknown tool", prose + "See run_speed_test_1763769600999_abcdef12 below. ", prose},
		{"near-miss: upper-case hex", prose + "Cited WEB_SEARCH_1763769600123_9F86D081 there. ", prose},
		{"near-miss: other separators", prose + "From search #1763769600123-9f86d081 today. ", prose},
		{"near-miss: short timestamp", prose + "From run_check_17637696_9f86d081 today. ", prose},
		{"near-miss: too many digits", prose + "Result 17637696001234_9f86d081 is in. ", prose},
		{"execution_id mention", prose + "Its execution_id is missing. ", prose},
		{"execution id mention in words", prose + "The Execution ID was lost. ", prose},
		{"JSON tool result", prose + `Result: {"tool_name": "search", "result": {"hits": 3}}` + "\nMore.", prose},
		{"JSON opened at the end", prose + "Here it is:\n{", prose + "Here it is:\n"},
		{"tool tag call", prose + "<tool:read_file>\n(path) notes.txt</tool>\n", prose},
		{"closing tool tag", prose + "That ends here </TOOL> now. ", prose},
		{"code fence", prose + "```json\n\"hits\": 3\n```\n", prose},
		{"tilde fence", prose + "~~~\nplain\n~~~\n", prose},
		{"sentence naming a tool", prose + "The write_file tool is handy. ", prose},
		{"tool named in upper case", prose + "WEB_SEARCH is handy. ", prose},
		{"tool named with spaces", prose + "A web search found three pages. ", prose},
		{"tool named with a hyphen", prose + "The Read-File result is below. ", prose},
		{"tool named as one word", prose + "Websearch says so. ", prose},
		{"MCP tool named in full", prose + "files__read_text says so. ", prose},
		{"MCP tool named without its server", prose + "The read text step says so. ", prose},
		{"past tense: searched the web", prose + "I searched the web for the release date. ", prose},
		{"past tense: deleted a file", prose + "I deleted notes.txt as asked. ", prose},
		{"past tense: written a file", prose + "I've written the file report.md for you. ", prose},
		{"past tense: passive", prose + "The file notes.txt has been deleted. ", prose},
		{"past tense: terse", prose + "Done: created the folder drafts.\n", prose},
		{"announcement: let me search", prose + "Let me search the web for that. ", prose},
		{"announcement: I'll read the page", prose + "I'll read the page at go.dev now. ", prose},
		{"announcement on its own line", prose + "\nI'm going to look it up online\n", prose + "\n"},
		{"a claim in a quote line waits, as validation reads quotes too", "> I deleted notes.txt, the page said.\nOK. ", ""},
		{"'>' inside a line quotes nothing", "Done. > I deleted notes.txt. ", "Done. "},
		{"nested '>' inside a line quotes nothing", "Is it? > > Let me search the web for that. ", "Is it? "},
		{"everything after a claim waits", "Intro. I deleted notes.txt. Plain prose after. More prose. ", "Intro. "},
		{"claim in the first sentence", "I searched the web. Then prose. ", ""},
		// The shapes that once passed validation are held back too, however
		// they are chunked.
		{"bypass: excused by a word nearby", prose + "I deleted old.log as you asked. Let me know if you run into any errors. ", prose},
		{"bypass: quote line with emphasis", "> **Done:** I deleted notes.txt and wrote report.md.\nOK. ", ""},
		{"bypass: table row", prose + "\n| delete_file | ok |\n", prose + "\n"},
		{"bypass: link text", prose + "See [I deleted notes.txt](https://x.example/). ", prose},
		{"bypass: passive", prose + "notes.txt was deleted. ", prose},
		{"bypass: got rid of", prose + "I got rid of notes.txt. ", prose},
		{"bypass: gone now", prose + "Done: notes.txt is gone now. ", prose},
		{"bypass: used the search tool", prose + "I used the search tool and found that it works. ", prose},
		{"bypass: according to my web search", prose + "According to my web search, it works. ", prose},
		{"bypass: French", prose + "J'ai supprimé notes.txt. ", prose},
		{"bypass: German", prose + "Ich habe notes.txt gelöscht. ", prose},
		{"bypass: Cyrillic letter in the verb", prose + "I d\u0435leted notes.txt. ", prose},
		{"bypass: a question answered by itself", prose + "I have deleted notes.txt? Yes, it is gone. ", prose},
		{"bypass: full-width digits in an id", prose + "See write_file_\uff11\uff17\uff16\uff13\uff17\uff16\uff19\uff16\uff10\uff10\uff11\uff12\uff13_9f86d081 now. ", prose},
		{"honest twin: a question back to the user", prose + "Could you tell me which file to delete? ", prose + "Could you tell me which file to delete? "},
		{"honest twin: a plan without the web", prose + "I will search for flights once you give me the airport. ", prose + "I will search for flights once you give me the airport. "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.HasPrefix(tt.text, tt.shown) {
				t.Fatalf("bad case: %q is not a prefix of the text", tt.shown)
			}
			for _, n := range chunkings {
				f, out := stream(tt.text, n)
				if got := strings.Join(out, ""); got != tt.shown {
					t.Errorf("pieces of %d: shown %q, want %q", n, got, tt.shown)
				}
				if got := f.Shown(); got != tt.shown {
					t.Errorf("pieces of %d: Shown() = %q, want %q", n, got, tt.shown)
				}
				if got, want := f.Held(), tt.text[len(tt.shown):]; got != want {
					t.Errorf("pieces of %d: Held() = %q, want %q", n, got, want)
				}
			}
		})
	}
}

// TestFilterReleasesEachSentenceAtItsEnd pins when text is released: the piece
// that ends a sentence releases it, not a later one.
func TestFilterReleasesEachSentenceAtItsEnd(t *testing.T) {
	f := New(registered)
	steps := []struct{ piece, want string }{
		{"Go 1.26 was rel", ""},
		{"eased in February", ""},
		{" 2026.", ""}, // the '.' may yet be part of a version or name
		{" It", "Go 1.26 was released in February 2026. "},
		{" is fast!\nNext", "It is fast!\n"},
		{" line\n", "Next line\n"},
		{"Then I deleted notes.txt. ", ""},
		{"Plain prose. ", ""},
	}
	for i, s := range steps {
		if got := f.Write(s.piece); got != s.want {
			t.Fatalf("step %d: Write(%q) = %q, want %q", i, s.piece, got, s.want)
		}
	}
	if got, want := f.Held(), "Then I deleted notes.txt. Plain prose. "; got != want {
		t.Errorf("Held() = %q, want %q", got, want)
	}
}

// TestNewAlwaysHoldsCatalogNames: a turn with only MCP tools still holds a
// built-in name, and its own tools are held under their names.
func TestNewAlwaysHoldsCatalogNames(t *testing.T) {
	f := New([]string{"weather__now"})
	if got := f.Write("The delete_file tool is gone. "); got != "" {
		t.Errorf("a catalog name was shown: %q", got)
	}
	g := New([]string{"weather__now"})
	if got := g.Write("Prose. The weather now is sunny. "); got != "Prose. " {
		t.Errorf("an MCP tool name was shown: %q", got)
	}
	h := New(nil)
	if got := h.Write("Nothing to hold here. "); got != "Nothing to hold here. " {
		t.Errorf("New(nil) held prose: %q", got)
	}
}

// idShaped matches what the tests count as an id-shaped word: the contract's
// pattern in any case, and digit runs as long as any timestamp in an id.
var idShaped = regexp.MustCompile(`(?i)\b[a-z][a-z0-9_]*?_\d{13}_[0-9a-f]{8}\b|\d{10}`)

// checkReleased fails t when released text holds anything claim-shaped, by
// the tests' own patterns and by verify's judgement of the whole text.
func checkReleased(t *testing.T, released string) {
	t.Helper()
	lower := strings.ToLower(released)
	for _, bad := range []string{"{", "<tool:", "</tool", "```", "execution_id"} {
		if strings.Contains(lower, bad) {
			t.Fatalf("released text holds %q: %q", bad, released)
		}
	}
	if m := idShaped.FindString(released); m != "" {
		t.Fatalf("released text holds the id-shaped %q: %q", m, released)
	}
	for _, n := range registered {
		if strings.Contains(lower, n) {
			t.Fatalf("released text names %s: %q", n, released)
		}
	}
	if claims := verify.ExtractClaims(released); len(claims) > 0 {
		t.Fatalf("released text holds the claim %q: %q", claims[0].Raw, released)
	}
	issues, err := verify.Validator{Tools: registered}.Check(context.Background(), "s", released, noRuns{})
	if err != nil || len(issues) > 0 {
		t.Fatalf("verify refuses released text %q: %v %+v", released, err, issues)
	}
}
