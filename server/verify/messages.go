package verify

import (
	"fmt"
	"strings"
)

// RepromptLead opens every re-prompt, so a transcript can tell re-prompts (and the
// refused replies before them) from what the user wrote.
const RepromptLead = "Your last reply was not shown to the user because it failed verification against the tool execution ledger:"

// RepromptMessage is the message sent to the model after a reply failed
// validation: what was wrong, item by item, and what to do instead. For an
// announced tool it says to call the tool rather than describe calling it.
func RepromptMessage(issues []Issue) string {
	var b strings.Builder
	b.WriteString(RepromptLead + "\n")
	var announced []string
	claims := false
	for _, is := range issues {
		fmt.Fprintf(&b, "- %s\n", is.Message)
		if is.Code == CodeAnnouncedNotCalled {
			announced = append(announced, is.Tool)
		} else {
			claims = true
		}
	}
	b.WriteString("\n")
	for _, t := range announced {
		fmt.Fprintf(&b, "You said you would use %s but made no tool call. Call the %s tool now with a real tool call (if you cannot call tools natively, write <tool:%s>{...arguments...}</tool>); do not describe calling it or write its result yourself.\n", t, t, t)
	}
	if claims {
		b.WriteString("Cite only execution ids that tool results in this conversation gave you, for the tool that produced them, and never present a failed or invented run as a result. If you need data you do not have, call the tool; otherwise answer without claiming tool results.\n")
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
