package config

import (
	"errors"
	"os"
	"path/filepath"
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
	}{
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
			case <-time.After(time.Second):
				t.Fatal("no reload within a second")
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
