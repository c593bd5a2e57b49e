package server

import (
	"encoding/json"
	"net/url"
	"path"
	"strings"
	"unicode"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/tools"
)

// Session grants (CONTRACT section 11). A grant names a tool and a pattern over
// one of its arguments: the folder of a file path, the host of a URL, or any
// query. Grants are offered only for the tools below, and never for a call
// whose arguments hold invisible or control characters: what a person approves
// must read as what it matches.

// grantSubject is the argument value a grant of tool is about, cleaned; ok is
// false for a tool that takes no grants or arguments that cannot be read.
func grantSubject(tool string, args json.RawMessage) (subject string, ok bool) {
	var a struct {
		Path string `json:"path"`
		URL  string `json:"url"`
	}
	if json.Unmarshal(args, &a) != nil {
		return "", false
	}
	switch tool {
	case tools.WriteFile, tools.ReadFile:
		if a.Path == "" {
			return "", false
		}
		return cleanPath(a.Path), true
	case tools.ListDirectory:
		if a.Path == "" {
			a.Path = "."
		}
		return cleanPath(a.Path), true
	case tools.ReadWebpage:
		u, err := url.Parse(strings.TrimSpace(a.URL))
		if err != nil || u.Hostname() == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return "", false
		}
		return strings.ToLower(u.Hostname()), true
	case tools.WebSearch:
		return "*", true
	}
	return "", false
}

// cleanPath is a workspace path as grants compare it.
func cleanPath(p string) string { return path.Clean(strings.TrimSpace(p)) }

// grantOffer is the grant a pending call may be approved with, or nil: never
// for a tool without grants, nor for arguments with invisible characters, nor
// under a preset that would ignore the grant.
func grantOffer(preset tools.Preset, tool string, args json.RawMessage) *api.GrantOffer {
	if ignoresGrants(preset, tool) || hasInvisible(args) {
		return nil
	}
	subject, ok := grantSubject(tool, args)
	if !ok || strings.HasPrefix(subject, "/") || subject == ".." || strings.HasPrefix(subject, "../") {
		return nil
	}
	switch tool {
	case tools.WriteFile, tools.ReadFile:
		dir, verb := path.Dir(subject), "write"
		if tool == tools.ReadFile {
			verb = "read"
		}
		if dir == "." {
			return &api.GrantOffer{Pattern: "*", Label: verb + " files in the workspace's top folder for this session"}
		}
		return &api.GrantOffer{Pattern: dir + "/*", Label: verb + " files in " + dir + "/ for this session"}
	case tools.ListDirectory:
		return &api.GrantOffer{Pattern: subject, Label: "list the folder " + subject + " for this session"}
	case tools.ReadWebpage:
		return &api.GrantOffer{Pattern: subject, Label: "read pages on " + subject + " for this session"}
	case tools.WebSearch:
		return &api.GrantOffer{Pattern: "*", Label: "search the web for this session"}
	}
	return nil
}

// ignoresGrants reports whether preset asks about tool whatever the grants say:
// strict ignores grants for the tools it lists.
func ignoresGrants(preset tools.Preset, tool string) bool {
	return preset.Name == tools.PresetStrict && preset.NeedsApproval(tool)
}

// grantCovers reports whether a stored grant lets a call run without asking.
func grantCovers(g api.SessionGrant, tool string, args json.RawMessage) bool {
	if g.ToolName != tool || hasInvisible(args) {
		return false
	}
	subject, ok := grantSubject(tool, args)
	if !ok {
		return false
	}
	switch tool {
	case tools.WriteFile, tools.ReadFile:
		// path.Match's * never crosses a /: notes/* is the folder, not below it.
		matched, err := path.Match(g.Pattern, subject)
		return err == nil && matched
	default:
		return g.Pattern == "*" || g.Pattern == subject
	}
}

// hasInvisible reports whether any key or string value of args holds an
// invisible character.
func hasInvisible(args json.RawMessage) bool {
	var v any
	if json.Unmarshal(args, &v) != nil {
		return true
	}
	var walk func(v any) bool
	walk = func(v any) bool {
		switch t := v.(type) {
		case string:
			return strings.IndexFunc(t, invisible) >= 0
		case map[string]any:
			for k, x := range t {
				if strings.IndexFunc(k, invisible) >= 0 || walk(x) {
					return true
				}
			}
		case []any:
			for _, x := range t {
				if walk(x) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}

// invisible reports whether r is a character that does not show as itself:
// control characters other than newline and tab (a file's lines and indents
// read plainly), format characters (zero-width, bidi), private-use ones, the
// no-break space and the replacement character.
func invisible(r rune) bool {
	if r == '\n' || r == '\t' {
		return false
	}
	return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Co) || r == '\u00a0' || r == unicode.ReplacementChar
}
