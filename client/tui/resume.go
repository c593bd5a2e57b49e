package tui

import (
	"encoding/json"
	"strings"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client"
)

// A resumed session is drawn from what the server stored so that it reads as it did
// live: per turn the user's message, a line per decision of each approval batch, and
// the answer with its tool runs and "verified". The marks come from the assistant
// message that ends each turn (tools_used, validation, trace_id); where they are
// missing (a turn that waits for approval, or was cut off) the runs are read back
// from the tool messages, which say how each call ended but not who allowed it.

// resumed is a stored session as the conversation shows it.
type resumed struct {
	entries   []entry
	carry     []api.ToolUse // runs of the last turn, which waits for approval
	lastTrace string
}

// toolOutcome is what a stored tool message says of its run (CONTRACT section 5).
type toolOutcome struct {
	ExecutionID string          `json:"execution_id"`
	Status      string          `json:"status"`
	Error       string          `json:"error"`
	Feedback    string          `json:"feedback"`
	Result      json.RawMessage `json:"result"`
}

// resumeSession turns stored messages into entries; pending says the last turn
// waits for decisions, so its runs so far are carried above the table.
func resumeSession(msgs []api.Message, pending bool) resumed {
	var r resumed
	for start := 0; start < len(msgs); {
		end := start + 1
		for end < len(msgs) && msgs[end].Role != "user" {
			end++
		}
		turn := msgs[start:end]
		if turn[0].Role == "user" {
			r.entries = append(r.entries, entry{kind: kindUser, text: turn[0].Content})
			turn = turn[1:]
		}
		r.addTurn(turn, pending && end == len(msgs))
		start = end
	}
	return r
}

// addTurn adds what follows one user message.
func (r *resumed) addTurn(msgs []api.Message, waiting bool) {
	outcomes := map[string]toolOutcome{}
	for _, m := range msgs {
		if m.Role == "tool" && m.ToolCallID != "" {
			var o toolOutcome
			if json.Unmarshal([]byte(m.Content), &o) == nil {
				outcomes[m.ToolCallID] = o
			}
		}
	}
	// The turn's last assistant message without calls is its answer.
	var final *api.Message
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "assistant" && len(msgs[i].ToolCalls) == 0 {
			final = &msgs[i]
			break
		}
	}
	marked := final != nil && (final.ToolsUsed != nil || final.Validation != nil)
	uses := map[string]api.ToolUse{}
	if marked {
		for _, u := range final.ToolsUsed {
			uses[u.ToolCallID] = u
		}
	}
	var read []api.ToolUse // the runs as the tool messages tell them
	for _, m := range msgs {
		if m.Role != "assistant" || len(m.ToolCalls) == 0 {
			continue
		}
		var lines []string
		for _, tc := range m.ToolCalls {
			o, ran := outcomes[tc.ID]
			if ran {
				read = append(read, o.use(tc))
			}
			u, ok := uses[tc.ID]
			if !ok || (u.Decision != api.DecisionUser && u.Status != api.StatusDenied) {
				continue // it ran without asking: no decision was made
			}
			d := api.Decision{ToolCallID: tc.ID, Approved: u.Status != api.StatusDenied}
			if !d.Approved {
				d.Feedback = o.Feedback
			}
			lines = append(lines, client.DecisionLine(api.PendingTool{ToolName: tc.Name, Arguments: tc.Arguments, ToolCallID: tc.ID}, d))
		}
		// One entry per model round, as live there is one per approval batch.
		if len(lines) > 0 {
			r.entries = append(r.entries, entry{kind: kindDecision, text: strings.Join(lines, "\n")})
		}
	}
	switch {
	case waiting && final == nil:
		r.carry = read
	case marked:
		r.entries = append(r.entries, entry{kind: kindAssistant, text: final.Content, tools: final.ToolsUsed, validation: final.Validation})
		if final.TraceID != "" {
			r.lastTrace = final.TraceID
		}
	case final != nil || len(read) > 0:
		text := ""
		if final != nil {
			text = final.Content
		}
		r.entries = append(r.entries, entry{kind: kindAssistant, text: text, tools: read})
	}
}

// use is the ToolUse a stored tool message tells of, without its duration, which
// the message does not hold.
func (o toolOutcome) use(tc api.ToolCall) api.ToolUse {
	u := api.ToolUse{ToolName: tc.Name, Arguments: tc.Arguments, ToolCallID: tc.ID, ExecutionID: o.ExecutionID, Status: api.StatusOK, Error: o.Error, DurationMS: -1}
	switch {
	case o.Status == api.StatusDenied:
		u.Status = api.StatusDenied
	case o.Error != "":
		u.Status = api.StatusError
	}
	return u
}
