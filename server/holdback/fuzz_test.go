package holdback

import (
	"slices"
	"strings"
	"testing"
)

// fragments are what fuzzed replies are built from: prose, ids and their
// near-misses, JSON, tags, fences, tool sentences and the punctuation that
// joins or splits them.
var fragments = []string{
	prose,
	"It ships faster builds and a new garbage collector. ",
	"Is it stable? ",
	"Yes!\n",
	"See https://go.dev/doc/go1.26 and notes.txt for v1.26.0. ",
	"You can search the web for more. ",
	"Would you like me to read the page? ",
	"web_search_1763769600123_9f86d081",
	"WEB_SEARCH_1763769600123_9F86D081",
	"web_search #1763769600123-9f86d081",
	"read_file_176376960012_9f86d08",
	"1763769600123",
	"run_speed_test_1763769600999_abcdef12",
	"execution_id: ",
	"Execution ID",
	`{"tool_name": "web_search", "result": {"hits": 3}}`,
	`{"name": "read_file", "parameters": {"path": "a.txt"}}`,
	"{",
	"}",
	"<tool:read_file>",
	"</tool>",
	"```json\n",
	"```\n",
	"The web_search tool is handy. ",
	"A web search found three pages. ",
	"files__read_text",
	"I searched the web. ",
	"I deleted notes.txt. ",
	"I've written the file report.md. ",
	"Deleted notes.txt.",
	"notes.txt has been deleted. ",
	"Let me search the web for that. ",
	"I'll read the page at go.dev. ",
	"I ran ",
	"> ",
	"Done. > ",
	"\"",
	". ", ".", "! ", "? ", "\n", " ", "_", "-", "#", ":", "e", "I", "web", "search", "read", "file",
}

// FuzzFilter streams a reply built from fragments (and any raw text) in
// pieces whose sizes the fuzzer chooses, and checks every promise of the
// package: no panic; every Write plus Held gives back the reply; the release
// only grows and is a prefix; it holds nothing claim-shaped; and streaming in
// pieces releases exactly what one piece would, so chunking never reveals more.
func FuzzFilter(f *testing.F) {
	seeds := []struct {
		parts []string
		cuts  []byte
	}{
		{[]string{prose, "Is it stable? ", "Yes!\n"}, []byte{4}},
		{[]string{prose, "web_search_1763769600123_9f86d081", ". "}, []byte{1}},
		{[]string{prose, "WEB_SEARCH_1763769600123_9F86D081", " ", "web_search #1763769600123-9f86d081", ". "}, []byte{3, 0, 5}},
		{[]string{prose, "execution_id: ", "read_file_176376960012_9f86d08", "\n"}, []byte{2, 9}},
		{[]string{prose, `{"tool_name": "web_search", "result": {"hits": 3}}`, "\n", prose}, []byte{7}},
		{[]string{prose, "<tool:read_file>", "</tool>", "\n"}, []byte{13, 1}},
		{[]string{prose, "```json\n", prose, "```\n"}, nil},
		{[]string{prose, "The web_search tool is handy. ", prose}, []byte{16}},
		{[]string{prose, "A web search found three pages. "}, []byte{5}},
		{[]string{prose, "files__read_text", ". "}, []byte{2}},
		{[]string{prose, "I searched the web. ", "I deleted notes.txt. "}, []byte{1}},
		{[]string{prose, "Done. > ", "I deleted notes.txt. "}, []byte{6}},
		{[]string{prose, "Let me search the web for that. ", "I'll read the page at go.dev. "}, []byte{4}},
		{[]string{"web", "_", "search", " ", "1763769600123", "."}, []byte{0, 3}},
		{[]string{prose, "1763769600123", ". ", "run_speed_test_1763769600999_abcdef12", "\n"}, []byte{6}},
	}
	for _, s := range seeds {
		var recipe []byte
		for _, p := range s.parts {
			i := slices.Index(fragments, p)
			if i < 0 {
				f.Fatalf("seed part %q is no fragment", p)
			}
			recipe = append(recipe, byte(i))
		}
		f.Add(recipe, "", s.cuts)
	}
	f.Add([]byte{0, byte(len(fragments)), 1}, "I deleted notes.txt. ", []byte{3, 0, 5})
	f.Add([]byte{}, "Plain words. Then {\"tool\": 1}", []byte{})
	f.Fuzz(func(t *testing.T, recipe []byte, raw string, cuts []byte) {
		var b strings.Builder
		for _, r := range recipe {
			if i := int(r) % (len(fragments) + 1); i < len(fragments) {
				b.WriteString(fragments[i])
			} else {
				b.WriteString(raw)
			}
		}
		if len(recipe) == 0 {
			b.WriteString(raw)
		}
		text := b.String()

		chunked := New(registered)
		var released strings.Builder
		rest, zeros := text, 0
		for k := 0; len(rest) > 0; k++ {
			n := len(rest)
			if len(cuts) > 0 && zeros < len(cuts) {
				n = min(int(cuts[k%len(cuts)])%17, n) // 0: an empty piece
			}
			if n == 0 {
				zeros++
			} else {
				zeros = 0
			}
			out := chunked.Write(rest[:n])
			rest = rest[n:]
			// Only the new release is compared, so a long reply in small
			// pieces stays linear and the fuzzer fast.
			written, prev := text[:len(text)-len(rest)], released.Len()
			if len(out) > len(written)-prev || out != written[prev:prev+len(out)] {
				t.Fatalf("after %q, Write released %q: not the text that follows it, %q", written[:prev], out, written[prev:])
			}
			released.WriteString(out)
			if got := len(chunked.Shown()); got != released.Len() {
				t.Fatalf("Shown() has %d bytes, the Writes released %d", got, released.Len())
			}
		}
		if got := chunked.Shown(); got != released.String() {
			t.Fatalf("Shown() = %q, but the Writes released %q", got, released.String())
		}
		if got := released.String() + chunked.Held(); got != text {
			t.Fatalf("released + Held() = %q, want the reply %q", got, text)
		}
		shown := released.String()
		if shown != "" && !isSpace(shown[len(shown)-1]) {
			t.Fatalf("release %q does not end at a sentence end", shown)
		}
		checkReleased(t, shown)

		whole := New(registered)
		whole.Write(text)
		if whole.Shown() != shown {
			t.Fatalf("one piece released %q, pieces released %q", whole.Shown(), shown)
		}
	})
}
