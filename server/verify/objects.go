package verify

import (
	"encoding/json"
	"path"
	"strings"

	"github.com/ailab/ai-lab/tools"
)

// A claim is held to a run of the same kind of action on the same object.
// The kind comes from the tool's one identity record (tools.Identity): the
// server's record of the run, else Validator.Identities, else the built-in
// catalog. The object is compared with every string the run's arguments hold,
// since an MCP tool may name its path or URL argument as it likes.

// identity returns the identity record of the tool named name.
func (v Validator) identity(name string) tools.Identity {
	if id, ok := v.Identities[name]; ok && id.Action != "" {
		return id
	}
	return tools.IdentityByName(name)
}

// runAction returns what a run of the turn did.
func (v Validator) runAction(r Run) tools.Action {
	if r.Identity.Action != "" {
		return v.actionOf(r.ToolName, r.Identity)
	}
	if id, ok := v.Identities[r.ToolName]; ok && id.Action != "" {
		return v.actionOf(r.ToolName, id)
	}
	// A tool without an identity record is of unknown effect: its name
	// alone backs nothing.
	return tools.IdentityByName(r.ToolName).Action
}

// matchesByAction reports whether action names what a tool does well enough
// to match runs of other tools by it: an outside tool of unknown effect does
// nothing a claim can name.
func matchesByAction(a tools.Action) bool {
	return a != "" && a != tools.ActionCall && a != tools.ActionReadOnly
}

// argStrings returns every string value of a JSON arguments object, nested
// ones included, and whether there were arguments to compare at all.
func argStrings(raw json.RawMessage) ([]string, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil, false
	}
	var out []string
	var walk func(any)
	walk = func(x any) {
		switch t := x.(type) {
		case string:
			out = append(out, t)
		case map[string]any:
			for _, e := range t {
				walk(e)
			}
		case []any:
			for _, e := range t {
				walk(e)
			}
		}
	}
	walk(v)
	// Arguments that name no path or address (an id, a number, free text)
	// say nothing a claim's object can be compared with.
	for _, o := range out {
		if looksLikeObject(o) {
			return out, true
		}
	}
	return out, false
}

// looksLikeObject reports whether an argument value names a path, a file or
// a web address.
func looksLikeObject(o string) bool {
	o = strings.TrimSpace(o)
	if o == "" || strings.ContainsAny(o, " \t\n") && !strings.Contains(o, "://") {
		return false
	}
	return strings.ContainsAny(o, "/\\") || isFileName(strings.ToLower(o)) || isWebObject(strings.ToLower(o)) || o == "."
}

// objectMatches reports whether the object a claim names is one of a run's
// argument values: the same web host, or the same path once both are cleaned
// ("./notes.txt" is notes.txt), a bare file name matching a path that ends in
// it. Case is ignored, as a reader would.
func objectMatches(claimed string, values []string) bool {
	c := strings.ToLower(strings.TrimSpace(claimed))
	if c == "" {
		return true
	}
	if isWebObject(c) {
		host := hostOf(c)
		for _, v := range values {
			if hostOf(strings.ToLower(strings.TrimSpace(v))) == host {
				return true
			}
		}
		return false
	}
	c = cleanPath(c)
	for _, v := range values {
		p := cleanPath(strings.ToLower(strings.TrimSpace(v)))
		if p == c || strings.HasSuffix(p, "/"+c) {
			return true
		}
	}
	return false
}

func isWebObject(w string) bool {
	return strings.HasPrefix(w, "http://") || strings.HasPrefix(w, "https://") || strings.HasPrefix(w, "www.") || isDomain(w)
}

// hostOf returns the host of a URL or bare domain, without "www.".
func hostOf(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	}
	if i := strings.IndexAny(u, "/?#"); i >= 0 {
		u = u[:i]
	}
	if i := strings.LastIndexByte(u, '@'); i >= 0 {
		u = u[i+1:]
	}
	if i := strings.LastIndexByte(u, ':'); i >= 0 && !strings.Contains(u[i:], "]") {
		u = u[:i]
	}
	return strings.TrimPrefix(u, "www.")
}

// cleanPath returns p slash-separated and cleaned, without "./" or a
// trailing slash.
func cleanPath(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	if p == "" {
		return p
	}
	p = path.Clean(p)
	return strings.TrimPrefix(p, "./")
}
