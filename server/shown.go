package server

import (
	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/secret"
)

// What the API shows is masked where the answer is built, one function per
// kind of answer, all with secret.Mask: the loop, the ledger and the session
// keep everything exactly (a tool runs with its real arguments), and a
// surface that shows or exports text masks its copy. The arguments of a call
// that waits for approval are the exception: the user decides on them, so
// tools_pending shows them exactly (the client notes a value that looks like
// a secret); only what the server adds to them (a preview, a reason) is
// masked. The answer text itself (response and token events) is not masked:
// the tokens streamed must join to the response, and a token boundary may cut
// a secret in two.

// shownToolUse is a tool run as the API shows it.
func shownToolUse(u api.ToolUse) api.ToolUse {
	u.Arguments = secret.MaskJSON(u.Arguments)
	u.Error = secret.Mask(u.Error)
	u.Reason = secret.Mask(u.Reason)
	return u
}

func shownToolUses(us []api.ToolUse) []api.ToolUse {
	if us == nil {
		return nil
	}
	out := make([]api.ToolUse, len(us))
	for i, u := range us {
		out[i] = shownToolUse(u)
	}
	return out
}

func shownValidation(v api.Validation) api.Validation {
	issues := make([]string, len(v.Issues))
	for i, is := range v.Issues {
		issues[i] = secret.Mask(is)
	}
	v.Issues = issues
	return v
}

// shownChat is a ChatResponse as the API shows it.
func shownChat(r api.ChatResponse) api.ChatResponse {
	r.ToolsUsed = shownToolUses(r.ToolsUsed)
	r.Validation = shownValidation(r.Validation)
	return r
}

// shownPending keeps the arguments the user decides on exactly and masks
// what the server adds to them.
func shownPending(ps []api.PendingTool) []api.PendingTool {
	if ps == nil {
		return nil
	}
	out := make([]api.PendingTool, len(ps))
	for i, p := range ps {
		p.Reason = secret.Mask(p.Reason)
		p.NoGrant = secret.Mask(p.NoGrant)
		if p.Preview != nil {
			pv := *p.Preview
			pv.Diff, pv.Head, pv.Summary = secret.Mask(pv.Diff), secret.Mask(pv.Head), secret.Mask(pv.Summary)
			pv.NotUndoable = secret.Mask(pv.NotUndoable)
			p.Preview = &pv
		}
		out[i] = p
	}
	return out
}

func shownApproval(r api.ApprovalRequiredResponse) api.ApprovalRequiredResponse {
	r.ToolsPending = shownPending(r.ToolsPending)
	return r
}

// shownEvent is the data of a server-sent event as the client gets it; token
// events never come here (see sseStream.emit).
func shownEvent(data any) any {
	switch d := data.(type) {
	case api.ToolCallEvent:
		d.Arguments = secret.MaskJSON(d.Arguments)
		return d
	case api.ToolUse:
		return shownToolUse(d)
	case api.ChatResponse:
		return shownChat(d)
	case api.ApprovalRequiredResponse:
		return shownApproval(d)
	case api.ErrorDetail:
		d.Message = secret.Mask(d.Message)
		return d
	case api.RetractEvent:
		d.Reason = secret.Mask(d.Reason)
		return d
	}
	return data
}

// shownSession is GET /sessions/{id}: every message's text, calls and marks
// masked; the calls waiting for a decision as shownPending shows them.
func shownSession(d api.SessionDetail) api.SessionDetail {
	msgs := make([]api.Message, len(d.Messages))
	for i, m := range d.Messages {
		m.Content = secret.Mask(m.Content)
		if m.ToolCalls != nil {
			calls := make([]api.ToolCall, len(m.ToolCalls))
			for j, c := range m.ToolCalls {
				c.Arguments = secret.MaskJSON(c.Arguments)
				calls[j] = c
			}
			m.ToolCalls = calls
		}
		m.ToolsUsed = shownToolUses(m.ToolsUsed)
		if m.Validation != nil {
			v := shownValidation(*m.Validation)
			m.Validation = &v
		}
		msgs[i] = m
	}
	d.Messages = msgs
	d.ToolsPending = shownPending(d.ToolsPending)
	if d.UndoLog != nil {
		log := make([]api.UndoOp, len(d.UndoLog))
		for i, op := range d.UndoLog {
			op.Files = shownUndoFiles(op.Files)
			log[i] = op
		}
		d.UndoLog = log
	}
	return d
}

// shownUndoFiles are the paths of an undo or redo as they are shown.
func shownUndoFiles(fs []api.UndoFile) []api.UndoFile {
	out := make([]api.UndoFile, len(fs))
	for i, f := range fs {
		f.Path, f.From = secret.Mask(f.Path), secret.Mask(f.From)
		out[i] = f
	}
	return out
}

// shownExecution is a ledger record as GET /executions/{id} shows it.
func shownExecution(e api.Execution) api.Execution {
	e.Arguments = secret.MaskJSON(e.Arguments)
	e.Error = secret.Mask(e.Error)
	e.Reason = secret.Mask(e.Reason)
	return e
}

// shownTrace masks what a stored chain shows, again: chains stored by an
// older version were masked by argument name only.
func shownTrace(t *api.Trace) {
	for i := range t.Calls {
		c := &t.Calls[i]
		c.Arguments = secret.MaskJSON(c.Arguments)
		c.Result = secret.Mask(c.Result)
		c.Error = secret.Mask(c.Error)
	}
}
