package policy

import (
	"errors"
	"path"
	"strings"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/config"
	"github.com/ailab/ai-lab/tools"
)

// grantTools are the tools a grant may be offered for, and what it covers:
// the folder of the path, the folder listed, the host, any query.
var grantTools = map[string]bool{
	tools.WriteFile: true, tools.ReadFile: true, tools.ListDirectory: true,
	tools.ReadWebpage: true, tools.WebSearch: true,
}

// Offer is the session grant a pending call may be approved with, built from
// its canonical object, or nil and the reason none is offered (one clause for
// people: "delete_file never takes a grant"). The pattern names a literal
// scope, a folder or a host, and is offered only for an object that can be
// shown plainly: no deceptive characters, no *, ?, [ or \ and no blank at
// the edge of a name, so what the person reads is what the grant covers.
func (p *Policy) Offer(c Call) (*api.GrantOffer, string) {
	s := p.subject(c)
	switch {
	case s.id.Source != tools.SourceBuiltin:
		return nil, s.id.Name + " is an MCP tool, which takes rules rather than grants (see /rules)"
	case !grantTools[c.Name]:
		return nil, c.Name + " never takes a grant: each such call asks"
	case p.ignoresGrants(s.id):
		return nil, "the strict preset asks for every " + c.Name + " call (/preset moderate allows grants)"
	case s.hidden:
		return nil, "its arguments hold invisible or control characters"
	case s.objErr != nil:
		return nil, "its object cannot be resolved (" + firstClause(s.objErr) + ")"
	}
	var pattern string
	switch s.obj.Kind {
	case tools.ObjectQuery:
		pattern = "*"
	case tools.ObjectHost:
		pattern = s.obj.Host
	case tools.ObjectPath:
		if len(s.obj.Paths) != 1 {
			return nil, c.Name + " never takes a grant: each such call asks"
		}
		for _, q := range append([]string{s.obj.Paths[0]}, s.obj.Given...) {
			if !plainPath(q) {
				return nil, "its path cannot be shown plainly (a *, ?, [, \\ or a blank at the edge of a name)"
			}
		}
		folder := s.obj.Paths[0]
		if c.Name != tools.ListDirectory {
			folder = path.Dir(folder)
		}
		if c.Name == tools.ListDirectory {
			pattern = folder
		} else {
			pattern = folder + "/*"
		}
	default:
		return nil, c.Name + " never takes a grant: each such call asks"
	}
	offer := &api.GrantOffer{Pattern: pattern, Label: grantLabel(c.Name, pattern) + " for this session"}
	offer.Rule = RuleOfferFor(c.Name, *offer)
	return offer, ""
}

// RuleOfferFor is the rule RuleFor makes of the grant g of tool, as a grant
// offer carries it for the client to show (nil when it makes none).
func RuleOfferFor(tool string, g api.GrantOffer) *api.RuleOffer {
	r, err := RuleFor(tool, g)
	if err != nil {
		return nil
	}
	return &api.RuleOffer{Text: r.String(), YAML: r.YAML()}
}

// plainPath reports whether a path reads as what it is: no wildcard or
// escape characters (they are names here, never patterns, but a person would
// read them as patterns) and no blank at either edge of a name.
func plainPath(q string) bool {
	if strings.ContainsAny(q, `*?[\`) {
		return false
	}
	for _, name := range strings.Split(q, "/") {
		if name != strings.TrimSpace(name) {
			return false
		}
	}
	return true
}

// firstClause is an error's message up to its first semicolon: the what,
// without the how-to-fix meant for the model.
func firstClause(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, ";"); i > 0 {
		msg = msg[:i]
	}
	return msg
}

// ErrNoRule is matched by RuleFor's refusal of a grant that names no rule.
var ErrNoRule = errors.New("no rule can be made from this grant")

// RuleFor is the allow rule that saves the grant offered for tool as a rule
// of config.yaml (a decision with scope "always"): the folder, the host, or
// the tool alone for web_search.
func RuleFor(tool string, g api.GrantOffer) (config.Rule, error) {
	sc, ok := scopeOf(tool, g.Pattern)
	if !ok || sc.topOnly {
		return config.Rule{}, ErrNoRule
	}
	r := config.Rule{Effect: config.RuleAllow, Tool: tool}
	switch {
	case sc.anything:
	case sc.host != "":
		r.Host = sc.host
	case sc.folder == ".":
		r.Path = "./"
	default:
		r.Path = sc.folder + "/"
	}
	return r, nil
}
