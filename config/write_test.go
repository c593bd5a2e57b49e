package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ailab/ai-lab/api"
)

// changedLines returns the line numbers (1-based) where a and b differ; it
// requires them to have the same number of lines.
func changedLines(t *testing.T, a, b string) []int {
	t.Helper()
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	if len(al) != len(bl) {
		t.Fatalf("line count changed from %d to %d:\n%s", len(al), len(bl), b)
	}
	var diff []int
	for i := range al {
		if al[i] != bl[i] {
			diff = append(diff, i+1)
		}
	}
	return diff
}

func copyRepoConfig(t *testing.T, mode os.FileMode) (path, original string) {
	t.Helper()
	data, err := os.ReadFile(repoConfig)
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, data, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	return path, string(data)
}

func boolPtr(b bool) *bool { return &b }

// TestWriteSafetyKeepsTheFile is the golden comparison: on the documented
// config.yaml, only the lines of the changed values differ.
func TestWriteSafetyKeepsTheFile(t *testing.T) {
	tests := []struct {
		name      string
		update    api.SafetyUpdate
		wantLines map[string]string // old line (trimmed) -> new line (trimmed)
	}{
		{
			name:      "moderate changes only the preset line",
			update:    api.SafetyUpdate{Preset: "moderate"},
			wantLines: map[string]string{"preset: strict        # strict | moderate | minimal | custom": "preset: moderate        # strict | moderate | minimal | custom"},
		},
		{
			name:      "fixed preset ignores the custom fields",
			update:    api.SafetyUpdate{Preset: "minimal", ApprovalMode: boolPtr(false), ToolsRequiringApproval: []string{"web_search"}},
			wantLines: map[string]string{"preset: strict        # strict | moderate | minimal | custom": "preset: minimal        # strict | moderate | minimal | custom"},
		},
		{
			name:   "custom with mode and tools",
			update: api.SafetyUpdate{Preset: "custom", ApprovalMode: boolPtr(false), ToolsRequiringApproval: []string{"write_file", "web_search"}},
			wantLines: map[string]string{
				"preset: strict        # strict | moderate | minimal | custom": "preset: custom        # strict | moderate | minimal | custom",
				"approval_mode: true":                     "approval_mode: false",
				"tools_requiring_approval: [delete_file]": "tools_requiring_approval: [write_file, web_search]",
			},
		},
		{
			name:   "custom with an empty list",
			update: api.SafetyUpdate{Preset: "custom", ToolsRequiringApproval: []string{}},
			wantLines: map[string]string{
				"preset: strict        # strict | moderate | minimal | custom": "preset: custom        # strict | moderate | minimal | custom",
				"tools_requiring_approval: [delete_file]":                      "tools_requiring_approval: []",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			path, before := copyRepoConfig(t, 0o640)
			if err := WriteSafety(path, tt.update); err != nil {
				t.Fatal(err)
			}
			afterBytes, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			after := string(afterBytes)
			bl, al := strings.Split(before, "\n"), strings.Split(after, "\n")
			diff := changedLines(t, before, after)
			if len(diff) != len(tt.wantLines) {
				t.Fatalf("%d lines changed (%v), want %d", len(diff), diff, len(tt.wantLines))
			}
			for _, n := range diff {
				old, new := strings.TrimSpace(bl[n-1]), strings.TrimSpace(al[n-1])
				if want, ok := tt.wantLines[old]; !ok || want != new {
					t.Errorf("line %d: %q became %q", n, old, new)
				}
			}
			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if info.Mode().Perm() != 0o640 {
				t.Errorf("mode = %v, want 0640", info.Mode().Perm())
			}
			c, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if c.Safety.Preset != tt.update.Preset {
				t.Errorf("preset after reload = %q", c.Safety.Preset)
			}
			leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".config.yaml.tmp-*"))
			if len(leftovers) != 0 {
				t.Errorf("temporary files left behind: %v", leftovers)
			}
		})
	}
}

// TestWriteSafetyReflow covers files whose safety values cannot be spliced in
// place: the node tree is encoded, keeping comments and other keys.
func TestWriteSafetyReflow(t *testing.T) {
	tests := []struct {
		name       string
		file       string
		update     api.SafetyUpdate
		wantPreset string
		wantMode   bool
		wantTools  []string
		wantText   []string // must still be in the file
	}{
		{
			name:       "no safety section",
			file:       "# my server\nllm:\n  model: m # the model\n",
			update:     api.SafetyUpdate{Preset: "moderate"},
			wantPreset: "moderate", wantMode: true, wantTools: []string{"write_file", "delete_file", "move_file", "copy_file", "create_directory"},
			wantText: []string{"# my server", "model: m # the model"},
		},
		{
			name:       "empty safety section",
			file:       "safety:\n# nothing yet\nllm:\n  model: m\n",
			update:     api.SafetyUpdate{Preset: "minimal"},
			wantPreset: "minimal", wantMode: false, wantTools: []string{},
			wantText: []string{"model: m"},
		},
		{
			name:       "block list and missing approval_mode",
			file:       "safety:\n  # pick one\n  preset: strict\n  tools_requiring_approval:\n    - delete_file\nweb:\n  region: de-de\n",
			update:     api.SafetyUpdate{Preset: "custom", ApprovalMode: boolPtr(true), ToolsRequiringApproval: []string{"read_webpage"}},
			wantPreset: "custom", wantMode: true, wantTools: []string{"read_webpage"},
			wantText: []string{"# pick one", "region: de-de"},
		},
		{
			name:       "empty file",
			file:       "",
			update:     api.SafetyUpdate{Preset: "moderate"},
			wantPreset: "moderate", wantMode: true, wantTools: []string{"write_file", "delete_file", "move_file", "copy_file", "create_directory"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			path := writeFile(t, t.TempDir(), "config.yaml", tt.file)
			if err := WriteSafety(path, tt.update); err != nil {
				t.Fatal(err)
			}
			c, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			p := c.Preset()
			if p.Name != tt.wantPreset || p.ApprovalMode != tt.wantMode || !slices.Equal(p.RequiresApproval, tt.wantTools) {
				t.Errorf("preset after write = %+v", p)
			}
			data, _ := os.ReadFile(path)
			for _, s := range tt.wantText {
				if !strings.Contains(string(data), s) {
					t.Errorf("lost %q:\n%s", s, data)
				}
			}
		})
	}
}

func TestWriteSafetyKeepsQuotes(t *testing.T) {
	clearEnv(t)
	path := writeFile(t, t.TempDir(), "config.yaml", "safety:\n  preset: \"strict\"   # quoted\n")
	if err := WriteSafety(path, api.SafetyUpdate{Preset: "minimal"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if want := "safety:\n  preset: \"minimal\"   # quoted\n"; string(data) != want {
		t.Fatalf("file = %q, want %q", data, want)
	}
}

func TestWriteSafetyRefuses(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		update   api.SafetyUpdate
		wantKey  string
		wantText string
	}{
		{"unknown preset", "safety:\n  preset: strict\n", api.SafetyUpdate{Preset: "lax"}, "safety.preset", `"lax" is not a preset`},
		{"unknown tool", "safety:\n  preset: strict\n", api.SafetyUpdate{Preset: "custom", ToolsRequiringApproval: []string{"write_file", "format_disk"}}, "safety.tools_requiring_approval", `"format_disk" is not a tool name`},
		{"file already broken", "safety:\n  preset: strict\nllm:\n  modle: x\n", api.SafetyUpdate{Preset: "moderate"}, "llm.modle", "fix this first"},
		{"not yaml", "safety: [\n", api.SafetyUpdate{Preset: "moderate"}, "", "not valid YAML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			path := writeFile(t, t.TempDir(), "config.yaml", tt.file)
			err := WriteSafety(path, tt.update)
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("WriteSafety = %v, want *Error", err)
			}
			if ce.Key != tt.wantKey || !strings.Contains(err.Error(), tt.wantText) {
				t.Fatalf("error %q (key %q), want key %q and %q", err, ce.Key, tt.wantKey, tt.wantText)
			}
			data, _ := os.ReadFile(path)
			if string(data) != tt.file {
				t.Fatalf("file changed to %q", data)
			}
		})
	}
}

func TestWriteSafetyMissingFile(t *testing.T) {
	err := WriteSafety(filepath.Join(t.TempDir(), "nope.yaml"), api.SafetyUpdate{Preset: "moderate"})
	var ce *Error
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "cannot be read") {
		t.Fatalf("WriteSafety = %v, want *Error saying the file cannot be read", err)
	}
	err = WriteSafety("", api.SafetyUpdate{Preset: "moderate"})
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "--config") {
		t.Fatalf("WriteSafety(\"\") = %v, want *Error pointing at --config", err)
	}
}

func TestWriteSafetyThroughSymlink(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	target := writeFile(t, dir, "real.yaml", "safety:\n  preset: strict\n")
	link := filepath.Join(dir, "config.yaml")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteSafety(link, api.SafetyUpdate{Preset: "moderate"}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the symlink was replaced: %v %v", fi.Mode(), err)
	}
	data, _ := os.ReadFile(target)
	if string(data) != "safety:\n  preset: moderate\n" {
		t.Fatalf("target = %q", data)
	}
}

// TestWriteSafetyRoundTripOnRepoConfig walks the documented config.yaml through
// every preset and back: each step loads as the preset asked for, and the way
// back restores the file byte for byte, so no step disturbed anything else.
func TestWriteSafetyRoundTripOnRepoConfig(t *testing.T) {
	clearEnv(t)
	path, original := copyRepoConfig(t, 0o644)
	steps := []struct {
		update    api.SafetyUpdate
		wantMode  bool
		wantTools []string
	}{
		{api.SafetyUpdate{Preset: "moderate"}, true, []string{"write_file", "delete_file", "move_file", "copy_file", "create_directory"}},
		{api.SafetyUpdate{Preset: "minimal"}, false, []string{}},
		{api.SafetyUpdate{Preset: "custom", ApprovalMode: boolPtr(false), ToolsRequiringApproval: []string{"write_file", "web_search"}}, false, []string{"write_file", "web_search"}},
		{api.SafetyUpdate{Preset: "strict"}, true, []string{"write_file", "delete_file", "move_file", "copy_file", "create_directory", "web_search", "read_webpage"}},
		{api.SafetyUpdate{Preset: "custom"}, false, []string{"write_file", "web_search"}},
		{api.SafetyUpdate{Preset: "custom", ApprovalMode: boolPtr(true), ToolsRequiringApproval: []string{"delete_file"}}, true, []string{"delete_file"}},
		{api.SafetyUpdate{Preset: "strict"}, true, []string{"write_file", "delete_file", "move_file", "copy_file", "create_directory", "web_search", "read_webpage"}},
	}
	for i, st := range steps {
		if err := WriteSafety(path, st.update); err != nil {
			t.Fatalf("step %d (%s): %v", i, st.update.Preset, err)
		}
		c, err := Load(path)
		if err != nil {
			t.Fatalf("step %d (%s): %v", i, st.update.Preset, err)
		}
		p := c.Preset()
		if p.Name != st.update.Preset || p.ApprovalMode != st.wantMode || !slices.Equal(p.RequiresApproval, st.wantTools) {
			t.Fatalf("step %d: preset after write = %+v, want %s %v %v", i, p, st.update.Preset, st.wantMode, st.wantTools)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != original {
		t.Fatalf("the round trip changed the file; lines %v differ", changedLines(t, original, string(data)))
	}
}

// TestAddRuleKeepsTheFile is the golden comparison: the rule is one inserted
// line (or, for an empty flow list, the [] goes), every other byte stays.
func TestAddRuleKeepsTheFile(t *testing.T) {
	notes := Rule{Effect: RuleAllow, Tool: "write_file", Path: "notes"}
	secrets := Rule{Effect: RuleDeny, Tool: "read_file", Path: "./secrets/"}
	goDev := Rule{Effect: RuleAllow, Tool: "read_webpage", Host: "GO.dev", Line: 99}
	for _, tt := range []struct {
		name, file string
		add        []Rule
		want       string
	}{
		{
			name: "block list with comments",
			file: "# top\nsafety:\n  preset: moderate   # keep me\n  rules:\n    - {deny: read_file, path: \"secrets/\"}   # never\n    - allow: write_file\n      path: notes/\n  # the end of safety\n\ntools:\n  workspace: ./w   # w\n",
			add:  []Rule{goDev},
			want: "# top\nsafety:\n  preset: moderate   # keep me\n  rules:\n    - {deny: read_file, path: \"secrets/\"}   # never\n    - allow: write_file\n      path: notes/\n    - {allow: read_webpage, host: \"go.dev\"}\n  # the end of safety\n\ntools:\n  workspace: ./w   # w\n",
		},
		{
			name: "list at the key's indentation",
			file: "safety:\n  rules:\n  - {allow: web_search}\nllm:\n  model: m\n",
			add:  []Rule{notes},
			want: "safety:\n  rules:\n  - {allow: web_search}\n  - {allow: write_file, path: \"notes/\"}\nllm:\n  model: m\n",
		},
		{
			name: "empty flow list",
			file: "safety:\n  preset: minimal\n  rules: []   # none yet\nllm:\n  model: m\n",
			add:  []Rule{notes, secrets},
			want: "safety:\n  preset: minimal\n  rules:   # none yet\n    - {allow: write_file, path: \"notes/\"}\n    - {deny: read_file, path: \"secrets/\"}\nllm:\n  model: m\n",
		},
		{
			name: "flow list with items",
			file: "safety:\n  rules: [{allow: web_search}, {ask: read_file, path: 'a/'}]  # c\n",
			add:  []Rule{secrets},
			want: "safety:\n  rules: [{allow: web_search}, {ask: read_file, path: 'a/'}, {deny: read_file, path: \"secrets/\"}]  # c\n",
		},
		{
			name: "flow list with a trailing comma",
			file: "safety:\n  rules: [{allow: web_search},\n  ]\n",
			add:  []Rule{secrets},
			want: "safety:\n  rules: [{allow: web_search}, {deny: read_file, path: \"secrets/\"}\n  ]\n",
		},
		{
			name: "flow list closed on its own line",
			file: "safety:\n  rules: [{allow: web_search}, {ask: read_file, path: 'a/'}   # two\n  ]\n",
			add:  []Rule{secrets},
			want: "safety:\n  rules: [{allow: web_search}, {ask: read_file, path: 'a/'}, {deny: read_file, path: \"secrets/\"}   # two\n  ]\n",
		},
		{
			name: "no rules key",
			file: "safety:\n  preset: minimal  # p\n  tools_requiring_approval:\n    - write_file\n# about llm\nllm:\n  model: m\n",
			add:  []Rule{notes},
			want: "safety:\n  preset: minimal  # p\n  tools_requiring_approval:\n    - write_file\n  rules:\n    - {allow: write_file, path: \"notes/\"}\n# about llm\nllm:\n  model: m\n",
		},
		{
			name: "rules key without a value",
			file: "safety:\n  rules:   # mine\n  preset: strict\n",
			add:  []Rule{notes},
			want: "safety:\n  rules:   # mine\n    - {allow: write_file, path: \"notes/\"}\n  preset: strict\n",
		},
		{
			name: "safety without a value",
			file: "safety:\n# to do\nllm:\n  model: m\n",
			add:  []Rule{notes},
			want: "safety:\n  rules:\n    - {allow: write_file, path: \"notes/\"}\n# to do\nllm:\n  model: m\n",
		},
		{
			name: "no safety section",
			file: "# only llm\nllm:\n  model: m  # mine\n",
			add:  []Rule{notes},
			want: "# only llm\nllm:\n  model: m  # mine\nsafety:\n  rules:\n    - {allow: write_file, path: \"notes/\"}\n",
		},
		{
			name: "no final line break",
			file: "llm:\n  model: m",
			add:  []Rule{notes},
			want: "llm:\n  model: m\nsafety:\n  rules:\n    - {allow: write_file, path: \"notes/\"}\n",
		},
		{
			name: "empty file",
			file: "",
			add:  []Rule{notes},
			want: "safety:\n  rules:\n    - {allow: write_file, path: \"notes/\"}\n",
		},
		{
			name: "CRLF line ends",
			file: "safety:\r\n  preset: moderate\r\n",
			add:  []Rule{notes},
			want: "safety:\r\n  preset: moderate\r\n  rules:\r\n    - {allow: write_file, path: \"notes/\"}\r\n",
		},
		{
			name: "every tool of an MCP server",
			file: "mcp:\n  servers:\n    - {name: files, command: [x]}\nsafety:\n  rules: []\n",
			add:  []Rule{{Effect: RuleAsk, Tool: "files__*"}},
			want: "mcp:\n  servers:\n    - {name: files, command: [x]}\nsafety:\n  rules:\n    - {ask: \"files__*\"}\n",
		},
		{
			name: "a rule already there is not added twice",
			file: "safety:\n  rules:\n    - allow: write_file\n      path: ./notes\n",
			add:  []Rule{notes, {Effect: RuleAllow, Tool: "write_file", Path: "notes/"}},
			want: "safety:\n  rules:\n    - allow: write_file\n      path: ./notes\n",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			path := writeFile(t, t.TempDir(), "config.yaml", tt.file)
			if err := os.Chmod(path, 0o640); err != nil {
				t.Fatal(err)
			}
			for _, r := range tt.add {
				if err := AddRule(path, r); err != nil {
					t.Fatal(err)
				}
			}
			data, _ := os.ReadFile(path)
			if string(data) != tt.want {
				t.Fatalf("file\n%q\nwant\n%q", data, tt.want)
			}
			if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o640 {
				t.Errorf("mode %v, %v; want 0640", info.Mode().Perm(), err)
			}
			if _, err := Load(path); err != nil {
				t.Fatalf("the result does not load: %v", err)
			}
		})
	}
}

// TestAddRuleOnRepoConfig adds rules to the documented config.yaml: its
// rules: [] becomes a list, nothing else changes, adding a rule again changes
// nothing, and the rules load in order.
func TestAddRuleOnRepoConfig(t *testing.T) {
	clearEnv(t)
	path, before := copyRepoConfig(t, 0o644)
	rules := []Rule{
		{Effect: RuleAllow, Tool: "write_file", Path: "notes/"},
		{Effect: RuleDeny, Tool: "read_file", Path: "secrets"},
		{Effect: RuleAllow, Tool: "read_webpage", Host: "*.Go.Dev"},
		{Effect: RuleAllow, Tool: "write_file", Path: "./notes"}, // the first again
	}
	for _, r := range rules {
		if err := AddRule(path, r); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(path)
	want := strings.Replace(before, "\n  rules: []\n", "\n  rules:\n"+
		"    - {allow: write_file, path: \"notes/\"}\n"+
		"    - {deny: read_file, path: \"secrets/\"}\n"+
		"    - {allow: read_webpage, host: \"*.go.dev\"}\n", 1)
	if want == before {
		t.Fatal("config.yaml has no line \"  rules: []\"")
	}
	if string(data) != want {
		t.Fatalf("file changed elsewhere:\n%s", data)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range c.Safety.Rules {
		got = append(got, r.String())
	}
	if w := []string{"allow write_file in notes/", "deny read_file in secrets/", "allow read_webpage on *.go.dev"}; !slices.Equal(got, w) {
		t.Fatalf("rules %v, want %v", got, w)
	}
}

// TestAddRuleReflow: a layout that cannot be spliced (a flow-style safety
// mapping, an alias) is re-encoded, keeping the rest.
func TestAddRuleReflow(t *testing.T) {
	for _, file := range []string{
		"safety: {preset: moderate}  # flow\nllm:\n  model: m # the model\n",
		"safety:\n  rules: ~\n  preset: moderate\nllm:\n  model: m # the model\n",
		"safety: ~\nllm:\n  model: m # the model\n",
		"safety: &s\n  preset: moderate\nllm:\n  model: m # the model\n",
	} {
		clearEnv(t)
		path := writeFile(t, t.TempDir(), "config.yaml", file)
		if err := AddRule(path, Rule{Effect: RuleAllow, Tool: "write_file", Path: "notes"}); err != nil {
			t.Fatalf("%q: %v", file, err)
		}
		c, err := Load(path)
		if err != nil {
			t.Fatalf("%q: %v", file, err)
		}
		last := c.Safety.Rules[len(c.Safety.Rules)-1]
		if last.String() != "allow write_file in notes/" || c.LLM.Model != "m" {
			t.Errorf("%q: rules %+v, model %q", file, c.Safety.Rules, c.LLM.Model)
		}
		if data, _ := os.ReadFile(path); !strings.Contains(string(data), "# the model") {
			t.Errorf("%q: a comment was lost:\n%s", file, data)
		}
	}
}

func TestAddRuleRefuses(t *testing.T) {
	for _, tt := range []struct {
		name, file string
		rule       Rule
		wantText   string
	}{
		{"unknown effect", "safety:\n  preset: strict\n", Rule{Effect: "permit", Tool: "write_file"}, `safety.rules: "permit" is not the effect of a rule (use allow, ask or deny)`},
		{"absolute path", "safety:\n  preset: strict\n", Rule{Effect: RuleAllow, Tool: "write_file", Path: "/etc"}, `safety.rules: "/etc" is not relative to the workspace`},
		{"glob", "safety:\n  preset: strict\n", Rule{Effect: RuleAllow, Tool: "write_file", Path: "notes/*"}, "paths are folders matched literally"},
		{"host for a file tool", "safety:\n  preset: strict\n", Rule{Effect: RuleAllow, Tool: "write_file", Host: "go.dev"}, "host limits only read_webpage"},
		{"server not configured", "mcp:\n  servers:\n    - {name: files, command: [x]}\n", Rule{Effect: RuleAllow, Tool: "slack__post"}, `safety.rules: "slack__post" names MCP server slack, which is not in mcp.servers (it has files)`},
		{"file already broken", "safety:\n  preset: strict\nllm:\n  modle: x\n", Rule{Effect: RuleAllow, Tool: "write_file"}, "llm.modle: unknown key (llm takes base_url, model, api_key_env, timeout, max_tool_rounds, max_tool_calls_per_round, context_chars) (fix this first; the rule was not added)"},
		{"a rule in the file is bad", "safety:\n  rules:\n    - {allow: nope}\n", Rule{Effect: RuleAllow, Tool: "write_file"}, ":3: safety.rules[0]: \"nope\" is not a tool name"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			path := writeFile(t, t.TempDir(), "config.yaml", tt.file)
			err := AddRule(path, tt.rule)
			var ce *Error
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.wantText) {
				t.Fatalf("AddRule = %v, want *Error holding %q", err, tt.wantText)
			}
			if data, _ := os.ReadFile(path); string(data) != tt.file {
				t.Fatalf("file changed to %q", data)
			}
		})
	}
	clearEnv(t)
	if err := AddRule("", Rule{Effect: RuleAllow, Tool: "web_search"}); err == nil || !strings.Contains(err.Error(), "--config") {
		t.Errorf("AddRule(\"\") = %v, want an *Error pointing at --config", err)
	}
	if err := AddRule(filepath.Join(t.TempDir(), "nope.yaml"), Rule{Effect: RuleAllow, Tool: "web_search"}); err == nil || !strings.Contains(err.Error(), "cannot be read") {
		t.Errorf("AddRule(missing file) = %v", err)
	}
}

// TestAddRuleLocked: while an AILAB_SAFETY_* variable is set the file is not
// what is in force, so AddRule refuses with ErrLocked and names the variable.
func TestAddRuleLocked(t *testing.T) {
	clearEnv(t)
	if got := SafetyLockedBy(); got != "" {
		t.Fatalf("SafetyLockedBy() = %q with nothing set", got)
	}
	const file = "safety:\n  preset: moderate\n"
	for _, tt := range []struct{ env, value string }{
		{"AILAB_SAFETY_PRESET", "minimal"},
		{"AILAB_SAFETY_APPROVAL_MODE", "false"},
		{"AILAB_SAFETY_TOOLS_REQUIRING_APPROVAL", "write_file"},
		{"AILAB_SAFETY_RULES", `[{"allow": "web_search"}]`},
	} {
		t.Run(tt.env, func(t *testing.T) {
			clearEnv(t)
			path := writeFile(t, t.TempDir(), "config.yaml", file)
			t.Setenv(tt.env, tt.value)
			if got := SafetyLockedBy(); got != tt.env {
				t.Errorf("SafetyLockedBy() = %q, want %q", got, tt.env)
			}
			err := AddRule(path, Rule{Effect: RuleAllow, Tool: "write_file", Path: "notes/"})
			if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), tt.env) {
				t.Fatalf("AddRule = %v, want ErrLocked naming %s", err, tt.env)
			}
			if data, _ := os.ReadFile(path); string(data) != file {
				t.Fatalf("file changed to %q", data)
			}
		})
	}
	clearEnv(t)
	t.Setenv("AILAB_SAFETY_PRESET", "minimal")
	t.Setenv("AILAB_SAFETY_RULES", "[]")
	if got := SafetyLockedBy(); got != "AILAB_SAFETY_PRESET" {
		t.Errorf("SafetyLockedBy() = %q, want the first in key order", got)
	}
}

func TestAddRuleThroughSymlink(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	target := writeFile(t, dir, "real.yaml", "safety:\n  preset: strict\n")
	link := filepath.Join(dir, "config.yaml")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := AddRule(link, Rule{Effect: RuleAllow, Tool: "web_search"}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the symlink was replaced: %v", err)
	}
	if data, _ := os.ReadFile(target); string(data) != "safety:\n  preset: strict\n  rules:\n    - {allow: web_search}\n" {
		t.Fatalf("target = %q", data)
	}
}

// TestAddRuleConcurrently: rules saved at the same moment are all kept.
func TestAddRuleConcurrently(t *testing.T) {
	clearEnv(t)
	path := writeFile(t, t.TempDir(), "config.yaml", "safety:\n  preset: moderate\n")
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			if err := AddRule(path, Rule{Effect: RuleAllow, Tool: "write_file", Path: fmt.Sprintf("n%d", i)}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Safety.Rules) != 20 {
		t.Fatalf("%d of 20 rules kept", len(c.Safety.Rules))
	}
}
