package client

import (
	"fmt"

	"github.com/charmbracelet/x/ansi"

	"github.com/ailab/ai-lab/api"
)

// What s (approve for the session) and r (approve always) show before they ask,
// in the TUI and in the one-shot mode alike. The server alone decides whether a
// call may be approved more widely than once: it sends a grant offer, or says in
// NoGrant why there is none, and this file only puts that into words.

// ApproveOnce is the key advice that follows a notice that s or r cannot be used.
const ApproveOnce = "y approves this one"

// WhyNoGrant is the server's reason that p carries no grant offer, escaped as
// Visible does, or a plain sentence when the server gave none.
func WhyNoGrant(p api.PendingTool) string {
	if p.NoGrant == "" {
		return "no session grant is offered for this call"
	}
	return Visible(p.NoGrant)
}

// A SavedRule is the allow rule that approving a call with scope always adds to
// config.yaml, built from the call's grant offer.
type SavedRule struct {
	Words string // for people: "allow write_file in notes/"
	YAML  string // as written in safety.rules: {allow: write_file, path: "notes/"}
}

// RuleOf is the rule that approving p with scope always saves, as the server
// offers it with the grant (the folder, the host, or web_search alone),
// escaped as Visible does. It reports false when p carries no offer or its
// offer makes no rule (the top folder alone).
func RuleOf(p api.PendingTool) (SavedRule, bool) {
	if p.Grant == nil || p.Grant.Rule == nil {
		return SavedRule{}, false
	}
	return SavedRule{Words: Visible(p.Grant.Rule.Text), YAML: Visible(p.Grant.Rule.YAML)}, true
}

// GrantLines are what s shows above its question: the session grant offered
// with the current call, what it lets through and how many more calls of the
// batch it approves. They are nil when the call carries no offer.
func (b *Batch) GrantLines() []string {
	if !b.CanGrant() {
		return nil
	}
	p := b.Pending[b.Current()]
	lines := []string{
		"Session grant: " + Visible(p.Grant.Label),
		fmt.Sprintf("  Later %s calls matching %s run without asking (/grants revokes).", Visible(p.ToolName), Visible(p.Grant.Pattern)),
	}
	return append(lines, b.coversLine()...)
}

// RuleLines are what r shows above its question: the rule it would save in
// config.yaml, as words and as written there, and how many more calls of the
// batch it approves. They are nil when the call carries no offer or the offer
// makes no rule (see RuleOf).
func (b *Batch) RuleLines() []string {
	if !b.CanGrant() {
		return nil
	}
	r, ok := RuleOf(b.Pending[b.Current()])
	if !ok {
		return nil
	}
	lines := []string{
		"Rule for config.yaml: " + r.Words,
		"  Adds " + r.YAML + " to the rules in config.yaml.",
		"  Later such calls run without asking in every session; /rules lists the rules.",
	}
	return append(lines, b.coversLine()...)
}

// NoRule is what r says for the current call when RuleLines is nil: why no rule
// can be saved, and the key advice to show after it, never cut.
func (b *Batch) NoRule() (notice, advice string) {
	p := b.Pending[b.Current()]
	if p.Grant == nil {
		return WhyNoGrant(p), ApproveOnce
	}
	return "no rule can be saved for the grant offered (" + Visible(p.Grant.Label) + ")", "s gives it for this session, " + ApproveOnce
}

func (b *Batch) coversLine() []string {
	n := b.GrantCovers()
	if n == 0 {
		return nil
	}
	what := fmt.Sprintf("%d more calls", n)
	if n == 1 {
		what = "1 more call"
	}
	return []string{"  It also approves " + what + " of this batch that it covers."}
}

// Question is the y/n question that ends what s or r shows, its call label cut
// so that the line fits width (<= 0: no limit): "Approve write_file(path=a.txt)
// and save this rule? [y/n] (n): ".
func (b *Batch) Question(what string, width int) string {
	head, tail := "Approve ", " and "+what+"? [y/n] (n): "
	label := CallLabel(b.Pending[b.Current()])
	if width > 0 {
		label = cut(label, max(4, width-ansi.StringWidth(head+tail)))
	}
	return head + label + tail
}

// ScopeNotes are one line per decision that reaches beyond its call, for the
// conversation once the batch is sent: the session grant given, or the rule
// asked to be saved in config.yaml.
func (b *Batch) ScopeNotes() []string {
	var out []string
	for i, d := range b.Decisions {
		p := b.Pending[i]
		if p.Grant == nil {
			continue
		}
		switch d.Scope {
		case api.ScopeSession:
			out = append(out, fmt.Sprintf("Granted for this session: %s (%s %s). /grants lists and revokes grants.",
				Visible(p.Grant.Label), Visible(p.ToolName), Visible(p.Grant.Pattern)))
		case api.ScopeAlways:
			if r, ok := RuleOf(p); ok {
				out = append(out, fmt.Sprintf("Saving a rule in config.yaml: %s. /rules lists the rules in force.", r.Words))
			}
		}
	}
	return out
}
