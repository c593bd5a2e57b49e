package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
