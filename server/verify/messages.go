package verify

import (
	"fmt"
	"slices"
	"strings"
)

// RepromptLead opens every re-prompt, so a transcript can tell re-prompts (and the
// refused replies before them) from what the user wrote.
const RepromptLead = "Your last reply was not shown to the user because it failed verification against the tool execution ledger:"

// RepromptMessage is the message sent to the model after a reply failed
// validation: what was wrong, item by item, and what to do instead. For an
// announced tool it says to call the tool rather than describe calling it. It
// never asks for a call of a tool the user denied in this turn (Issue.Denied):
// it says instead that the tool stays uncalled.
func RepromptMessage(issues []Issue) string {
	var b strings.Builder
	b.WriteString(RepromptLead + "\n")
	var announced, denied []string
	claims, unrun := false, false
	for _, is := range issues {
		fmt.Fprintf(&b, "- %s\n", is.Message)
		for _, t := range is.Denied {
			if !slices.Contains(denied, t) {
				denied = append(denied, t)
			}
		}
		switch is.Code {
		case CodeAnnouncedNotCalled:
			announced = append(announced, is.Tool)
		case CodeUnrunClaim, CodeUndoneClaim:
			unrun = true
		default:
			claims = true
		}
	}
	b.WriteString("\n")
	for _, t := range announced {
		if slices.Contains(denied, t) {
			continue // said below: the user's no stands
		}
		fmt.Fprintf(&b, "You said you would use %s but made no tool call. Call the %s tool now with a real tool call (if you cannot call tools natively, write <tool:%s>{...arguments...}</tool>); do not describe calling it or write its result yourself.\n", t, t, t)
	}
	if unrun {
		b.WriteString("Tell only of tool runs that happened in this turn, as they happened: a tool you did not call did not run, and a call that failed or was denied must be reported as failed or denied, never as done.\n")
	}
	if claims || unrun {
		b.WriteString("Cite only execution ids that tool results in this conversation gave you, exactly as given, for the tool that produced them, and never present a failed or invented run as a result. ")
		if len(denied) > 0 {
			b.WriteString("If you need data you do not have, use a tool the user has not denied; otherwise answer without claiming tool results.\n")
		} else {
			b.WriteString("If you need data you do not have, call the tool; otherwise answer without claiming tool results.\n")
		}
	}
	if len(denied) > 0 {
		fmt.Fprintf(&b, "The user denied %s in this turn: do not ask for it again in this turn; tell the user what you could not do without it.\n", strings.Join(denied, ", "))
	}
	b.WriteString("Write your reply again.")
	return b.String()
}

// UnverifiedReply is the plain reply the user gets when the model's replies kept
// failing validation after every retry.
func UnverifiedReply(issues []Issue) string {
	var b strings.Builder
	b.WriteString("The tool results in the assistant's answer could not be verified, so the answer is not shown. Problems found:\n")
	for _, is := range issues {
		fmt.Fprintf(&b, "- %s\n", is.Message)
	}
	b.WriteString("Try asking again, or rephrase the request so the assistant runs the tools it needs.")
	return b.String()
}

// Messages returns the issues' sentences, as validation.issues lists them.
func Messages(issues []Issue) []string {
	out := make([]string, 0, len(issues))
	for _, is := range issues {
		out = append(out, is.Message)
	}
	return out
}
