package client_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client"
	"github.com/ailab/ai-lab/client/clienttest"
	"github.com/ailab/ai-lab/visible"
)

// hidden reports a rune the approval screen must never print as is: what
// visible.Deceptive says, the one definition the server refuses grants by.
func hidden(r rune) bool {
	return visible.Deceptive(r)
}

func checkShown(t *testing.T, what, s string, allowNewline bool) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Fatalf("%s is not valid UTF-8: %q", what, s)
	}
	for _, r := range s {
		if r == '\n' && allowNewline {
			continue
		}
		if hidden(r) && r != '…' {
			t.Fatalf("%s shows hidden rune %U: %q", what, r, s)
		}
	}
}

// FuzzArgumentsAreShownVisibly feeds arbitrary tool arguments (as a hostile page
// could make a model send) through every renderer of the approval screen.
func FuzzArgumentsAreShownVisibly(f *testing.F) {
	for _, s := range []string{
		`{"query":"latest AI","max_results":5}`,
		"{\"path\":\"a\u200b.txt\",\"content\":\"\\u001b[2J\"}",
		"{\"x\":\"\u202eexe.txt\"}",
		`{"a":{"b":[1,2,{"c":null}]}}`,
		"not json \x1b]8;;http://evil\x07",
		"\xff\xfe",
		`"just a string"`,
	} {
		f.Add(s, 60)
	}
	f.Fuzz(func(t *testing.T, args string, width int) {
		width = 30 + abs(width)%150
		checkShown(t, "Visible", client.Visible(args), false)
		checkShown(t, "ShortArgs", client.ShortArgs([]byte(args)), false)
		checkShown(t, "PrettyArgs", client.PrettyArgs([]byte(args)), true)
		first := clienttest.Call("write_file", args, "c")
		first.Preview = &api.Preview{Kind: api.PreviewOverwrite, Path: args, Summary: "overwrites " + args, Diff: "-" + args + "\n+" + args}
		b := client.NewBatch(clienttest.Pending("s", first, clienttest.Call(args, args, "d")))
		// 1..5 lines per row reaches the compact and the cut forms of a squeezed row,
		// and a height of 5..10 lines the table's scrolled forms.
		screen := b.Screen(client.ScreenOptions{Width: width, MaxArgLines: 1 + width%5, Style: plainStyle(), Compact: width%2 == 0, Height: 5 + width%6*(width%2)})
		checkShown(t, "Screen", screen, true)
		for _, l := range strings.Split(screen, "\n") {
			if ansi.StringWidth(l) > width {
				t.Fatalf("line wider than %d: %q", width, l)
			}
		}
		checkShown(t, "Prompt", b.Prompt(width), false)
		checkShown(t, "Details", client.Details(first, plainStyle()), true)
		checkTerminalSafe(t, client.TerminalSafe(args))
	})
}

// checkTerminalSafe fails on what TerminalSafe must escape: controls other than
// newline and tab, bidi controls, zero-width spaces and invalid UTF-8.
func checkTerminalSafe(t *testing.T, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Fatalf("TerminalSafe is not valid UTF-8: %q", s)
	}
	for _, r := range s {
		bidi := r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
		control := (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f)
		if bidi || control || r == 0x200b || r == 0x2060 || r == 0xfeff {
			t.Fatalf("TerminalSafe lets %U through: %q", r, s)
		}
	}
}

func abs(n int) int {
	if n < 0 {
		if n == -n { // math.MinInt
			return 0
		}
		return -n
	}
	return n
}
