package mcp

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"
)

// A ServerConfig is one entry of config.yaml's mcp.servers (CONTRACT section 12).
// Exactly one of Command and URL is set.
type ServerConfig struct {
	// Name is [a-z0-9_]+ and unique; the server's tools are NAME__TOOL.
	Name string
	// Command is the argv of a server spoken to over stdio.
	Command []string
	// URL is a Streamable HTTP endpoint.
	URL string
	// Env is extra environment for Command, on top of ai-server's own.
	Env map[string]string
	// Headers are extra HTTP headers sent to URL (an Authorization token).
	Headers map[string]string
	// Approval says which of the server's tools need the user's decision.
	Approval Approval
	// Timeout bounds one tool call, and the start of the server; 0 means
	// DefaultTimeout.
	Timeout time.Duration
}

// An Approval is a server's approval setting: always, never, or a list of its
// tools. The zero value (Mode "") means always, so a setting forgotten on the
// way from config.yaml never lets a tool run unasked.
type Approval struct {
	// Mode is ApprovalAlways, ApprovalNever or ApprovalList.
	Mode string
	// Tools are, for ApprovalList, the tools that need approval: the server's
	// own names (read_text_file) or the names the model sees (files__read_text_file).
	Tools []string
}

// The approval modes.
const (
	ApprovalAlways = "always"
	ApprovalNever  = "never"
	ApprovalList   = "list"
)

// DefaultTimeout bounds a call (and a start) when ServerConfig.Timeout is 0.
const DefaultTimeout = 60 * time.Second

var serverNameRe = regexp.MustCompile(`^[a-z0-9_]+$`)

// needs reports whether tool (the server's own name for it) needs approval
// under this setting alone; the preset in force may ask for more.
func (a Approval) needs(server, tool string) bool {
	switch a.Mode {
	case ApprovalNever:
		return false
	case ApprovalList:
		return slices.Contains(a.Tools, tool) || slices.Contains(a.Tools, server+"__"+tool)
	default:
		return true
	}
}

func (c ServerConfig) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

// ValidateServers checks servers as config.yaml's mcp.servers, naming each
// problem by its key (mcp.servers[1].url). It returns every problem at once.
func ValidateServers(servers []ServerConfig) error {
	var errs []error
	seen := make(map[string]int, len(servers))
	for i, c := range servers {
		key := fmt.Sprintf("mcp.servers[%d]", i)
		bad := func(field, format string, args ...any) {
			errs = append(errs, fmt.Errorf("%s.%s: %s", key, field, fmt.Sprintf(format, args...)))
		}
		switch {
		case c.Name == "":
			bad("name", "is missing; give the server a name made of a-z, 0-9 and _")
		case !serverNameRe.MatchString(c.Name):
			bad("name", "%q may only hold a-z, 0-9 and _", c.Name)
		default:
			if j, dup := seen[c.Name]; dup {
				bad("name", "%q is already the name of mcp.servers[%d]", c.Name, j)
			}
			seen[c.Name] = i
		}
		switch {
		case len(c.Command) == 0 && c.URL == "":
			bad("command", "neither command nor url is set; give one")
		case len(c.Command) > 0 && c.URL != "":
			bad("url", "both command and url are set; give one")
		case len(c.Command) > 0:
			if strings.TrimSpace(c.Command[0]) == "" {
				bad("command", "the program (its first word) is empty")
			}
		default:
			if u, err := url.Parse(c.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				bad("url", "%q is not an http or https URL", c.URL)
			}
		}
		if len(c.Env) > 0 && c.URL != "" {
			bad("env", "is for a command server; a url server takes headers")
		}
		for k := range c.Env {
			if k == "" || strings.ContainsAny(k, "=\x00") {
				bad("env", "%q is not a valid variable name", k)
			}
		}
		if len(c.Headers) > 0 && len(c.Command) > 0 {
			bad("headers", "are for a url server; a command server takes env")
		}
		for k, v := range c.Headers {
			if !httpguts.ValidHeaderFieldName(k) || !httpguts.ValidHeaderFieldValue(v) {
				bad("headers", "%q is not a valid HTTP header", k)
			}
		}
		switch c.Approval.Mode {
		case "", ApprovalAlways, ApprovalNever:
			if len(c.Approval.Tools) > 0 {
				bad("approval", "lists tools but its mode is %q", c.Approval.Mode)
			}
		case ApprovalList:
			for _, t := range c.Approval.Tools {
				if t == "" {
					bad("approval", "lists an empty tool name")
				}
			}
		default:
			bad("approval", "%q is not always, never or a list of tools", c.Approval.Mode)
		}
		if c.Timeout < 0 {
			bad("timeout", "%s is negative", c.Timeout)
		}
	}
	return errors.Join(errs...)
}
