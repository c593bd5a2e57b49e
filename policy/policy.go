// Package policy is the one place that decides whether a tool call runs, asks
// the user or is refused, and says why in words. Everything else asks it: the
// tool loop before each call, GET /tools, the grant offers in the approval
// table, `ai-server policy explain`.
//
// It decides on a call's identity (tools.Identity: what the tool does and to
// what) and its canonical object (tools.Object: the workspace path the tool
// will really touch after following links, the host the dialer will really
// reach), never on the model's spelling of them. Its inputs are, in the order
// they are checked: the deny rules, the ask rules, the session grants and the
// allow rules, then the preset and the MCP servers' approval settings. Rules
// and grants are data matched literally: a folder prefix of the canonical
// path, an exact host, or a host suffix where the user wrote "*." in a rule.
// Nothing the model writes is ever read as a pattern.
//
// It must never run a tool, change a file or keep state: a decision is a pure
// function of the config, the session's grants and the file system as it is.
package policy

import (
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/config"
	"github.com/ailab/ai-lab/tools"
	"github.com/ailab/ai-lab/visible"
	"github.com/ailab/ai-lab/websearch"
)

// A Verdict is what happens to a call.
type Verdict string

// Verdicts.
const (
	Run  Verdict = "run"  // the call runs without asking
	Ask  Verdict = "ask"  // the call waits for the user's decision
	Deny Verdict = "deny" // the call is refused; it never runs
)

// A Decision is the policy's answer for one call.
type Decision struct {
	Verdict Verdict
	// By is who decided a call that runs or is refused: api.DecisionAuto
	// (the preset or an MCP setting needed no approval), api.DecisionGrant
	// or api.DecisionRule; "" for a call that asks.
	By string
	// Reason says why in words: "preset moderate: write_file asks", "rule 2
	// in config.yaml: allow write_file in notes/", "session grant g_1a2b:
	// write files in notes/".
	Reason string
}

// A Call is one tool call as the model made it.
type Call struct {
	Name string
	Args json.RawMessage
}

// A Policy decides calls under one config with one set of tools. It is cheap
// to make: build one for each decision from the config in force.
type Policy struct {
	cfg   *config.Config
	tools *tools.Registry // nil: identities by name, objects unknown
}

// New returns the policy of cfg over the tools of reg (nil when the tools
// are not at hand: then only rules and settings without a scope can match).
func New(cfg *config.Config, reg *tools.Registry) *Policy {
	return &Policy{cfg: cfg, tools: reg}
}

// subject is a call as the policy sees it: who the tool is and what the call
// acts on, canonical; objErr is why the object could not be resolved (the
// tool would refuse the call).
type subject struct {
	id     tools.Identity
	obj    tools.Object
	objErr error
	hidden bool // the arguments hold a deceptive character
}

func (p *Policy) subject(c Call) subject {
	s := subject{id: tools.IdentityByName(c.Name), obj: tools.Object{Kind: tools.ObjectNone}, hidden: argsHidden(c.Args)}
	if p.tools != nil {
		if t, ok := p.tools.Get(c.Name); ok {
			s.id = tools.IdentityOf(t)
			s.obj, s.objErr = tools.Locate(t, c.Args)
			s.hidden = s.hidden || objectHidden(s.obj)
		}
	}
	return s
}

// Decide says whether c runs, asks or is refused under the config, with the
// session's grants, and why: a matching deny rule wins, then an ask rule,
// then a session grant or an allow rule, then the preset (and, for an MCP
// tool, its server's approval setting). A tool nothing names asks.
func (p *Policy) Decide(c Call, grants []api.SessionGrant) Decision {
	s := p.subject(c)
	rules := p.cfg.Safety.Rules
	for _, effect := range []string{config.RuleDeny, config.RuleAsk} {
		for i, r := range rules {
			if r.Effect == effect && p.ruleMatches(r, s) {
				d := Decision{Verdict: Ask, Reason: p.ruleName(i, r)}
				if effect == config.RuleDeny {
					d.Verdict, d.By = Deny, api.DecisionRule
				}
				return d
			}
		}
	}
	preset := p.cfg.Preset()
	if !p.ignoresGrants(s.id) {
		for _, g := range grants {
			if grantCovers(g, s) {
				return Decision{Verdict: Run, By: api.DecisionGrant, Reason: "session grant " + g.GrantID + ": " + grantLabel(g.ToolName, g.Pattern)}
			}
		}
	}
	for i, r := range rules {
		if r.Effect == config.RuleAllow && p.ruleMatches(r, s) {
			return Decision{Verdict: Run, By: api.DecisionRule, Reason: p.ruleName(i, r)}
		}
	}
	return p.byPreset(s.id, preset)
}

// byPreset is the decision when no rule or grant names the call.
func (p *Policy) byPreset(id tools.Identity, preset tools.Preset) Decision {
	name := "preset " + preset.Name
	if id.Source != tools.SourceBuiltin {
		if preset.Name == tools.PresetStrict {
			return Decision{Verdict: Ask, Reason: name + ": every MCP tool asks"}
		}
		if srv, ok := p.server(id.Server); ok {
			if srv.Approval.Mode == config.ApprovalNever {
				return Decision{Verdict: Run, By: api.DecisionAuto, Reason: "MCP server " + id.Server + " has approval: never"}
			}
			return Decision{Verdict: Ask, Reason: "MCP server " + id.Server + " has approval: always"}
		}
		return Decision{Verdict: Ask, Reason: "no rule, grant or setting names " + id.Name + ", so it asks"}
	}
	switch {
	case !preset.ApprovalMode:
		return Decision{Verdict: Run, By: api.DecisionAuto, Reason: name + ": approval is off"}
	case slices.Contains(preset.RequiresApproval, id.Name):
		return Decision{Verdict: Ask, Reason: name + ": " + id.Name + " asks"}
	}
	return Decision{Verdict: Run, By: api.DecisionAuto, Reason: name + ": " + id.Name + " runs without asking"}
}

func (p *Policy) server(name string) (config.MCPServer, bool) {
	for _, s := range p.cfg.MCP.Servers {
		if s.Name == name {
			return s, true
		}
	}
	return config.MCPServer{}, false
}

// ignoresGrants reports whether the preset asks about the tool whatever the
// session's grants say: strict ignores grants for the tools it lists, and
// for every MCP tool.
func (p *Policy) ignoresGrants(id tools.Identity) bool {
	preset := p.cfg.Preset()
	if preset.Name != tools.PresetStrict {
		return false
	}
	return id.Source != tools.SourceBuiltin || slices.Contains(preset.RequiresApproval, id.Name)
}

// ruleName is how a reason names rule i: "rule 2 in config.yaml: allow
// write_file in notes/".
func (p *Policy) ruleName(i int, r config.Rule) string {
	where := config.FileName
	if p.cfg.Path != "" {
		where = filepath.Base(p.cfg.Path)
	}
	if r.Line == 0 {
		where = "AILAB_SAFETY_RULES"
	}
	return fmt.Sprintf("rule %d in %s: %s", i+1, where, r)
}

// ruleMatches reports whether rule r names the call: its tool (or every tool
// of its MCP server), and its folder or host when it has one. A rule with a
// scope matches only a call whose object was resolved; deny and ask rules
// match when any path of the call lies in the folder, allow rules only when
// every path does.
func (p *Policy) ruleMatches(r config.Rule, s subject) bool {
	if server, ok := strings.CutSuffix(r.Tool, "__*"); ok {
		if s.id.Server != server || s.id.Source == tools.SourceBuiltin {
			return false
		}
	} else if r.Tool != s.id.Name {
		return false
	}
	switch {
	case r.Path != "":
		if s.objErr != nil || s.obj.Kind != tools.ObjectPath || len(s.obj.Paths) == 0 {
			return false
		}
		in := func(q string) bool { return inFolder(q, r.Path) }
		if r.Effect == config.RuleAllow {
			return !s.hidden && !slices.ContainsFunc(s.obj.Paths, func(q string) bool { return !in(q) })
		}
		return slices.ContainsFunc(s.obj.Paths, in)
	case r.Host != "":
		if s.objErr != nil || s.obj.Kind != tools.ObjectHost || s.obj.Host == "" {
			return false
		}
		if r.Effect == config.RuleAllow && s.hidden {
			return false
		}
		if sub, ok := strings.CutPrefix(r.Host, "*."); ok {
			return strings.HasSuffix(s.obj.Host, "."+sub)
		}
		return s.obj.Host == r.Host
	}
	return true
}

// inFolder reports whether the canonical path q lies in folder (a folder
// written "notes/" or "notes", "./" or "." for the whole workspace): the
// folder itself or anything below it, compared as text on canonical paths,
// so "notes-old/x" is not in "notes/".
func inFolder(q, folder string) bool {
	f := strings.TrimSuffix(folder, "/")
	if f == "." || f == "" {
		return true
	}
	return q == f || strings.HasPrefix(q, f+"/")
}

// argsHidden reports whether a key of args, or a string value, holds a
// deceptive character (or args is not JSON): such a call never gets or uses a
// grant, nor an allow rule with a scope. Line breaks and tabs pass in values
// (a file's content has them); the object itself is held to visible.In by
// objectHidden.
func argsHidden(args json.RawMessage) bool {
	var v any
	if json.Unmarshal(args, &v) != nil {
		return true
	}
	var walk func(v any) bool
	walk = func(v any) bool {
		switch t := v.(type) {
		case string:
			return strings.ContainsFunc(t, func(r rune) bool { return r != '\n' && r != '\t' && r != '\r' && visible.Deceptive(r) })
		case map[string]any:
			for k, x := range t {
				if visible.In(k) || walk(x) {
					return true
				}
			}
		case []any:
			return slices.ContainsFunc(t, walk)
		}
		return false
	}
	return walk(v)
}

// objectHidden reports whether what the call acts on, as the model wrote it,
// holds a deceptive character, line breaks included.
func objectHidden(o tools.Object) bool {
	return slices.ContainsFunc(o.Given, visible.In) || visible.In(o.Query) || visible.In(o.Host)
}

// grantScope is what a stored grant of tool with pattern covers: a folder of
// the workspace for the file tools (pattern "notes/*", "./*" for the whole
// workspace; the legacy "*" the top folder alone), a host for read_webpage,
// any query for web_search. ok is false for a pattern that names nothing, and
// for a folder that cannot be shown plainly (a grant stored by an older
// version from a path such as "*/x": it covers nothing now).
type grantScope struct {
	folder   string // canonical folder, "." for the whole workspace
	topOnly  bool   // the legacy "*": files directly in the workspace
	host     string
	anything bool
}

func scopeOf(tool, pattern string) (grantScope, bool) {
	switch tool {
	case tools.WriteFile, tools.ReadFile:
		if pattern == "*" {
			return grantScope{folder: ".", topOnly: true}, true
		}
		f, ok := strings.CutSuffix(pattern, "/*")
		if !ok || f == "" || !plainPath(f) || visible.In(f) {
			return grantScope{}, false
		}
		return grantScope{folder: path.Clean(f)}, true
	case tools.ListDirectory:
		if pattern == "" || !plainPath(pattern) || visible.In(pattern) {
			return grantScope{}, false
		}
		return grantScope{folder: path.Clean(pattern)}, true
	case tools.ReadWebpage:
		h, err := websearch.CanonicalHost(pattern)
		return grantScope{host: h}, err == nil
	case tools.WebSearch:
		return grantScope{anything: true}, pattern == "*"
	}
	return grantScope{}, false
}

// grantCovers reports whether grant g lets the call s run without asking:
// the same tool, arguments a person can read, an object resolved as the
// tool resolves it, and every path in the grant's folder (or the host equal
// to the grant's).
func grantCovers(g api.SessionGrant, s subject) bool {
	if g.ToolName != s.id.Name || s.id.Source != tools.SourceBuiltin || s.hidden || s.objErr != nil {
		return false
	}
	sc, ok := scopeOf(g.ToolName, g.Pattern)
	if !ok {
		return false
	}
	switch {
	case sc.anything:
		return s.obj.Kind == tools.ObjectQuery
	case sc.host != "":
		return s.obj.Kind == tools.ObjectHost && s.obj.Host == sc.host
	}
	if s.obj.Kind != tools.ObjectPath || len(s.obj.Paths) == 0 {
		return false
	}
	for _, q := range s.obj.Paths {
		if sc.topOnly && strings.Contains(q, "/") || !inFolder(q, sc.folder) {
			return false
		}
	}
	return true
}

// grantLabel is a grant in words, as offers and reasons show it.
func grantLabel(tool, pattern string) string {
	sc, ok := scopeOf(tool, pattern)
	if !ok {
		return tool + " " + pattern
	}
	verb := map[string]string{tools.WriteFile: "write", tools.ReadFile: "read"}[tool]
	switch {
	case tool == tools.WebSearch:
		return "search the web"
	case sc.host != "":
		return "read pages on " + sc.host
	case tool == tools.ListDirectory && sc.folder == ".":
		return "list any folder of the workspace"
	case tool == tools.ListDirectory:
		return "list the folder " + sc.folder + " and its subfolders"
	case sc.topOnly:
		return verb + " files in the workspace's top folder"
	case sc.folder == ".":
		return verb + " files anywhere in the workspace"
	}
	return verb + " files in " + sc.folder + "/"
}

// Describe says in words what call c acts on as the policy sees it, for a
// person asking why it did or did not ask: the canonical paths (and how the
// model wrote them, when that differs), the host, or why the object cannot
// be resolved. It is "" for a tool with no object.
func (p *Policy) Describe(c Call) string {
	s := p.subject(c)
	switch {
	case s.objErr != nil:
		return "its object cannot be resolved, so no rule or grant with a folder or host matches: " + s.objErr.Error()
	case s.obj.Kind == tools.ObjectHost:
		return "it reaches the host " + strconvQuote(s.obj.Host)
	case s.obj.Kind != tools.ObjectPath:
		return ""
	}
	var parts []string
	for i, q := range s.obj.Paths {
		part := strconvQuote(q)
		if i < len(s.obj.Given) && s.obj.Given[i] != q {
			part += ", written " + strconvQuote(s.obj.Given[i])
		}
		parts = append(parts, part)
	}
	out := "it acts on " + strings.Join(parts, " and ")
	if s.hidden {
		out += "; its arguments hold invisible or control characters, so no grant and no allow rule with a folder covers it"
	}
	return out
}

// strconvQuote quotes s with its invisible characters escaped.
func strconvQuote(s string) string { return `"` + visible.Escape(s) + `"` }
