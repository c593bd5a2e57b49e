package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ailab/ai-lab/tools"
)

// repoConfig is the documented config.yaml at the repository root.
const repoConfig = "../config.yaml"

// clearEnv blanks every variable Load reads so the developer's own environment
// cannot leak into a test; viper ignores empty values.
func clearEnv(t *testing.T) {
	t.Helper()
	for _, k := range keyTable {
		t.Setenv(k.envName(), "")
	}
	t.Setenv(EnvConfig, "")
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFindLookupOrder(t *testing.T) {
	tests := []struct {
		name     string
		explicit string // relative to the temp root; "" for none
		env      string // $AILAB_CONFIG relative to the temp root
		files    []string
		want     string // relative to the temp root; "" for none found
		wantErr  string
	}{
		{name: "nothing anywhere", want: ""},
		{name: "explicit wins over everything", explicit: "a.yaml", env: "b.yaml", files: []string{"a.yaml", "b.yaml", "cwd/config.yaml", "xdg/ai-lab/config.yaml"}, want: "a.yaml"},
		{name: "env wins over cwd and xdg", env: "b.yaml", files: []string{"b.yaml", "cwd/config.yaml", "xdg/ai-lab/config.yaml"}, want: "b.yaml"},
		{name: "cwd wins over xdg", files: []string{"cwd/config.yaml", "xdg/ai-lab/config.yaml"}, want: "cwd/config.yaml"},
		{name: "xdg last", files: []string{"xdg/ai-lab/config.yaml", "home/.config/ai-lab/config.yaml"}, want: "xdg/ai-lab/config.yaml"},
		{name: "missing explicit is an error", explicit: "nope.yaml", files: []string{"cwd/config.yaml"}, wantErr: "--config"},
		{name: "missing env file is an error", env: "nope.yaml", files: []string{"cwd/config.yaml"}, wantErr: "$AILAB_CONFIG"},
		{name: "explicit directory is an error", explicit: "cwd", wantErr: "is a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.MkdirAll(filepath.Join(root, "cwd"), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, f := range tt.files {
				writeFile(t, root, f, "")
			}
			t.Chdir(filepath.Join(root, "cwd"))
			t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "xdg"))
			t.Setenv("HOME", filepath.Join(root, "home"))
			t.Setenv(EnvConfig, "")
			if tt.env != "" {
				t.Setenv(EnvConfig, filepath.Join(root, tt.env))
			}
			explicit := ""
			if tt.explicit != "" {
				explicit = filepath.Join(root, tt.explicit)
			}
			got, err := Find(explicit)
			if tt.wantErr != "" {
				var ce *Error
				if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Find error = %v, want *Error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := ""
			if tt.want != "" {
				want = filepath.Join(root, tt.want)
			}
			if got != want {
				t.Fatalf("Find = %q, want %q", got, want)
			}
		})
	}
}

func TestFindFallsBackToHomeConfig(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	t.Setenv(EnvConfig, "")
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("HOME", root)
	want := writeFile(t, root, ".config/ai-lab/config.yaml", "")
	got, err := Find("")
	if err != nil || got != want {
		t.Fatalf("Find = %q, %v; want %q", got, err, want)
	}
}

func TestLoadWithoutFileIsDefault(t *testing.T) {
	clearEnv(t)
	got, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, Default()) {
		t.Fatalf("Load(\"\") = %+v, want Default() %+v", got, Default())
	}
}

func TestRepoConfigIsTheDefault(t *testing.T) {
	clearEnv(t)
	got, err := Load(repoConfig)
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.Path = repoConfig
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("config.yaml loads as\n%+v\nwant Default()\n%+v", got, want)
	}
	data, err := os.ReadFile(repoConfig)
	if err != nil {
		t.Fatal(err)
	}
	lines, cerr := checkTree(data)
	if cerr != nil {
		t.Fatal(cerr)
	}
	for section, keys := range Default().Public() {
		for name := range keys.(map[string]any) {
			if _, ok := lines[section+"."+name]; !ok {
				t.Errorf("config.yaml does not document %s.%s", section, name)
			}
		}
	}
	if len(lines) != len(keyTable) {
		t.Errorf("config.yaml has %d keys, Config has %d", len(lines), len(keyTable))
	}
}

func TestLoadEnvOverrides(t *testing.T) {
	file := "llm:\n  model: from-file\nsafety:\n  preset: minimal\n  tools_requiring_approval: [write_file]\n"
	tests := []struct {
		name  string
		env   map[string]string
		check func(c *Config) bool
	}{
		{"preset", map[string]string{"AILAB_SAFETY_PRESET": "moderate"}, func(c *Config) bool {
			return c.Safety.Preset == "moderate" && c.Preset().Name == "moderate"
		}},
		{"list from comma-separated env", map[string]string{"AILAB_WEB_ALLOW_DOMAINS": "a.com,b.org"}, func(c *Config) bool {
			return slices.Equal(c.Web.AllowDomains, []string{"a.com", "b.org"})
		}},
		{"int", map[string]string{"AILAB_LLM_MAX_TOOL_ROUNDS": "20"}, func(c *Config) bool { return c.LLM.MaxToolRounds == 20 }},
		{"duration", map[string]string{"AILAB_LLM_TIMEOUT": "30s"}, func(c *Config) bool { return c.LLM.Timeout == 30*time.Second }},
		{"bool", map[string]string{"AILAB_SANITIZE_ENABLED": "false"}, func(c *Config) bool { return !c.Sanitize.Enabled }},
		{"env beats file", map[string]string{"AILAB_LLM_MODEL": "from-env"}, func(c *Config) bool { return c.LLM.Model == "from-env" }},
		{"file beats default without env", nil, func(c *Config) bool { return c.LLM.Model == "from-file" && c.Safety.Preset == "minimal" }},
		{"list written like JSON", map[string]string{"AILAB_WEB_ALLOW_DOMAINS": `["a.com", 'b.org']`}, func(c *Config) bool {
			return slices.Equal(c.Web.AllowDomains, []string{"a.com", "b.org"})
		}},
		{"list written like YAML", map[string]string{"AILAB_WEB_BLOCK_DOMAINS": "[a.com, b.org]"}, func(c *Config) bool {
			return slices.Equal(c.Web.BlockDomains, []string{"a.com", "b.org"})
		}},
		{"[] empties a list the file fills", map[string]string{"AILAB_SAFETY_TOOLS_REQUIRING_APPROVAL": "[]"}, func(c *Config) bool {
			return c.Safety.ToolsRequiringApproval != nil && len(c.Safety.ToolsRequiringApproval) == 0
		}},
		{"client variables are not config keys", map[string]string{"AILAB_SERVER": "127.0.0.1:1", "AILAB_TOKEN": "t"}, func(c *Config) bool { return c.Server.Addr == "127.0.0.1:8080" }},
		{"endpoint", map[string]string{"AILAB_WEB_SEARCH_ENDPOINT": "http://127.0.0.1:9/html/"}, func(c *Config) bool {
			return c.Web.SearchEndpoint == "http://127.0.0.1:9/html/"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			c, err := Load(writeFile(t, t.TempDir(), "config.yaml", file))
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(c) {
				t.Fatalf("override not applied: %+v", c)
			}
		})
	}
}

// TestEveryKeyIsOverridable sets each key's env var to a valid non-default value
// and checks it reaches the Config; a key added without a test value fails here.
func TestEveryKeyIsOverridable(t *testing.T) {
	values := map[string]string{
		"server.addr": "0.0.0.0:9999", "server.auth_token": "tok", "server.state_dir": "/tmp/s", "server.steady_scheduler": "true",
		"llm.base_url": "https://example.test/v1", "llm.model": "m", "llm.api_key_env": "MY_KEY",
		"llm.timeout": "7s", "llm.max_tool_rounds": "3", "llm.max_tool_calls_per_round": "8", "llm.context_chars": "50000",
		"mcp.servers":   `[{"name": "files", "command": ["mcp-files", "/data"], "approval": "never"}]`,
		"safety.rules":  `[{"deny": "read_file", "path": "secrets/"}]`,
		"safety.preset": "custom", "safety.approval_mode": "false", "safety.tools_requiring_approval": "read_file,web_search",
		"tools.workspace":     "/tmp/w",
		"web.search_endpoint": "http://127.0.0.1:1/a", "web.search_lite_endpoint": "http://127.0.0.1:1/b",
		"web.region": "de-de", "web.safesearch": "off", "web.max_results": "9", "web.cache_ttl": "1m",
		"web.fetch_timeout": "3s", "web.max_page_bytes": "1000", "web.max_chars": "10",
		"web.allow_private_addresses": "true", "web.allow_domains": "a.com", "web.block_domains": "b.com",
		"web.search_interval": "2s",
		"sanitize.enabled":    "false", "sanitize.aggressive": "false", "sanitize.classifier": "false", "sanitize.datamark": "true",
		"tracking.window": "1m", "tracking.max_validation_retries": "5",
		"tracing.otlp_endpoint": "http://127.0.0.1:4318", "tracing.retention_age": "1h", "tracing.retention_count": "5",
		"undo.max_bytes": "1000", "undo.max_age": "1h", "undo.max_file_bytes": "100",
	}
	def := Default()
	for _, k := range keyTable {
		t.Run(k.path, func(t *testing.T) {
			clearEnv(t)
			v, ok := values[k.path]
			if !ok {
				t.Fatalf("add a test value for %s", k.path)
			}
			t.Setenv(k.envName(), v)
			c, err := Load("")
			if err != nil {
				t.Fatal(err)
			}
			if reflect.DeepEqual(k.get(c), k.get(def)) {
				t.Fatalf("%s=%s left %s at its default %v", k.envName(), v, k.path, k.get(def))
			}
		})
	}
}

// TestEveryKeyRefusesABadEnvValue sets each key's env var to a value of the wrong
// type or out of its limits and checks the refusal names both the variable and
// the key. Free-text keys, where any non-empty string is valid, are listed as such.
func TestEveryKeyRefusesABadEnvValue(t *testing.T) {
	anyText := map[string]bool{"server.auth_token": true, "server.state_dir": true, "llm.model": true, "tools.workspace": true, "web.region": true}
	bad := map[string]string{
		"server.addr": "8080", "server.steady_scheduler": "sometimes", "llm.base_url": "localhost:11434", "llm.api_key_env": "sk-123",
		"llm.timeout": "120", "llm.max_tool_rounds": "ten", "llm.max_tool_calls_per_round": "0", "llm.context_chars": "many",
		"mcp.servers":   `[{"name": "Files!", "command": ["x"]}]`,
		"safety.rules":  `deny read_file`,
		"safety.preset": "lax", "safety.approval_mode": "yes", "safety.tools_requiring_approval": "write_file,rm_rf",
		"web.search_endpoint": "duckduckgo.com", "web.search_lite_endpoint": "ftp://x/", "web.safesearch": "high",
		"web.max_results": "5.5", "web.cache_ttl": "15", "web.fetch_timeout": "0s", "web.max_page_bytes": "5MiB",
		"web.max_chars": "-1", "web.allow_private_addresses": "1.5", "web.allow_domains": "https://a.com",
		"web.block_domains": "a.com/path", "web.search_interval": "soon",
		"sanitize.enabled": "on", "sanitize.aggressive": "2", "sanitize.classifier": "maybe", "sanitize.datamark": "yes please",
		"tracking.window": "5", "tracking.max_validation_retries": "11",
		"tracing.otlp_endpoint": "collector:4318", "tracing.retention_age": "30d", "tracing.retention_count": "many",
		"undo.max_bytes": "256MiB", "undo.max_age": "7d", "undo.max_file_bytes": "0",
	}
	for _, k := range keyTable {
		t.Run(k.path, func(t *testing.T) {
			clearEnv(t)
			v, ok := bad[k.path]
			if !ok {
				if !anyText[k.path] {
					t.Fatalf("add a bad test value for %s", k.path)
				}
				return
			}
			t.Setenv(k.envName(), v)
			c, err := Load("")
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("%s=%s: Load = %+v, %v; want *Error", k.envName(), v, c, err)
			}
			msg := err.Error()
			if ce.Key != k.path || ce.Path != "env "+k.envName() {
				t.Errorf("%s=%s: Key %q Path %q, want %q and %q (%s)", k.envName(), v, ce.Key, ce.Path, k.path, "env "+k.envName(), msg)
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("message is not one line: %q", msg)
			}
		})
	}
}

// TestTextKeysKeepWhatIsWritten: YAML reads unquoted 0123 as the octal 83 and
// 1e5 as a float, but a text key such as server.auth_token must get exactly the
// characters in the file, or the client's copy of the token would not match.
func TestTextKeysKeepWhatIsWritten(t *testing.T) {
	for _, v := range []string{"0123", "0x1f", "1e5", "1_000", "0b101", "+12", "true", "12.50", "'quoted 0123'", `"007"`} {
		t.Run(v, func(t *testing.T) {
			clearEnv(t)
			c, err := Load(writeFile(t, t.TempDir(), "config.yaml", "server:\n  auth_token: "+v+"\nllm:\n  model: "+v+"\n"))
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Trim(v, `'"`)
			if c.Server.AuthToken != want || c.LLM.Model != want {
				t.Fatalf("auth_token %q, model %q; want %q as written", c.Server.AuthToken, c.LLM.Model, want)
			}
		})
	}
}

func TestLoadRefuses(t *testing.T) {
	tests := []struct {
		name     string
		yaml     string
		env      map[string]string
		wantKey  string
		wantLine int
		wantText string // substring of the message
	}{
		{name: "unknown key", yaml: "llm:\n  modle: x\n", wantKey: "llm.modle", wantLine: 2, wantText: "unknown key"},
		{name: "unknown section", yaml: "webb:\n  region: x\n", wantKey: "webb", wantLine: 1, wantText: "unknown section"},
		{name: "upper-case key is unknown", yaml: "LLM:\n  model: x\n", wantKey: "LLM", wantText: "unknown section"},
		{name: "duplicate key", yaml: "llm:\n  model: a\n  model: b\n", wantKey: "llm.model", wantLine: 3, wantText: "twice"},
		{name: "section not a mapping", yaml: "llm: 5\n", wantKey: "llm", wantText: "mapping"},
		{name: "leaf is a mapping", yaml: "llm:\n  model:\n    a: b\n", wantKey: "llm.model", wantText: "not a mapping"},
		{name: "not yaml", yaml: "llm: [\n", wantText: "not valid YAML"},
		{name: "tab indentation", yaml: "llm:\n\tmodel: x\n", wantLine: 2, wantText: ":2: is not valid YAML (found character that cannot start any token); indent with spaces, not tabs"},
		{name: "root is a list", yaml: "- a\n", wantText: "mapping of sections"},
		{name: "addr", yaml: "server:\n  addr: localhost\n", wantKey: "server.addr", wantLine: 2, wantText: `"localhost" is not host:port`},
		{name: "addr port", yaml: "server:\n  addr: 'h:99999'\n", wantKey: "server.addr", wantText: "host:port"},
		{name: "base url", yaml: "llm:\n  base_url: 127.0.0.1:11434\n", wantKey: "llm.base_url", wantText: "http(s) URL"},
		{name: "base url scheme", yaml: "llm:\n  base_url: ftp://x/v1\n", wantKey: "llm.base_url", wantText: "http(s) URL"},
		{name: "unparseable base url password stays out of the message", yaml: "llm:\n  base_url: 'http://me:pw-123@ho st/v1'\n", wantKey: "llm.base_url", wantText: `"http://me:***@ho st/v1" is not an http(s) URL`},
		{name: "base url password stays out of the message", yaml: "llm:\n  base_url: htps://me:pw-123@x/v1\n", wantKey: "llm.base_url", wantText: `"htps://me:***@x/v1" is not an http(s) URL`},
		{name: "empty model", yaml: "llm:\n  model: ''\n", wantKey: "llm.model", wantText: "is empty"},
		{name: "api key pasted", yaml: "llm:\n  api_key_env: sk-abc123\n", wantKey: "llm.api_key_env", wantText: "not the key itself"},
		{name: "timeout zero", yaml: "llm:\n  timeout: 0s\n", wantKey: "llm.timeout", wantText: "longer than 0"},
		{name: "timeout without unit", yaml: "llm:\n  timeout: 120\n", wantKey: "llm.timeout", wantText: "no unit"},
		{name: "timeout garbage", yaml: "llm:\n  timeout: soon\n", wantKey: "llm.timeout", wantText: "not a duration"},
		{name: "rounds zero", yaml: "llm:\n  max_tool_rounds: 0\n", wantKey: "llm.max_tool_rounds", wantText: "between 1 and 1000"},
		{name: "rounds too many", yaml: "llm:\n  max_tool_rounds: 1001\n", wantKey: "llm.max_tool_rounds", wantText: "between 1 and 1000"},
		{name: "calls per round zero", yaml: "llm:\n  max_tool_calls_per_round: 0\n", wantKey: "llm.max_tool_calls_per_round", wantText: "between 1 and 1000"},
		{name: "rounds wrong type", yaml: "llm:\n  max_tool_rounds: abc\n", wantKey: "llm.max_tool_rounds", wantText: `"abc" must be a whole number`},
		{name: "context too small", yaml: "llm:\n  context_chars: 100\n", wantKey: "llm.context_chars", wantText: "between 4000 and 100000000"},
		{name: "rounds fraction", yaml: "llm:\n  max_tool_rounds: 2.5\n", wantKey: "llm.max_tool_rounds", wantText: "whole number"},
		{name: "refusal quotes the value as written", yaml: "web:\n  max_results: 1.50\n", wantKey: "web.max_results", wantText: `web.max_results: "1.50" must be a whole number`},
		{name: "preset", yaml: "safety:\n  preset: strickt\n", wantKey: "safety.preset", wantLine: 2, wantText: `"strickt" is not a preset (use strict, moderate, minimal or custom)`},
		{name: "approval mode type", yaml: "safety:\n  approval_mode: maybe\n", wantKey: "safety.approval_mode", wantText: "true or false"},
		{name: "unknown tool", yaml: "safety:\n  tools_requiring_approval: [delete_file, rm_rf]\n", wantKey: "safety.tools_requiring_approval", wantText: `"rm_rf" is not a tool name`},
		{name: "tools not a list", yaml: "safety:\n  tools_requiring_approval: {a: b}\n", wantKey: "safety.tools_requiring_approval", wantText: "not a mapping"},
		{name: "empty workspace", yaml: "tools:\n  workspace: ''\n", wantKey: "tools.workspace", wantText: "is empty"},
		{name: "search endpoint", yaml: "web:\n  search_endpoint: duckduckgo.com\n", wantKey: "web.search_endpoint", wantText: "http(s) URL"},
		{name: "lite endpoint", yaml: "web:\n  search_lite_endpoint: 'http://'\n", wantKey: "web.search_lite_endpoint", wantText: "http(s) URL"},
		{name: "safesearch", yaml: "web:\n  safesearch: high\n", wantKey: "web.safesearch", wantText: "strict, moderate or off"},
		{name: "max results", yaml: "web:\n  max_results: 11\n", wantKey: "web.max_results", wantText: "between 1 and 10"},
		{name: "max page bytes", yaml: "web:\n  max_page_bytes: 0\n", wantKey: "web.max_page_bytes", wantText: "greater than 0"},
		{name: "max chars", yaml: "web:\n  max_chars: -1\n", wantKey: "web.max_chars", wantText: "greater than 0"},
		{name: "fetch timeout", yaml: "web:\n  fetch_timeout: 0s\n", wantKey: "web.fetch_timeout", wantText: "longer than 0"},
		{name: "cache ttl negative", yaml: "web:\n  cache_ttl: -1m\n", wantKey: "web.cache_ttl", wantText: "negative"},
		{name: "allow domain with scheme", yaml: "web:\n  allow_domains: [https://a.com]\n", wantKey: "web.allow_domains", wantText: "bare domain"},
		{name: "tracking window", yaml: "tracking:\n  window: 0s\n", wantKey: "tracking.window", wantText: "longer than 0"},
		{name: "validation retries", yaml: "tracking:\n  max_validation_retries: 11\n", wantKey: "tracking.max_validation_retries", wantText: "between 0 and 10"},
		{name: "otlp endpoint", yaml: "tracing:\n  otlp_endpoint: collector:4318\n", wantKey: "tracing.otlp_endpoint", wantText: "http(s) URL"},
		{name: "retention count", yaml: "tracing:\n  retention_count: 0\n", wantKey: "tracing.retention_count", wantText: "greater than 0"},
		{name: "bad env value names the variable", env: map[string]string{"AILAB_LLM_MAX_TOOL_ROUNDS": "abc"}, wantKey: "llm.max_tool_rounds", wantText: "env AILAB_LLM_MAX_TOOL_ROUNDS: llm.max_tool_rounds: \"abc\""},
		{name: "bad env preset", env: map[string]string{"AILAB_SAFETY_PRESET": "lax"}, wantKey: "safety.preset", wantText: "env AILAB_SAFETY_PRESET"},
		{name: "env duration without unit", env: map[string]string{"AILAB_LLM_TIMEOUT": "120"}, wantKey: "llm.timeout", wantText: `env AILAB_LLM_TIMEOUT: llm.timeout: "120" has no unit`},
		{name: "misspelt env key", env: map[string]string{"AILAB_LLM_MODLE": "x"}, wantKey: "AILAB_LLM_MODLE", wantText: "env: AILAB_LLM_MODLE: names no config key (the llm keys are AILAB_LLM_BASE_URL, AILAB_LLM_MODEL,"},
		{name: "env key of a section that has no such key", env: map[string]string{"AILAB_TRACKING_WINDOW_SIZE": "5m"}, wantKey: "AILAB_TRACKING_WINDOW_SIZE", wantText: "fix the name or unset it"},
		{name: "bad env tool", env: map[string]string{"AILAB_SAFETY_TOOLS_REQUIRING_APPROVAL": "write_file,nuke"}, wantKey: "safety.tools_requiring_approval", wantText: `"nuke"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			path := writeFile(t, t.TempDir(), "config.yaml", tt.yaml)
			c, err := Load(path)
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("Load = %+v, %v; want *Error", c, err)
			}
			msg := err.Error()
			if ce.Key != tt.wantKey {
				t.Errorf("Key = %q, want %q (%s)", ce.Key, tt.wantKey, msg)
			}
			if tt.wantLine != 0 && ce.Line != tt.wantLine {
				t.Errorf("Line = %d, want %d (%s)", ce.Line, tt.wantLine, msg)
			}
			if !strings.Contains(msg, tt.wantText) {
				t.Errorf("message %q does not contain %q", msg, tt.wantText)
			}
			if tt.wantKey != "" && !strings.Contains(msg, tt.wantKey) {
				t.Errorf("message %q does not name the key %q", msg, tt.wantKey)
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("message is not one line: %q", msg)
			}
			if strings.Contains(msg, "sk-abc123") || strings.Contains(msg, "pw-123") {
				t.Errorf("message leaks the pasted key: %q", msg)
			}
		})
	}
}

func TestErrorMessage(t *testing.T) {
	e := &Error{Key: "safety.preset", Value: "strickt", Reason: "is not a preset (use strict, moderate, minimal or custom)", Path: "config.yaml"}
	want := `config.yaml: safety.preset: "strickt" is not a preset (use strict, moderate, minimal or custom)`
	if e.Error() != want {
		t.Fatalf("Error() = %q, want %q", e.Error(), want)
	}
}

func TestPreset(t *testing.T) {
	tests := []struct {
		name     string
		safety   SafetyConfig
		wantMode bool
		want     []string
	}{
		{"strict", SafetyConfig{Preset: "strict", ApprovalMode: false}, true, tools.Presets["strict"].RequiresApproval},
		{"moderate", SafetyConfig{Preset: "moderate"}, true, tools.Presets["moderate"].RequiresApproval},
		{"minimal ignores the custom keys", SafetyConfig{Preset: "minimal", ApprovalMode: true, ToolsRequiringApproval: []string{"write_file"}}, false, []string{}},
		{"custom", SafetyConfig{Preset: "custom", ApprovalMode: true, ToolsRequiringApproval: []string{"web_search"}}, true, []string{"web_search"}},
		{"custom off", SafetyConfig{Preset: "custom", ApprovalMode: false}, false, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			c.Safety = tt.safety
			p := c.Preset()
			if p.Name != tt.safety.Preset || p.ApprovalMode != tt.wantMode || !slices.Equal(p.RequiresApproval, tt.want) {
				t.Fatalf("Preset() = %+v, want %s/%v/%v", p, tt.safety.Preset, tt.wantMode, tt.want)
			}
			if len(p.RequiresApproval) > 0 {
				p.RequiresApproval[0] = "changed"
				if c.Preset().RequiresApproval[0] == "changed" {
					t.Fatal("Preset() shares its slice with the preset table or the config")
				}
			}
		})
	}
}

func TestStateDir(t *testing.T) {
	tests := []struct {
		name, stateDir, xdg, home, want string
	}{
		{"configured", "/srv/ai", "/x", "/h", "/srv/ai"},
		{"xdg", "", "/x", "/h", "/x/ai-lab"},
		{"home", "", "", "/h", "/h/.local/state/ai-lab"},
		{"tilde", "~/ai", "/x", "/h", "/h/ai"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("XDG_STATE_HOME", tt.xdg)
			t.Setenv("HOME", tt.home)
			c := Default()
			c.Server.StateDir = tt.stateDir
			if got := c.StateDir(); got != tt.want {
				t.Fatalf("StateDir() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPublicHidesSecretsAndResolvesSafety(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-very-secret")
	c := Default()
	c.Server.AuthToken = "hunter2-token"
	c.LLM.BaseURL = "https://me:url-password@llm.example/v1"
	c.Tracing.OTLPEndpoint = "http://collector:otlp-password@127.0.0.1:4318"
	c.Safety = SafetyConfig{Preset: "moderate", ApprovalMode: false, ToolsRequiringApproval: []string{"read_file"}}
	pub := c.Public()
	raw, err := json.Marshal(pub)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"hunter2-token", "sk-very-secret", "url-password", "otlp-password"} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("Public() leaks %q: %s", secret, raw)
		}
	}
	server := pub["server"].(map[string]any)
	if server["auth_token"] != "***" {
		t.Errorf("auth_token = %v, want ***", server["auth_token"])
	}
	if got := pub["llm"].(map[string]any)["base_url"]; got != "https://me:***@llm.example/v1" {
		t.Errorf("base_url = %v, want the password redacted and the rest kept", got)
	}
	if pub["llm"].(map[string]any)["api_key_env"] != "OPENAI_API_KEY" {
		t.Errorf("api_key_env missing: %v", pub["llm"])
	}
	safety := pub["safety"].(map[string]any)
	if safety["preset"] != "moderate" || safety["approval_mode"] != true ||
		!slices.Equal(safety["tools_requiring_approval"].([]string), tools.Presets["moderate"].RequiresApproval) {
		t.Errorf("safety not resolved from the preset: %v", safety)
	}
	if pub["llm"].(map[string]any)["timeout"] != "2m0s" {
		t.Errorf("timeout = %v, want a duration string", pub["llm"].(map[string]any)["timeout"])
	}

	c.Server.AuthToken = ""
	if got := c.Public()["server"].(map[string]any)["auth_token"]; got != "" {
		t.Errorf("unset auth_token = %v, want empty", got)
	}
}

func BenchmarkLoadRepoConfig(b *testing.B) {
	data, err := os.ReadFile(repoConfig)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := load(data, repoConfig, false); err != nil {
			b.Fatal(err)
		}
	}
}

func TestRestartRequiredNamesOnlyKeysThatWait(t *testing.T) {
	running := Default()
	next := Default()
	next.LLM.Model = "other"
	next.Server.AuthToken = "new-token"
	next.Safety.Preset = "minimal"
	if got := RestartRequired(running, next); len(got) != 0 {
		t.Errorf("live keys listed as waiting for a restart: %v", got)
	}
	next.Server.Addr = "127.0.0.1:9999"
	next.Tracing.OTLPEndpoint = "http://127.0.0.1:4318"
	if got := RestartRequired(running, next); !slices.Equal(got, []string{"server.addr", "tracing.otlp_endpoint"}) {
		t.Errorf("RestartRequired = %v", got)
	}
}

// TestErrorLineInConfigYAML breaks the documented config.yaml in one place and
// checks the refusal names that line, as an editor would count it: yaml.v3's own
// line numbers are 0-based for parser errors, missing for the first line, and
// name the start of a block (line 18, "server:") for a break deep inside it.
func TestErrorLineInConfigYAML(t *testing.T) {
	orig, err := os.ReadFile(repoConfig)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		line     int    // replace this 1-based line...
		find     string // ...or the first line that starts with this
		with     string // the replacement, maybe several lines
		wantAt   int    // the line the error names, counted from the replaced one
		wantText string
	}{
		{name: "line 1 opens a list it never closes", line: 1, with: "server: [oops", wantText: "not valid YAML (did not find expected ',' or ']')"},
		{name: "line 2 opens a list it never closes", line: 2, with: "llm: [qwen", wantText: "not valid YAML (did not find expected ',' or ']')"},
		{name: "tab on line 2", line: 2, with: "\tllm: x", wantText: "indent with spaces, not tabs"},
		{name: "mapping on line 1 broken on line 2", line: 1, with: "server:\n  addr: x\n bad: y", wantAt: 2, wantText: "not valid YAML (did not find expected key)"},
		{name: "indentation deep in a section", find: "  max_results:", with: " max_results: 5", wantText: "not valid YAML (did not find expected key)"},
		{name: "list item where a key belongs", find: "  max_chars:", with: "  - 3000", wantText: "not valid YAML (did not find expected key)"},
		// The quote runs on to the next one, two lines down, where yaml.v3 stops.
		{name: "unclosed quote after comments", find: "  base_url:", with: `  base_url: "http://127.0.0.1:11434/v1`, wantText: "not valid YAML (found unexpected end of stream); close the quote that opens on this line"},
		{name: "unclosed quote at the end", find: "  retention_count:", with: `  retention_count: "5`, wantText: "not valid YAML (found unexpected end of stream); close the quote that opens on this line"},
		{name: "unclosed list deep in a section", find: "  allow_domains:", with: "  allow_domains: [a.com", wantText: "not valid YAML (did not find expected ',' or ']')"},
		{name: "two colons", find: "  region:", with: "  region: wt: wt", wantText: "not valid YAML (mapping values are not allowed in this context)"},
		{name: "unknown alias", find: "  region:", with: "  region: *nope", wantText: "not valid YAML (unknown anchor 'nope' referenced)"},
		{name: "bad UTF-8", find: "  safesearch:", with: "  safesearch: \xff", wantText: "not valid YAML (invalid leading UTF-8 octet)"},
		{name: "unknown key after comments", find: "  model:", with: "  modle: x", wantText: "llm.modle: unknown key"},
		{name: "bad rule on its own line", find: "  rules:", with: "  rules:\n    - {allow: web_search}\n    # a comment\n    - {allow: write_file, path: /etc}", wantAt: 3, wantText: `safety.rules[1]: "/etc" is not relative to the workspace`},
		{name: "bad list item on its own line", find: "  tools_requiring_approval:", with: "  tools_requiring_approval:\n    - delete_file\n    # not a tool\n    - rm_rf", wantAt: 3, wantText: `"rm_rf" is not a tool name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			lines := strings.Split(string(orig), "\n")
			at := tt.line
			for i, l := range lines {
				if at == 0 && tt.find != "" && strings.HasPrefix(l, tt.find) {
					at = i + 1
				}
			}
			if at == 0 {
				t.Fatalf("config.yaml has no line starting with %q", tt.find)
			}
			lines[at-1] = tt.with
			path := writeFile(t, t.TempDir(), "config.yaml", strings.Join(lines, "\n"))
			_, err := Load(path)
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("Load = %v, want *Error", err)
			}
			if want := at + tt.wantAt; ce.Line != want {
				t.Errorf("Line = %d, want %d: %v", ce.Line, want, err)
			}
			if want := fmt.Sprintf("%s:%d: ", path, at+tt.wantAt); !strings.HasPrefix(err.Error(), want) {
				t.Errorf("message %q does not start with %q", err, want)
			}
			if !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("message %q does not contain %q", err, tt.wantText)
			}
			if regexp.MustCompile(`line \d`).MatchString(err.Error()) {
				t.Errorf("message %q still quotes yaml.v3's own line number", err)
			}
		})
	}
}

// TestSyntaxErrorLine pins the line of each kind of yaml.v3 failure in short
// files: parser and scanner problems, with and without a context on line 1,
// problems found at the end of the input, and those yaml.v3 gives no mark.
func TestSyntaxErrorLine(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want int
	}{
		{"flow list open on line 2", "server:\n  addr: [x\nllm:\n  model: y\n", 2},
		{"flow list open on line 1, end of input", "server: [x\n", 1},
		{"flow mapping open on line 1", "server: {addr: x\n", 1},
		{"block mapping broken on line 3", "server:\n  addr: x\n bad: y\n", 3},
		{"list item in a mapping", "server:\n  addr: x\n- y\n", 3},
		{"mapping in a list", "- a\nb: c\n", 2},
		{"quote open on line 2", "server:\n  addr: \"x\nllm:\n  model: y\n", 2},
		{"quote open on line 1", "server: \"x\nllm:\n  model: y\n", 1},
		{"single quote at the end", "server:\n  addr: 'x\n", 2},
		{"tab", "server:\n\taddr: x\n", 2},
		{"two colons on line 1", "a: b: c\n", 1},
		{"over-indented continuation after comments", "# c\n# c\nserver:\n  addr: x\n   foo: y\n", 5},
		{"key without colon at the end", "server:\n  addr: x\nllm\n", 3},
		{"reserved character", "server:\n  addr: x\n  @foo: y\n", 3},
		{"duplicate directive", "%YAML 1.1\n%YAML 1.1\n---\na: b\n", 2},
		{"unknown alias", "llm:\n  model: x\n  api_key_env: *nope\n", 3},
		{"invalid UTF-8", "server:\n  addr: x\n  state_dir: \xff\n", 3},
		{"control character", "server:\n  addr: x\n  state_dir: \x01\n", 3},
		{"byte order mark", "\ufeffserver:\n  addr: [x\n", 2},
		{"no final newline", "server:\n  addr: [x", 2},
		{"CRLF line ends", "server:\r\n  addr: x\r\n bad: y\r\n", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, cerr := checkTree([]byte(tt.yaml))
			if cerr == nil {
				t.Fatalf("%q parsed", tt.yaml)
			}
			if cerr.Line != tt.want {
				t.Errorf("Line = %d, want %d (%s)", cerr.Line, tt.want, cerr.Reason)
			}
		})
	}
}

// TestSyntaxErrorInALongFile: the line is found in a file of any length, in
// a few parses rather than one per line.
func TestSyntaxErrorInALongFile(t *testing.T) {
	filler := strings.Repeat("  # filler\n", 20_000)
	for _, tt := range []struct {
		name, yaml string
		want       int
	}{
		{"block broken in the middle", "server:\n" + filler + "  addr: x\n bad: y\n" + filler, 20_003},
		{"unknown alias in the middle", "server:\n" + filler + "  addr: *x\n" + filler, 20_002},
	} {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, cerr := checkTree([]byte(tt.yaml))
			if cerr == nil || cerr.Line != tt.want {
				t.Fatalf("checkTree = %+v, want line %d", cerr, tt.want)
			}
			// One parse per line takes minutes here; a bisection well under one.
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}
