package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/config"
	"github.com/ailab/ai-lab/tools"
)

// List is every entry that decides calls now, in the order they are checked:
// the deny rules, the ask rules, the allow rules (session grants, which are
// per session, sit beside these), then the preset's entry for each built-in
// tool and each configured MCP server's setting.
func (p *Policy) List() api.Policy {
	out := api.Policy{Preset: p.cfg.Preset().Name, Entries: []api.PolicyEntry{}}
	for _, effect := range []string{config.RuleDeny, config.RuleAsk, config.RuleAllow} {
		for i, r := range p.cfg.Safety.Rules {
			if r.Effect != effect {
				continue
			}
			scope := r.Path
			if r.Host != "" {
				scope = r.Host
			}
			name := p.ruleName(i, r)
			source, text, _ := strings.Cut(name, ": ")
			text = strings.TrimPrefix(text, r.Effect+" ")
			out.Entries = append(out.Entries, api.PolicyEntry{Source: source, Effect: r.Effect, Tool: r.Tool, Scope: scope, Text: text})
		}
	}
	preset := p.cfg.Preset()
	for _, name := range tools.Names {
		d := p.byPreset(tools.IdentityByName(name), preset)
		out.Entries = append(out.Entries, api.PolicyEntry{Source: "preset " + preset.Name, Effect: effectOf(d), Tool: name, Text: reasonText(d.Reason)})
	}
	servers := slices.Clone(p.cfg.MCP.Servers)
	slices.SortFunc(servers, func(a, b config.MCPServer) int { return strings.Compare(a.Name, b.Name) })
	for _, s := range servers {
		d := p.byPreset(tools.IdentityByName(s.Name+"__*"), preset)
		source, text := "MCP server "+s.Name, "every tool of "+s.Name+" (approval: "+s.Approval.Mode+")"
		if preset.Name == tools.PresetStrict {
			source, text = "preset "+preset.Name, "every tool of "+s.Name+" asks"
		}
		out.Entries = append(out.Entries, api.PolicyEntry{Source: source, Effect: effectOf(d), Tool: s.Name + "__*", Text: text})
	}
	return out
}

func effectOf(d Decision) string {
	if d.Verdict == Run {
		return config.RuleAllow
	}
	return string(d.Verdict)
}

// reasonText is a reason without the name of its source.
func reasonText(reason string) string {
	if _, text, ok := strings.Cut(reason, ": "); ok {
		return text
	}
	return reason
}

// FormatList writes the entries one a line for a terminal, columns aligned:
// "rule 1 in config.yaml  deny   read_file in secrets/".
func FormatList(pol api.Policy) string {
	var b strings.Builder
	fmt.Fprintf(&b, "preset: %s\n", pol.Preset)
	width := 0
	for _, e := range pol.Entries {
		width = max(width, len(e.Source))
	}
	for _, e := range pol.Entries {
		fmt.Fprintf(&b, "%-*s  %-5s  %s\n", width, e.Source, e.Effect, e.Text)
	}
	return b.String()
}
