// Package clienttest is a scripted stand-in for ai-server that answers in the
// contract's shapes (CONTRACT sections 4 and 10), for the tests of client, client/tui
// and cmd/ai-client. It checks the token and the approval rules the real server
// enforces (decisions must name exactly the pending calls; nothing pending is 409) so
// client bugs show up here. A request that asks for a stream gets server-sent events:
// scripted ones (Stream), or by default ones made from the scripted reply. It must
// never be used outside tests.
package clienttest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/policy"
)

// Token is the bearer token every Server expects.
const Token = "test-token"

// A Server answers /chat and /chat/approve from a script of turns, in order.
type Server struct {
	*httptest.Server

	mu        sync.Mutex
	turns     []api.TurnReply
	failNext  *api.ErrorBody
	failCode  int
	failAt    int // 1-based count of chat+approve requests that fails; 0: none
	calls     int
	pending   []api.PendingTool
	preset    string
	chats     []api.ChatRequest
	approvals []api.ApproveRequest
	scripts   [][]Beat
	running   map[string]context.CancelFunc // streams under way, by session
	cancels   []string

	// NoStreaming makes the server answer every request in JSON, as a server from
	// before streaming does, whatever the request asks for.
	NoStreaming bool

	// Sessions, Details and Traces answer the read endpoints; tests fill them before use.
	Sessions []api.SessionSummary
	Details  map[string]api.SessionDetail
	Traces   map[string]api.Trace
	Model    string
	// Written is the config path PUT /config/safety says it rewrote ("written").
	Written string
	// Tools answers GET /tools.
	Tools []api.ToolInfo
	// Policy answers GET /policy.
	Policy api.Policy
	// ConfigLocked, when set, is the message of the 409 config_locked that
	// answers an approval with scope always, as the real server answers while an
	// environment variable overrides the safety settings. The calls stay pending.
	ConfigLocked string

	// Undo, when set, answers POST /sessions/{id}/undo and /redo (verb "undo"
	// or "redo"; a redo's body is read into req too) with a status and a JSON
	// body. It runs with the Server's lock held: it may change Details, but
	// must not call the Server's methods.
	Undo func(session, verb string, req api.UndoRequest) (status int, body any)

	grants map[string][]api.SessionGrant // by session
	nGrant int
	undos  []string // "undo s_1 {...}" per undo or redo request
}

// Undos returns the undo and redo requests received so far, each as
// "VERB SESSION BODY".
func (s *Server) Undos() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.undos)
}

// Grants returns the session grants a session holds now: those given by decisions
// with scope session, and those added with AddGrant, less the revoked ones.
func (s *Server) Grants(session string) []api.SessionGrant {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.grants[session])
}

// AddGrant stores a grant on a session, as an earlier decision would have.
func (s *Server) AddGrant(session string, g api.SessionGrant) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.grants[session] = append(s.grants[session], g)
}

// GrantTime is the created_at of the grants the Server stores.
var GrantTime = time.Date(2026, 11, 21, 23, 0, 0, 0, time.UTC)

// New starts a Server that will answer the given turns: the first to POST /chat, the
// rest to POST /chat/approve (or later chats), one each.
func New(t testing.TB, turns ...api.TurnReply) *Server {
	s := &Server{turns: turns, preset: "strict", Model: "test-model", running: map[string]context.CancelFunc{},
		Details: map[string]api.SessionDetail{}, Traces: map[string]api.Trace{}, grants: map[string][]api.SessionGrant{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// FailOn makes the call-th chat or approve request (counting from 1) answer with
// status and the error code instead of the next scripted turn.
func (s *Server) FailOn(call, status int, code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failAt, s.failCode = call, status
	s.failNext = &api.ErrorBody{Error: api.ErrorDetail{Code: code, Message: "scripted failure " + code + "."}}
}

// Chats returns the chat requests received so far.
func (s *Server) Chats() []api.ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.chats)
}

// Approvals returns the approve requests received so far.
func (s *Server) Approvals() []api.ApproveRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.approvals)
}

// Preset returns the current safety preset.
func (s *Server) Preset() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.preset
}

// Cancels returns the sessions named by POST /sessions/{id}/cancel so far.
func (s *Server) Cancels() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.cancels)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	stream := s.handle(w, r)
	s.mu.Unlock()
	// Outside the lock: a stream may last, and a cancel must get through meanwhile.
	if stream != nil {
		stream()
	}
}

// handle answers r, or returns the streamed answer to send once the lock is released.
func (s *Server) handle(w http.ResponseWriter, r *http.Request) (stream func()) {
	if r.URL.Path == "/health" {
		writeJSON(w, 200, api.Health{Status: "ok", Version: "test", Model: s.Model})
		return nil
	}
	if r.Header.Get("Authorization") != "Bearer "+Token {
		fail(w, 401, api.CodeUnauthorized, "missing or wrong bearer token.")
		return nil
	}
	switch {
	case r.Method == "POST" && r.URL.Path == "/chat":
		var req api.ChatRequest
		if json.NewDecoder(r.Body).Decode(&req) != nil || req.Message == "" {
			fail(w, 400, api.CodeInvalidRequest, "message is required.")
			return nil
		}
		s.chats = append(s.chats, req)
		s.calls++
		return s.answer(w, r, req.Stream)
	case r.Method == "POST" && r.URL.Path == "/chat/approve":
		var req api.ApproveRequest
		if json.NewDecoder(r.Body).Decode(&req) != nil {
			fail(w, 400, api.CodeInvalidRequest, "bad body.")
			return nil
		}
		s.approvals = append(s.approvals, req)
		s.calls++
		if s.calls == s.failAt {
			return s.answer(w, r, req.Stream)
		}
		if len(s.pending) == 0 {
			fail(w, 409, api.CodeNoPendingApproval, "session "+req.SessionID+" has no pending approval.")
			return nil
		}
		if !sameIDs(s.pending, req.Decisions) {
			fail(w, 400, api.CodeInvalidDecisions, "decisions do not name exactly the pending tool calls.")
			return nil
		}
		if !s.scopesOffered(req) {
			fail(w, 400, api.CodeInvalidDecisions, "a scope on a call that offers no grant.")
			return nil
		}
		if s.ConfigLocked != "" && slices.ContainsFunc(req.Decisions, func(d api.Decision) bool { return d.Scope == api.ScopeAlways }) {
			fail(w, 409, api.CodeConfigLocked, s.ConfigLocked)
			return nil
		}
		s.grant(req)
		return s.answer(w, r, req.Stream)
	case r.Method == "POST" && strings.HasPrefix(r.URL.Path, "/sessions/") && strings.HasSuffix(r.URL.Path, "/cancel"):
		id := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/sessions/"), "/cancel")
		s.cancels = append(s.cancels, id)
		cancel, ok := s.running[id]
		if !ok {
			fail(w, 409, api.CodeNothingRunning, "session "+id+" has no running turn.")
			return nil
		}
		cancel()
		w.WriteHeader(http.StatusNoContent)
	case r.Method == "GET" && r.URL.Path == "/config":
		writeJSON(w, 200, s.config())
	case r.Method == "PUT" && r.URL.Path == "/config/safety":
		var u api.SafetyUpdate
		_ = json.NewDecoder(r.Body).Decode(&u)
		if !slices.Contains([]string{"strict", "moderate", "minimal", "custom"}, u.Preset) {
			fail(w, 400, api.CodeInvalidConfig, fmt.Sprintf("unknown preset %q; use strict, moderate, minimal or custom.", u.Preset))
			return nil
		}
		s.preset = u.Preset
		cfg := s.config()
		if s.Written != "" {
			cfg["written"] = s.Written
		}
		writeJSON(w, 200, cfg)
	case r.Method == "GET" && r.URL.Path == "/sessions":
		writeJSON(w, 200, s.Sessions)
	case r.Method == "GET" && r.URL.Path == "/tools":
		writeJSON(w, 200, s.Tools)
	case r.Method == "GET" && r.URL.Path == "/policy":
		p := s.Policy
		if p.Preset == "" {
			p.Preset = s.preset
		}
		if p.Entries == nil {
			p.Entries = []api.PolicyEntry{}
		}
		writeJSON(w, 200, p)
	case r.Method == "POST" && strings.HasPrefix(r.URL.Path, "/sessions/") && (strings.HasSuffix(r.URL.Path, "/undo") || strings.HasSuffix(r.URL.Path, "/redo")):
		rest := strings.TrimPrefix(r.URL.Path, "/sessions/")
		id, verb := rest[:len(rest)-len("/undo")], rest[len(rest)-len("undo"):]
		var req api.UndoRequest
		_ = json.NewDecoder(r.Body).Decode(&req)
		b, _ := json.Marshal(req)
		s.undos = append(s.undos, verb+" "+id+" "+string(b))
		if s.Undo == nil {
			fail(w, 404, api.CodeNotFound, "no such endpoint.")
			return nil
		}
		status, body := s.Undo(id, verb, req)
		writeJSON(w, status, body)
	case strings.HasPrefix(r.URL.Path, "/sessions/") && strings.Contains(r.URL.Path, "/grants"):
		s.grantsEndpoint(w, r)
	case r.Method == "DELETE" && strings.HasPrefix(r.URL.Path, "/sessions/"):
		id := strings.TrimPrefix(r.URL.Path, "/sessions/")
		if _, ok := s.Details[id]; !ok {
			fail(w, 404, api.CodeSessionNotFound, "no session with that id.")
			return nil
		}
		delete(s.Details, id)
		w.WriteHeader(http.StatusNoContent)
	case r.Method == "GET" && strings.HasPrefix(r.URL.Path, "/sessions/"):
		d, ok := s.Details[strings.TrimPrefix(r.URL.Path, "/sessions/")]
		if !ok {
			fail(w, 404, api.CodeSessionNotFound, "no session with that id.")
			return nil
		}
		writeJSON(w, 200, d)
	case r.Method == "GET" && strings.HasPrefix(r.URL.Path, "/traces/"):
		tr, ok := s.Traces[strings.TrimPrefix(r.URL.Path, "/traces/")]
		if !ok {
			fail(w, 404, api.CodeNotFound, "no trace with that id.")
			return nil
		}
		writeJSON(w, 200, tr)
	default:
		fail(w, 404, api.CodeNotFound, "no such endpoint.")
	}
	return nil
}

func (s *Server) answer(w http.ResponseWriter, r *http.Request, stream bool) func() {
	if s.failNext != nil && s.calls == s.failAt {
		writeJSON(w, s.failCode, s.failNext)
		return nil
	}
	if len(s.turns) == 0 {
		fail(w, 500, api.CodeInternal, "the test script has no more turns.")
		return nil
	}
	t := s.turns[0]
	s.turns = s.turns[1:]
	s.pending = t.ToolsPending
	if wants := stream || strings.Contains(r.Header.Get("Accept"), "text/event-stream"); !wants || s.NoStreaming {
		writeJSON(w, 200, t)
		return nil
	}
	beats := defaultBeats(t)
	if len(s.scripts) > 0 {
		beats, s.scripts = s.scripts[0], s.scripts[1:]
	}
	ctx, cancel := context.WithCancel(r.Context())
	s.running[t.SessionID] = cancel
	var once sync.Once
	// The turn stops running before its last event is written, as on the real
	// server: a client that has read that event finds nothing left to cancel.
	end := func() {
		once.Do(func() {
			s.mu.Lock()
			delete(s.running, t.SessionID)
			s.mu.Unlock()
		})
	}
	return func() {
		defer cancel()
		defer end()
		sendStream(w, r.Context(), ctx, t, beats, end)
	}
}

func (s *Server) config() map[string]any {
	tools := map[string][]string{
		"strict":   {"write_file", "delete_file", "move_file", "copy_file", "create_directory", "web_search", "read_webpage"},
		"moderate": {"write_file", "delete_file", "move_file", "copy_file", "create_directory"},
	}[s.preset]
	return map[string]any{
		"server": map[string]any{"addr": "127.0.0.1:8080"},
		"safety": map[string]any{"preset": s.preset, "approval_mode": s.preset != "minimal", "tools_requiring_approval": tools},
	}
}

// scopesOffered reports whether every decision with a scope approves a call
// that offers a grant, as the real server requires.
func (s *Server) scopesOffered(req api.ApproveRequest) bool {
	for i, d := range req.Decisions {
		switch d.Scope {
		case "", api.ScopeOnce:
		case api.ScopeSession, api.ScopeAlways:
			if s.pending[i].Grant == nil || !d.Approved {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// grant stores the grants that decisions with scope session give, as the real
// server does. A decision with scope always saves a rule there, which this
// server leaves to Approvals to tell.
func (s *Server) grant(req api.ApproveRequest) {
	for i, d := range req.Decisions {
		if d.Scope != api.ScopeSession {
			continue
		}
		p := s.pending[i]
		s.nGrant++
		s.grants[req.SessionID] = append(s.grants[req.SessionID], api.SessionGrant{
			GrantID: fmt.Sprintf("g_%d", s.nGrant), ToolName: p.ToolName, Pattern: p.Grant.Pattern, CreatedAt: GrantTime})
	}
}

// grantsEndpoint answers GET /sessions/{id}/grants and DELETE /sessions/{id}/grants/{grant_id}.
func (s *Server) grantsEndpoint(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, "/sessions/")
	id, tail, _ := strings.Cut(rest, "/grants")
	switch {
	case r.Method == "GET" && tail == "":
		g := s.grants[id]
		if g == nil {
			g = []api.SessionGrant{}
		}
		writeJSON(w, 200, g)
	case r.Method == "DELETE" && strings.HasPrefix(tail, "/"):
		gid := strings.TrimPrefix(tail, "/")
		i := slices.IndexFunc(s.grants[id], func(g api.SessionGrant) bool { return g.GrantID == gid })
		if i < 0 {
			fail(w, 404, api.CodeNotFound, "session "+id+" has no grant "+gid+".")
			return
		}
		s.grants[id] = slices.Delete(s.grants[id], i, i+1)
		w.WriteHeader(http.StatusNoContent)
	default:
		fail(w, 404, api.CodeNotFound, "no such endpoint.")
	}
}

func sameIDs(p []api.PendingTool, d []api.Decision) bool {
	if len(p) != len(d) {
		return false
	}
	for i := range p {
		if p[i].ToolCallID != d[i].ToolCallID {
			return false
		}
	}
	return true
}

func fail(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, api.ErrorBody{Error: api.ErrorDetail{Code: code, Message: msg}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Pending builds an approval_required turn for the calls, each given as tool name,
// raw JSON arguments and call id.
func Pending(session string, calls ...api.PendingTool) api.TurnReply {
	return api.TurnReply{
		ApprovalRequired: true, SessionID: session, ToolsPending: calls,
		Message: approvalMessage(len(calls)),
	}
}

// Offer is the grant offer the server makes for a call of tool whose object
// gives pattern: label, and the rule scope always would save, made by the
// server's own policy.
func Offer(tool, pattern, label string) *api.GrantOffer {
	g := &api.GrantOffer{Pattern: pattern, Label: label}
	g.Rule = policy.RuleOfferFor(tool, *g)
	return g
}

// Call is one pending tool call.
func Call(tool, args, id string) api.PendingTool {
	return api.PendingTool{ToolName: tool, Arguments: json.RawMessage(args), ToolCallID: id}
}

// Final builds a finished turn.
func Final(session, text string, used ...api.ToolUse) api.TurnReply {
	return api.TurnReply{SessionID: session, Response: text, ToolsUsed: used,
		Validation: api.Validation{Valid: true, Issues: []string{}}, TraceID: "t_" + session}
}

// approvalMessage is the server's message of an approval request for n calls.
func approvalMessage(n int) string {
	if n == 1 {
		return "The AI wants to use 1 tool that needs your approval."
	}
	return fmt.Sprintf("The AI wants to use %d tools that need your approval.", n)
}
