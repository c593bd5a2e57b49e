package main

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/ailab/ai-lab/client"
	"github.com/ailab/ai-lab/client/tui"
	"github.com/ailab/ai-lab/config"
	"github.com/ailab/ai-lab/llm/llmtest"
	"github.com/ailab/ai-lab/server"
)

// realServer runs the real ai-server in-process with a scripted model, the strict
// preset, and a temporary workspace and state; it returns a client for it, the
// workspace folder and the token.
func realServer(t *testing.T, steps ...llmtest.Step) (c *client.Client, workspace, token string) {
	t.Helper()
	cfg := config.Default()
	cfg.Server.StateDir = t.TempDir()
	workspace = t.TempDir()
	cfg.Tools.Workspace = workspace
	ctx, cancel := context.WithCancel(context.Background())
	app, err := server.Open(ctx, cfg, server.Fixed(llmtest.NewProvider(t, steps...)), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); app.Serve(ctx, ln, time.Second) }()
	t.Cleanup(func() { cancel(); <-done; app.Close() })
	return client.New("http://"+ln.Addr().String(), app.Token, nil), workspace, app.Token
}

// realServerWithConfig is realServer started from a config file (so PUT
// /config/safety has a file to rewrite) holding the given safety preset; it returns
// the config file's path too.
func realServerWithConfig(t *testing.T, preset string, steps ...llmtest.Step) (c *client.Client, workspace, configPath string) {
	t.Helper()
	dir := t.TempDir()
	workspace = filepath.Join(dir, "workspace")
	if err := os.MkdirAll(workspace, 0o700); err != nil {
		t.Fatal(err)
	}
	configPath = filepath.Join(dir, "config.yaml")
	text := "server:\n  state_dir: " + filepath.Join(dir, "state") + "\ntools:\n  workspace: " + workspace + "\nsafety:\n  preset: " + preset + "\n"
	if err := os.WriteFile(configPath, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(configPath)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	app, err := server.Open(ctx, cfg, server.Fixed(llmtest.NewProvider(t, steps...)), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); app.Serve(ctx, ln, time.Second) }()
	t.Cleanup(func() { cancel(); <-done; app.Close() })
	return client.New("http://"+ln.Addr().String(), app.Token, nil), workspace, configPath
}

func newTUI(t *testing.T, c *client.Client, session string) *tui.Model {
	t.Helper()
	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(termenv.Ascii)
	m := tui.New(tui.Options{Client: c, Renderer: r, SessionID: session})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	drive(t, m, m.Init())
	return m
}

func mustShow(t *testing.T, m tea.Model, what string, wants ...string) {
	t.Helper()
	v := m.View()
	for _, w := range wants {
		if !strings.Contains(v, w) {
			t.Errorf("%s: the screen lacks %q", what, w)
		}
	}
	if t.Failed() {
		t.Fatalf("screen:\n%s", v)
	}
}

// TestGrantsPreviewsAndResumeAgainstTheRealServer drives, against the real server
// under the moderate preset: an overwrite whose preview and diff show in the table,
// a session grant given with s that covers the batch's other write and then a later
// write in the same folder, /grants, /preset naming the file it wrote, and a resumed
// session that shows the marks the live one did.
func TestGrantsPreviewsAndResumeAgainstTheRealServer(t *testing.T) {
	c, workspace, configPath := realServerWithConfig(t, "moderate",
		llmtest.Calls(llmtest.Call("call_1", "write_file", `{"path":"notes/a.txt","content":"new line\n"}`),
			llmtest.Call("call_2", "write_file", `{"path":"notes/b.txt","content":"beta"}`)),
		llmtest.Text("Wrote both."),
		llmtest.Calls(llmtest.Call("call_3", "write_file", `{"path":"notes/c.txt","content":"gamma"}`)),
		llmtest.Text("Wrote c."),
	)
	if err := os.MkdirAll(filepath.Join(workspace, "notes"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(workspace, "notes", "a.txt"), []byte("old line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := newTUI(t, c, "")
	typeLine(t, m, "rewrite a.txt and write b.txt")
	mustShow(t, m, "approval", "⚠ overwrites notes/a.txt (+1 −1) · ? shows the diff")
	press(t, m, "?")
	mustShow(t, m, "details", "-old line", "+new line")
	m.Update(tea.KeyMsg{Type: tea.KeyEsc})
	press(t, m, "s")
	mustShow(t, m, "grant question", "Session grant: write files in notes/ for this session", "matching notes/*", "It also approves 1 more call")
	press(t, m, "y")
	mustShow(t, m, "answer", "Wrote both.", "✓ approved write_file(path=notes/a.txt", "✓ approved write_file(path=notes/b.txt", "Granted for this session")
	for name, want := range map[string]string{"a.txt": "new line\n", "b.txt": "beta"} {
		if b, err := os.ReadFile(filepath.Join(workspace, "notes", name)); err != nil || string(b) != want {
			t.Fatalf("notes/%s = %q, %v", name, b, err)
		}
	}
	typeLine(t, m, "write c.txt")
	mustShow(t, m, "granted run", "Wrote c.", "(granted)", "verified")
	if _, err := os.Stat(filepath.Join(workspace, "notes", "c.txt")); err != nil {
		t.Fatalf("the granted write did not run: %v", err)
	}
	typeLine(t, m, "/grants")
	mustShow(t, m, "grant list", "write_file", "notes/*")
	m.Update(tea.KeyMsg{Type: tea.KeyEsc})
	typeLine(t, m, "/preset strict")
	if v := strings.ReplaceAll(m.View(), "\n", ""); !strings.Contains(v, "Written to "+configPath) {
		t.Fatalf("/preset does not name %s:\n%s", configPath, m.View())
	}

	session := sessionOf(t, m)
	resumed := newTUI(t, c, session)
	mustShow(t, resumed, "resumed", "✓ approved write_file(path=notes/a.txt", "✓ approved write_file(path=notes/b.txt", "(granted)", "verified", "Wrote c.")
}

// sessionOf reads the session id from the status bar.
func sessionOf(t *testing.T, m tea.Model) string {
	t.Helper()
	_, rest, ok := strings.Cut(m.View(), "session ")
	id, _, _ := strings.Cut(rest, " ")
	if !ok || !strings.HasPrefix(id, "s_") {
		t.Fatalf("no session id in the status bar:\n%s", m.View())
	}
	return id
}

// drive runs cmd and feeds the messages of the client's own types back into m.
func drive(t *testing.T, m tea.Model, cmd tea.Cmd) {
	t.Helper()
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		done := make(chan tea.Msg, 1)
		go func() { done <- c() }()
		var msg tea.Msg
		select {
		case msg = <-done:
		case <-time.After(20 * time.Second):
			t.Fatal("a command did not return within 20s")
		}
		switch msg := msg.(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case tui.TurnMsg, tui.HealthMsg, tui.ConfigMsg, tui.SessionsMsg, tui.SessionMsg, tui.TraceMsg, tui.GrantsMsg, tui.RevokeMsg:
			_, next := m.Update(msg)
			queue = append(queue, next)
		}
	}
}

func key(k string) tea.KeyMsg {
	if k == "enter" {
		return tea.KeyMsg{Type: tea.KeyEnter}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

func typeLine(t *testing.T, m tea.Model, s string) {
	t.Helper()
	for _, r := range s {
		m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	_, cmd := m.Update(key("enter"))
	drive(t, m, cmd)
}

func press(t *testing.T, m tea.Model, keys ...string) {
	t.Helper()
	for _, k := range keys {
		_, cmd := m.Update(key(k))
		drive(t, m, cmd)
	}
}

// TestTUIAgainstTheRealServer drives the chat model through an approval, a denial with
// a reason and a chained approval against the real server and its tool loop.
func TestTUIAgainstTheRealServer(t *testing.T) {
	c, workspace, _ := realServer(t,
		llmtest.Calls(llmtest.Call("call_1", "write_file", `{"path":"a.txt","content":"alpha"}`),
			llmtest.Call("call_2", "write_file", `{"path":"b.txt","content":"beta"}`)),
		llmtest.Calls(llmtest.Call("call_3", "delete_file", `{"path":"a.txt"}`)),
		llmtest.Text("Done."),
	)
	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(termenv.Ascii)
	m := tui.New(tui.Options{Client: c, Renderer: r})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	drive(t, m, m.Init())

	typeLine(t, m, "write a.txt and b.txt, then delete a.txt")
	view := m.View()
	for _, s := range []string{"Tool Approval Required", "(1 of 2) Approve write_file(path=a.txt, content=alpha)?", "b.txt"} {
		if !strings.Contains(view, s) {
			t.Fatalf("approval screen lacks %q:\n%s", s, view)
		}
	}
	press(t, m, "y", "n")
	for _, r := range "keep b out" {
		m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	press(t, m, "enter")
	view = m.View()
	if !strings.Contains(view, "Approve delete_file(path=a.txt)?") {
		t.Fatalf("chained approval not shown:\n%s", view)
	}
	if b, err := os.ReadFile(filepath.Join(workspace, "a.txt")); err != nil || string(b) != "alpha" {
		t.Fatalf("approved write did not run: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(workspace, "b.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("denied write ran: %v", err)
	}
	press(t, m, "enter") // a delete has no default: Enter asks for y or n
	if _, err := os.Stat(filepath.Join(workspace, "a.txt")); err != nil || !strings.Contains(m.View(), "press y or n") {
		t.Fatalf("Enter decided a delete: %v\n%s", err, m.View())
	}
	press(t, m, "y")
	if _, err := os.Stat(filepath.Join(workspace, "a.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("approved delete did not run: %v", err)
	}
	view = m.View()
	for _, s := range []string{"Done.", "✓ delete_file path=a.txt", "delete_file_", "verified", "⊘ denied write_file(path=b.txt, content=beta) — reason: keep b out"} {
		if !strings.Contains(view, s) {
			t.Errorf("final screen lacks %q:\n%s", s, view)
		}
	}
}

func TestOneShotAgainstTheRealServer(t *testing.T) {
	c, workspace, token := realServer(t,
		llmtest.Calls(llmtest.Call("call_1", "write_file", `{"path":"x.txt","content":"one shot"}`)),
		llmtest.Text("Wrote x.txt."),
	)
	var out, errb strings.Builder
	code := run([]string{"--server", c.BaseURL(), "--token", token, "-p", "write x.txt", "--approve", "ask"},
		strings.NewReader("y\n"), &out, &errb, func(string) string { return "" })
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if out.String() != "Wrote x.txt.\n" || !strings.Contains(errb.String(), "Approve write_file(path=x.txt, content=one shot)?") {
		t.Fatalf("stdout %q stderr:\n%s", out.String(), errb.String())
	}
	if b, err := os.ReadFile(filepath.Join(workspace, "x.txt")); err != nil || string(b) != "one shot" {
		t.Fatalf("file: %q %v", b, err)
	}
}

// The one-shot table shows what an overwrite changes, and ? prints its diff.
func TestOneShotPreviewAgainstTheRealServer(t *testing.T) {
	c, workspace, token := realServer(t,
		llmtest.Calls(llmtest.Call("call_1", "write_file", `{"path":"x.txt","content":"new\n"}`)),
		llmtest.Text("Rewrote x.txt."),
	)
	if err := os.WriteFile(filepath.Join(workspace, "x.txt"), []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb strings.Builder
	code := run([]string{"--server", c.BaseURL(), "--token", token, "-p", "rewrite x.txt", "--approve", "ask"},
		strings.NewReader("?\ny\n"), &out, &errb, func(string) string { return "" })
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	table, details, _ := strings.Cut(errb.String(), "?]: ") // an overwrite has no default answer
	if !strings.Contains(table, "⚠ overwrites x.txt (+1 −1) · ? shows the diff") {
		t.Errorf("the table lacks the preview:\n%s", table)
	}
	if !strings.Contains(details, "-old") || !strings.Contains(details, "+new") {
		t.Errorf("? did not print the diff:\n%s", details)
	}
	if b, err := os.ReadFile(filepath.Join(workspace, "x.txt")); err != nil || string(b) != "new\n" || out.String() != "Rewrote x.txt.\n" {
		t.Fatalf("file %q (%v), stdout %q", b, err, out.String())
	}
}
