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
		case tui.TurnMsg, tui.HealthMsg, tui.ConfigMsg, tui.SessionsMsg, tui.SessionMsg, tui.TraceMsg:
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
	press(t, m, "enter") // the default: approve
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
