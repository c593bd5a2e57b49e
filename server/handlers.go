package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/config"
	"github.com/ailab/ai-lab/llm"
	"github.com/ailab/ai-lab/policy"
	"github.com/ailab/ai-lab/secret"
	"github.com/ailab/ai-lab/server/verify"
	"github.com/ailab/ai-lab/store"
	"github.com/ailab/ai-lab/tools"
)

func (s *Server) health(c *gin.Context) {
	// Unauthenticated: the model check's sentence may quote the base URL.
	c.JSON(http.StatusOK, api.Health{Status: "ok", Version: Version, Model: s.model().Model(), ModelStatus: secret.Mask(s.modelStatus())})
}

// chat starts a user turn: POST /chat. The turn ends when the client goes away:
// the model request is aborted and what ran stays recorded.
func (s *Server) chat(c *gin.Context) {
	var req api.ChatRequest
	if err := decode(c, &req); err != nil {
		s.fail(c, err)
		return
	}
	if strings.TrimSpace(req.Message) == "" {
		s.fail(c, failf(ErrInvalidRequest, "the message is empty: send {\"message\": \"...\"}"))
		return
	}
	ctx := c.Request.Context()
	id := req.SessionID
	if id == "" {
		id = "s_" + randomHex(8)
		if err := s.store.CreateSession(ctx, id, title(req.Message), s.now()); err != nil {
			s.fail(c, err)
			return
		}
	}
	held, err := s.hold(ctx, id)
	if err != nil {
		s.fail(c, err)
		return
	}
	defer held.close()
	if held.pending != nil {
		s.fail(c, failf(ErrApprovalPending, "session %s waits for tool approval decisions; answer them with POST /chat/approve first", id))
		return
	}
	r, err := s.resume(c, held, s.newTurn(id, held.history.len()))
	if err != nil {
		s.fail(c, err)
		return
	}
	defer r.reg.done()
	r.append(llm.Message{Role: llm.RoleUser, Content: req.Message})
	s.answer(c, r, nil, wantsStream(c.Request, req.Stream))
}

// approve continues a paused turn with the user's decisions: POST /chat/approve.
func (s *Server) approve(c *gin.Context) {
	var req api.ApproveRequest
	if err := decode(c, &req); err != nil {
		s.fail(c, err)
		return
	}
	if req.SessionID == "" {
		s.fail(c, failf(ErrInvalidRequest, "session_id is missing: name the session whose calls you decide"))
		return
	}
	held, err := s.hold(c.Request.Context(), req.SessionID)
	if err != nil {
		s.fail(c, err)
		return
	}
	defer held.close()
	raw := held.pending
	if raw == nil {
		s.fail(c, failf(ErrNoPendingApproval, "session %s has no tool calls waiting for approval", req.SessionID))
		return
	}
	t, err := decodeTurn(req.SessionID, raw)
	if err != nil {
		s.fail(c, err)
		return
	}
	if t.Format < 2 {
		// Records of the first format did not say where their turn began.
		t.Start = lastTurnStart(held.history.msgs)
	}
	decisions, err := checkDecisions(t.pending(), req.Decisions)
	if err != nil {
		s.fail(c, err)
		return
	}
	if err := s.storeScopes(held, t.pending(), decisions); err != nil {
		s.fail(c, err)
		return
	}
	r, err := s.resume(c, held, t)
	if err != nil {
		s.fail(c, err)
		return
	}
	defer r.reg.done()
	s.answer(c, r, decisions, wantsStream(c.Request, req.Stream))
}

// checkDecisions accepts decisions that name exactly the pending calls, once each.
func checkDecisions(pending []api.PendingTool, ds []api.Decision) (map[string]api.Decision, error) {
	want := map[string]bool{}
	for _, p := range pending {
		want[p.ToolCallID] = true
	}
	got := map[string]api.Decision{}
	var unknown, repeated, missing []string
	for _, d := range ds {
		switch {
		case !want[d.ToolCallID]:
			unknown = append(unknown, strconv.Quote(d.ToolCallID))
		case got[d.ToolCallID].ToolCallID != "":
			repeated = append(repeated, strconv.Quote(d.ToolCallID))
		default:
			got[d.ToolCallID] = d
		}
	}
	for _, p := range pending {
		if _, ok := got[p.ToolCallID]; !ok {
			missing = append(missing, strconv.Quote(p.ToolCallID))
		}
	}
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, "missing "+strings.Join(missing, ", "))
	}
	if len(unknown) > 0 {
		parts = append(parts, "unknown "+strings.Join(unknown, ", "))
	}
	if len(repeated) > 0 {
		parts = append(parts, "repeated "+strings.Join(repeated, ", "))
	}
	if len(parts) > 0 {
		return nil, failf(ErrInvalidDecisions, "the decisions must name each pending tool_call_id exactly once: %s", strings.Join(parts, "; "))
	}
	for _, p := range pending {
		d := got[p.ToolCallID]
		switch {
		case d.Scope == "" || d.Scope == api.ScopeOnce:
		case d.Scope != api.ScopeSession && d.Scope != api.ScopeAlways:
			return nil, failf(ErrInvalidDecisions, "decision for %q has scope %q; a scope is %q (the default), %q or %q", p.ToolCallID, d.Scope, api.ScopeOnce, api.ScopeSession, api.ScopeAlways)
		case !d.Approved:
			return nil, failf(ErrInvalidDecisions, "decision for %q denies the call with scope %q; a grant or rule comes only with an approval", p.ToolCallID, d.Scope)
		case p.Grant == nil:
			why := p.NoGrant
			if why == "" {
				why = "none is offered"
			}
			return nil, failf(ErrInvalidDecisions, "no grant can be given for %q (%s: %s); approve it without a scope", p.ToolCallID, p.ToolName, why)
		}
	}
	return got, nil
}

// storeScopes keeps what approvals with a wider scope give: a grant on the
// session for ScopeSession, an allow rule in config.yaml for ScopeAlways.
// The rules are written first, and put in force at once, so a refusal
// (config_locked) leaves the calls pending and no grant stored.
func (s *Server) storeScopes(held *heldSession, pending []api.PendingTool, decisions map[string]api.Decision) error {
	for _, p := range pending {
		if decisions[p.ToolCallID].Scope != api.ScopeAlways {
			continue
		}
		if err := s.addRule(p); err != nil {
			return err
		}
	}
	for _, p := range pending {
		if decisions[p.ToolCallID].Scope != api.ScopeSession {
			continue
		}
		g := api.SessionGrant{GrantID: "g_" + randomHex(8), ToolName: p.ToolName, Pattern: p.Grant.Pattern, CreatedAt: s.now()}
		if _, err := s.store.AddGrant(context.WithoutCancel(held.ctx), held.id, g); err != nil {
			return err
		}
		s.log.Info("session grant", "session_id", held.id, "tool", g.ToolName, "pattern", g.Pattern)
	}
	return nil
}

// addRule saves the grant offered with p as an allow rule in config.yaml and
// puts the config in force.
func (s *Server) addRule(p api.PendingTool) error {
	rule, err := policy.RuleFor(p.ToolName, *p.Grant)
	if err != nil {
		return failf(ErrInvalidDecisions, "the grant offered for %q (%s) cannot be saved as a rule; approve it with scope %q instead", p.ToolCallID, p.Grant.Label, api.ScopeSession)
	}
	cur := s.cfg.Load()
	if cur.Path == "" {
		return failf(ErrConfigLocked, "the server runs without a config file, so no rule can be saved; start it with --config PATH, or approve with scope %q", api.ScopeSession)
	}
	if err := config.AddRule(cur.Path, rule); err != nil {
		if errors.Is(err, config.ErrLocked) {
			return failWith(ErrConfigLocked, err, "%s; approve with scope %q instead, or unset it and restart the server", err.Error(), api.ScopeSession)
		}
		var ce *config.Error
		if errors.As(err, &ce) {
			return failWith(ErrInvalidConfig, err, "%s", ce.Error())
		}
		return err
	}
	next, err := config.Load(cur.Path)
	if err != nil {
		return failWith(ErrInvalidConfig, err, "%s", err.Error())
	}
	s.SetConfig(next)
	s.log.Info("rule saved", "file", cur.Path, "rule", rule.YAML())
	return nil
}

// grants lists a session's grants: GET /sessions/{id}/grants.
func (s *Server) grants(c *gin.Context) {
	id := c.Param("id")
	if _, err := s.store.Session(c.Request.Context(), id); err != nil {
		s.fail(c, s.sessionErr(id, err))
		return
	}
	list, err := s.store.Grants(c.Request.Context(), id)
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, list)
}

// revokeGrant deletes one grant: DELETE /sessions/{id}/grants/{grant_id}.
func (s *Server) revokeGrant(c *gin.Context) {
	id, grant := c.Param("id"), c.Param("grant")
	if _, err := s.store.Session(c.Request.Context(), id); err != nil {
		s.fail(c, s.sessionErr(id, err))
		return
	}
	if err := s.store.RevokeGrant(c.Request.Context(), id, grant); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			s.fail(c, failf(ErrNotFound, "session %s has no grant %q; GET /sessions/%s/grants lists them", id, grant, id))
			return
		}
		s.fail(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

// resume prepares a request's share of a turn on a held session.
func (s *Server) resume(c *gin.Context, held *heldSession, t *turn) (*turnRun, error) {
	ts, err := s.tools()
	if err != nil {
		return nil, fmt.Errorf("building the tools: %w", err)
	}
	return &turnRun{s: s, held: held, ctx: held.ctx, bg: context.WithoutCancel(held.ctx),
		log: s.logger(c).With("session_id", held.id), session: held.id,
		cfg: s.cfg.Load(), reg: ts, t: t, saved: held.history, reads: map[string]string{}}, nil
}

// answer runs the turn and writes its reply in the right shape: one JSON
// answer, or the turn's events as they happen when stream is set.
func (s *Server) answer(c *gin.Context, r *turnRun, decisions map[string]api.Decision, stream bool) {
	if stream {
		s.answerStream(c, r, decisions)
		return
	}
	r.ev = noEvents{}
	reply, err := r.run(decisions)
	if err != nil {
		s.fail(c, err)
		return
	}
	if reply.ApprovalRequired {
		c.JSON(http.StatusOK, shownApproval(api.ApprovalRequiredResponse{ApprovalRequired: true, SessionID: reply.SessionID,
			ToolsPending: reply.ToolsPending, Message: reply.Message}))
		return
	}
	c.JSON(http.StatusOK, shownChat(api.ChatResponse{SessionID: reply.SessionID, Response: reply.Response,
		ToolsUsed: reply.ToolsUsed, Validation: reply.Validation, TraceID: reply.TraceID}))
}

// errStreamDropped cancels a streamed turn whose client went away or stopped
// reading.
var errStreamDropped = errors.New("the client stopped reading the event stream, so it was dropped")

// answerStream runs the turn with its events sent as server-sent events; the
// stream ends with approval_required, done or error (CONTRACT section 10).
// The stream masks what its events show (sseStream.emit).
func (s *Server) answerStream(c *gin.Context, r *turnRun, decisions map[string]api.Decision) {
	// A dropped stream (the client hung up or took nothing for the write
	// timeout) cancels the turn, as a disconnect does.
	sse := startSSE(c.Writer, s.pingEvery, func() { r.held.cancel(errStreamDropped) })
	r.ev = sse
	sse.emit(api.EventTurn, api.TurnEvent{SessionID: r.session, TraceID: r.t.TraceID})
	reply, err := r.run(decisions)
	switch {
	case err != nil:
		_, b := body(err)
		if advice, ok := store.DamageAdvice(err); ok {
			b.Error.Message = advice
		}
		if b.Error.Code == api.CodeInternal {
			s.logger(c).Error("streamed turn failed", "err", err)
		}
		sse.finish(api.EventError, b.Error)
	case reply.ApprovalRequired:
		sse.finish(api.EventApprovalRequired, api.ApprovalRequiredResponse{ApprovalRequired: true, SessionID: reply.SessionID,
			ToolsPending: reply.ToolsPending, Message: reply.Message})
	default:
		sse.finish(api.EventDone, api.ChatResponse{SessionID: reply.SessionID, Response: reply.Response,
			ToolsUsed: reply.ToolsUsed, Validation: reply.Validation, TraceID: reply.TraceID})
	}
}

// toolList lists the tools the model may call now: GET /tools.
func (s *Server) toolList(c *gin.Context) {
	ts, err := s.tools()
	if err != nil {
		s.fail(c, fmt.Errorf("building the tools: %w", err))
		return
	}
	defer ts.done()
	pol := policy.New(s.cfg.Load(), ts.reg)
	out := make([]api.ToolInfo, 0, len(ts.names))
	for _, name := range ts.names {
		t, _ := ts.reg.Get(name)
		// A call with no arguments names no object, so this is what the tool
		// does where no rule with a folder or host applies.
		d := pol.Decide(policy.Call{Name: name, Args: json.RawMessage("{}")}, nil)
		// An MCP tool's description and its server's status are outside text.
		info := api.ToolInfo{Name: name, ToolName: name, Description: secret.Mask(t.Description()), Source: tools.SourceOf(t),
			NeedsApproval: d.Verdict != policy.Run}
		if st, ok := t.(interface{ Status() string }); ok {
			info.Status = secret.Mask(st.Status())
		}
		out = append(out, info)
	}
	c.JSON(http.StatusOK, out)
}

// cancel stops the turn running on a session: POST /sessions/{id}/cancel.
func (s *Server) cancel(c *gin.Context) {
	id := c.Param("id")
	if s.running.cancel(id) {
		c.JSON(http.StatusOK, gin.H{"session_id": id, "cancelled": true})
		return
	}
	if _, err := s.store.Session(c.Request.Context(), id); err != nil {
		s.fail(c, s.sessionErr(id, err))
		return
	}
	s.fail(c, failf(ErrNothingRunning, "session %s has no turn running on this server; there is nothing to cancel", id))
}

func (s *Server) sessions(c *gin.Context) {
	list, err := s.store.Sessions(c.Request.Context())
	if err != nil {
		s.fail(c, err)
		return
	}
	out := make([]api.SessionSummary, 0, len(list))
	for _, ss := range list {
		out = append(out, api.SessionSummary{SessionID: ss.ID, Title: secret.Mask(ss.Title), CreatedAt: ss.CreatedAt,
			UpdatedAt: ss.UpdatedAt, PendingApproval: ss.PendingApproval})
	}
	c.JSON(http.StatusOK, out)
}

func (s *Server) session(c *gin.Context) {
	id := c.Param("id")
	if _, err := s.store.Session(c.Request.Context(), id); err != nil {
		s.fail(c, s.sessionErr(id, err))
		return
	}
	raws, err := s.store.Messages(c.Request.Context(), id)
	if err != nil {
		s.fail(c, err)
		return
	}
	out := api.SessionDetail{SessionID: id, Messages: []api.Message{}, ToolsPending: []api.PendingTool{}}
	known := tools.Names
	msgs, err := decodeMessages(id, raws)
	if err != nil {
		s.fail(c, err)
		return
	}
	for i, m := range msgs {
		if m.Origin == llm.OriginRefused || m.Origin == llm.OriginReprompt {
			continue // never shown to the user
		}
		am := api.Message{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		var marks turnMarks
		if m.Role == llm.RoleAssistant && json.Unmarshal(raws[i], &marks) == nil {
			am.ToolsUsed, am.Validation, am.TraceID = marks.ToolsUsed, marks.Validation, marks.TraceID
		}
		if m.Origin == llm.OriginTextResults {
			am.Role = llm.RoleTool // results of calls written as text, not the user's words
		}
		if m.Role == llm.RoleAssistant && len(m.ToolCalls) == 0 {
			// Calls the model wrote as text stay in its history; the transcript shows
			// them as the calls they were, not as text.
			if calls, visible := verify.ParseTextCalls(m.Content, known); len(calls) > 0 {
				am.Content = strings.TrimSpace(visible)
				for _, tc := range calls {
					am.ToolCalls = append(am.ToolCalls, api.ToolCall{Name: tc.Name, Arguments: argsJSON(string(tc.Arguments))})
				}
			}
		}
		for _, tc := range m.ToolCalls {
			am.ToolCalls = append(am.ToolCalls, api.ToolCall{ID: tc.ID, Name: tc.Name, Arguments: argsJSON(tc.Arguments)})
		}
		out.Messages = append(out.Messages, am)
	}
	if raw, err := s.store.Pending(c.Request.Context(), id); err != nil {
		s.fail(c, err)
		return
	} else if raw != nil {
		if t, err := decodeTurn(id, raw); err == nil {
			out.ToolsPending = append(out.ToolsPending, t.pending()...)
		}
	}
	s.markUndone(id, &out)
	c.JSON(http.StatusOK, shownSession(out))
}

func (s *Server) deleteSession(c *gin.Context) {
	id := c.Param("id")
	held, err := s.hold(c.Request.Context(), id)
	if err != nil {
		s.fail(c, err)
		return
	}
	held.released = true // the row and its lease go together
	defer held.close()
	if err := s.store.DeleteSession(held.ctx, id); err != nil {
		s.fail(c, s.sessionErr(id, err))
		return
	}
	s.histories.forget(id)
	c.Status(http.StatusNoContent)
}

func (s *Server) config(c *gin.Context) {
	c.JSON(http.StatusOK, s.publicConfig(s.cfg.Load()))
}

// publicConfig is GET /config: the config in force without secrets, and the
// keys whose change waits for a restart.
func (s *Server) publicConfig(cfg *config.Config) map[string]any {
	out := cfg.Public()
	out["restart_required"] = config.RestartRequired(s.started, cfg)
	return out
}

// putSafety rewrites the safety preset in config.yaml and puts it in force.
func (s *Server) putSafety(c *gin.Context) {
	var u api.SafetyUpdate
	if err := decode(c, &u); err != nil {
		s.fail(c, err)
		return
	}
	cur := s.cfg.Load()
	if cur.Path == "" {
		s.fail(c, failf(ErrInvalidConfig, "the server runs without a config file, so there is nothing to rewrite; start it with --config PATH"))
		return
	}
	if env := config.SafetyLockedBy(); env != "" {
		s.fail(c, failf(ErrInvalidConfig, "%s is set in the server's environment and overrides config.yaml, so this change would not apply; unset it and restart the server", env))
		return
	}
	if err := config.WriteSafety(cur.Path, u); err != nil {
		var ce *config.Error
		if errors.As(err, &ce) {
			s.fail(c, failWith(ErrInvalidConfig, err, "%s", ce.Error()))
			return
		}
		s.fail(c, err)
		return
	}
	next, err := config.Load(cur.Path)
	if err != nil {
		s.fail(c, failWith(ErrInvalidConfig, err, "%s", err.Error()))
		return
	}
	s.SetConfig(next)
	out := s.publicConfig(next)
	out["written"] = cur.Path // the file rewritten, so a client can say which
	c.JSON(http.StatusOK, out)
}

func (s *Server) execution(c *gin.Context) {
	e, err := s.store.Execution(c.Request.Context(), c.Param("id"))
	if errors.Is(err, store.ErrNotFound) {
		s.fail(c, failf(ErrNotFound, "no execution %q in the ledger", c.Param("id")))
		return
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	// The ledger keeps arguments exactly; what it shows masks secrets, as traces do.
	c.JSON(http.StatusOK, shownExecution(e))
}

func (s *Server) trace(c *gin.Context) {
	t, err := s.store.Trace(c.Request.Context(), c.Param("id"))
	if errors.Is(err, store.ErrNotFound) {
		s.fail(c, failf(ErrNotFound, "no trace %q", c.Param("id")))
		return
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	shownTrace(&t)
	c.JSON(http.StatusOK, t)
}

// traces lists call chains: GET /traces?tool=&since=&until=&min_duration_ms=&failed=true&limit=.
func (s *Server) traces(c *gin.Context) {
	var f store.TraceFilter
	q := c.Request.URL.Query()
	for key := range q {
		if !slices.Contains([]string{"tool", "since", "until", "min_duration_ms", "failed", "limit"}, key) {
			s.fail(c, failf(ErrInvalidRequest, "unknown query parameter %q; use tool, since, until, min_duration_ms, failed or limit", key))
			return
		}
	}
	f.Tool = q.Get("tool")
	for _, p := range []struct {
		key string
		dst *time.Time
	}{{"since", &f.Since}, {"until", &f.Until}} {
		if v := q.Get(p.key); v != "" {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				s.fail(c, failf(ErrInvalidRequest, "%s=%q is not an RFC 3339 time such as 2026-11-21T23:00:00Z", p.key, v))
				return
			}
			*p.dst = t
		}
	}
	if v := q.Get("min_duration_ms"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			s.fail(c, failf(ErrInvalidRequest, "min_duration_ms=%q is not a whole number of milliseconds", v))
			return
		}
		f.MinDuration = time.Duration(n) * time.Millisecond
	}
	if v := q.Get("failed"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			s.fail(c, failf(ErrInvalidRequest, "failed=%q is not true or false", v))
			return
		}
		f.FailedOnly = b
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 500 {
			s.fail(c, failf(ErrInvalidRequest, "limit=%q must be a whole number from 1 to 500", v))
			return
		}
		f.Limit = n
	}
	list, err := s.store.Traces(c.Request.Context(), f)
	if err != nil {
		s.fail(c, err)
		return
	}
	if list == nil {
		list = []api.Trace{}
	}
	for i := range list {
		shownTrace(&list[i])
	}
	c.JSON(http.StatusOK, list)
}

// sessionErr turns a store miss into the API's session_not_found.
func (s *Server) sessionErr(id string, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return failf(ErrSessionNotFound, "no session %q; omit session_id to start a new one", id)
	}
	return err
}

// title is a session's title: the first line of its first message, shortened.
func title(msg string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(msg), "\n")
	if utf8.RuneCountInString(line) <= 60 {
		return line
	}
	return string([]rune(line)[:59]) + "…"
}

// decodeMessages decodes a session's stored messages.
func decodeMessages(session string, raws []json.RawMessage) ([]llm.Message, error) {
	out := make([]llm.Message, 0, len(raws)+8)
	for _, raw := range raws {
		var m llm.Message
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("a stored message of %s is unreadable: %w", session, err)
		}
		out = append(out, m)
	}
	return out, nil
}

// policyList is every rule and preset entry in force, in the order they are
// checked: GET /policy.
func (s *Server) policyList(c *gin.Context) {
	list := policy.New(s.cfg.Load(), nil).List()
	for i := range list.Entries {
		e := &list.Entries[i]
		e.Scope, e.Text = secret.Mask(e.Scope), secret.Mask(e.Text)
	}
	c.JSON(http.StatusOK, list)
}
