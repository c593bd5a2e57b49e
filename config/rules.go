package config

// A Rule is one entry of safety.rules: an allow, ask or deny for a tool (or
// every tool of an MCP server), optionally limited to a workspace folder or a
// host. The policy package reads rules; this package parses and checks them.
// Paths and hosts are data matched literally, never patterns.
type Rule struct {
	// Effect is RuleAllow, RuleAsk or RuleDeny.
	Effect string `json:"effect"`
	// Tool is a tool name (write_file, files__read_text_file) or SERVER__*
	// for every tool of the MCP server SERVER.
	Tool string `json:"tool"`
	// Path is a workspace folder, cleaned and ending in "/" ("notes/"), that
	// the tool's resolved path must lie in; "" for any path. File tools only.
	Path string `json:"path,omitempty"`
	// Host is a canonical host the URL's host must equal ("go.dev"), or
	// "*." and a host for its subdomains ("*.go.dev", which does not match
	// go.dev itself); "" for any host. read_webpage only.
	Host string `json:"host,omitempty"`
	// Line is the rule's line in the config file, 0 when it came from the
	// environment (AILAB_SAFETY_RULES).
	Line int `json:"line,omitempty"`
}

// Effects of a Rule.
const (
	RuleAllow = "allow"
	RuleAsk   = "ask"
	RuleDeny  = "deny"
)
