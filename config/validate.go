package config

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ailab/ai-lab/secret"
	"github.com/ailab/ai-lab/tools"
)

// validate checks the limits of CONTRACT section 2 in key order and returns the
// first problem.
func validate(c *Config) *Error {
	checks := []struct {
		key    string
		value  string
		reason string
	}{
		{"server.addr", c.Server.Addr, checkAddr(c.Server.Addr)},
		{"llm.base_url", secret.Mask(c.LLM.BaseURL), checkURL(c.LLM.BaseURL)},
		{"llm.model", c.LLM.Model, nonEmpty(c.LLM.Model, "name the model, e.g. qwen2.5:7b-instruct")},
		// The value is left out of the message: a pasted key must not end up in logs.
		{"llm.api_key_env", "", checkEnvName(c.LLM.APIKeyEnv)},
		{"llm.timeout", c.LLM.Timeout.String(), positive(c.LLM.Timeout)},
		{"llm.max_tool_rounds", strconv.Itoa(c.LLM.MaxToolRounds), inRange(c.LLM.MaxToolRounds, 1, 1000)},
		{"llm.max_tool_calls_per_round", strconv.Itoa(c.LLM.MaxToolCallsPerRound), inRange(c.LLM.MaxToolCallsPerRound, 1, 1000)},
		{"llm.context_chars", strconv.Itoa(c.LLM.ContextChars), inRange(c.LLM.ContextChars, 4_000, 100_000_000)},
		{"safety.preset", c.Safety.Preset, checkPreset(c.Safety.Preset)},
		{"tools.workspace", c.Tools.Workspace, nonEmpty(c.Tools.Workspace, "name the folder the file tools may use, e.g. ./workspace")},
		{"web.search_endpoint", secret.Mask(c.Web.SearchEndpoint), checkURL(c.Web.SearchEndpoint)},
		{"web.search_lite_endpoint", secret.Mask(c.Web.SearchLiteEndpoint), checkURL(c.Web.SearchLiteEndpoint)},
		{"web.region", c.Web.Region, nonEmpty(c.Web.Region, "use a DuckDuckGo region such as wt-wt or us-en")},
		{"web.safesearch", c.Web.SafeSearch, oneOf(c.Web.SafeSearch, "strict", "moderate", "off")},
		{"web.max_results", strconv.Itoa(c.Web.MaxResults), inRange(c.Web.MaxResults, 1, 10)},
		{"web.cache_ttl", c.Web.CacheTTL.String(), notNegative(c.Web.CacheTTL)},
		{"web.fetch_timeout", c.Web.FetchTimeout.String(), positive(c.Web.FetchTimeout)},
		{"web.max_page_bytes", strconv.FormatInt(c.Web.MaxPageBytes, 10), positiveInt(c.Web.MaxPageBytes)},
		{"web.max_chars", strconv.Itoa(c.Web.MaxChars), positiveInt(int64(c.Web.MaxChars))},
		{"web.search_interval", c.Web.SearchInterval.String(), notNegative(c.Web.SearchInterval)},
		{"tracking.window", c.Tracking.Window.String(), positive(c.Tracking.Window)},
		{"tracking.max_validation_retries", strconv.Itoa(c.Tracking.MaxValidationRetries), inRange(c.Tracking.MaxValidationRetries, 0, 10)},
		{"tracing.otlp_endpoint", secret.Mask(c.Tracing.OTLPEndpoint), optionalURL(c.Tracing.OTLPEndpoint)},
		{"tracing.retention_age", c.Tracing.RetentionAge.String(), positive(c.Tracing.RetentionAge)},
		{"tracing.retention_count", strconv.Itoa(c.Tracing.RetentionCount), positiveInt(int64(c.Tracing.RetentionCount))},
		{"undo.max_bytes", strconv.FormatInt(c.Undo.MaxBytes, 10), positiveInt(c.Undo.MaxBytes)},
		{"undo.max_age", c.Undo.MaxAge.String(), positive(c.Undo.MaxAge)},
		{"undo.max_file_bytes", strconv.FormatInt(c.Undo.MaxFileBytes, 10), positiveInt(c.Undo.MaxFileBytes)},
	}
	for _, ch := range checks {
		if ch.reason != "" {
			return &Error{Key: ch.key, Value: ch.value, Reason: ch.reason}
		}
	}
	if err := validateServers(c); err != nil {
		return err
	}
	if err := validateRules(c); err != nil {
		return err
	}
	if bad, reason := checkTools(c.Safety.ToolsRequiringApproval); reason != "" {
		return &Error{Key: "safety.tools_requiring_approval", Value: bad, Reason: reason}
	}
	for _, list := range []struct {
		key     string
		domains []string
	}{{"web.allow_domains", c.Web.AllowDomains}, {"web.block_domains", c.Web.BlockDomains}} {
		for _, d := range list.domains {
			if !domainPattern().MatchString(d) {
				return &Error{Key: list.key, Value: d, Reason: "is not a bare domain (write it like example.com, without scheme, port or path)"}
			}
		}
	}
	return nil
}

func checkAddr(addr string) string {
	const reason = "is not host:port (write it like 127.0.0.1:8080)"
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return reason
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return reason
	}
	return ""
}

func checkURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "is not an http(s) URL (write it like https://host/path)"
	}
	return ""
}

func optionalURL(s string) string {
	if s == "" {
		return ""
	}
	return checkURL(s)
}

var envNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func checkEnvName(s string) string {
	if s == "" || envNamePattern.MatchString(s) {
		return ""
	}
	return "must be the NAME of the env var that holds the API key (e.g. OPENAI_API_KEY), not the key itself"
}

func checkPreset(name string) string {
	if name == tools.PresetCustom {
		return ""
	}
	if _, ok := tools.Presets[name]; ok {
		return ""
	}
	return "is not a preset (use " + orList(tools.PresetNames) + ")"
}

// checkTools returns the first unknown tool name and why it is refused.
func checkTools(names []string) (string, string) {
	for _, n := range names {
		if !tools.IsName(n) {
			return n, "is not a tool name (use " + orList(tools.Names) + ")"
		}
	}
	return "", ""
}

// domainPattern accepts a host name, optionally with a leading dot; read_webpage
// matches subdomains itself. It is compiled on first use: its Unicode classes
// take 120 KB, which every command would otherwise pay at start-up.
var domainPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\.?[\p{L}\p{N}_-]+(\.[\p{L}\p{N}_-]+)*\.?$`)
})

func nonEmpty(s, hint string) string {
	if strings.TrimSpace(s) == "" {
		return "is empty (" + hint + ")"
	}
	return ""
}

func positive(d time.Duration) string {
	if d <= 0 {
		return "must be longer than 0 (write it like 120s)"
	}
	return ""
}

func notNegative(d time.Duration) string {
	if d < 0 {
		return "must not be negative"
	}
	return ""
}

func positiveInt(n int64) string {
	if n <= 0 {
		return "must be greater than 0"
	}
	return ""
}

func inRange(n, lo, hi int) string {
	if n < lo || n > hi {
		return fmt.Sprintf("must be between %d and %d", lo, hi)
	}
	return ""
}

func oneOf(s string, allowed ...string) string {
	for _, a := range allowed {
		if s == a {
			return ""
		}
	}
	return "is not allowed (use " + orList(allowed) + ")"
}

// orList renders "a, b, c or d".
func orList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}
