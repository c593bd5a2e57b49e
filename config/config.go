// Package config reads, validates, watches and rewrites the AI Lab server's
// configuration: defaults, then config.yaml, then AILAB_ environment overrides
// (CONTRACT section 2).
//
// It is the only place that knows the key names, their defaults and their limits.
// It must never hand out a half-valid Config: every problem is refused as one *Error
// naming the key and the bad value. It must never expose secrets through Public, and
// when it rewrites a file (WriteSafety, AddRule) it changes only the safety keys,
// keeping comments and the rest of the file as they were.
//
// The user's approval rules (safety.rules, see Rule) are parsed, checked and
// canonicalized here; which rule decides a call is the policy package's business.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/ailab/ai-lab/secret"
	"github.com/ailab/ai-lab/tools"
)

// FileName is the name of the config file looked for in the working directory and
// under $XDG_CONFIG_HOME/ai-lab.
const FileName = "config.yaml"

// EnvConfig names the environment variable that points at a config file.
const EnvConfig = "AILAB_CONFIG"

// EnvPrefix starts every environment override: AILAB_ + the key path upper-cased
// with '.' as '_', e.g. AILAB_WEB_SEARCH_ENDPOINT.
const EnvPrefix = "AILAB"

// A Config is the server's effective configuration after defaults, file and env.
type Config struct {
	Server   ServerConfig   `mapstructure:"server"`
	LLM      LLMConfig      `mapstructure:"llm"`
	Safety   SafetyConfig   `mapstructure:"safety"`
	Tools    ToolsConfig    `mapstructure:"tools"`
	Web      WebConfig      `mapstructure:"web"`
	Sanitize SanitizeConfig `mapstructure:"sanitize"`
	Tracking TrackingConfig `mapstructure:"tracking"`
	Tracing  TracingConfig  `mapstructure:"tracing"`
	Undo     UndoConfig     `mapstructure:"undo"`
	MCP      MCPConfig      `mapstructure:"mcp"`

	// Path is the file the config was read from, "" when none was found.
	Path string `mapstructure:"-"`
}

// ServerConfig holds where the HTTP API listens and where it keeps its state.
type ServerConfig struct {
	Addr      string `mapstructure:"addr"`
	AuthToken string `mapstructure:"auth_token"`
	StateDir  string `mapstructure:"state_dir"`
	// SteadyScheduler runs the server with the Go runtime's monitor thread
	// polling steadily instead of sleeping deeply whenever the process idles:
	// less CPU per turn under many sessions, some wake-ups a second when idle.
	SteadyScheduler bool `mapstructure:"steady_scheduler"`
}

// LLMConfig says which OpenAI-compatible endpoint and model to talk to.
type LLMConfig struct {
	BaseURL string `mapstructure:"base_url"`
	Model   string `mapstructure:"model"`
	// APIKeyEnv is the NAME of the env var holding the key, never the key itself,
	// so the config file stays free of secrets.
	APIKeyEnv     string        `mapstructure:"api_key_env"`
	Timeout       time.Duration `mapstructure:"timeout"`
	MaxToolRounds int           `mapstructure:"max_tool_rounds"`
	// MaxToolCallsPerRound bounds the tool calls of one model round: a round
	// asking for more stops the turn with a clear message.
	MaxToolCallsPerRound int `mapstructure:"max_tool_calls_per_round"`
	// ContextChars bounds the characters of one model request: older turns are
	// left out, oldest first, to stay under it (CONTRACT section 9).
	ContextChars int `mapstructure:"context_chars"`
}

// SafetyConfig selects the approval preset; ApprovalMode and
// ToolsRequiringApproval only count for the custom preset.
type SafetyConfig struct {
	Preset                 string   `mapstructure:"preset"`
	ApprovalMode           bool     `mapstructure:"approval_mode"`
	ToolsRequiringApproval []string `mapstructure:"tools_requiring_approval"`
	// Rules are checked before the preset (deny, then ask, then allow); see
	// Rule. They apply live. Never nil after Load.
	Rules []Rule `mapstructure:"rules"`
}

// ToolsConfig confines the file tools.
type ToolsConfig struct {
	Workspace string `mapstructure:"workspace"`
}

// WebConfig configures web_search and read_webpage.
type WebConfig struct {
	SearchEndpoint        string        `mapstructure:"search_endpoint"`
	SearchLiteEndpoint    string        `mapstructure:"search_lite_endpoint"`
	Region                string        `mapstructure:"region"`
	SafeSearch            string        `mapstructure:"safesearch"`
	MaxResults            int           `mapstructure:"max_results"`
	CacheTTL              time.Duration `mapstructure:"cache_ttl"`
	FetchTimeout          time.Duration `mapstructure:"fetch_timeout"`
	MaxPageBytes          int64         `mapstructure:"max_page_bytes"`
	MaxChars              int           `mapstructure:"max_chars"`
	AllowPrivateAddresses bool          `mapstructure:"allow_private_addresses"`
	AllowDomains          []string      `mapstructure:"allow_domains"`
	BlockDomains          []string      `mapstructure:"block_domains"`
	// SearchInterval is the minimum gap between two DuckDuckGo requests.
	SearchInterval time.Duration `mapstructure:"search_interval"`
}

// SanitizeConfig switches the web content sanitizer.
type SanitizeConfig struct {
	Enabled    bool `mapstructure:"enabled"`
	Aggressive bool `mapstructure:"aggressive"`
	// Classifier adds the learned injection classifier's score to the pattern
	// layers (a page it flags gets a warning note); false leaves the patterns alone.
	Classifier bool `mapstructure:"classifier"`
	// Datamark marks every word boundary of outside text with ˆ and tells the
	// model in the system prompt that marked text is data (spotlighting).
	Datamark bool `mapstructure:"datamark"`
}

// TrackingConfig bounds how execution ids are checked in replies.
type TrackingConfig struct {
	Window               time.Duration `mapstructure:"window"`
	MaxValidationRetries int           `mapstructure:"max_validation_retries"`
}

// TracingConfig says where traces go and how long they are kept.
type TracingConfig struct {
	OTLPEndpoint   string        `mapstructure:"otlp_endpoint"`
	RetentionAge   time.Duration `mapstructure:"retention_age"`
	RetentionCount int           `mapstructure:"retention_count"`
}

// UndoConfig bounds what the server keeps so that a turn's file changes can
// be undone: the previous contents of the files the file tools replace.
type UndoConfig struct {
	// MaxBytes bounds the kept contents in total; the oldest records go first.
	MaxBytes int64 `mapstructure:"max_bytes"`
	// MaxAge is how long a record is kept; older turns can no longer be undone.
	MaxAge time.Duration `mapstructure:"max_age"`
	// MaxFileBytes is the largest file whose previous content is kept; a call
	// that would replace a bigger one cannot be undone, and says so before
	// the user approves it.
	MaxFileBytes int64 `mapstructure:"max_file_bytes"`
}

// Default returns the documented defaults (CONTRACT section 2).
func Default() *Config {
	return &Config{
		Server: ServerConfig{Addr: "127.0.0.1:8080"},
		LLM: LLMConfig{
			BaseURL:              "http://127.0.0.1:11434/v1",
			Model:                "qwen2.5:7b-instruct",
			APIKeyEnv:            "OPENAI_API_KEY",
			Timeout:              120 * time.Second,
			MaxToolRounds:        50,
			MaxToolCallsPerRound: 64,
			ContextChars:         200_000,
		},
		Safety: SafetyConfig{
			Preset:                 tools.PresetStrict,
			ApprovalMode:           true,
			ToolsRequiringApproval: []string{tools.DeleteFile},
			Rules:                  []Rule{},
		},
		Tools: ToolsConfig{Workspace: "./workspace"},
		Web: WebConfig{
			SearchEndpoint:     "https://html.duckduckgo.com/html/",
			SearchLiteEndpoint: "https://lite.duckduckgo.com/lite/",
			Region:             "wt-wt",
			SafeSearch:         "moderate",
			MaxResults:         5,
			CacheTTL:           15 * time.Minute,
			FetchTimeout:       10 * time.Second,
			MaxPageBytes:       5 << 20,
			MaxChars:           3000,
			AllowDomains:       []string{},
			BlockDomains:       []string{},
			SearchInterval:     time.Second,
		},
		Sanitize: SanitizeConfig{Enabled: true, Aggressive: true, Classifier: true},
		Tracking: TrackingConfig{Window: 5 * time.Minute, MaxValidationRetries: 2},
		Tracing:  TracingConfig{RetentionAge: 720 * time.Hour, RetentionCount: 10000},
		Undo:     UndoConfig{MaxBytes: 256 << 20, MaxAge: 168 * time.Hour, MaxFileBytes: 16 << 20},
		MCP:      MCPConfig{Servers: []MCPServer{}},
	}
}

// Find returns the config file to read: explicit (--config), then $AILAB_CONFIG,
// then ./config.yaml, then $XDG_CONFIG_HOME/ai-lab/config.yaml
// (~/.config/ai-lab/config.yaml when XDG_CONFIG_HOME is unset). It returns "" and
// no error when none exists and none was demanded; a demanded file that does not
// exist is an *Error.
func Find(explicit string) (string, error) {
	if explicit != "" {
		return demanded(explicit, "--config")
	}
	if p := os.Getenv(EnvConfig); p != "" {
		return demanded(p, "$"+EnvConfig)
	}
	candidates := []string{FileName}
	if dir := userConfigDir(); dir != "" {
		candidates = append(candidates, filepath.Join(dir, "ai-lab", FileName))
	}
	for _, p := range candidates {
		if isFile(p) {
			return filepath.Abs(p)
		}
	}
	return "", nil
}

func demanded(p, source string) (string, error) {
	info, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", &Error{Key: source, Value: p, Reason: "does not exist (create it, e.g. by copying config.yaml from the repository, or point " + source + " at an existing file)"}
	case err != nil:
		return "", &Error{Key: source, Value: p, Reason: fmt.Sprintf("cannot be read (%v)", unwrapPathError(err))}
	case info.IsDir():
		return "", &Error{Key: source, Value: p, Reason: "is a directory (point " + source + " at a YAML file)"}
	}
	return filepath.Abs(p)
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func isFile(p string) bool {
	info, err := os.Stat(p)
	return err == nil && !info.IsDir()
}

// userConfigDir is $XDG_CONFIG_HOME or ~/.config on every platform, because the
// contract documents that location rather than each OS's own convention.
func userConfigDir() string {
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" {
		return d
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".config")
	}
	return ""
}

// Preset returns the resolved safety preset: one of tools.Presets, or for custom
// the config's own approval_mode and tools_requiring_approval. The returned slice
// is a copy the caller may keep.
func (c *Config) Preset() tools.Preset {
	if p, ok := tools.Presets[c.Safety.Preset]; ok {
		p.RequiresApproval = slices.Clone(p.RequiresApproval)
		if p.RequiresApproval == nil {
			p.RequiresApproval = []string{}
		}
		return p
	}
	list := slices.Clone(c.Safety.ToolsRequiringApproval)
	if list == nil {
		list = []string{}
	}
	return tools.Preset{Name: tools.PresetCustom, ApprovalMode: c.Safety.ApprovalMode, RequiresApproval: list}
}

// StateDir returns server.state_dir (a leading ~/ meaning the home directory), or
// $XDG_STATE_HOME/ai-lab, or ~/.local/state/ai-lab.
func (c *Config) StateDir() string {
	if d := c.Server.StateDir; d != "" {
		// YAML does no shell expansion, yet ~/ is what people write for a home path.
		if rest, ok := strings.CutPrefix(d, "~/"); ok {
			if home, err := os.UserHomeDir(); err == nil {
				return filepath.Join(home, rest)
			}
		}
		return d
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "ai-lab")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "state", "ai-lab")
	}
	// Without a home directory the working directory is the only place left that
	// the user can find again.
	return filepath.Join(".ai-lab", "state")
}

// Public returns the effective config for GET /config as nested maps keyed by the
// YAML key names. Durations are Go duration strings. server.auth_token is "***"
// when set and "" when not, and every string goes through secret.Mask (a URL's
// password and secret query values, a key in any format are ***); the API key
// itself is never read here, only the name of its env var appears. The safety
// keys are resolved from the preset, and safety.rules is a list of maps
// written like the file ({"allow": "write_file", "path": "notes/", "line":
// 12}, the line only for a rule from the file), empty rather than null.
func (c *Config) Public() map[string]any {
	out := map[string]any{}
	for _, k := range keyTable {
		section, ok := out[k.section].(map[string]any)
		if !ok {
			section = map[string]any{}
			out[k.section] = section
		}
		section[k.name] = publicValue(k.get(c))
	}
	server := out["server"].(map[string]any)
	if c.Server.AuthToken != "" {
		server["auth_token"] = "***"
	}
	out["mcp"].(map[string]any)["servers"] = publicServers(c.MCP.Servers)
	p := c.Preset()
	safety := out["safety"].(map[string]any)
	safety["preset"] = p.Name
	safety["approval_mode"] = p.ApprovalMode
	safety["tools_requiring_approval"] = p.RequiresApproval
	safety["rules"] = publicRules(c.Safety.Rules)
	return out
}

// RestartKeys are the keys a running server cannot apply: a change to one of
// them waits for a restart. Every other key applies live.
var RestartKeys = []string{"server.addr", "server.state_dir", "server.steady_scheduler", "tracing.otlp_endpoint", "mcp.servers"}

// RestartRequired lists the keys of RestartKeys whose value in next differs
// from the one the server started with (running), in key order.
func RestartRequired(running, next *Config) []string {
	out := []string{}
	for _, path := range RestartKeys {
		k, _ := lookupKey(path)
		if !reflect.DeepEqual(k.get(running), k.get(next)) {
			out = append(out, path)
		}
	}
	return out
}

func publicValue(v any) any {
	switch v := v.(type) {
	case string:
		return secret.Mask(v)
	case time.Duration:
		return v.String()
	case []string:
		if v == nil {
			return []string{}
		}
		return slices.Clone(v)
	}
	return v
}

// An Error is a config problem a person must fix: which key, which value, why, and
// where it came from. Its message is one line.
type Error struct {
	// Key is the key path (e.g. "safety.preset"), or the flag or env var that
	// named a missing file.
	Key string
	// Value is the offending value as written, "" when the key itself is the problem.
	Value string
	// Reason says what is wrong and how to fix it.
	Reason string
	// Path is the file the value came from, or "env AILAB_..." for an override.
	Path string
	// Line is the 1-based line in Path, 0 when unknown.
	Line int
}

// Error returns e.g.
// `config.yaml:14: safety.preset: "strickt" is not a preset (use strict, moderate, minimal or custom)`.
func (e *Error) Error() string {
	var b strings.Builder
	if e.Path != "" {
		b.WriteString(e.Path)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	if e.Value != "" {
		fmt.Fprintf(&b, "%q ", shorten(e.Value))
	}
	b.WriteString(e.Reason)
	return b.String()
}

// shorten keeps a pasted blob from turning the one-line message into a page.
func shorten(s string) string {
	const limit = 80
	r := []rune(s)
	if len(r) <= limit {
		return s
	}
	return string(r[:limit]) + "…"
}
