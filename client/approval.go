package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/secret"
	"github.com/ailab/ai-lab/visible"
)

// A Batch is one ApprovalRequiredResponse being decided: the pending calls in the
// model's order and the decisions made so far, in the same order. It is shared by
// the TUI and the one-shot mode so both send the same /chat/approve.
type Batch struct {
	SessionID string
	Message   string
	Pending   []api.PendingTool
	Decisions []api.Decision

	// granted are the offers given with Grant in this batch: a later call of the
	// batch with the same offer is what the user just allowed for the session, so
	// asking about it again would contradict the grant.
	granted []api.PendingTool
	covered map[int]bool // rows approved because a grant of this batch covers them
}

// NewBatch starts deciding the calls of an approval_required reply.
func NewBatch(r api.TurnReply) *Batch {
	return &Batch{SessionID: r.SessionID, Message: r.Message, Pending: r.ToolsPending}
}

// Current is the index of the call waiting for a decision; it equals len(Pending) when done.
func (b *Batch) Current() int { return len(b.Decisions) }

// Done reports whether every pending call has a decision.
func (b *Batch) Done() bool { return len(b.Decisions) >= len(b.Pending) }

// Remaining is the number of calls without a decision yet.
func (b *Batch) Remaining() int { return max(0, len(b.Pending)-len(b.Decisions)) }

// Decide records the decision for the current call; calls right after it that a
// grant of this batch covers are approved with it.
func (b *Batch) Decide(approved bool, feedback string) {
	if b.Done() {
		return
	}
	b.Decisions = append(b.Decisions, api.Decision{ToolCallID: b.Pending[b.Current()].ToolCallID, Approved: approved, Feedback: feedback})
	b.advance()
}

// DecideRest records the same decision for the current call and all after it.
func (b *Batch) DecideRest(approved bool) {
	b.rest(approved, "")
}

// DenyRest denies the current call and all after it, each with feedback (may be empty).
func (b *Batch) DenyRest(feedback string) {
	b.rest(false, feedback)
}

// rest decides every remaining call alike, covered ones too: the user answered for
// all of them at once, with their number in front of them.
func (b *Batch) rest(approved bool, feedback string) {
	for !b.Done() {
		b.Decisions = append(b.Decisions, api.Decision{ToolCallID: b.Pending[b.Current()].ToolCallID, Approved: approved, Feedback: feedback})
	}
}

// CanGrant reports whether the current call carries a grant offer.
func (b *Batch) CanGrant() bool {
	return !b.Done() && b.Pending[b.Current()].Grant != nil
}

// Grant approves the current call with scope session, which stores its grant
// offer (CONTRACT section 11), and approves the later calls of the batch that the
// same offer covers. It does nothing when the call carries no offer.
func (b *Batch) Grant() { b.widen(api.ScopeSession) }

// Always approves the current call with scope always, which saves its grant
// offer as an allow rule in config.yaml, and approves the later calls of the
// batch that the same offer covers, as Grant does. It does nothing when the call
// carries no offer.
func (b *Batch) Always() { b.widen(api.ScopeAlways) }

func (b *Batch) widen(scope string) {
	if !b.CanGrant() {
		return
	}
	p := b.Pending[b.Current()]
	b.Decisions = append(b.Decisions, api.Decision{ToolCallID: p.ToolCallID, Approved: true, Scope: scope})
	b.granted = append(b.granted, p)
	b.advance()
}

// Reopen takes back the first decision with scope always and every decision
// after it, once the server has refused to save the rule (config_locked): the
// server then ran nothing and stored nothing, so those calls wait for a decision
// again while the ones before keep theirs. It returns the row that waits now, or
// -1 when no decision had scope always.
func (b *Batch) Reopen() int {
	from := slices.IndexFunc(b.Decisions, func(d api.Decision) bool { return d.Scope == api.ScopeAlways })
	if from < 0 {
		return -1
	}
	b.Decisions = b.Decisions[:from]
	b.granted = nil
	for i, d := range b.Decisions {
		if d.Scope == api.ScopeSession {
			b.granted = append(b.granted, b.Pending[i])
		}
	}
	for i := range b.covered {
		if i >= from {
			delete(b.covered, i)
		}
	}
	return from
}

// GrantCovers counts the calls after the current one that Grant would approve too.
func (b *Batch) GrantCovers() int {
	if !b.CanGrant() {
		return 0
	}
	p, n := b.Pending[b.Current()], 0
	for _, q := range b.Pending[b.Current()+1:] {
		if sameOffer(p, q) {
			n++
		}
	}
	return n
}

// Covered reports whether row i was approved because a grant of this batch covers it.
func (b *Batch) Covered(i int) bool { return b.covered[i] }

// advance approves the calls from the current one on that a grant of this batch
// covers, up to the first that it does not.
func (b *Batch) advance() {
	for !b.Done() {
		i := b.Current()
		if !slices.ContainsFunc(b.granted, func(g api.PendingTool) bool { return sameOffer(g, b.Pending[i]) }) {
			return
		}
		if b.covered == nil {
			b.covered = map[int]bool{}
		}
		b.covered[i] = true
		b.Decisions = append(b.Decisions, api.Decision{ToolCallID: b.Pending[i].ToolCallID, Approved: true})
	}
}

// sameOffer reports whether two calls are of one tool and carry the same grant
// offer. Only the server matches paths against patterns; equal offers need no matching.
func sameOffer(a, b api.PendingTool) bool {
	return a.Grant != nil && b.Grant != nil && a.ToolName == b.ToolName && a.Grant.Pattern == b.Grant.Pattern
}

// Summary is one line per decision, for the conversation: "✓ approved write_file(...)".
func (b *Batch) Summary(width int) []string {
	var out []string
	for i, d := range b.Decisions {
		out = append(out, cut(DecisionLine(b.Pending[i], d), width))
	}
	return out
}

// labelArgs bounds the arguments in a decision line: the table and ? showed them
// whole, and the conversation needs only to say which call it was.
const labelArgs = 60

// DecisionLine is the conversation's line for one decision, with the call's
// arguments cut short and the reason whole: "⊘ denied write_file(path=a.txt, …) — reason: not now".
func DecisionLine(p api.PendingTool, d api.Decision) string {
	mark, verb := "✓", "approved"
	if !d.Approved {
		mark, verb = "⊘", "denied"
	}
	line := fmt.Sprintf("%s %s %s", mark, verb, ShortLabel(p, labelArgs))
	if d.Feedback != "" {
		line += " — reason: " + Visible(d.Feedback)
	}
	return line
}

// SecretNote is the note under a call whose arguments look like they hold
// a secret: "the content looks like a secret (an API key)" for the first such
// argument, or "" for none. The table shows the arguments exactly, since the
// user decides on them; the note says what the server will mask when it shows
// or logs the call. What looks like a secret is secret.DetectField, the same
// rules the server masks by.
func SecretNote(p api.PendingTool) string {
	ms, ok := members(p.Arguments)
	if !ok {
		if kind, found := secret.Detect(string(p.Arguments)); found {
			return "the arguments look like a secret (" + kind + ")"
		}
		return ""
	}
	for _, m := range ms {
		value := string(m.val)
		var str string
		if json.Unmarshal(m.val, &str) == nil {
			value = str
		}
		if kind, found := secret.DetectField(m.name, value); found {
			return "the " + Visible(m.name) + " looks like a secret (" + kind + ")"
		}
	}
	return ""
}

// Visible returns s with every character that would not read as itself written
// as an escape (\x1b, \u200b, \u3164, \U000e0100, \n ...) and every byte that is
// not UTF-8 as \xNN, so text a person decides on cannot hide or disguise what a
// tool call will do. What counts as such a character is visible.Deceptive, the one
// definition the server also refuses grants by.
func Visible(s string) string {
	return visible.Escape(s)
}

// TerminalSafe returns text that is read rather than approved (answers, error
// messages, session text) with newlines and tabs kept, so markdown keeps its shape,
// but with what could drive or disguise the terminal escaped as Visible does: every
// other control character (ESC, CR, DEL, C1), the bidi controls, zero-width spaces and
// invalid bytes. Without it an answer that echoes a web page could clear the screen,
// retitle the window or reorder a file name; glamour passes such bytes through.
func TerminalSafe(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case (r == utf8.RuneError && size == 1) || unsafeRune(r):
			b.WriteString(Visible(s[i : i+size]))
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unsafeRune reports the runes TerminalSafe escapes besides invalid bytes.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20 || (r >= 0x7f && r <= 0x9f):
		return r != '\n' && r != '\t'
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true // bidi controls
	case r == 0x200b, r == 0x2060, r == 0xfeff:
		return true // zero-width spaces; U+200D stays, emoji sequences need it
	}
	return false
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || unsafeRune(r) {
			return true
		}
		i += size
	}
	return false
}

// visibleJSON is Visible for JSON text: newlines and indentation stay, because
// json.Indent made them and a JSON string cannot hold a raw newline.
func visibleJSON(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Visible(l)
	}
	return strings.Join(lines, "\n")
}

// PrettyArgs returns the arguments exactly as sent, indented, with invisible
// characters made visible. Text that is not JSON is shown escaped as it is.
func PrettyArgs(raw json.RawMessage) string {
	var buf bytes.Buffer
	if len(bytes.TrimSpace(raw)) == 0 {
		return "{}"
	}
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return Visible(string(raw))
	}
	return visibleJSON(buf.String())
}

// compactArgs is PrettyArgs on one line.
func compactArgs(raw json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return Visible(string(raw))
	}
	return Visible(buf.String())
}

// plainValue reports whether a string argument reads unambiguously without quotes in
// "key=value, key=value": no separators, quotes or brackets, no space at either end.
func plainValue(s string) bool {
	return s != "" && strings.TrimSpace(s) == s && !strings.ContainsAny(s, ",=\"()")
}

// CallLabel is "tool(key=value, ...)".
func CallLabel(p api.PendingTool) string {
	return Visible(p.ToolName) + "(" + ShortArgs(p.Arguments) + ")"
}

// ShortLabel is CallLabel with the arguments cut to about n cells, the call's
// object kept whole (see ShortArgsFit).
func ShortLabel(p api.PendingTool, n int) string {
	return Visible(p.ToolName) + "(" + ShortArgsFit(p.Arguments, n) + ")"
}

// cut shortens s to width cells with a trailing …; width <= 0 means no limit.
func cut(s string, width int) string {
	if width <= 0 {
		return s
	}
	return ansi.Truncate(s, width, "…")
}
