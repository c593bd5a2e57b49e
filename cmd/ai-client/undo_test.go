package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/llm/llmtest"
)

// TestUndoCommandAgainstTheRealServer: a real write_file over the user's
// file, then `ai-client undo` (the most recent session, no --session):
// refused without --yes off a terminal, done with --yes after its preview;
// `redo --json` prints the UndoReply; a file changed since refuses until
// --force; and with nothing left, --json prints the error object.
func TestUndoCommandAgainstTheRealServer(t *testing.T) {
	c, workspace, token := realServer(t,
		llmtest.Calls(llmtest.Call("call_1", "write_file", `{"path":"x.txt","content":"the model's\n"}`)),
		llmtest.Text("Wrote x.txt."),
	)
	x := filepath.Join(workspace, "x.txt")
	if err := os.WriteFile(x, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func() string {
		b, _ := os.ReadFile(x)
		return string(b)
	}
	noEnv := func(string) string { return "" }
	ai := func(stdin string, args ...string) (int, string, string) {
		t.Helper()
		var out, errb strings.Builder
		code := run(append(args, "--server", c.BaseURL(), "--token", token), strings.NewReader(stdin), &out, &errb, noEnv)
		return code, out.String(), errb.String()
	}
	if code, _, errs := ai("y\n", "-p", "write x.txt"); code != 0 || read() != "the model's\n" {
		t.Fatalf("the turn: exit %d, %s; x.txt %q", code, errs, read())
	}

	code, out, errs := ai("", "undo")
	if code != 1 || out != "" || !strings.Contains(errs, "add --yes") || read() != "the model's\n" {
		t.Fatalf("undo without --yes off a terminal: exit %d, stdout %q, stderr %q, x.txt %q", code, out, errs, read())
	}

	code, out, errs = ai("", "undo", "--yes")
	if code != 0 || read() != "mine\n" {
		t.Fatalf("undo --yes: exit %d, stderr %q, x.txt %q", code, errs, read())
	}
	for _, want := range []string{"Undo turn 1: the workspace goes back", "restored    x.txt  12 B → 5 B", "-the model's", "+mine", "Undid turn 1: x.txt restored."} {
		if !strings.Contains(out, want) {
			t.Errorf("undo's output lacks %q:\n%s", want, out)
		}
	}

	code, out, errs = ai("", "redo", "--yes", "--json")
	var reply api.UndoReply
	if code != 0 || json.Unmarshal([]byte(out), &reply) != nil || len(reply.Turns) != 1 || len(reply.Files) != 1 || reply.Files[0] != (api.UndoFile{Path: "x.txt", Action: api.UndoRestored}) {
		t.Fatalf("redo --json: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if read() != "the model's\n" || !strings.Contains(errs, "Redo turn 1") {
		t.Fatalf("after redo: x.txt %q, stderr %q", read(), errs)
	}

	if err := os.WriteFile(x, []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = ai("", "undo", "--yes")
	if code != 1 || !strings.Contains(out, "Cannot undo: 1 file changed since the turn") || !strings.Contains(out, "+edited") || !strings.Contains(errs, "add --force") || read() != "edited\n" {
		t.Fatalf("undo over a change: exit %d, stdout %q, stderr %q, x.txt %q", code, out, errs, read())
	}
	if code, _, errs = ai("", "undo", "--yes", "--force"); code != 0 || read() != "mine\n" {
		t.Fatalf("undo --force: exit %d, stderr %q, x.txt %q", code, errs, read())
	}

	code, out, _ = ai("", "undo", "--yes", "--json")
	var e api.ErrorBody
	if code != 1 || json.Unmarshal([]byte(out), &e) != nil || e.Error.Code != api.CodeNothingToUndo {
		t.Fatalf("undo with nothing left: exit %d, stdout %q", code, out)
	}
}

// `ai-client --help` lists the subcommands, and `ai-client undo --help` its flags.
func TestUndoHelp(t *testing.T) {
	var out, errb strings.Builder
	if code := run([]string{"--help"}, strings.NewReader(""), &out, &errb, env(nil)); code != 0 ||
		!strings.Contains(out.String(), "ai-client undo [--session ID] [--turn N] [--yes] [--force] [--json]") ||
		!strings.Contains(out.String(), "ai-client redo [--session ID] [--yes] [--force] [--json]") {
		t.Fatalf("--help: %s", out.String())
	}
	out.Reset()
	if code := run([]string{"undo", "--help"}, strings.NewReader(""), &out, &errb, env(nil)); code != 0 ||
		!strings.Contains(out.String(), "--turn N") || !strings.Contains(out.String(), "--yes ") {
		t.Fatalf("undo --help: %s", out.String())
	}
	out.Reset()
	if code := run([]string{"redo", "--turn", "2"}, strings.NewReader(""), &out, &errb, env(nil)); code != 2 || !strings.Contains(errb.String(), "--turn") {
		t.Fatalf("redo --turn: exit %d, %s", code, errb.String())
	}
}
