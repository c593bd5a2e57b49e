package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// policyConfig writes a config with rules and a workspace holding a link out
// of notes/, and points the lookup at it.
func policyConfig(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	os.MkdirAll(filepath.Join(ws, "notes"), 0o755)
	os.WriteFile(filepath.Join(ws, "victim.txt"), []byte("v"), 0o644)
	os.Symlink("../victim.txt", filepath.Join(ws, "notes", "link.txt"))
	cfg := filepath.Join(dir, "config.yaml")
	yaml := fmt.Sprintf(`safety:
  preset: moderate
  rules:
    - {deny: read_file, path: "secrets/"}
    - {allow: write_file, path: "notes/"}
    - {allow: read_webpage, host: "go.dev"}
    - {ask: "files__*"}
tools:
  workspace: %q
mcp:
  servers:
    - {name: files, command: ["true"], approval: never}
`, ws)
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AILAB_CONFIG", cfg)
	for _, v := range []string{"AILAB_SAFETY_PRESET", "AILAB_SAFETY_RULES"} {
		t.Setenv(v, "")
	}
	return cfg
}

// TestPolicyExplainGolden: `ai-server policy explain` answers "why did this
// (not) ask?" for each kind of source, one line each; the golden file is the
// text a person reads (go test -update rewrites it).
func TestPolicyExplainGolden(t *testing.T) {
	policyConfig(t)
	calls := [][2]string{
		{"write_file", `{"path": "notes/todo.txt", "content": "x"}`},
		{"write_file", `{"path": "notes/link.txt", "content": "x"}`},
		{"write_file", `{"path": " notes/todo.txt", "content": "x"}`},
		{"read_file", `{"path": "secrets/key.txt"}`},
		{"read_file", `{"path": "README.md"}`},
		{"read_webpage", `{"url": "https://GO.DEV/doc/"}`},
		{"read_webpage", `{"url": "https://go.dev.evil.example/"}`},
		{"delete_file", `{"path": "notes/todo.txt"}`},
		{"files__read_text_file", `{"path": "/data/a"}`},
		{"gh__create_issue", `{}`},
	}
	var out bytes.Buffer
	for _, c := range calls {
		var stdout, stderr bytes.Buffer
		if code := run([]string{"policy", "explain", c[0], c[1]}, nil, &stdout, &stderr); code != exitOK {
			t.Fatalf("%s %s: exit %d: %s", c[0], c[1], code, stderr.String())
		}
		fmt.Fprintf(&out, "$ ai-server policy explain %s '%s'\n%s", c[0], c[1], stdout.String())
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"policy", "list"}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("list: exit %d: %s", code, stderr.String())
	}
	fmt.Fprintf(&out, "$ ai-server policy list\n%s", stdout.String())
	golden.RequireEqual(t, out.Bytes())
}

// TestPolicyExplainJSONAndUsage: --json prints exactly decision and reason;
// bad usage is one line and exit 2.
func TestPolicyExplainJSONAndUsage(t *testing.T) {
	policyConfig(t)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"policy", "explain", "--json", "read_file", `{"path": "secrets/a"}`}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var got map[string]string
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil || len(got) != 2 || got["decision"] != "deny" || !strings.HasPrefix(got["reason"], "rule 1 in config.yaml: ") {
		t.Fatalf("--json: %s (%v)", stdout.String(), err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"policy"}, "say explain TOOL 'JSON-ARGS' or list"},
		{[]string{"policy", "explain"}, "explain takes a tool and its arguments"},
		{[]string{"policy", "explain", "write_file", "notes/a"}, "must be one JSON object"},
		{[]string{"policy", "explain", "rm", "{}"}, `"rm" is not a tool`},
		{[]string{"policy", "why"}, `"why" is not a policy command`},
		{[]string{"policy", "list", "extra"}, "list takes no arguments"},
	} {
		stdout.Reset()
		stderr.Reset()
		code := run(c.args, nil, &stdout, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), c.want) || strings.Count(strings.TrimSpace(stderr.String()), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q on one line", c.args, code, stderr.String(), c.want)
		}
	}
}
