package client_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client"
	"github.com/ailab/ai-lab/client/clienttest"
	"github.com/ailab/ai-lab/visible"
)

func TestVisible(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain text stays", "latest AI, naïve café", "latest AI, naïve café"},
		{"zero width space", "IG\u200bNORE", `IG\u200bNORE`},
		{"escape sequence", "\x1b[2J", `\x1b[2J`},
		{"newline and tab", "a\nb\tc", `a\nb\tc`},
		{"bidi override", "txt.\u202eexe", `txt.\u202eexe`},
		{"no-break space", "a\u00a0b", `a\u00a0b`},
		{"invalid utf8", "a\xffb", `a\xffb`},
		{"delete char", "a\x7fb", `a\x7fb`},
		{"tag character", "a\U000E0041b", `a\U000e0041b`},
		{"replacement character", "a\ufffdb", `a\ufffdb`},
		// Letters and marks to Unicode that draw nothing or change nothing: each
		// as visible.Deceptive says.
		{"hangul filler in a grant label", "write files in notes\u3164/ for this session", `write files in notes\u3164/ for this session`},
		{"combining grapheme joiner", "a\u034fb", `a\u034fb`},
		{"variation selector 16", "a\ufe0fb", `a\ufe0fb`},
		{"variation selector 17", "a\U000E0100b", `a\U000e0100b`},
		{"hangul choseong filler", "a\u115fb", `a\u115fb`},
		{"halfwidth hangul filler", "a\uffa0b", `a\uffa0b`},
		{"braille blank", "a\u2800b", `a\u2800b`},
		{"khmer vowel inherent", "a\u17b4b", `a\u17b4b`},
		{"line separator", "a\u2028b", `a\u2028b`},
		{"ideographic space", "a\u3000b", `a\u3000b`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := client.Visible(tt.in); got != tt.want {
				t.Fatalf("Visible(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestTerminalSafe(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"markdown keeps its shape", "# Done\n\n- a\tb", "# Done\n\n- a\tb"},
		{"emoji joiner stays", "👨\u200d👩", "👨\u200d👩"},
		{"clear screen", "a\x1b[2Jb", `a\x1b[2Jb`},
		{"window title", "\x1b]0;x\x07", `\x1b]0;x\x07`},
		{"carriage return overwrites", "safe\rrm -rf", `safe\rrm -rf`},
		{"C1 control", "a\u009b31mb", `a\u009b31mb`},
		{"bidi override", "txt.\u202eexe", `txt.\u202eexe`},
		{"bidi isolate", "a\u2067b", `a\u2067b`},
		{"zero width space", "IG\u200bNORE", `IG\u200bNORE`},
		{"invalid utf8", "a\xffb", `a\xffb`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := client.TerminalSafe(tt.in); got != tt.want {
				t.Fatalf("TerminalSafe(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestShortAndPrettyArgs(t *testing.T) {
	tests := []struct{ name, raw, short, pretty string }{
		{"keys in the order sent", `{"query":"latest AI","max_results":5}`, "query=latest AI, max_results=5", "{\n  \"query\": \"latest AI\",\n  \"max_results\": 5\n}"},
		{"hidden characters shown", "{\"path\":\"a\u200b.txt\",\"content\":\"\\u001b[31mred\"}", `path=a\u200b.txt, content=\x1b[31mred`, "{\n  \"path\": \"a\\u200b.txt\",\n  \"content\": \"\\u001b[31mred\"\n}"},
		{"nested values compact", `{"a": {"b": [1, 2]}}`, `a={"b":[1,2]}`, "{\n  \"a\": {\n    \"b\": [\n      1,\n      2\n    ]\n  }\n}"},
		{"not json", `oops`, `oops`, `oops`},
		{"empty", ``, ``, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := client.ShortArgs([]byte(tt.raw)); got != tt.short {
				t.Errorf("ShortArgs = %q, want %q", got, tt.short)
			}
			if got := client.PrettyArgs([]byte(tt.raw)); got != tt.pretty {
				t.Errorf("PrettyArgs = %q, want %q", got, tt.pretty)
			}
		})
	}
}

func TestBatchDecisions(t *testing.T) {
	three := clienttest.Pending("s_1",
		clienttest.Call("write_file", `{}`, "c1"), clienttest.Call("delete_file", `{}`, "c2"), clienttest.Call("web_search", `{}`, "c3"))
	tests := []struct {
		name string
		do   func(b *client.Batch)
		want []api.Decision
	}{
		{"one by one", func(b *client.Batch) { b.Decide(true, ""); b.Decide(false, "no"); b.Decide(true, "") },
			[]api.Decision{{ToolCallID: "c1", Approved: true}, {ToolCallID: "c2", Feedback: "no"}, {ToolCallID: "c3", Approved: true}}},
		{"approve rest after one", func(b *client.Batch) { b.Decide(false, ""); b.DecideRest(true) },
			[]api.Decision{{ToolCallID: "c1"}, {ToolCallID: "c2", Approved: true}, {ToolCallID: "c3", Approved: true}}},
		{"deny all", func(b *client.Batch) { b.DecideRest(false) },
			[]api.Decision{{ToolCallID: "c1"}, {ToolCallID: "c2"}, {ToolCallID: "c3"}}},
		{"extra decisions ignored", func(b *client.Batch) { b.DecideRest(true); b.Decide(false, "late") },
			[]api.Decision{{ToolCallID: "c1", Approved: true}, {ToolCallID: "c2", Approved: true}, {ToolCallID: "c3", Approved: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := client.NewBatch(three)
			tt.do(b)
			if !b.Done() || fmt.Sprint(b.Decisions) != fmt.Sprint(tt.want) {
				t.Fatalf("decisions = %+v (done %v), want %+v", b.Decisions, b.Done(), tt.want)
			}
		})
	}
}

func sampleBatch() *client.Batch {
	search := clienttest.Call("web_search", `{"query": "latest AI", "max_results": 5}`, "call_1")
	search.Reason = "preset strict: web_search asks"
	today := clienttest.Call("write_file", `{"path": "notes/today.txt", "content": "a very long line of text that will not fit in eighty columns and must be cut with an ellipsis \u200b"}`, "call_2")
	today.Reason = "rule 2 in config.yaml: ask write_file in notes/, which a preset entry further down would allow without asking"
	over := overwrite()
	over.Reason = "preset moderate: write_file asks"
	return client.NewBatch(clienttest.Pending("s_1", search, today, over))
}

// overwrite is a write_file call onto an existing file, with the server's preview.
func overwrite() api.PendingTool {
	p := clienttest.Call("write_file", `{"path":"notes.txt","content":"one\ntwo\nthree\nfour\n"}`, "call_3")
	p.Preview = &api.Preview{Kind: api.PreviewOverwrite, Path: "notes.txt", Size: 8, Added: 3, Removed: 1,
		Diff:    "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,4 @@\n one\n-old\t2\n+two\n+three\n+four\n",
		Summary: "overwrites notes.txt (+3 −1)"}
	p.Grant = clienttest.Offer("write_file", "*", "write files in the workspace's top folder for this session")
	return p
}

func plainStyle() client.TableStyle {
	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(termenv.Ascii)
	return client.NewTableStyle(r)
}

// TestScreenGolden is the one-shot's approval screen: the first call decided, the
// second being decided, the third an overwrite whose preview says so; each call
// still to decide has the server's reason under it, cut to its cell.
func TestScreenGolden(t *testing.T) {
	for _, w := range []int{80, 120} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			b := sampleBatch()
			b.Decide(true, "")
			out := b.Screen(client.ScreenOptions{Width: w, Style: plainStyle()}) + "\n\n" + b.Prompt(w) + "\n"
			golden.RequireEqual(t, []byte(out))
		})
	}
}

// Whatever the arguments and the width, no line is wider than the terminal and the
// table keeps its right border on every row.
func TestScreenNeverBreaksTheTable(t *testing.T) {
	long := strings.Repeat("x", 500)
	for _, w := range []int{30, 40, 60, 80, 100, 200} {
		for _, args := range []string{`{"content":"` + long + `"}`, `{"` + long + `":1}`, `"` + long + `"`} {
			b := client.NewBatch(clienttest.Pending("s", clienttest.Call("write_file", args, "c"), clienttest.Call(strings.Repeat("t", 40), `{}`, "d")))
			out := b.Screen(client.ScreenOptions{Width: w, MaxArgLines: 3, Style: plainStyle()})
			lines := strings.Split(out, "\n")
			for _, l := range lines {
				if ansi.StringWidth(l) > w {
					t.Fatalf("width %d: line %q is %d wide", w, l, ansi.StringWidth(l))
				}
			}
			top := 0
			for top < len(lines) && !strings.HasPrefix(lines[top], "┌") {
				top++
			}
			if top == len(lines) {
				t.Fatalf("width %d: no table in\n%s", w, out)
			}
			tw := ansi.StringWidth(lines[top])
			for _, l := range lines[top:] {
				if ansi.StringWidth(l) != tw || !strings.ContainsAny(l[len(l)-3:], "│┐┤┘") {
					t.Fatalf("width %d: ragged table row %q", w, l)
				}
			}
			if p := b.Prompt(w); ansi.StringWidth(p) > w && w >= 40 {
				t.Fatalf("width %d: prompt %q too wide", w, p)
			}
		}
	}
}

func TestScreenCapsArgumentLines(t *testing.T) {
	long := `{"path":"notes/today.txt","content":"` + strings.Repeat("word ", 60) + `","mode":"append"}`
	tests := []struct {
		name     string
		args     string
		maxLines int
		want     []string
		hidden   []string
	}{
		{"fits: indented JSON", `{"a":1,"b":2}`, 4, []string{"{", `"a": 1,`, `"b": 2`}, []string{"…"}},
		{"too tall: compact JSON", `{"a":1,"b":2,"c":3,"d":4,"e":5}`, 3, []string{`{"a":1,"b":2,"c":3,"d":4,"e":5}`}, []string{"…", `"a": 1,`}},
		{"too long even compact: cut with a pointer to ?", long, 3, []string{`{"path":"notes/today.txt","content":"word`, "… (? shows all)"}, []string{`"mode"`}},
		{"one line: compact JSON cut", long, 1, []string{`{"path":"notes/today.txt","content":"word`, "…"}, []string{"? shows all", `"mode"`}},
		{"no limit: indented JSON", long, 0, []string{`  "mode": "append"`}, []string{"shows all"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := client.NewBatch(clienttest.Pending("s", clienttest.Call("write_file", tt.args, "c")))
			out := b.Screen(client.ScreenOptions{Width: 80, MaxArgLines: tt.maxLines, Style: plainStyle()})
			rows := 0
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(l, "│ ") && !strings.Contains(l, "Tool") {
					rows++
				}
			}
			if tt.maxLines > 0 && rows > tt.maxLines {
				t.Errorf("%d argument lines, want at most %d:\n%s", rows, tt.maxLines, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("screen lacks %q:\n%s", w, out)
				}
			}
			for _, h := range tt.hidden {
				if strings.Contains(out, h) {
					t.Errorf("screen shows %q:\n%s", h, out)
				}
			}
		})
	}
}

// A call that replaces or removes something says so in its row; ? shows the diff or
// the first lines of what goes.
func TestScreenShowsWhatACallChanges(t *testing.T) {
	del := clienttest.Call("delete_file", `{"path":"old.txt"}`, "c2")
	del.Preview = &api.Preview{Kind: api.PreviewDelete, Path: "old.txt", Size: 340, Head: "first line\n\x1b[2Jsecond", Summary: "deletes old.txt (340 B)"}
	b := client.NewBatch(clienttest.Pending("s", overwrite(), del))
	screen := b.Screen(client.ScreenOptions{Width: 100, Style: plainStyle()})
	for _, want := range []string{"⚠ overwrites notes.txt (+3 −1) · ? shows the diff", "⚠ deletes old.txt (340 B) · ? shows the first lines"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	tests := []struct {
		name   string
		call   api.PendingTool
		want   []string
		absent []string
	}{
		{"overwrite: the diff", overwrite(), []string{`"path": "notes.txt"`, "⚠ overwrites notes.txt (+3 −1)", "--- a/notes.txt", "@@ -1,2 +1,4 @@", "-old    2", "+three"}, []string{"\t"}},
		{"delete: the first lines, escaped", del, []string{"First lines of what it removes (old.txt):", "first line", `\x1b[2Jsecond`}, []string{"\x1b"}},
		{"no preview: the arguments only", clienttest.Call("web_search", `{"query":"go"}`, "c"), []string{`"query": "go"`}, []string{"⚠", "why:"}},
		{"the reason whole", sampleBatch().Pending[1], []string{"why: rule 2 in config.yaml: ask write_file in notes/, which a preset entry further down would allow without asking"}, []string{"…"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := client.Details(tt.call, plainStyle())
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("details lack %q:\n%s", w, got)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(got, a) {
					t.Errorf("details hold %q:\n%q", a, got)
				}
			}
		})
	}
}

// In colour, the diff's added and removed lines have their own colours.
func TestDetailsColourTheDiff(t *testing.T) {
	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(termenv.ANSI256)
	got := client.Details(overwrite(), client.NewTableStyle(r))
	for _, l := range strings.Split(got, "\n") {
		plain := ansi.Strip(l)
		if (strings.HasPrefix(plain, "+t") || strings.HasPrefix(plain, "-o")) && plain == l {
			t.Errorf("diff line %q has no colour", l)
		}
	}
}

func TestBatchGrant(t *testing.T) {
	offer := func(tool, args, id, pattern string) api.PendingTool {
		p := clienttest.Call(tool, args, id)
		if pattern != "" {
			p.Grant = clienttest.Offer(tool, pattern, "label")
		}
		return p
	}
	b := client.NewBatch(clienttest.Pending("s",
		offer("write_file", `{"path":"a.txt"}`, "c1", "*"),
		offer("delete_file", `{"path":"x"}`, "c2", ""),
		offer("write_file", `{"path":"b.txt"}`, "c3", "*"),
		offer("write_file", `{"path":"n/c.txt"}`, "c4", "n/*"),
		offer("read_file", `{"path":"d.txt"}`, "c5", "*"),
	))
	if !b.CanGrant() || b.GrantCovers() != 1 {
		t.Fatalf("CanGrant %v, covers %d; want true, 1", b.CanGrant(), b.GrantCovers())
	}
	b.Grant()
	if b.Current() != 1 || b.CanGrant() {
		t.Fatalf("after Grant: current %d, CanGrant %v", b.Current(), b.CanGrant())
	}
	b.Grant() // delete_file has no offer: nothing happens
	if b.Current() != 1 {
		t.Fatal("Grant decided a call without an offer")
	}
	b.Decide(false, "no")
	// c3 is covered by the grant of c1 and approved with it; c4 (another folder)
	// and c5 (another tool) are asked.
	want := []api.Decision{{ToolCallID: "c1", Approved: true, Scope: api.ScopeSession}, {ToolCallID: "c2", Feedback: "no"}, {ToolCallID: "c3", Approved: true}}
	if fmt.Sprint(b.Decisions) != fmt.Sprint(want) || !b.Covered(2) || b.Covered(0) {
		t.Fatalf("decisions = %+v, covered(2) %v", b.Decisions, b.Covered(2))
	}
	b.DenyRest("not these")
	if b.Decisions[3].Feedback != "not these" || b.Decisions[4].Feedback != "not these" || b.Decisions[4].Approved {
		t.Fatalf("DenyRest: %+v", b.Decisions)
	}
}

// A denied call's line in the conversation names the call with short arguments.
func TestDecisionLineKeepsArgumentsShort(t *testing.T) {
	long := strings.Repeat("word ", 60)
	p := clienttest.Call("write_file", `{"path":"a.txt","content":"`+long+`"}`, "c")
	got := client.DecisionLine(p, api.Decision{Feedback: "too long"})
	if !strings.HasPrefix(got, "⊘ denied write_file(path=a.txt, content=") || !strings.HasSuffix(got, "…) — reason: too long") || ansi.StringWidth(got) > 100 {
		t.Fatalf("line = %q", got)
	}
}

// A table cut to a height keeps the row being decided in view, with the one just
// decided, and says truly how many rows are out of view on each side.
func TestTableScrollsWithinItsHeight(t *testing.T) {
	var calls []api.PendingTool
	for i := range 18 {
		calls = append(calls, clienttest.Call("write_file", fmt.Sprintf(`{"path":"f%02d.txt","content":"x"}`, i), fmt.Sprint("c", i)))
	}
	b := client.NewBatch(clienttest.Pending("s", calls...))
	for range 9 {
		b.Decide(true, "")
	}
	view := b.Table(client.ScreenOptions{Width: 80, Style: plainStyle(), Compact: true, Height: 12, MaxArgLines: 4})
	text := strings.Join(view.Lines, "\n")
	if len(view.Lines) > 12 || view.First > 8 || view.Last <= 9 {
		t.Fatalf("rows %d..%d in %d lines:\n%s", view.First, view.Last, len(view.Lines), text)
	}
	for _, want := range []string{"✓ write_file", "▸ write_file", fmt.Sprintf("↑ %d more rows above", view.First), fmt.Sprintf("↓ %d more rows below", 18-view.Last), `f09.txt`} {
		if !strings.Contains(text, want) {
			t.Errorf("table lacks %q:\n%s", want, text)
		}
	}
	scrolled := b.Table(client.ScreenOptions{Width: 80, Style: plainStyle(), Compact: true, Height: 12, Scrolled: true, Top: 14})
	if scrolled.Last != 18 || scrolled.First > 14 || strings.Contains(strings.Join(scrolled.Lines, "\n"), "below") {
		t.Fatalf("scrolled to the end: rows %d..%d\n%s", scrolled.First, scrolled.Last, strings.Join(scrolled.Lines, "\n"))
	}
}

// TestDetailsShowHiddenCharactersOfTheDiff: the lines of a file the user decides
// on show what would not read as itself escaped, as the arguments do. Unicode tag
// characters spell a hidden instruction that a terminal draws as nothing, and a
// prepended concatenation mark (U+0601) or a line separator reads as something
// other than itself; tabs still show as spaces.
func TestDetailsShowHiddenCharactersOfTheDiff(t *testing.T) {
	tags := "\U000E0069\U000E0067\U000E006E\U000E006F\U000E0072\U000E0065" // "ignore" in tag characters
	p := overwrite()
	p.Preview.Diff = "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-old\tline\n+new" + tags + " line\u0601\u2028end\n"
	got := client.Details(p, plainStyle())
	for _, want := range []string{`+new\U000e0069\U000e0067`, `line\u0601\u2028end`, "-old    line"} {
		if !strings.Contains(got, want) {
			t.Errorf("details lack %q:\n%s", want, got)
		}
	}
	for _, r := range got {
		if r != '\n' && visible.Deceptive(r) {
			t.Errorf("details show %U as is:\n%q", r, got)
		}
	}
}
