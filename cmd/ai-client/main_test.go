package main

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client"
	"github.com/ailab/ai-lab/client/clienttest"
	"github.com/ailab/ai-lab/client/tui"
	"github.com/ailab/ai-lab/llm/llmtest"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestRunExitCodes(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	home := t.TempDir()
	// Where ai-server writes its token (CONTRACT section 2), found without --token.
	state := t.TempDir()
	if err := os.MkdirAll(filepath.Join(state, "ai-lab"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(state, "ai-lab", "token"), []byte(clienttest.Token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	explicit := t.TempDir()
	if err := os.WriteFile(filepath.Join(explicit, "token"), []byte(clienttest.Token), 0o600); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name      string
		args      []string
		env       map[string]string
		stdin     string
		code      int
		stdout    string
		stderrHas string
	}{
		{"one-shot with ask", []string{"--server", "$SERVER", "--token", clienttest.Token, "-p", "write it"}, nil, "y\n", 0, "Wrote a.txt.\n", "Approve write_file(path=a.txt, content=hi)?"},
		{"--server as HOST:PORT", []string{"--server", "$HOSTPORT", "--token", clienttest.Token, "-p", "write it", "--approve", "all"}, nil, "", 0, "Wrote a.txt.\n", ""},
		{"--server not an address", []string{"--server", "ftp://x", "-p", "hi"}, nil, "", 2, "", `ai-client: --server (or AILAB_SERVER) "ftp://x" is not a server address; give http://HOST:PORT or HOST:PORT`},
		{"server and token from env", []string{"-p", "write it", "--approve", "all"}, map[string]string{"AILAB_SERVER": "$SERVER", "AILAB_TOKEN": clienttest.Token}, "", 0, "Wrote a.txt.\n", ""},
		{"unreachable server", []string{"--server", dead, "-p", "hi"}, map[string]string{"HOME": home}, "", 1, "", "ai-client: cannot reach ai-server at " + dead + ": connection refused; start it with `ai-server` or try `ai-client --demo`"},
		{"token from XDG_STATE_HOME/ai-lab/token", []string{"--server", "$SERVER", "-p", "write it", "--approve", "all"}, map[string]string{"XDG_STATE_HOME": state}, "", 0, "Wrote a.txt.\n", ""},
		{"token from --state-dir", []string{"--server", "$SERVER", "--state-dir", explicit, "-p", "write it", "--approve", "all"}, nil, "", 0, "Wrote a.txt.\n", ""},
		{"--token wins over the file", []string{"--server", "$SERVER", "--token", "nope", "-p", "hi"}, map[string]string{"XDG_STATE_HOME": state}, "", 1, "", "the server refused the token given by --token; ai-server writes the right one to " + filepath.Join(state, "ai-lab", "token")},
		{"AILAB_TOKEN wins over the file", []string{"--server", "$SERVER", "-p", "hi"}, map[string]string{"XDG_STATE_HOME": state, "AILAB_TOKEN": "nope"}, "", 1, "", "the server refused the token given by AILAB_TOKEN"},
		{"no token anywhere", []string{"--server", "$SERVER", "-p", "hi"}, map[string]string{"XDG_STATE_HOME": home}, "", 1, "", "the server refused the token: none was given and " + filepath.Join(home, "ai-lab", "token") + " does not exist"},
		{"bad --approve", []string{"-p", "hi", "--approve", "maybe"}, nil, "", 2, "", "--approve must be ask, all or none"},
		{"--json without -p", []string{"--json"}, nil, "", 2, "", "only go with -p"},
		{"empty -p", []string{"-p", "  "}, nil, "", 2, "", "-p needs a message"},
		{"stray argument", []string{"hello"}, nil, "", 2, "", `use -p "hello"`},
		{"unknown flag", []string{"--nope"}, nil, "", 2, "", "ai-client: flag provided but not defined: --nope; ai-client --help lists the flags"},
		{"flag without its value", []string{"--server"}, nil, "", 2, "", "ai-client: flag needs an argument: --server; ai-client --help lists the flags"},
		{"--demo with --server", []string{"--demo", "--server", "http://x"}, nil, "", 2, "", "--demo runs its own server"},
		{"TUI refuses an unreachable server before taking the screen", []string{"--server", dead}, map[string]string{"HOME": home}, "", 1, "", "cannot reach ai-server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Each case gets a fresh scripted server; $SERVER names it in args and env.
			srv := clienttest.New(t,
				clienttest.Pending("s_1", clienttest.Call("write_file", `{"path":"a.txt","content":"hi"}`, "c1")),
				clienttest.Final("s_1", "Wrote a.txt."))
			for i, a := range tt.args {
				tt.args[i] = strings.ReplaceAll(strings.ReplaceAll(a, "$SERVER", srv.URL), "$HOSTPORT", strings.TrimPrefix(srv.URL, "http://"))
			}
			for k, v := range tt.env {
				tt.env[k] = strings.ReplaceAll(v, "$SERVER", srv.URL)
			}
			var out, errb bytes.Buffer
			code := run(tt.args, strings.NewReader(tt.stdin), &out, &errb, env(tt.env))
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tt.code, errb.String())
			}
			if out.String() != tt.stdout {
				t.Fatalf("stdout = %q, want %q", out.String(), tt.stdout)
			}
			if !strings.Contains(errb.String()+out.String(), tt.stderrHas) {
				t.Fatalf("output lacks %q; stderr:\n%s", tt.stderrHas, errb.String())
			}
			if tt.code != 0 && strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 {
				t.Fatalf("exit %d with more than one line:\n%s", tt.code, errb.String())
			}
		})
	}
}

func TestRunJSON(t *testing.T) {
	srv := clienttest.New(t, clienttest.Pending("s_1", clienttest.Call("delete_file", `{"path":"x"}`, "c1")), clienttest.Final("s_1", "Kept x."))
	var out, errb bytes.Buffer
	code := run([]string{"--server", srv.URL, "--token", clienttest.Token, "-p", "delete x", "--approve", "none", "--json"}, strings.NewReader(""), &out, &errb, env(nil))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var r api.ChatResponse
	if err := json.Unmarshal(out.Bytes(), &r); err != nil || r.Response != "Kept x." || r.SessionID != "s_1" {
		t.Fatalf("stdout %q: %+v %v", out.String(), r, err)
	}
	if a := srv.Approvals(); len(a) != 1 || a[0].Decisions[0].Approved {
		t.Fatalf("approvals = %+v", a)
	}
}

// Ctrl+C during a one-shot turn ends it with one plain sentence, not a transport error.
func TestRunInterrupted(t *testing.T) {
	arrived, release := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/chat" {
			close(arrived)
			<-release // a turn that outlasts the user's patience
		}
	}))
	defer srv.Close()
	defer close(release)
	go func() {
		<-arrived // run's signal handler is in place once it has sent the chat
		syscall.Kill(os.Getpid(), syscall.SIGINT)
	}()
	var out, errb bytes.Buffer
	code := run([]string{"--server", srv.URL, "--token", "x", "-p", "hi"}, strings.NewReader(""), &out, &errb, env(nil))
	want := "ai-client: interrupted before the answer came; the turn was cancelled\n"
	if code != 1 || errb.String() != want {
		t.Fatalf("exit %d, stderr %q; want 1 and %q", code, errb.String(), want)
	}
}

// liveProgram runs a TUI model as Bubble Tea would for a streamed turn: commands on
// their own goroutines, their messages fed to Update one at a time here, so the test
// can look at the screen between them.
type liveProgram struct {
	t    *testing.T
	m    *tui.Model
	msgs chan tea.Msg
}

func (p *liveProgram) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		if b, ok := msg.(tea.BatchMsg); ok {
			for _, c := range b {
				p.run(c)
			}
			return
		}
		p.msgs <- msg
	}()
}

func (p *liveProgram) key(k tea.KeyMsg) {
	_, cmd := p.m.Update(k)
	p.run(cmd)
}

// until feeds messages to Update until cond holds, failing after 20s.
func (p *liveProgram) until(what string, cond func(view string) bool) {
	p.t.Helper()
	deadline := time.After(20 * time.Second)
	for !cond(p.m.View()) {
		select {
		case msg := <-p.msgs:
			switch msg.(type) {
			case tui.TurnMsg, tui.CancelMsg, tui.HealthMsg, tui.ConfigMsg:
				_, cmd := p.m.Update(msg)
				p.run(cmd)
			}
		case <-deadline:
			p.t.Fatalf("%s did not happen within 20s; screen:\n%s", what, p.m.View())
		}
	}
}

func newLiveProgram(t *testing.T, c *client.Client) *liveProgram {
	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(termenv.Ascii)
	p := &liveProgram{t: t, m: tui.New(tui.Options{Client: c, Renderer: r}), msgs: make(chan tea.Msg, 64)}
	p.m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	p.run(p.m.Init())
	return p
}

func (p *liveProgram) send(text string) {
	for _, r := range text {
		p.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	p.key(tea.KeyMsg{Type: tea.KeyEnter})
}

// slowProse is an answer of plain sentences, which the real server streams sentence
// by sentence (it holds only what could be a claim).
const slowProse = "Go 1.26 came out in February. The compiler inlines more than before. " +
	"Builds of large modules are faster. Upgrading is a one-line change to go.mod, " +
	"and the release notes say what else changed."

// The real server's streamed answer shows on screen while the model still writes it.
func TestTUIStreamsFromTheRealServer(t *testing.T) {
	c, _, _ := realServer(t, llmtest.Paced(20*time.Millisecond, llmtest.Text(slowProse)))
	p := newLiveProgram(t, c)
	p.send("what is new in go?")
	p.until("the first sentence", func(v string) bool { return strings.Contains(v, "Go 1.26 came out in February.") })
	if v := p.m.View(); strings.Contains(v, "what else changed.") || strings.Contains(v, "verified") {
		t.Fatalf("the whole answer was there at once:\n%s", v)
	}
	p.until("the answer", func(v string) bool { return strings.Contains(v, "verified") })
	if v := p.m.View(); !strings.Contains(strings.Join(strings.Fields(v), " "), "the release notes say what else changed.") {
		t.Fatalf("final screen:\n%s", v)
	}
}

// Esc cancels a turn of the real server: its stream ends with the cancel, the screen
// says so, and the session is free for the next message.
func TestTUIEscCancelsATurnOfTheRealServer(t *testing.T) {
	c, _, _ := realServer(t, llmtest.Paced(300*time.Millisecond, llmtest.Text(slowProse)), llmtest.Text("Fresh answer."))
	p := newLiveProgram(t, c)
	p.send("be slow")
	p.until("the first sentence", func(v string) bool { return strings.Contains(v, "Go 1.26 came out") })
	p.key(tea.KeyMsg{Type: tea.KeyEsc})
	p.until("the cancel", func(v string) bool { return strings.Contains(v, "Turn cancelled.") })
	if v := p.m.View(); strings.Contains(v, "✗") || strings.Contains(v, "what else changed.") {
		t.Fatalf("screen after the cancel:\n%s", v)
	}
	p.send("again")
	p.until("the next answer", func(v string) bool { return strings.Contains(v, "Fresh answer.") })
}

// -p on a pipe prints the real server's final answer and nothing else, though it
// was streamed.
func TestOneShotPipeGetsTheStreamedAnswerOnce(t *testing.T) {
	answer := "One answer, streamed in pieces but printed whole."
	c, _, token := realServer(t, llmtest.Chunked(llmtest.Text(answer), 3))
	var out, errb strings.Builder
	code := run([]string{"--server", c.BaseURL(), "--token", token, "-p", "hi"}, strings.NewReader(""), &out, &errb, func(string) string { return "" })
	if code != 0 || out.String() != answer+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

// --help (and -h) prints the usage on stdout as ai-server does: the three forms,
// then every flag as --name ARG with what it does, never Go's "-approve string".
func TestHelpGoesToStdout(t *testing.T) {
	for _, arg := range []string{"--help", "-h"} {
		t.Run(arg, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run([]string{arg}, strings.NewReader(""), &out, &errb, env(nil)); code != 0 || errb.Len() != 0 {
				t.Fatalf("exit %d, stderr %q", code, errb.String())
			}
			for _, want := range []string{
				"usage:\n",
				"  ai-client -p \"MESSAGE\" [--approve ask|all|none] [--json]\n",
				"  --approve ask|all|none   how one-shot settles approvals",
				"  --server URL             the ai-server at URL",
				"  -p MESSAGE               one-shot: send MESSAGE",
				"sessions, token and config copy in <state dir>/demo",
				"Exit codes: 0 success, 1 runtime failure, 2 bad usage.",
			} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("--help lacks %q:\n%s", want, out.String())
				}
			}
			if strings.Contains(out.String(), "-approve string") || strings.Contains(out.String(), "\t") {
				t.Errorf("--help has the flag package's layout:\n%s", out.String())
			}
		})
	}
}

// With --json a failed one-shot run still writes JSON on stdout, the error
// object the API uses, and exits 1.
func TestRunJSONError(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	srv := clienttest.New(t)
	srv.FailOn(1, 409, api.CodeApprovalPending)
	tests := []struct {
		name, code string
		args       []string
	}{
		{"server unreachable", client.CodeUnreachable, []string{"--server", dead, "--token", "x"}},
		{"the server's error", api.CodeApprovalPending, []string{"--server", srv.URL, "--token", clienttest.Token, "--session", "s_1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(append(tt.args, "-p", "hi", "--json"), strings.NewReader(""), &out, &errb, env(map[string]string{"HOME": t.TempDir()}))
			if code != 1 {
				t.Fatalf("exit %d, want 1; stderr %s", code, errb.String())
			}
			var got struct {
				Error struct{ Code, Message string } `json:"error"`
			}
			if err := json.Unmarshal(out.Bytes(), &got); err != nil || got.Error.Code != tt.code || got.Error.Message == "" {
				t.Fatalf("stdout %q (%v), want an error object with code %q", out.String(), err, tt.code)
			}
			if !strings.Contains(errb.String(), got.Error.Message) {
				t.Fatalf("stderr %q lacks the message %q", errb.String(), got.Error.Message)
			}
		})
	}
}
