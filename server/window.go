package server

import (
	"fmt"

	"github.com/ailab/ai-lab/llm"
)

// window is what the model is sent this round (CONTRACT section 9): the system
// prompt and the current turn always; before them as many older turns as fit in
// llm.context_chars less the tool definitions (every request carries them, an
// MCP server's included), newest first, whole turns only (so a tool call always goes
// with its results); and, when older turns were left out, a note saying so.
// Replies refused by validation in earlier turns, and their re-prompts, are
// never sent again: they would only teach the model its own fabrications.
func (r *turnRun) window() []llm.Message {
	saved, unsaved := r.saved, r.unsaved
	cur := min(r.t.Start, saved.len())
	system := systemPrompt(r.reg.names, r.cfg.Sanitize.Enabled && r.cfg.Sanitize.Datamark)
	// The note that older messages were left out counts against the budget too.
	budget := r.cfg.LLM.ContextChars - len(system) - r.reg.defsSize - len(leftOutNote(saved.len())) - (saved.sums[saved.len()] - saved.sums[cur])
	for _, m := range unsaved {
		budget -= messageSize(m)
	}
	from := cur
	for i := cur - 1; i >= 0; i-- {
		if saved.sums[cur]-saved.sums[i] > budget {
			break
		}
		if startsTurn(saved.msgs[i]) {
			from = i
		}
	}
	out := make([]llm.Message, 0, 2+saved.len()-from+len(unsaved))
	if from > 0 {
		system += leftOutNote(from)
	}
	out = append(out, llm.Message{Role: llm.RoleSystem, Content: system})
	for _, m := range saved.msgs[from:cur] {
		if m.Origin != llm.OriginRefused && m.Origin != llm.OriginReprompt {
			out = append(out, m)
		}
	}
	out = append(out, saved.msgs[cur:]...)
	return append(out, unsaved...)
}

// startsTurn reports whether m opens a user turn: a message the user wrote.
func startsTurn(m llm.Message) bool {
	return m.Role == llm.RoleUser && m.Origin == ""
}

// lastTurnStart is where the last user turn of msgs begins (0 when none does).
func lastTurnStart(msgs []llm.Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if startsTurn(msgs[i]) {
			return i
		}
	}
	return 0
}

// leftOutNote tells the model that the n earliest messages were not sent.
func leftOutNote(n int) string {
	return fmt.Sprintf("\n\nThe %d earliest messages of this conversation were left out to fit llm.context_chars; if the user refers to them, say you no longer see them.", n)
}
