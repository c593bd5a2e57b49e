package config

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/ailab/ai-lab/secret"
	"github.com/ailab/ai-lab/visible"
)

// MCPConfig lists the Model Context Protocol servers whose tools the model may
// call (CONTRACT section 12).
type MCPConfig struct {
	Servers []MCPServer `mapstructure:"servers"`
}

// An MCPServer is one entry of mcp.servers: a local server started with
// Command (stdio) or a remote one at URL (Streamable HTTP).
type MCPServer struct {
	Name     string            `json:"name"`
	Command  []string          `json:"command,omitempty"`
	URL      string            `json:"url,omitempty"`
	Env      map[string]string `json:"env,omitempty"`
	Headers  map[string]string `json:"headers,omitempty"`
	Approval MCPApproval       `json:"approval"`
	Timeout  time.Duration     `json:"timeout"`
}

// MCPApproval says whether a server's tools need the user's decision: all of
// them (always, the default) or none (never). The strict preset asks for
// every MCP tool whatever it says; exceptions for single tools are rules
// (safety.rules).
type MCPApproval struct {
	Mode string // ApprovalAlways or ApprovalNever
}

// Modes of MCPApproval.
const (
	ApprovalAlways = "always"
	ApprovalNever  = "never"
)

// DefaultMCPTimeout bounds one call of an MCP tool when the entry sets none.
const DefaultMCPTimeout = 60 * time.Second

var (
	serversType   = reflect.TypeFor[[]MCPServer]()
	serverNameRe  = regexp.MustCompile(`^[a-z0-9_]+$`)
	mcpServerKeys = []string{"name", "command", "url", "env", "headers", "approval", "timeout"}
)

// checkServersTree checks each entry of mcp.servers for unknown keys, so a
// typo in an entry is refused with its line like any other key.
func checkServersTree(keyLine int, list *yaml.Node) *Error {
	if list.Kind != yaml.SequenceNode {
		return &Error{Key: "mcp.servers", Line: keyLine, Reason: "must be a list of servers, each a mapping with name and command or url"}
	}
	for i, item := range list.Content {
		item = resolve(item)
		if item.Kind != yaml.MappingNode {
			return &Error{Key: fmt.Sprintf("mcp.servers[%d]", i), Line: item.Line, Reason: "must be a mapping with name and command or url"}
		}
		for j := 0; j+1 < len(item.Content); j += 2 {
			k := item.Content[j]
			if !slices.Contains(mcpServerKeys, k.Value) {
				return &Error{Key: fmt.Sprintf("mcp.servers[%d].%s", i, k.Value), Line: k.Line, Reason: "unknown key (a server takes " + strings.Join(mcpServerKeys, ", ") + ")"}
			}
			if v := resolve(item.Content[j+1]); k.Value == "approval" && v.Kind == yaml.SequenceNode {
				var listed []string
				for _, t := range v.Content {
					listed = append(listed, resolve(t).Value)
				}
				return &Error{Key: fmt.Sprintf("mcp.servers[%d].approval", i), Line: k.Line, Reason: approvalListGone(serverName(item), listed)}
			}
		}
	}
	return nil
}

// approvalListGone is the refusal of the list form of approval, which named
// the tools that ask: it shows what to write instead.
func approvalListGone(server string, listed []string) string {
	if server == "" || !serverNameRe.MatchString(server) {
		server = "SERVER"
	}
	for i, t := range listed {
		listed[i] = visible.Escape(t) // one line, whatever the list held
	}
	return "a list is no longer read (it named the tools that ask: " + strings.Join(listed, ", ") +
		"); write approval: always and, for each tool that may run without asking, a rule under safety.rules such as {allow: " + server + "__TOOL}"
}

// serverName returns the name of the mcp.servers entry m, "" when it has none.
func serverName(m *yaml.Node) string {
	for j := 0; j+1 < len(m.Content); j += 2 {
		if m.Content[j].Value == "name" {
			return resolve(m.Content[j+1]).Value
		}
	}
	return ""
}

// decodeServers reads mcp.servers from YAML (a list of mappings) or from
// AILAB_MCP_SERVERS (the same list as JSON).
func decodeServers(raw any) (any, string) {
	if s, ok := raw.(string); ok {
		if strings.TrimSpace(s) == "" {
			return []MCPServer{}, ""
		}
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			return nil, `must be a JSON list of servers in the environment, e.g. [{"name": "files", "command": ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/data"]}]`
		}
		raw = v
	}
	items, ok := raw.([]any)
	if raw == nil {
		return []MCPServer{}, ""
	}
	if s, isList := raw.([]MCPServer); isList {
		return s, ""
	}
	if !ok {
		return nil, "must be a list of servers, each a mapping with name and command or url"
	}
	out := make([]MCPServer, 0, len(items))
	for i, item := range items {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, fmt.Sprintf("entry %d must be a mapping with name and command or url", i+1)
		}
		srv, reason := decodeServer(m)
		if reason != "" {
			name := fmt.Sprintf("entry %d", i+1)
			if srv.Name != "" {
				name = "server " + srv.Name
			}
			return nil, name + ": " + reason
		}
		out = append(out, srv)
	}
	return out, ""
}

func decodeServer(m map[string]any) (MCPServer, string) {
	var s MCPServer
	for k := range m {
		if !slices.Contains(mcpServerKeys, k) {
			return s, fmt.Sprintf("unknown key %q (a server takes %s)", k, strings.Join(mcpServerKeys, ", "))
		}
	}
	if v, ok := m["name"]; ok {
		name, reason := decodeString(v)
		if reason != "" {
			return s, "name " + reason
		}
		s.Name = name.(string)
	}
	if v, ok := m["command"]; ok && v != nil {
		switch c := v.(type) {
		case string:
			s.Command = strings.Fields(c)
		case []any:
			for _, a := range c {
				arg, reason := decodeString(a)
				if reason != "" {
					return s, "command: every item " + reason
				}
				s.Command = append(s.Command, arg.(string))
			}
		default:
			return s, "command must be a list like [npx, -y, @modelcontextprotocol/server-filesystem, /data]"
		}
	}
	if v, ok := m["url"]; ok && v != nil {
		u, reason := decodeString(v)
		if reason != "" {
			return s, "url " + reason
		}
		s.URL = u.(string)
	}
	for _, f := range []struct {
		key string
		dst *map[string]string
	}{{"env", &s.Env}, {"headers", &s.Headers}} {
		v, ok := m[f.key]
		if !ok || v == nil {
			continue
		}
		mm, ok := v.(map[string]any)
		if !ok {
			return s, f.key + " must be a mapping of names to values"
		}
		*f.dst = map[string]string{}
		for k, x := range mm {
			val, reason := decodeString(x)
			if reason != "" {
				return s, fmt.Sprintf("%s.%s %s", f.key, k, reason)
			}
			(*f.dst)[k] = val.(string)
		}
	}
	s.Approval = MCPApproval{Mode: ApprovalAlways}
	if v, ok := m["approval"]; ok && v != nil {
		switch a := v.(type) {
		case string:
			switch strings.TrimSpace(a) {
			case ApprovalAlways, ApprovalNever:
				s.Approval.Mode = strings.TrimSpace(a)
			default:
				return s, fmt.Sprintf("approval %q must be always or never (exceptions for single tools are rules under safety.rules)", a)
			}
		case []any:
			listed := make([]string, 0, len(a))
			for _, x := range a {
				listed = append(listed, fmt.Sprint(x))
			}
			return s, "approval: " + approvalListGone(s.Name, listed)
		default:
			return s, "approval must be always or never (exceptions for single tools are rules under safety.rules)"
		}
	}
	if v, ok := m["timeout"]; ok && v != nil {
		d, reason := decodeDuration(v)
		if reason != "" {
			return s, "timeout " + reason
		}
		s.Timeout = d.(time.Duration)
	}
	return s, ""
}

// validateServers checks mcp.servers: each name well formed and unique, one
// of command and url, a usable URL and a timeout within bounds. approval:
// never is fine under any preset: strict asks for every MCP tool anyway.
func validateServers(c *Config) *Error {
	seen := map[string]bool{}
	for i, s := range c.MCP.Servers {
		key := fmt.Sprintf("mcp.servers[%d]", i)
		fail := func(field, value, reason string) *Error {
			return &Error{Key: "mcp.servers", Value: value, Reason: fmt.Sprintf("%s.%s: %s", key, field, reason)}
		}
		switch {
		case !serverNameRe.MatchString(s.Name):
			return fail("name", s.Name, "must be lower-case letters, digits and _ (it names the tools: NAME__TOOL)")
		case seen[s.Name]:
			return fail("name", s.Name, "is used by two servers; give each its own name")
		case len(s.Command) == 0 && s.URL == "":
			return fail("command", "", "is missing: give command (a local server) or url (a remote one)")
		case len(s.Command) > 0 && s.URL != "":
			return fail("url", secret.Mask(s.URL), "is given with command; give one of the two")
		case s.Timeout < 0 || s.Timeout > time.Hour:
			return fail("timeout", s.Timeout.String(), "must be between 0s (the default, 60s) and 1h")
		}
		seen[s.Name] = true
		if s.URL != "" {
			if u, err := url.Parse(s.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return fail("url", secret.Mask(s.URL), "must be an http or https URL of a Streamable HTTP MCP endpoint")
			}
		}
		if len(s.Env) > 0 && len(s.Command) == 0 {
			return fail("env", "", "only applies to a server started with command")
		}
	}
	return nil
}

// publicServers is mcp.servers as GET /config shows it: env and header
// values, which often hold keys, are masked, and so are secrets in the
// command line (--token VALUE) and the URL (?api_key=).
func publicServers(list []MCPServer) []map[string]any {
	out := make([]map[string]any, 0, len(list))
	for _, s := range list {
		m := map[string]any{"name": s.Name, "timeout": s.Timeout.String()}
		if len(s.Command) > 0 {
			m["command"] = secret.MaskArgv(s.Command)
		}
		if s.URL != "" {
			m["url"] = secret.Mask(s.URL)
		}
		for key, vals := range map[string]map[string]string{"env": s.Env, "headers": s.Headers} {
			if len(vals) > 0 {
				masked := map[string]string{}
				for k := range vals {
					masked[k] = "***"
				}
				m[key] = masked
			}
		}
		m["approval"] = s.Approval.Mode
		out = append(out, m)
	}
	return out
}
