package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
)

func TestWatch(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, path string)
		// wantPreset is the preset onChange must report; "" means onError must
		// report an *Error for wantKey instead.
		wantPreset string
		wantKey    string
		// link makes the watched path a symlink to a file in another directory.
		link bool
	}{
		{
			name: "editor save that renames the old file away and writes a new one",
			change: func(t *testing.T, path string) {
				if err := os.Rename(path, path+"~"); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte("safety:\n  preset: moderate\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			wantPreset: "moderate",
		},
		{
			name: "truncate, then write a moment later",
			change: func(t *testing.T, path string) {
				f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				time.Sleep(debounce / 3)
				if _, err := f.WriteString("safety:\n  preset: minimal\n"); err != nil {
					t.Fatal(err)
				}
			},
			wantPreset: "minimal",
		},
		{
			name: "symlinked config edited at its target",
			link: true,
			change: func(t *testing.T, path string) {
				target, err := filepath.EvalSymlinks(path)
				if err != nil {
					t.Fatal(err)
				}
				tmp := target + ".swp"
				if err := os.WriteFile(tmp, []byte("safety:\n  preset: moderate\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(tmp, target); err != nil {
					t.Fatal(err)
				}
			},
			wantPreset: "moderate",
		},
		{
			name: "symlinked config rewritten by WriteSafety",
			link: true,
			change: func(t *testing.T, path string) {
				if err := WriteSafety(path, api.SafetyUpdate{Preset: "minimal"}); err != nil {
					t.Fatal(err)
				}
			},
			wantPreset: "minimal",
		},
		{
			name: "edit in place",
			change: func(t *testing.T, path string) {
				if err := os.WriteFile(path, []byte("safety:\n  preset: moderate\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			wantPreset: "moderate",
		},
		{
			name: "atomic rename-replace",
			change: func(t *testing.T, path string) {
				tmp := filepath.Join(filepath.Dir(path), "config.yaml.new")
				if err := os.WriteFile(tmp, []byte("safety:\n  preset: minimal\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(tmp, path); err != nil {
					t.Fatal(err)
				}
			},
			wantPreset: "minimal",
		},
		{
			name: "WriteSafety",
			change: func(t *testing.T, path string) {
				if err := WriteSafety(path, api.SafetyUpdate{Preset: "custom"}); err != nil {
					t.Fatal(err)
				}
			},
			wantPreset: "custom",
		},
		{
			name: "invalid edit is reported",
			change: func(t *testing.T, path string) {
				if err := os.WriteFile(path, []byte("safety:\n  preset: strickt\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			wantKey: "safety.preset",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			path := writeFile(t, t.TempDir(), "config.yaml", "safety:\n  preset: strict\n")
			if tt.link {
				link := filepath.Join(t.TempDir(), "config.yaml")
				if err := os.Symlink(path, link); err != nil {
					t.Fatal(err)
				}
				path = link
			}
			changes := make(chan *Config, 10)
			errs := make(chan error, 10)
			stop, err := Watch(path, func(c *Config) { changes <- c }, func(err error) { errs <- err })
			if err != nil {
				t.Fatal(err)
			}
			defer stop()
			// An unrelated file in the same directory must not trigger anything.
			writeFile(t, filepath.Dir(path), "other.txt", "x")
			tt.change(t, path)

			select {
			case c := <-changes:
				if tt.wantPreset == "" {
					t.Fatalf("onChange(%q), want onError for %s", c.Safety.Preset, tt.wantKey)
				}
				if c.Safety.Preset != tt.wantPreset {
					t.Fatalf("onChange preset = %q, want %q", c.Safety.Preset, tt.wantPreset)
				}
			case err := <-errs:
				var ce *Error
				if tt.wantPreset != "" || !errors.As(err, &ce) || ce.Key != tt.wantKey {
					t.Fatalf("onError(%v), want preset %q or *Error for %q", err, tt.wantPreset, tt.wantKey)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("no reload within 5 s")
			}
			// One save is one reload: nothing else may follow.
			select {
			case c := <-changes:
				t.Fatalf("second onChange(%q) for one save", c.Safety.Preset)
			case err := <-errs:
				t.Fatalf("unexpected onError(%v)", err)
			case <-time.After(3 * debounce):
			}
		})
	}
}

// TestWatchRecoversFromABadEdit: a bad (or empty) save is reported once, and the
// next good save is applied, so fixing the file needs no restart either.
func TestWatchRecoversFromABadEdit(t *testing.T) {
	clearEnv(t)
	path := writeFile(t, t.TempDir(), "config.yaml", "safety:\n  preset: strict\n")
	changes := make(chan *Config, 10)
	errs := make(chan error, 10)
	stop, err := Watch(path, func(c *Config) { changes <- c }, func(err error) { errs <- err })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	for _, step := range []struct {
		content, wantPreset, wantErr string
	}{
		{"safety:\n  preset: moderate\nllm:\n  modle: x\n", "", "llm.modle: unknown key"},
		{"safety:\n  preset: moderate\n", "moderate", ""},
		// Emptied (a truncate whose write is slow to follow): reported, not applied.
		{"", "", "is empty; the last good config stays in force"},
		{"safety:\n  preset: minimal\n", "minimal", ""},
		{"# defaults, please\n", "strict", ""},
	} {
		if err := os.WriteFile(path, []byte(step.content), 0o644); err != nil {
			t.Fatal(err)
		}
		select {
		case c := <-changes:
			if c.Safety.Preset != step.wantPreset {
				t.Fatalf("after %q: onChange(%q), want preset %q / error %q", step.content, c.Safety.Preset, step.wantPreset, step.wantErr)
			}
		case err := <-errs:
			if step.wantErr == "" || !strings.Contains(err.Error(), step.wantErr) {
				t.Fatalf("after %q: onError(%v), want preset %q / error %q", step.content, err, step.wantPreset, step.wantErr)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no reload within 5 s after %q", step.content)
		}
	}
}

func TestWatchIgnoresUnchangedContentAndStops(t *testing.T) {
	clearEnv(t)
	content := []byte("safety:\n  preset: strict\n")
	path := writeFile(t, t.TempDir(), "config.yaml", string(content))
	calls := make(chan string, 10)
	stop, err := Watch(path, func(c *Config) { calls <- "change" }, func(err error) { calls <- err.Error() })
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-calls:
		t.Fatalf("callback %q for a save that changed nothing", c)
	case <-time.After(3 * debounce):
	}
	stop()
	stop() // a second stop is harmless
	if err := os.WriteFile(path, []byte("safety:\n  preset: minimal\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-calls:
		t.Fatalf("callback %q after stop", c)
	case <-time.After(3 * debounce):
	}
}

func TestWatchNeedsAPath(t *testing.T) {
	if _, err := Watch("", func(*Config) {}, func(error) {}); err == nil {
		t.Fatal("Watch(\"\") succeeded")
	}
}

// TestWatchRules: a live edit that adds a good rule is delivered; one with a
// bad rule is refused with the rule's line, and nothing replaces the config
// in force until the file is fixed.
func TestWatchRules(t *testing.T) {
	clearEnv(t)
	head := "safety:\n  preset: moderate\n  rules:\n    - {allow: web_search}\n"
	path := writeFile(t, t.TempDir(), "config.yaml", head)
	changes := make(chan *Config, 10)
	errs := make(chan error, 10)
	stop, err := Watch(path, func(c *Config) { changes <- c }, func(err error) { errs <- err })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	for _, step := range []struct {
		content   string
		wantRules []Rule // nil: onError must come instead
		wantErr   string
		wantLine  int
	}{
		{
			content:   head + "    - allow: write_file\n      path: notes\n",
			wantRules: []Rule{{Effect: RuleAllow, Tool: "web_search", Line: 4}, {Effect: RuleAllow, Tool: "write_file", Path: "notes/", Line: 5}},
		},
		{
			content: head + "    - allow: write_file\n      path: notes\n    - {deny: read_file, path: '/etc'}\n",
			wantErr: path + `:7: safety.rules[2]: "/etc" is not relative to the workspace`, wantLine: 7,
		},
		{
			content: head + "    - allow: write_file\n      path: notes/*\n",
			wantErr: path + `:6: safety.rules[1]: "notes/*" is not a folder`, wantLine: 6,
		},
		{
			content:   head + "    - {deny: read_file, path: secrets}\n",
			wantRules: []Rule{{Effect: RuleAllow, Tool: "web_search", Line: 4}, {Effect: RuleDeny, Tool: "read_file", Path: "secrets/", Line: 5}},
		},
	} {
		if err := os.WriteFile(path, []byte(step.content), 0o644); err != nil {
			t.Fatal(err)
		}
		select {
		case c := <-changes:
			if step.wantRules == nil {
				t.Fatalf("after %q: onChange(%+v), want the refusal %q", step.content, c.Safety.Rules, step.wantErr)
			}
			if !slices.Equal(c.Safety.Rules, step.wantRules) {
				t.Fatalf("after %q: rules %+v, want %+v", step.content, c.Safety.Rules, step.wantRules)
			}
		case err := <-errs:
			var ce *Error
			if step.wantRules != nil || !errors.As(err, &ce) || ce.Line != step.wantLine || !strings.HasPrefix(err.Error(), step.wantErr) {
				t.Fatalf("after %q: onError(%v), want %q", step.content, err, step.wantErr)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no reload within 5 s after %q", step.content)
		}
		// One save, one call: a refused edit is not followed by a config.
		select {
		case c := <-changes:
			t.Fatalf("after %q: a second onChange(%+v)", step.content, c.Safety.Rules)
		case err := <-errs:
			t.Fatalf("after %q: a second onError(%v)", step.content, err)
		case <-time.After(3 * debounce):
		}
	}
}
