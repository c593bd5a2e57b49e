package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPresetCommand(t *testing.T) {
	const file = "# keep me\nsafety:\n  preset: strict   # the preset\nllm:\n  model: m\n"
	tests := []struct {
		name string
		// args may hold CONFIG, replaced by the temp file's path.
		args       []string
		envConfig  bool // point $AILAB_CONFIG at the file
		env        map[string]string
		inCwd      bool // put the file at ./config.yaml
		wantCode   int
		wantOut    string // substring of stdout
		wantErr    string // substring of stderr
		wantPreset string // preset in the file afterwards
	}{
		{name: "flag after name", args: []string{"moderate", "--config", "CONFIG"}, wantCode: exitOK, wantOut: "safety.preset is now moderate in CONFIG: write_file, delete_file, move_file, copy_file, create_directory wait for your approval", wantPreset: "moderate"},
		{name: "flag before name", args: []string{"--config=CONFIG", "minimal"}, wantCode: exitOK, wantOut: "safety.preset is now minimal in CONFIG: every tool runs without asking", wantPreset: "minimal"},
		{name: "found through AILAB_CONFIG", args: []string{"custom"}, envConfig: true, wantCode: exitOK, wantOut: "is now custom in CONFIG: approval follows safety.approval_mode and safety.tools_requiring_approval in the file", wantPreset: "custom"},
		// The file written is named by its full path, however it was found.
		{name: "found in the working directory", args: []string{"moderate"}, inCwd: true, wantCode: exitOK, wantOut: "safety.preset is now moderate in CONFIG: ", wantPreset: "moderate"},
		{name: "relative --config", args: []string{"moderate", "--config", "../elsewhere.yaml"}, wantCode: exitOK, wantOut: "safety.preset is now moderate in CONFIG: ", wantPreset: "moderate"},
		{name: "relative AILAB_CONFIG", args: []string{"minimal"}, env: map[string]string{"AILAB_CONFIG": "../elsewhere.yaml"}, wantCode: exitOK, wantOut: "safety.preset is now minimal in CONFIG: ", wantPreset: "minimal"},
		{name: "unknown preset", args: []string{"lax", "--config", "CONFIG"}, wantCode: exitUsage, wantErr: `safety.preset: "lax" is not a preset (use strict, moderate, minimal or custom)`, wantPreset: "strict"},
		{name: "no config file anywhere", args: []string{"moderate"}, wantCode: exitUsage, wantErr: "pass --config PATH or create ./config.yaml", wantPreset: "strict"},
		{name: "missing explicit file", args: []string{"moderate", "--config", "CONFIG.missing"}, wantCode: exitUsage, wantErr: "does not exist", wantPreset: "strict"},
		{name: "no name", args: []string{"--config", "CONFIG"}, wantCode: exitUsage, wantErr: "name exactly one preset", wantPreset: "strict"},
		{name: "two names", args: []string{"strict", "moderate", "--config", "CONFIG"}, wantCode: exitUsage, wantErr: "name exactly one preset", wantPreset: "strict"},
		{name: "env override is pointed out", args: []string{"moderate", "--config", "CONFIG"}, env: map[string]string{"AILAB_SAFETY_PRESET": "strict"}, wantCode: exitOK, wantOut: "is now moderate", wantErr: "note: AILAB_SAFETY_PRESET is set in this shell and overrides config.yaml", wantPreset: "moderate"},
		{name: "custom's own env settings are pointed out", args: []string{"custom", "--config", "CONFIG"}, env: map[string]string{"AILAB_SAFETY_TOOLS_REQUIRING_APPROVAL": "write_file"}, wantCode: exitOK, wantOut: "is now custom", wantErr: "AILAB_SAFETY_TOOLS_REQUIRING_APPROVAL is set", wantPreset: "custom"},
		{name: "unknown flag", args: []string{"moderate", "--confg", "CONFIG"}, wantCode: exitUsage, wantErr: "confg", wantPreset: "strict"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			cwd := filepath.Join(root, "cwd")
			if err := os.MkdirAll(cwd, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(root, "elsewhere.yaml")
			if tt.inCwd {
				path = filepath.Join(cwd, "config.yaml")
			}
			if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Chdir(cwd)
			t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "xdg"))
			t.Setenv("HOME", filepath.Join(root, "home"))
			t.Setenv("AILAB_CONFIG", "")
			for _, v := range []string{"AILAB_SAFETY_PRESET", "AILAB_SAFETY_APPROVAL_MODE", "AILAB_SAFETY_TOOLS_REQUIRING_APPROVAL"} {
				t.Setenv(v, tt.env[v])
			}
			if tt.envConfig {
				t.Setenv("AILAB_CONFIG", path)
			}
			if v, ok := tt.env["AILAB_CONFIG"]; ok {
				t.Setenv("AILAB_CONFIG", v)
			}
			args := make([]string, len(tt.args))
			for i, a := range tt.args {
				args[i] = strings.ReplaceAll(a, "CONFIG", path)
			}
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"preset"}, args...), strings.NewReader(""), &stdout, &stderr)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d (stdout %q, stderr %q)", code, tt.wantCode, stdout.String(), stderr.String())
			}
			if want := strings.ReplaceAll(tt.wantOut, "CONFIG", path); !strings.Contains(stdout.String(), want) {
				t.Errorf("stdout %q does not contain %q", stdout.String(), want)
			}
			if !strings.Contains(stderr.String(), tt.wantErr) {
				t.Errorf("stderr %q does not contain %q", stderr.String(), tt.wantErr)
			}
			for _, out := range []string{stdout.String(), stderr.String()} {
				if strings.Count(out, "\n") > 1 {
					t.Errorf("output is more than one line: %q", out)
				}
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Replace(file, "preset: strict", "preset: "+tt.wantPreset, 1)
			if string(data) != want {
				t.Errorf("file is\n%s\nwant\n%s", data, want)
			}
		})
	}
}
