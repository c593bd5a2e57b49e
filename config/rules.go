package config

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ailab/ai-lab/tools"
	"github.com/ailab/ai-lab/visible"
	"github.com/ailab/ai-lab/websearch"
)

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
	// the tool's resolved path must lie in; "./" is the whole workspace, and
	// "" (no path written) any path. File tools only.
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

// String returns the rule in words, as a reason quotes it: "allow write_file
// in notes/", "allow write_file anywhere in the workspace" (path ./), "allow
// read_webpage on go.dev", "ask every tool of MCP server files", "allow
// web_search".
func (r Rule) String() string {
	var b strings.Builder
	b.WriteString(r.Effect)
	if server, ok := strings.CutSuffix(r.Tool, "__*"); ok {
		b.WriteString(" every tool of MCP server " + server)
	} else {
		b.WriteString(" " + r.Tool)
	}
	switch {
	case r.Path == "./":
		b.WriteString(" anywhere in the workspace")
	case r.Path != "":
		b.WriteString(" in " + r.Path)
	case r.Host != "":
		b.WriteString(" on " + r.Host)
	}
	return b.String()
}

// YAML returns the rule as one flow mapping the way config.yaml writes it:
// {allow: write_file, path: "notes/"}. Line is left out.
func (r Rule) YAML() string {
	var b strings.Builder
	b.WriteString("{" + yamlText(r.Effect, false) + ": " + yamlText(r.Tool, strings.Contains(r.Tool, "*")))
	if r.Path != "" {
		b.WriteString(", path: " + yamlText(r.Path, true))
	}
	if r.Host != "" {
		b.WriteString(", host: " + yamlText(r.Host, true))
	}
	b.WriteString("}")
	return b.String()
}

// plainName is text YAML reads back as the same string when written
// unquoted inside a flow mapping (every tool name and effect is).
var plainName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// yamlText writes s as a YAML scalar: plain when it is a plain name and not
// asked to be quoted, else double-quoted (Go's escapes are YAML's too for
// the printable text a checked rule holds).
func yamlText(s string, quote bool) string {
	if !quote && plainName.MatchString(s) {
		switch strings.ToLower(s) {
		case "true", "false", "null", "yes", "no", "on", "off", "y", "n":
		default:
			return s
		}
	}
	return strconv.Quote(s)
}

var (
	rulesType = reflect.TypeFor[[]Rule]()
	// ruleKeys are the keys a rule may have.
	ruleKeys = []string{RuleAllow, RuleAsk, RuleDeny, "path", "host"}
	// fileTools are the tools a rule may limit with path.
	fileTools = []string{tools.ReadFile, tools.WriteFile, tools.DeleteFile, tools.MoveFile, tools.CopyFile, tools.CreateDirectory, tools.ListDirectory}
	// mcpToolRe is the tool part of SERVER__TOOL as model APIs allow it.
	mcpToolRe = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	// driveRe is a Windows drive, which makes a path absolute.
	driveRe = regexp.MustCompile(`^[A-Za-z]:`)
)

// ruleLines holds, for each entry of safety.rules in the file, the line of
// the entry (key "") and of each of its keys.
type ruleLines []map[string]int

// at returns the line of key in entry i, else of the entry, else 0.
func (l ruleLines) at(i int, key string) int {
	if i < 0 || i >= len(l) {
		return 0
	}
	if n, ok := l[i][key]; ok && key != "" {
		return n
	}
	return l[i][""]
}

// readRulesTree turns the YAML node of safety.rules into the raw value
// decodeRules reads (a list of mappings of text, as AILAB_SAFETY_RULES gives
// it) and the line of every entry and key. It refuses only what that value
// cannot hold: a value that is not a list, a key written twice, or a key that
// is not text.
func readRulesTree(keyLine int, list *yaml.Node) (any, ruleLines, *Error) {
	if list.Kind != yaml.SequenceNode {
		return nil, nil, &Error{Key: "safety.rules", Line: keyLine, Reason: "must be a list of rules, each on its own line like - {allow: write_file, path: notes/}"}
	}
	raw := make([]any, 0, len(list.Content))
	lines := make(ruleLines, 0, len(list.Content))
	for i, item := range list.Content {
		// The entry is where it is written, an alias (- *a) included; its
		// keys are where they are written, at the anchor.
		at := map[string]int{"": item.Line}
		lines = append(lines, at)
		item = resolve(item)
		if item.Kind != yaml.MappingNode {
			var v any
			_ = item.Decode(&v)
			raw = append(raw, v)
			continue
		}
		m := map[string]any{}
		for j := 0; j+1 < len(item.Content); j += 2 {
			kn, vn := resolve(item.Content[j]), resolve(item.Content[j+1])
			if kn.Kind != yaml.ScalarNode {
				return nil, nil, &Error{Key: fmt.Sprintf("safety.rules[%d]", i), Line: kn.Line, Reason: "has a key that is not a name; a rule takes " + strings.Join(ruleKeys, ", ")}
			}
			if _, dup := m[kn.Value]; dup {
				return nil, nil, &Error{Key: fmt.Sprintf("safety.rules[%d]", i), Value: kn.Value, Line: kn.Line, Reason: fmt.Sprintf("appears twice in this rule (first on line %d); keep one", at[kn.Value])}
			}
			if kn.Value != "" {
				at[kn.Value] = kn.Line
			}
			switch {
			case isNull(vn):
				m[kn.Value] = nil
			case vn.Kind == yaml.ScalarNode:
				// The text as written: a tool or folder named 0123 or true
				// is that text, not a number or a bool.
				m[kn.Value] = vn.Value
			default:
				var v any
				_ = vn.Decode(&v)
				if v == nil {
					v = []any{}
				}
				m[kn.Value] = v
			}
		}
		raw = append(raw, m)
	}
	return raw, lines, nil
}

// decodeRules reads safety.rules from the file (as readRulesTree gives it,
// with lines) or from AILAB_SAFETY_RULES (the same list as JSON, lines nil),
// checking and canonicalizing every rule but for the MCP servers it names,
// which validate checks once mcp.servers is read.
func decodeRules(raw any, lines ruleLines) ([]Rule, *Error) {
	switch v := raw.(type) {
	case nil:
		return []Rule{}, nil
	case []Rule:
		return append([]Rule{}, v...), nil
	case string:
		if strings.TrimSpace(v) == "" {
			return []Rule{}, nil
		}
		var parsed any
		if err := json.Unmarshal([]byte(v), &parsed); err != nil {
			return nil, &Error{Key: "safety.rules", Reason: `must be a JSON list of rules in the environment, e.g. [{"deny": "read_file", "path": "secrets/"}]`}
		}
		if parsed == nil {
			return []Rule{}, nil
		}
		raw = parsed
	}
	items, ok := raw.([]any)
	if !ok {
		return nil, &Error{Key: "safety.rules", Reason: "must be a list of rules, each a mapping like {allow: write_file, path: notes/}"}
	}
	out := make([]Rule, 0, len(items))
	for i, item := range items {
		key := fmt.Sprintf("safety.rules[%d]", i)
		m, ok := item.(map[string]any)
		if !ok {
			return nil, &Error{Key: key, Value: shown(item), Line: lines.at(i, ""), Reason: "is not a rule; write each rule as a mapping like {allow: write_file, path: notes/}"}
		}
		r, field, value, reason := decodeRule(m)
		if reason != "" {
			return nil, &Error{Key: key, Value: value, Line: lines.at(i, field), Reason: reason}
		}
		r.Line = lines.at(i, "")
		out = append(out, r)
	}
	return out, nil
}

// decodeRule checks one rule and returns it canonical, or the key the
// refusal is about (field, "" for the whole rule), the value it quotes and
// why.
func decodeRule(m map[string]any) (r Rule, field, value, reason string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(ruleKeys, k) {
			const takes = "a rule takes allow, ask or deny, and optionally path or host"
			if k == "" {
				return r, k, "", "has an empty key; " + takes
			}
			if visible.In(k) {
				return r, k, "", "has the key " + visible.Escape(k) + ", which holds a control or invisible character; " + takes
			}
			return r, k, k, "is not a key of a rule; " + takes
		}
	}
	text := map[string]string{}
	for _, k := range ruleKeys {
		v, ok := m[k]
		if !ok {
			continue
		}
		switch v := v.(type) {
		case string:
			text[k] = v
		case nil:
			return r, k, "", k + " has no value; " + ruleExample(k)
		default:
			return r, k, "", k + " must be one text value, not a number, list or mapping; " + ruleExample(k)
		}
	}
	var effects []string
	for _, e := range []string{RuleAllow, RuleAsk, RuleDeny} {
		if _, ok := text[e]; ok {
			effects = append(effects, e)
		}
	}
	switch len(effects) {
	case 0:
		return r, "", "", "names no tool; give exactly one of allow, ask or deny, like {allow: write_file, path: notes/}"
	case 1:
	default:
		return r, effects[1], "", "has both " + effects[0] + " and " + effects[1] + "; give exactly one of allow, ask or deny (write one rule for each)"
	}
	r.Effect = effects[0]
	r.Tool = text[r.Effect]
	if reason := checkRuleTool(r.Tool); reason != "" {
		return r, r.Effect, quotable(r.Effect, r.Tool, &reason), reason
	}
	p, hasPath := text["path"]
	h, hasHost := text["host"]
	switch {
	case hasPath && hasHost:
		return r, "host", "", "gives both path and host; a rule is limited to a folder (file tools) or to a host (read_webpage), so keep one"
	case hasPath:
		if !slices.Contains(fileTools, r.Tool) {
			return r, "path", p, pathNotFor(r.Tool)
		}
		clean, reason := canonicalRulePath(p)
		if reason != "" {
			return r, "path", quotable("path", p, &reason), reason
		}
		r.Path = clean
	case hasHost:
		if r.Tool != tools.ReadWebpage {
			return r, "host", h, hostNotFor(r.Tool)
		}
		canon, reason := canonicalRuleHost(h)
		if reason != "" {
			return r, "host", quotable("host", h, &reason), reason
		}
		r.Host = canon
	}
	return r, "", "", ""
}

// quotable returns v for the refusal to quote, or "" when v holds a
// character that does not show as itself: the reason then names the key and
// shows v escaped (visible.Escape), which %q alone does not do for all of them.
func quotable(key, v string, reason *string) string {
	if visible.In(v) {
		*reason = key + " " + *reason
		return ""
	}
	return v
}

func ruleExample(k string) string {
	switch k {
	case "path":
		return "write a workspace folder, like path: notes/"
	case "host":
		return "write a bare host, like host: go.dev"
	}
	return "name one tool, like " + k + ": write_file"
}

// checkRuleTool checks the form of a rule's tool: a built-in name,
// SERVER__TOOL or SERVER__*. Whether SERVER is configured is validate's.
func checkRuleTool(tool string) string {
	if tools.IsName(tool) {
		return ""
	}
	if tool == "" {
		return "is empty; name one tool, like write_file, or SERVER__* for every tool of an MCP server"
	}
	if visible.In(tool) {
		return "holds a control or invisible character (" + visible.Escape(tool) + "); name one tool, like write_file"
	}
	server, name, ok := strings.Cut(tool, "__")
	if s, every := strings.CutSuffix(tool, "__*"); every {
		server, name, ok = s, "*", true
	}
	switch {
	case strings.ContainsAny(server, "*?[]{}") || name != "*" && strings.ContainsAny(name, "*?[]{}"):
		return "is a pattern, which a rule does not read; name one tool, or SERVER__* for every tool of the MCP server SERVER"
	case !ok:
		return "is not a tool name (use " + strings.Join(tools.Names, ", ") + ", or SERVER__TOOL for a tool of an MCP server)"
	case !serverNameRe.MatchString(server):
		return "does not start with an MCP server's name (lower-case letters, digits and _) and __; write SERVER__TOOL or SERVER__*"
	case name != "*" && (!mcpToolRe.MatchString(name) || len(tool) > 64):
		return "is no tool an MCP server can offer (SERVER__TOOL is at most 64 of a-z, A-Z, 0-9, _ and -)"
	}
	return ""
}

func pathNotFor(tool string) string {
	switch {
	case tool == tools.ReadWebpage:
		return "is a path, but read_webpage takes host instead (like host: go.dev)"
	case strings.Contains(tool, "__"):
		return "is a path, but an MCP server's tools take none; path limits only the file tools (" + strings.Join(fileTools, ", ") + ")"
	}
	return "is a path, but " + tool + " takes none; path limits only the file tools (" + strings.Join(fileTools, ", ") + ")"
}

func hostNotFor(tool string) string {
	if slices.Contains(fileTools, tool) {
		return "is a host, but " + tool + " takes path instead (like path: notes/); host limits only read_webpage"
	}
	return "is a host, but " + tool + " takes none; host limits only read_webpage"
}

// canonicalRulePath checks a rule's folder and returns it cleaned with a
// trailing "/" ("./notes" and "notes" are "notes/", "." is "./").
func canonicalRulePath(p string) (string, string) {
	switch {
	case p == "":
		return "", "is empty; write ./ for the whole workspace, or leave path out"
	case visible.In(p):
		return "", "holds a control or invisible character (" + visible.Escape(p) + "); write the folder name in plain characters"
	case strings.ContainsAny(p, `*?[\`):
		return "", "is not a folder: paths are folders matched literally; write notes/ for the folder and everything below it"
	case strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || driveRe.MatchString(p):
		return "", "is not relative to the workspace; write the folder as it is inside tools.workspace, like notes/"
	}
	c := path.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", "climbs out of the workspace with ..; write a folder inside it, like notes/"
	}
	if c == "." {
		return "./", ""
	}
	return c + "/", ""
}

// canonicalRuleHost checks a rule's host and returns it as
// websearch.CanonicalHost writes it, a leading "*." kept.
func canonicalRuleHost(h string) (string, string) {
	const bare = "write the bare host, like go.dev"
	switch {
	case h == "":
		return "", "is empty; " + bare + ", or leave host out"
	case visible.In(h):
		return "", "holds a control or invisible character (" + visible.Escape(h) + "); " + bare
	case strings.Contains(h, "://"):
		return "", "has a scheme; " + bare
	case strings.ContainsAny(h, "/?#"):
		return "", "has a path; " + bare
	case strings.Contains(h, "@"):
		return "", "has a user name; " + bare
	case hasPort(h):
		return "", "has a port; " + bare + " (a rule covers every port)"
	case h == "*":
		return "", "would match every host; " + bare + ", or leave host out to cover every host"
	}
	rest, sub := strings.CutPrefix(h, "*.")
	switch {
	case strings.Contains(rest, "*"):
		return "", "has a * that does not start it; " + bare + ", or *.go.dev for its subdomains"
	case strings.HasPrefix(rest, "."):
		return "", "starts with a dot; " + bare + ", or *.go.dev for its subdomains"
	}
	canon, err := websearch.CanonicalHost(rest)
	if err != nil {
		return "", "is not a host name; " + bare
	}
	if again, err := websearch.CanonicalHost(canon); err != nil || again != canon {
		return "", "is not a host name; " + bare
	}
	if !sub {
		return canon, ""
	}
	if _, err := netip.ParseAddr(canon); err == nil {
		return "", "puts *. before an address; *. takes a domain name, like *.go.dev"
	}
	return "*." + canon, ""
}

// hasPort reports whether h ends in a port: [v6]:port, or one colon.
func hasPort(h string) bool {
	if strings.HasPrefix(h, "[") {
		end := strings.Index(h, "]")
		return end >= 0 && end < len(h)-1
	}
	return strings.Count(h, ":") == 1
}

// validateRules checks what decodeRules cannot: that a rule naming an MCP
// tool names a server of mcp.servers.
func validateRules(c *Config) *Error {
	for i, r := range c.Safety.Rules {
		if tools.IsName(r.Tool) {
			continue
		}
		if ruleServer(r.Tool, c.MCP.Servers) != "" {
			continue
		}
		server, _, _ := strings.Cut(r.Tool, "__")
		names := make([]string, 0, len(c.MCP.Servers))
		for _, s := range c.MCP.Servers {
			names = append(names, s.Name)
		}
		configured := "it has none"
		if len(names) > 0 {
			configured = "it has " + strings.Join(names, ", ")
		}
		return &Error{Key: fmt.Sprintf("safety.rules[%d]", i), Value: r.Tool, Line: r.Line,
			Reason: "names MCP server " + server + ", which is not in mcp.servers (" + configured + "); add the server there or fix the name"}
	}
	return nil
}

// ruleServer returns the configured server whose tools tool names, the
// longest name first (a server name may itself hold __), "" for none.
func ruleServer(tool string, servers []MCPServer) string {
	best := ""
	for _, s := range servers {
		if strings.HasPrefix(tool, s.Name+"__") && len(s.Name) > len(best) && len(tool) > len(s.Name)+2 {
			best = s.Name
		}
	}
	return best
}

// ruleIndex returns i for the key safety.rules[i].
func ruleIndex(key string) (int, bool) {
	rest, ok := strings.CutPrefix(key, "safety.rules[")
	if !ok {
		return 0, false
	}
	n, rest, ok := strings.Cut(rest, "]")
	if !ok || rest != "" {
		return 0, false
	}
	i, err := strconv.Atoi(n)
	return i, err == nil
}

// publicRules is safety.rules as GET /config shows it: each rule written the
// way the file writes it, with its line when it came from the file.
func publicRules(rules []Rule) []map[string]any {
	out := make([]map[string]any, 0, len(rules))
	for _, r := range rules {
		m := map[string]any{r.Effect: r.Tool}
		if r.Path != "" {
			m["path"] = r.Path
		}
		if r.Host != "" {
			m["host"] = r.Host
		}
		if r.Line > 0 {
			m["line"] = r.Line
		}
		out = append(out, m)
	}
	return out
}

// sameRule reports whether a and b say the same, wherever they are written.
func sameRule(a, b Rule) bool {
	return a.Effect == b.Effect && a.Tool == b.Tool && a.Path == b.Path && a.Host == b.Host
}
