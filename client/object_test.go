package client_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client"
	"github.com/ailab/ai-lab/client/clienttest"
)

// The object of a call comes first in the short form, whatever order the
// arguments were sent in: path, source, destination, url, query, then other
// names of that kind (an MCP tool's target_path), then the rest as sent.
func TestShortArgsPutTheObjectFirst(t *testing.T) {
	tests := []struct{ name, raw, want string }{
		{"path after content", `{"content":"hello there, people","path":"a.txt"}`, `path=a.txt, content="hello there, people"`},
		{"source, then destination", `{"destination":"b.txt","overwrite":true,"source":"a.txt"}`, `source=a.txt, destination=b.txt, overwrite=true`},
		{"query before max_results", `{"max_results":5,"query":"go"}`, `query=go, max_results=5`},
		{"url", `{"max_chars":9,"url":"https://go.dev"}`, `url=https://go.dev, max_chars=9`},
		{"an MCP tool's path-like name", `{"data":"x","target_path":"out/y.txt"}`, `target_path=out/y.txt, data=x`},
		{"a word inside a name is not enough", `{"security":"high","file":"f"}`, `file=f, security=high`},
		{"duplicates keep their order", `{"path":"a","content":"x","path":"b"}`, `path=a, path=b, content=x`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := client.ShortArgs([]byte(tt.raw)); got != tt.want {
				t.Fatalf("ShortArgs = %q, want %q", got, tt.want)
			}
		})
	}
}

// Cut short, the arguments lose the rest, never the object: the run line of the
// report read "content=hello there, p…".
func TestShortArgsFitKeepsTheObjectWhole(t *testing.T) {
	raw := []byte(`{"content":"hello there, people","path":"notes/meeting-minutes.txt"}`)
	for _, n := range []int{10, 20, 34, 40} {
		got := client.ShortArgsFit(raw, n)
		if !strings.HasPrefix(got, "path=notes/meeting-minutes.txt, ") || !strings.HasSuffix(got, "…") {
			t.Errorf("ShortArgsFit(%d) = %q: the path is not first and whole, or the rest not cut", n, got)
		}
	}
	if got := client.ShortArgsFit(raw, 0); got != `path=notes/meeting-minutes.txt, content="hello there, people"` {
		t.Errorf("ShortArgsFit(0) = %q", got)
	}
	p := clienttest.Call("write_file", string(raw), "c1")
	if got := client.DecisionLine(p, api.Decision{Approved: true}); !strings.Contains(got, "write_file(path=notes/meeting-minutes.txt, ") {
		t.Errorf("DecisionLine = %q", got)
	}
}

// In the table the object is the first argument of a row and is never cut: a
// path too long for the cell wraps onto more lines. A row whose other arguments
// are cut is reported in TableView.Cut, for a and d to ask first.
func TestTableShowsTheObjectWhole(t *testing.T) {
	long := "notes/" + strings.Repeat("very-long-folder-name/", 5) + "file.txt"
	b := client.NewBatch(clienttest.Pending("s_1",
		clienttest.Call("write_file", `{"content":"short","path":"a.txt"}`, "c1"),
		clienttest.Call("write_file", `{"content":"a fairly long content string that wraps and wraps and wraps","path":"notes/todo.txt"}`, "c2"),
		clienttest.Call("write_file", `{"content":"x","path":"`+long+`"}`, "c3"),
		clienttest.Call("move_file", `{"destination":"b.txt","source":"a.txt"}`, "c4")))
	for _, compact := range []bool{true, false} {
		for _, w := range []int{60, 80, 120} {
			tv := b.Table(client.ScreenOptions{Width: w, MaxArgLines: 3, Compact: compact, Style: plainStyle()})
			var cells []string
			for _, l := range tv.Lines {
				if ansi.StringWidth(l) != w {
					t.Fatalf("width %d: line %q is %d wide", w, l, ansi.StringWidth(l))
				}
				if parts := strings.Split(l, "│"); len(parts) == 4 {
					cells = append(cells, strings.TrimSpace(parts[2]))
				}
			}
			text := strings.Join(cells, "")
			for _, want := range []string{`"path":"a.txt"`, `"path":"notes/todo.txt"`, `"path":"` + long + `"`, `"source":"a.txt","destination":"b.txt"`} {
				if !strings.Contains(strings.ReplaceAll(text, `": "`, `":"`), want) {
					t.Errorf("compact %v, width %d: the table does not show %s whole:\n%s", compact, w, want, strings.Join(tv.Lines, "\n"))
				}
			}
			if compact && w == 80 && (!tv.Cut[1] || tv.Cut[0] || tv.Cut[3]) {
				t.Errorf("width %d: rows cut short = %v, want row 1 only", w, tv.Cut)
			}
		}
	}
}

// A call that may destroy data has no default answer: its prompt shows no (y),
// and an empty line in the one-shot mode decides nothing and asks again.
func TestDestructiveCallsHaveNoDefault(t *testing.T) {
	overwrite := clienttest.Call("write_file", `{"path":"a.txt","content":"x"}`, "c1")
	overwrite.Preview = &api.Preview{Kind: api.PreviewOverwrite, Path: "a.txt", Summary: "overwrites a.txt (+1 −1)"}
	replace := clienttest.Call("move_file", `{"source":"a.txt","destination":"b.txt"}`, "c1")
	replace.Preview = &api.Preview{Kind: api.PreviewReplace, Path: "b.txt", Summary: "replaces b.txt"}
	tests := []struct {
		name        string
		call        api.PendingTool
		destructive bool
	}{
		{"delete_file", clienttest.Call("delete_file", `{"path":"a.txt"}`, "c1"), true},
		{"write_file over an existing file", overwrite, true},
		{"move_file onto an existing file", replace, true},
		{"an MCP tool", clienttest.Call("files__write", `{"path":"a.txt"}`, "c1"), true},
		{"write_file of a new file", clienttest.Call("write_file", `{"path":"a.txt","content":"x"}`, "c1"), false},
		{"web_search", clienttest.Call("web_search", `{"query":"go"}`, "c1"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := client.NewBatch(clienttest.Pending("s_1", tt.call))
			if got := strings.HasSuffix(b.Prompt(0), "? [y/n/a/d/?] (y): "); got == tt.destructive {
				t.Fatalf("prompt %q: default offered = %v, want %v", b.Prompt(0), got, !tt.destructive)
			}
			srv := clienttest.New(t, clienttest.Pending("s_1", tt.call), clienttest.Final("s_1", "ok"))
			var out, prompt bytes.Buffer
			o := client.Once{Message: "go", Approve: client.ApproveAsk, In: strings.NewReader("\nn\n\n"), Out: &out, Prompt: &prompt}
			if err := o.Run(t.Context(), client.New(srv.URL, clienttest.Token, nil)); err != nil {
				t.Fatalf("Run: %v\n%s", err, prompt.String())
			}
			a := srv.Approvals()
			if len(a) != 1 || a[0].Decisions[0].Approved == tt.destructive {
				t.Fatalf("decisions %+v: Enter approved = %v, want %v\n%s", a, !tt.destructive, !tt.destructive, prompt.String())
			}
			if said := strings.Contains(prompt.String(), client.NoDefault); said != tt.destructive {
				t.Fatalf("Enter said %q: %v, want %v\n%s", client.NoDefault, said, tt.destructive, prompt.String())
			}
		})
	}
}

// The prompt lists exactly the keys that work for the call: s only with a grant
// offer, r only when that offer makes a rule; an answer that is none of them is
// told the same keys.
func TestPromptListsTheKeysThatWork(t *testing.T) {
	withRule := clienttest.Call("write_file", `{"path":"notes/a.txt","content":"x"}`, "c1")
	withRule.Grant = clienttest.Offer("write_file", "notes/*", "write files in notes/ for this session")
	noRule := clienttest.Call("write_file", `{"path":"a.txt","content":"x"}`, "c1")
	noRule.Grant = clienttest.Offer("write_file", "*", "write files in the workspace's top folder for this session")
	strict := clienttest.Call("write_file", `{"path":"a.txt","content":"x"}`, "c1")
	strict.NoGrant = "the strict preset asks for every write_file call (/preset moderate allows grants)"
	tests := []struct {
		name string
		call api.PendingTool
		keys string
		told string
	}{
		{"grant and rule", withRule, "y/n/s/r/a/d/?", "Answer y (approve), n (deny), s (approve and grant such calls for this session), r (approve and save an allow rule in config.yaml), a (approve all remaining), d (deny all remaining) or ? (full arguments and changes)."},
		{"grant without a rule", noRule, "y/n/s/a/d/?", "Answer y (approve), n (deny), s (approve and grant such calls for this session), a (approve all remaining), d (deny all remaining) or ? (full arguments and changes)."},
		{"no grant", strict, "y/n/a/d/?", "Answer y (approve), n (deny), a (approve all remaining), d (deny all remaining) or ? (full arguments and changes)."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := client.NewBatch(clienttest.Pending("s_1", tt.call))
			if got := b.Keys(); got != tt.keys {
				t.Fatalf("Keys() = %q, want %q", got, tt.keys)
			}
			if p := b.Prompt(0); !strings.Contains(p, "? ["+tt.keys+"] (y): ") {
				t.Fatalf("prompt %q does not offer %s", p, tt.keys)
			}
			srv := clienttest.New(t, clienttest.Pending("s_1", tt.call), clienttest.Final("s_1", "ok"))
			var out, prompt bytes.Buffer
			o := client.Once{Message: "go", Approve: client.ApproveAsk, In: strings.NewReader("x\ny\n"), Out: &out, Prompt: &prompt}
			if err := o.Run(t.Context(), client.New(srv.URL, clienttest.Token, nil)); err != nil {
				t.Fatalf("Run: %v", err)
			}
			if !strings.Contains(prompt.String(), tt.told+"\n") {
				t.Fatalf("an unknown answer is not told %q:\n%s", tt.told, prompt.String())
			}
		})
	}
}

// In the one-shot mode too, a and d ask first when a call they would decide
// shows its arguments cut short in the table.
func TestOnceAllAsksWhenARowIsCut(t *testing.T) {
	calls := clienttest.Pending("s_1",
		clienttest.Call("write_file", `{"content":"short","path":"a.txt"}`, "c1"),
		clienttest.Call("write_file", `{"content":"`+strings.Repeat("long ", 40)+`","path":"b.txt"}`, "c2"))
	srv := clienttest.New(t, calls, clienttest.Final("s_1", "ok"))
	var out, prompt bytes.Buffer
	o := client.Once{Message: "go", Approve: client.ApproveAsk, In: strings.NewReader("a\nn\na\ny\n"), Out: &out, Prompt: &prompt, Width: 80}
	if err := o.Run(t.Context(), client.New(srv.URL, clienttest.Token, nil)); err != nil {
		t.Fatalf("Run: %v\n%s", err, prompt.String())
	}
	p := prompt.String()
	if strings.Count(p, "1 of them is cut short in the table") != 2 || !strings.Contains(p, "Approve all 2 remaining calls? [y/n] (n): ") {
		t.Fatalf("a did not ask first:\n%s", p)
	}
	if a := srv.Approvals(); len(a) != 1 || !a[0].Decisions[0].Approved || !a[0].Decisions[1].Approved {
		t.Fatalf("approvals = %+v", a)
	}
}
