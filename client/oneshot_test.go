package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client"
	"github.com/ailab/ai-lab/client/clienttest"
)

// script is a turn with two pending calls, then a chained single call, then the answer.
func script() []api.TurnReply {
	return []api.TurnReply{
		clienttest.Pending("s_1",
			clienttest.Call("web_search", `{"query":"latest AI","max_results":5}`, "c1"),
			clienttest.Call("write_file", `{"path":"a.txt","content":"hi"}`, "c2")),
		clienttest.Pending("s_1", clienttest.Call("delete_file", `{"path":"old.txt"}`, "c3")),
		clienttest.Final("s_1", "All done.", api.ToolUse{ToolName: "web_search", Arguments: json.RawMessage(`{}`), ToolCallID: "c1", ExecutionID: "web_search_1763769600123_9f86d081", Status: "ok", DurationMS: 12}),
	}
}

func TestOnceApprovalFlows(t *testing.T) {
	tests := []struct {
		name    string
		approve string
		stdin   string
		want    [][]api.Decision
	}{
		{"ask y then n with reason, then Enter asks for y or n", client.ApproveAsk, "y\nn\nnot that file\n\ny\n",
			[][]api.Decision{{{ToolCallID: "c1", Approved: true}, {ToolCallID: "c2", Feedback: "not that file"}}, {{ToolCallID: "c3", Approved: true}}}},
		{"ask y, d with a reason, then Enter asks for y or n", client.ApproveAsk, "y\nd\nnot now\n\ny\n",
			[][]api.Decision{{{ToolCallID: "c1", Approved: true}, {ToolCallID: "c2", Feedback: "not now"}}, {{ToolCallID: "c3", Approved: true}}}},
		{"ask a then d", client.ApproveAsk, "a\nd\n",
			[][]api.Decision{{{ToolCallID: "c1", Approved: true}, {ToolCallID: "c2", Approved: true}}, {{ToolCallID: "c3"}}}},
		{"ask n skipping the reason, bad answer re-asked", client.ApproveAsk, "n\n\nwhat\ny\nY\n",
			[][]api.Decision{{{ToolCallID: "c1"}, {ToolCallID: "c2", Approved: true}}, {{ToolCallID: "c3", Approved: true}}}},
		{"all", client.ApproveAll, "",
			[][]api.Decision{{{ToolCallID: "c1", Approved: true}, {ToolCallID: "c2", Approved: true}}, {{ToolCallID: "c3", Approved: true}}}},
		{"none", client.ApproveNone, "",
			[][]api.Decision{{{ToolCallID: "c1"}, {ToolCallID: "c2"}}, {{ToolCallID: "c3"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := clienttest.New(t, script()...)
			var out, prompt bytes.Buffer
			o := client.Once{Message: "do it", Approve: tt.approve, In: strings.NewReader(tt.stdin), Out: &out, Prompt: &prompt}
			if err := o.Run(context.Background(), client.New(srv.URL, clienttest.Token, nil)); err != nil {
				t.Fatalf("Run: %v\nprompt:\n%s", err, prompt.String())
			}
			if out.String() != "All done.\n" {
				t.Fatalf("stdout = %q, want only the answer", out.String())
			}
			var got [][]api.Decision
			for _, a := range srv.Approvals() {
				if a.SessionID != "s_1" {
					t.Fatalf("approve for session %q", a.SessionID)
				}
				got = append(got, a.Decisions)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("decisions sent = %+v\nwant %+v", got, tt.want)
			}
			if tt.approve == client.ApproveAsk {
				for _, s := range []string{"⚠ Tool Approval Required", "│ Tools Requesting Approval", "(1 of 2) Approve web_search(query=latest AI, max_results=5)? [y/n/a/d/?] (y): ", "Approve delete_file(path=old.txt)?"} {
					if !strings.Contains(prompt.String(), s) {
						t.Errorf("prompt output lacks %q:\n%s", s, prompt.String())
					}
				}
				if strings.Contains(prompt.String(), "\x1b[") {
					t.Errorf("ask output has colour codes:\n%q", prompt.String())
				}
			}
		})
	}
}

// The one-shot table says what a call would change, and ? prints the diff before
// asking again.
func TestOnceShowsThePreviewAndTheDiff(t *testing.T) {
	srv := clienttest.New(t, clienttest.Pending("s_1", overwrite()), clienttest.Final("s_1", "Wrote notes.txt."))
	var out, prompt bytes.Buffer
	o := client.Once{Message: "write", Approve: client.ApproveAsk, In: strings.NewReader("?\ny\n"), Out: &out, Prompt: &prompt, Width: 100}
	if err := o.Run(context.Background(), client.New(srv.URL, clienttest.Token, nil)); err != nil {
		t.Fatalf("Run: %v", err)
	}
	p := prompt.String()
	table, details, _ := strings.Cut(p, "?]: ")
	if !strings.Contains(table, "⚠ overwrites notes.txt (+3 −1) · ? shows the diff") {
		t.Errorf("the table lacks the preview:\n%s", table)
	}
	for _, want := range []string{"--- a/notes.txt", "-old", "+three", "Approve write_file"} {
		if !strings.Contains(details, want) {
			t.Errorf("after ? the output lacks %q:\n%s", want, details)
		}
	}
	if a := srv.Approvals(); len(a) != 1 || !a[0].Decisions[0].Approved {
		t.Fatalf("approvals = %+v", a)
	}
}

// Answers piped in are echoed after their questions, so the transcript reads as a
// dialogue instead of questions run together on one line.
func TestOnceEchoesPipedAnswers(t *testing.T) {
	tests := []struct {
		name string
		echo bool
		want string
	}{
		{"echo", true, "(1 of 2) Approve web_search(query=latest AI, max_results=5)? [y/n/a/d/?] (y): n\nReason for the model (Enter skips): too broad\n(2 of 2) Approve"},
		{"terminal echoes by itself", false, "(1 of 2) Approve web_search(query=latest AI, max_results=5)? [y/n/a/d/?] (y): Reason for the model (Enter skips): (2 of 2) Approve"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := clienttest.New(t, script()...)
			var out, prompt bytes.Buffer
			o := client.Once{Message: "do it", Approve: client.ApproveAsk, In: strings.NewReader("n\ntoo broad\ny\ny\n"), Out: &out, Prompt: &prompt, Echo: tt.echo}
			if err := o.Run(context.Background(), client.New(srv.URL, clienttest.Token, nil)); err != nil {
				t.Fatalf("Run: %v", err)
			}
			if !strings.Contains(prompt.String(), tt.want) {
				t.Fatalf("prompt output lacks %q:\n%s", tt.want, prompt.String())
			}
		})
	}
}

// An answer printed to a terminal cannot drive it; a pipe gets it byte for byte.
func TestOnceEscapesTheAnswerOnlyForATerminal(t *testing.T) {
	answer := "done\x1b[2J \u202etxt.exe\n\tnext line"
	tests := []struct {
		name     string
		terminal bool
		want     string
	}{
		{"terminal", true, "done\\x1b[2J \\u202etxt.exe\n\tnext line\n"},
		{"pipe", false, answer + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := clienttest.New(t, clienttest.Final("s_1", answer))
			var out bytes.Buffer
			o := client.Once{Message: "hi", Approve: client.ApproveNone, Out: &out, OutIsTerminal: tt.terminal}
			if err := o.Run(context.Background(), client.New(srv.URL, clienttest.Token, nil)); err != nil {
				t.Fatalf("Run: %v", err)
			}
			if out.String() != tt.want {
				t.Fatalf("stdout = %q, want %q", out.String(), tt.want)
			}
		})
	}
}

func TestOnceJSONPrintsTheFinalChatResponse(t *testing.T) {
	srv := clienttest.New(t, script()...)
	var out bytes.Buffer
	o := client.Once{Message: "do it", Approve: client.ApproveAll, JSON: true, Out: &out}
	if err := o.Run(context.Background(), client.New(srv.URL, clienttest.Token, nil)); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out.String())
	}
	if got["response"] != "All done." || got["session_id"] != "s_1" || got["trace_id"] != "t_s_1" {
		t.Fatalf("JSON = %v", got)
	}
	if _, ok := got["approval_required"]; ok {
		t.Fatalf("final JSON carries approval_required: %v", got)
	}
	tu := got["tools_used"].([]any)[0].(map[string]any)
	if tu["execution_id"] != "web_search_1763769600123_9f86d081" || tu["status"] != "ok" {
		t.Fatalf("tools_used = %v", tu)
	}
}

func TestOnceFailures(t *testing.T) {
	tests := []struct {
		name    string
		approve string
		stdin   string
		fail    func(s *clienttest.Server)
		want    error
		text    string // the whole message, when it matters
	}{
		{"stdin ends mid batch", client.ApproveAsk, "y\n", nil, client.ErrInputEnded, ""},
		{"409 on the chained approve", client.ApproveAll, "", func(s *clienttest.Server) { s.FailOn(3, 409, api.CodeNoPendingApproval) }, client.ErrNoPendingApproval, ""},
		{"model error on chat", client.ApproveAll, "", func(s *clienttest.Server) { s.FailOn(1, 502, api.CodeModelError) }, client.ErrModel, ""},
		{"session waits for decisions", client.ApproveAll, "", func(s *clienttest.Server) { s.FailOn(1, 409, api.CodeApprovalPending) }, client.ErrApprovalPending,
			"session s_9 waits for decisions on earlier tool calls; decide them in `ai-client --session s_9`, or leave out --session to start a new one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := clienttest.New(t, script()...)
			if tt.fail != nil {
				tt.fail(srv)
			}
			o := client.Once{Message: "do it", SessionID: "s_9", Approve: tt.approve, In: strings.NewReader(tt.stdin), Out: &bytes.Buffer{}}
			err := o.Run(context.Background(), client.New(srv.URL, clienttest.Token, nil))
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if tt.text != "" && err.Error() != tt.text {
				t.Fatalf("message %q, want %q", err, tt.text)
			}
		})
	}
}

func TestOnceRefusesUnknownPolicy(t *testing.T) {
	err := client.Once{Message: "x", Approve: "maybe"}.Run(context.Background(), client.New("http://127.0.0.1:1", "", nil))
	if err == nil || !strings.Contains(err.Error(), "ask, all or none") {
		t.Fatalf("err = %v", err)
	}
}

// A chunk is one write to stdout and when it came.
type chunk struct {
	at   time.Time
	text string
}

// chunkWriter records each write; the first one closes first.
type chunkWriter struct {
	mu     sync.Mutex
	chunks []chunk
	once   sync.Once
	first  chan struct{}
}

func newChunkWriter() *chunkWriter { return &chunkWriter{first: make(chan struct{})} }

func (w *chunkWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.chunks = append(w.chunks, chunk{time.Now(), string(p)})
	w.mu.Unlock()
	w.once.Do(func() { close(w.first) })
	return len(p), nil
}

func (w *chunkWriter) all() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var sb strings.Builder
	for _, c := range w.chunks {
		sb.WriteString(c.text)
	}
	return sb.String()
}

// On a terminal the answer's first words are on stdout while the turn still runs:
// the server holds the rest back until it has seen them written.
func TestOnceStreamsToATerminalAsItComes(t *testing.T) {
	out := newChunkWriter()
	srv := clienttest.New(t, clienttest.Final("s_1", "Hello world."))
	gate, timedOut := make(chan struct{}), false
	go func() {
		select {
		case <-out.first:
		case <-time.After(5 * time.Second):
			timedOut = true
		}
		close(gate)
	}()
	srv.Stream(clienttest.Round(1), clienttest.Text("Hello "), clienttest.Until(gate), clienttest.Pause(30*time.Millisecond), clienttest.Text("world."))
	o := client.Once{Message: "hi", Approve: client.ApproveNone, Out: out, OutIsTerminal: true}
	if err := o.Run(context.Background(), client.New(srv.URL, clienttest.Token, nil)); err != nil {
		t.Fatal(err)
	}
	<-gate
	if timedOut {
		t.Fatal("nothing reached stdout before the turn ended")
	}
	if out.all() != "Hello world.\n" {
		t.Fatalf("stdout = %q", out.all())
	}
	c := out.chunks
	if len(c) < 2 || c[0].text != "Hello " || !strings.HasPrefix(c[1].text, "world.") || c[1].at.Sub(c[0].at) < 30*time.Millisecond {
		t.Fatalf("writes = %+v, want \"Hello \" at least 30ms before \"world.\"", c)
	}
}

// A pipe gets the final answer in one write and nothing before it, so withdrawn
// text never reaches a script.
func TestOncePipeGetsOnlyTheFinalAnswer(t *testing.T) {
	out := newChunkWriter()
	srv := clienttest.New(t, clienttest.Final("s_1", "It says yes."))
	srv.Stream(clienttest.Round(1), clienttest.Text("It says no."), clienttest.Retract("the reply failed validation"), clienttest.Round(2), clienttest.Text("It says yes."))
	o := client.Once{Message: "hi", Approve: client.ApproveNone, Out: out}
	if err := o.Run(context.Background(), client.New(srv.URL, clienttest.Token, nil)); err != nil {
		t.Fatal(err)
	}
	if len(out.chunks) != 1 || out.chunks[0].text != "It says yes.\n" {
		t.Fatalf("writes = %+v", out.chunks)
	}
}

// screen is a small terminal: it wraps at its width as xterm does (the cursor waits
// at the margin until the next character), and knows the moves shownAnswer makes.
type screen struct {
	cols     int
	rows     [][]rune
	row, col int
}

// put writes r, w cells wide; the cell after a wide character holds 0.
func (s *screen) put(r rune, w int) {
	if s.col+w > s.cols {
		s.row, s.col = s.row+1, 0
	}
	for len(s.rows) <= s.row {
		s.rows = append(s.rows, nil)
	}
	line := s.rows[s.row]
	for len(line) < s.col+w {
		line = append(line, ' ')
	}
	line[s.col] = r
	if w == 2 {
		line[s.col+1] = 0
	}
	s.rows[s.row] = line
	s.col += w
}

func (s *screen) run(t *testing.T, out string) string {
	re := regexp.MustCompile(`^\x1b\[(\d*)([ACJ])`)
	for i := 0; i < len(out); {
		if m := re.FindStringSubmatch(out[i:]); m != nil {
			n, _ := strconv.Atoi(m[1])
			switch m[2] {
			case "A":
				s.row = max(0, s.row-n)
			case "C":
				s.col = min(s.cols-1, s.col+n)
			case "J":
				if s.row < len(s.rows) {
					if s.col < len(s.rows[s.row]) {
						s.rows[s.row] = s.rows[s.row][:s.col]
					}
					s.rows = s.rows[:s.row+1]
				}
			}
			i += len(m[0])
			continue
		}
		r, size := utf8.DecodeRuneInString(out[i:])
		i += size
		switch r {
		case '\r':
			s.col = 0
		case '\n':
			s.row, s.col = s.row+1, 0
		case '\x1b':
			t.Fatalf("unknown escape in %q", out[i-1:])
		default:
			s.put(r, ansi.StringWidth(string(r)))
		}
	}
	var lines []string
	for _, l := range s.rows {
		lines = append(lines, strings.TrimRight(strings.ReplaceAll(string(l), "\x00", ""), " "))
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// Withdrawn text leaves the terminal, even when it wrapped over several rows and
// began in the middle of one; the final answer is what stays.
func TestOnceErasesWithdrawnTextOnATerminal(t *testing.T) {
	tests := []struct {
		name     string
		response string
		beats    []clienttest.Beat
		want     string
	}{
		{"retract in the middle of a row", "Intro text that wraps final words.",
			[]clienttest.Beat{clienttest.Round(1), clienttest.Text("Intro text "), clienttest.Text("that wraps "),
				clienttest.Round(2), clienttest.Text("a claim that is withdrawn over rows"),
				clienttest.Retract("the reply failed validation"), clienttest.Round(3), clienttest.Text("final words.")},
			"Intro text t\nhat wraps fi\nnal words."},
		{"the note stands until text comes", "",
			[]clienttest.Beat{clienttest.Round(1), clienttest.Text("withdrawn"), clienttest.Retract("tools"), clienttest.Round(2), clienttest.Hangup()},
			""}, // the error comes instead, on a line the note no longer holds
		{"a final answer unlike the stream replaces it", "The tool results could not be verified.",
			[]clienttest.Beat{clienttest.Round(1), clienttest.Text("Something else entirely, long enough to wrap.")},
			"The tool res\nults could n\not be verifi\ned."},
		{"a wide character that does not fit wraps early", "12345678901界界ok",
			[]clienttest.Beat{clienttest.Round(1), clienttest.Text("12345678901界界"), clienttest.Round(2), clienttest.Text("no"), clienttest.Retract("x"), clienttest.Round(3), clienttest.Text("ok")},
			"12345678901\n界界ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := clienttest.New(t, clienttest.Final("s_1", tt.response))
			srv.Stream(tt.beats...)
			var out bytes.Buffer
			o := client.Once{Message: "hi", Approve: client.ApproveNone, Out: &out, OutIsTerminal: true, Width: 12}
			err := o.Run(context.Background(), client.New(srv.URL, clienttest.Token, nil))
			if tt.response == "" {
				if !errors.Is(err, client.ErrStreamEnded) {
					t.Fatalf("err = %v", err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if got := (&screen{cols: 12}).run(t, out.String()); got != tt.want {
				t.Fatalf("screen:\n%s\nwant:\n%s\n(bytes %q)", got, tt.want, out.String())
			}
		})
	}
}

// --json prints only the final ChatResponse, even on a terminal where text streams.
func TestOnceJSONOnATerminalPrintsOnlyTheResponse(t *testing.T) {
	srv := clienttest.New(t, clienttest.Final("s_1", "All done."))
	var out bytes.Buffer
	o := client.Once{Message: "hi", Approve: client.ApproveNone, JSON: true, Out: &out, OutIsTerminal: true}
	if err := o.Run(context.Background(), client.New(srv.URL, clienttest.Token, nil)); err != nil {
		t.Fatal(err)
	}
	var got api.ChatResponse
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || got.Response != "All done." {
		t.Fatalf("stdout %q: %v", out.String(), err)
	}
}
