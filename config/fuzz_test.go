package config

import (
	"errors"
	"os"
	"path"
	"reflect"
	"strings"
	"testing"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/visible"
	"github.com/ailab/ai-lab/websearch"
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

// FuzzRules feeds arbitrary text as the list under safety.rules: Load must
// never panic, must point a refused rule at a line of the file, and every
// rule it accepts must be canonical (a Path clean, relative, ending in "/" and
// free of pattern and invisible characters; a Host equal to its own
// CanonicalHost, a leading "*." aside) and read back the same from its YAML.
func FuzzRules(f *testing.F) {
	for _, s := range []string{
		"- {deny: read_file, path: \"secrets/\"}\n- {allow: write_file, path: \"notes/\"}\n- {allow: read_webpage, host: \"go.dev\"}\n- {ask: \"files__*\"}\n",
		"- allow: write_file\n  path: notes\n", "- {allow: list_directory, path: .}\n", "- {allow: copy_file, path: ./a/../b/./c//}\n",
		"- {allow: read_webpage, host: \"*.ＥＸＡＭＰＬＥ.org\"}\n", "- {allow: read_webpage, host: \"[::ffff:127.0.0.1]\"}\n",
		"- {allow: read_webpage, host: \"bücher.de.\"}\n", "- {allow: read_webpage, host: 0x7f.1}\n", "- {allow: read_webpage, host: \"xn--bcher-kva.de\"}\n",
		"- {allow: read_webpage, host: \"*.*.go.dev\"}\n", "- {allow: read_webpage, host: \"go.dev:80\"}\n", "- {allow: a__b__*}\n", "- {ask: a__b__tool}\n",
		"- {allow: write_file, path: \"a\\\\b\"}\n", "- {allow: write_file, path: \"../x\"}\n", "- {allow: write_file, path: \"x\\u200b\"}\n",
		"[{allow: web_search}]", "{allow: web_search}", "- write_file\n", "- {allow: [a]}\n", "- {allow: }\n", "- &a {allow: web_search}\n- *a\n",
		"- {allow: write_file, path: &p notes}\n- {deny: read_file, path: *p}\n", "- {? [a] : b}\n", "- {allow: write_file, path: !!binary bm90ZXM=}\n",
	} {
		f.Add(s)
	}
	const head = "mcp:\n  servers:\n    - {name: files, command: [x]}\n    - {name: a__b, command: [y]}\nsafety:\n  rules:\n"
	f.Fuzz(func(t *testing.T, rules string) {
		var b strings.Builder
		b.WriteString(head)
		for l := range strings.Lines(rules) {
			b.WriteString("    " + l)
		}
		c, err := load([]byte(b.String()), "fuzz.yaml", false)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("load returned %T %v, want *Error", err, err)
			}
			if strings.HasPrefix(ce.Key, "safety.rules") && (ce.Line == 0 || ce.Path != "fuzz.yaml") {
				t.Fatalf("a refused rule without its line: %v", err)
			}
			return
		}
		for _, r := range c.Safety.Rules {
			if r.Line <= 0 || r.Tool == "" || (r.Effect != RuleAllow && r.Effect != RuleAsk && r.Effect != RuleDeny) {
				t.Fatalf("accepted %+v", r)
			}
			if r.Path != "" && r.Host != "" {
				t.Fatalf("accepted both path and host: %+v", r)
			}
			if p := r.Path; p != "" {
				dir, ok := strings.CutSuffix(p, "/")
				if !ok || path.Clean(dir) != dir || path.IsAbs(dir) || dir == ".." || strings.HasPrefix(dir, "../") ||
					strings.ContainsAny(p, `*?[\`) || visible.In(p) {
					t.Fatalf("accepted the path %q", p)
				}
			}
			if h := r.Host; h != "" {
				bare := strings.TrimPrefix(h, "*.")
				if canon, err := websearch.CanonicalHost(bare); err != nil || canon != bare {
					t.Fatalf("accepted the host %q (canonical %q, %v)", h, canon, err)
				}
			}
			back, err := load([]byte(head+"    - "+r.YAML()+"\n"), "fuzz.yaml", false)
			if err != nil || len(back.Safety.Rules) != 1 || !sameRule(back.Safety.Rules[0], r) {
				t.Fatalf("%+v written as %s reads back as %+v, %v", r, r.YAML(), back, err)
			}
		}
		_ = c.Public()
	})
}

// FuzzAddRule adds a rule to arbitrary files: no panic, and a file AddRule
// writes loads with the rule last and every other setting as before.
func FuzzAddRule(f *testing.F) {
	if data, err := os.ReadFile(repoConfig); err == nil {
		f.Add(data, "allow", "write_file", "notes", "")
	}
	f.Add([]byte("safety:\n  rules: [{allow: web_search},\n  ]  # c\n"), "deny", "read_file", "secrets/", "")
	f.Add([]byte("safety:\n  rules:\n    - allow: web_search\n  preset: minimal\n"), "allow", "read_webpage", "", "*.GO.dev")
	f.Add([]byte("safety: {preset: moderate}\r\n"), "ask", "list_directory", ".", "")
	f.Fuzz(func(t *testing.T, data []byte, effect, tool, dir, host string) {
		file := t.TempDir() + "/config.yaml"
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		before, err := load(data, file, false)
		if err != nil {
			return
		}
		r := Rule{Effect: effect, Tool: tool, Path: dir, Host: host}
		if err := AddRule(file, r); err != nil {
			return
		}
		out, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		after, err := load(out, file, false)
		if err != nil {
			t.Fatalf("written file does not load: %v\n%s", err, out)
		}
		n := len(after.Safety.Rules)
		if n == 0 || after.Safety.Rules[n-1].Effect != effect || after.Safety.Rules[n-1].Tool != tool {
			t.Fatalf("rules after adding %+v: %+v\n%s", r, after.Safety.Rules, out)
		}
		if n != len(before.Safety.Rules) && n != len(before.Safety.Rules)+1 {
			t.Fatalf("%d rules became %d", len(before.Safety.Rules), n)
		}
		before.Safety.Rules, after.Safety.Rules = nil, nil
		if !reflect.DeepEqual(before, after) {
			t.Fatalf("adding a rule changed other settings:\n%s", out)
		}
	})
}
