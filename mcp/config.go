package mcp

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
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
	// Timeout bounds one tool call, and the start of the server; 0 means
	// DefaultTimeout.
	Timeout time.Duration
}

// DefaultTimeout bounds a call (and a start) when ServerConfig.Timeout is 0.
const DefaultTimeout = 60 * time.Second

var serverNameRe = regexp.MustCompile(`^[a-z0-9_]+$`)

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
		if c.Timeout < 0 {
			bad("timeout", "%s is negative", c.Timeout)
		}
	}
	return errors.Join(errs...)
}
