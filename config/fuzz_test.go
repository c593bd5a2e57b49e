package config

import (
	"errors"
	"os"
	"testing"

	"github.com/ailab/ai-lab/api"
)

// FuzzLoad feeds arbitrary bytes as config.yaml: Load must never panic and must
// answer either a valid Config or an *Error.
func FuzzLoad(f *testing.F) {
	if data, err := os.ReadFile(repoConfig); err == nil {
		f.Add(data)
	}
	for _, s := range []string{
		"", "~", "[]", "- a", "llm:\n  modle: x\n", "llm: 5\n", "llm:\n  timeout: 120\n",
		"safety:\n  tools_requiring_approval: &a [x]\nweb:\n  allow_domains: *a\n",
		"web:\n  max_page_bytes: 99999999999999999999999\n", "server:\n  addr: !!binary aGk=\n",
		"a: &a [*a]\n", "<<: {llm: {model: x}}\n", "llm:\n  model: 1.5\n", "\xff\xfe",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := load(data, "fuzz.yaml", false)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("load returned %T %v, want *Error", err, err)
			}
			if c != nil {
				t.Fatal("load returned both a Config and an error")
			}
			return
		}
		if verr := validate(c); verr != nil {
			t.Fatalf("load accepted an invalid config: %v", verr)
		}
		_ = c.Public()
		_ = c.Preset()
	})
}

// FuzzWriteSafety rewrites arbitrary files: no panic, and whatever is written
// must load with the new preset.
func FuzzWriteSafety(f *testing.F) {
	if data, err := os.ReadFile(repoConfig); err == nil {
		f.Add(data, "moderate")
	}
	f.Add([]byte("safety:\n  preset: 'strict'\n  tools_requiring_approval: [read_file, ]\n"), "custom")
	f.Add([]byte("safety: &s\n  preset: strict\nllm: *s\n"), "minimal")
	f.Fuzz(func(t *testing.T, data []byte, preset string) {
		path := t.TempDir() + "/config.yaml"
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := WriteSafety(path, api.SafetyUpdate{Preset: preset}); err != nil {
			return
		}
		out, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		c, err := load(out, path, false)
		if err != nil {
			t.Fatalf("written file does not load: %v\n%s", err, out)
		}
		if c.Safety.Preset != preset {
			t.Fatalf("preset = %q, want %q\n%s", c.Safety.Preset, preset, out)
		}
	})
}
