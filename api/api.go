// Package api holds the plain wire types of the AI Lab HTTP API (CONTRACT section 4)
// and its error codes. Both ai-server and ai-client import it, so a field is named in
// one place. It must never hold behaviour beyond encoding: no I/O, no imports of ours.
package api

import (
	"encoding/json"
	"time"
)

// A ChatRequest is the body of POST /chat.
type ChatRequest struct {
	Message   string `json:"message"`
	SessionID string `json:"session_id,omitempty"`
	// Stream asks for the answer as server-sent events (CONTRACT section 10).
	Stream bool `json:"stream,omitempty"`
}

// Status values of a ToolUse.
const (
	StatusOK     = "ok"
	StatusError  = "error"
	StatusDenied = "denied"
)

// A ToolUse reports one tool call of a turn in a ChatResponse.
type ToolUse struct {
	ToolName    string          `json:"tool_name"`
	Arguments   json.RawMessage `json:"arguments"`
	ToolCallID  string          `json:"tool_call_id"`
	ExecutionID string          `json:"execution_id,omitempty"`
	Status      string          `json:"status"`
	Error       string          `json:"error,omitempty"`
	DurationMS  int64           `json:"duration_ms"`
	// Decision says who let the run happen (DecisionUser, DecisionGrant,
	// DecisionRule or DecisionAuto); empty for a call the user denied.
	Decision string `json:"decision,omitempty"`
	// Reason says in words why the call ran, asked or was refused, e.g.
	// "session grant g_1a2b: write files in notes/".
	Reason string `json:"reason,omitempty"`
	// Undone is set on a run whose file changes the user undid (and has not
	// redone); the run stays in the ledger and may still be cited as history.
	Undone bool `json:"undone,omitempty"`
}

// Validation is the outcome of checking a reply against the execution ledger.
type Validation struct {
	Valid   bool     `json:"valid"`
	Issues  []string `json:"issues"`
	Retries int      `json:"retries"`
}

// A ChatResponse is a finished turn.
type ChatResponse struct {
	SessionID  string     `json:"session_id"`
	Response   string     `json:"response"`
	ToolsUsed  []ToolUse  `json:"tools_used"`
	Validation Validation `json:"validation"`
	TraceID    string     `json:"trace_id"`
}

// A PendingTool is a tool call that waits for the user's decision.
type PendingTool struct {
	ToolName   string          `json:"tool_name"`
	Arguments  json.RawMessage `json:"arguments"`
	ToolCallID string          `json:"tool_call_id"`
	// Preview says what the call would change, worked out when the turn paused;
	// nil when it changes nothing that exists.
	Preview *Preview `json:"preview,omitempty"`
	// Grant is the session grant that may be given with this decision
	// (CONTRACT section 11); nil when none may be offered.
	Grant *GrantOffer `json:"grant,omitempty"`
	// Reason says why the call asks, e.g. "preset moderate: write_file asks".
	Reason string `json:"reason,omitempty"`
	// NoGrant says why no grant is offered when Grant is nil, e.g.
	// "delete_file never takes a grant", for the client to show as it is.
	NoGrant string `json:"no_grant,omitempty"`
}

// Kinds of a Preview.
const (
	PreviewOverwrite = "overwrite" // write_file replaces an existing file
	PreviewReplace   = "replace"   // move_file or copy_file onto an existing destination
	PreviewDelete    = "delete"    // delete_file removes a file or an empty folder
)

// A Preview is what a pending call would change or remove.
type Preview struct {
	Kind string `json:"kind"`
	Path string `json:"path"` // the workspace path changed or removed
	// Size is the byte size of the file replaced or removed.
	Size int64 `json:"size"`
	// Added and Removed count the lines of an overwrite's diff.
	Added   int `json:"added,omitempty"`
	Removed int `json:"removed,omitempty"`
	// Diff is the unified diff of an overwrite, cut to a bound (DiffTruncated).
	Diff          string `json:"diff,omitempty"`
	DiffTruncated bool   `json:"diff_truncated,omitempty"`
	// Head is the first lines of a text file that is replaced or removed.
	Head string `json:"head,omitempty"`
	// Summary is one line for the approval table, e.g. "overwrites notes.txt (+3 −1)".
	Summary string `json:"summary"`
	// NotUndoable, when set, says why this call's change cannot be undone
	// afterwards, e.g. "cannot be undone: big.bin is over undo.max_file_bytes
	// (16 MiB)", for the approval table to show before the user decides.
	NotUndoable string `json:"not_undoable,omitempty"`
}

// A GrantOffer is the session grant a pending call may be approved with.
type GrantOffer struct {
	Pattern string `json:"pattern"` // what later calls of the tool must match: notes/*, go.dev, *
	Label   string `json:"label"`   // one line for people: "write files in notes/ for this session"
	// Rule is the allow rule that approving with scope "always" saves in
	// config.yaml; nil when the grant makes none (the top folder alone).
	Rule *RuleOffer `json:"rule,omitempty"`
}

// A RuleOffer is an allow rule as approving a call with scope "always" saves it.
type RuleOffer struct {
	Text string `json:"text"` // in words: "allow write_file in notes/"
	YAML string `json:"yaml"` // as safety.rules holds it: {allow: write_file, path: "notes/"}
}

// Scopes of a Decision: how far an approval reaches.
const (
	// ScopeOnce approves this call only (the default).
	ScopeOnce = "once"
	// ScopeSession approves the call and stores its grant on the session.
	ScopeSession = "session"
	// ScopeAlways approves the call and adds an allow rule for the offered
	// pattern to config.yaml.
	ScopeAlways = "always"
)

// A SessionGrant is a grant stored on a session (GET /sessions/{id}/grants).
type SessionGrant struct {
	GrantID   string    `json:"grant_id"`
	ToolName  string    `json:"tool_name"`
	Pattern   string    `json:"pattern"`
	CreatedAt time.Time `json:"created_at"`
}

// An ApprovalRequiredResponse pauses a turn until POST /chat/approve.
type ApprovalRequiredResponse struct {
	ApprovalRequired bool          `json:"approval_required"`
	SessionID        string        `json:"session_id"`
	ToolsPending     []PendingTool `json:"tools_pending"`
	Message          string        `json:"message"`
}

// A TurnReply decodes either answer of POST /chat and POST /chat/approve;
// ApprovalRequired tells which fields are set.
type TurnReply struct {
	ApprovalRequired bool          `json:"approval_required"`
	SessionID        string        `json:"session_id"`
	ToolsPending     []PendingTool `json:"tools_pending,omitempty"`
	Message          string        `json:"message,omitempty"`
	Response         string        `json:"response"`
	ToolsUsed        []ToolUse     `json:"tools_used,omitempty"`
	Validation       Validation    `json:"validation"`
	TraceID          string        `json:"trace_id,omitempty"`
}

// A Decision is the user's answer for one pending tool call.
type Decision struct {
	ToolCallID string `json:"tool_call_id"`
	Approved   bool   `json:"approved"`
	Feedback   string `json:"feedback,omitempty"`
	// Scope is ScopeOnce (or empty), ScopeSession (approve and store the
	// grant on the session) or ScopeAlways (approve and save the grant as an
	// allow rule in config.yaml); the last two only with an approval of a
	// pending call that carries a grant offer.
	Scope string `json:"scope,omitempty"`
}

// An ApproveRequest is the body of POST /chat/approve.
type ApproveRequest struct {
	SessionID string     `json:"session_id"`
	Decisions []Decision `json:"decisions"`
	// Stream asks for the answer as server-sent events (CONTRACT section 10).
	Stream bool `json:"stream,omitempty"`
}

// Names of the server-sent events of a streamed turn (CONTRACT section 10).
// Each event's data is the JSON of the type named beside it.
const (
	EventTurn             = "turn"              // TurnEvent, always first
	EventToken            = "token"             // TokenEvent: answer text, in order
	EventRetract          = "retract"           // RetractEvent: the text since the last round is withdrawn
	EventRound            = "round"             // RoundEvent: a new model round begins
	EventToolCall         = "tool_call"         // ToolCallEvent
	EventToolResult       = "tool_result"       // ToolUse, when that run ends
	EventApprovalRequired = "approval_required" // ApprovalRequiredResponse; the stream ends
	EventDone             = "done"              // ChatResponse; the stream ends
	EventError            = "error"             // ErrorDetail; the stream ends
)

// A TurnEvent opens a streamed turn.
type TurnEvent struct {
	SessionID string `json:"session_id"`
	TraceID   string `json:"trace_id"`
}

// A TokenEvent is a piece of the answer's text.
type TokenEvent struct {
	Text string `json:"text"`
}

// A RetractEvent withdraws the text streamed since the last round.
type RetractEvent struct {
	Reason string `json:"reason"`
}

// A RoundEvent says a new model round begins (1 for the first).
type RoundEvent struct {
	Round int `json:"round"`
}

// A ToolCallEvent is a tool call of the model, sent when the round's calls
// are known (needs_approval: it waits for a decision) or as its run starts.
type ToolCallEvent struct {
	ToolCallID    string          `json:"tool_call_id"`
	ToolName      string          `json:"tool_name"`
	Arguments     json.RawMessage `json:"arguments"`
	NeedsApproval bool            `json:"needs_approval"`
}

// Health is the answer of GET /health.
type Health struct {
	Status  string `json:"status"`
	Version string `json:"version"`
	Model   string `json:"model"`
	// ModelStatus is what the server found when it asked the model endpoint
	// at start: "ok", "unchecked" (the demo model, or an endpoint that does
	// not list its models), or "unreachable: " and the sentence saying what
	// to fix.
	ModelStatus string `json:"model_status,omitempty"`
}

// A SessionSummary is one row of GET /sessions.
type SessionSummary struct {
	SessionID       string    `json:"session_id"`
	Title           string    `json:"title"`
	CreatedAt       time.Time `json:"created_at"`
	UpdatedAt       time.Time `json:"updated_at"`
	PendingApproval bool      `json:"pending_approval"`
}

// A Message is one stored message of a session, as GET /sessions/{id} shows it.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	// On the assistant message that ends a turn, what the live answer showed:
	// the turn's tool runs with their decisions and the validation outcome, so
	// a resumed session reads as it did live.
	ToolsUsed  []ToolUse   `json:"tools_used,omitempty"`
	Validation *Validation `json:"validation,omitempty"`
	TraceID    string      `json:"trace_id,omitempty"`
}

// A ToolCall is a call the assistant asked for, with its raw JSON arguments.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// A SessionDetail is the answer of GET /sessions/{id}.
type SessionDetail struct {
	SessionID    string        `json:"session_id"`
	Messages     []Message     `json:"messages"`
	ToolsPending []PendingTool `json:"tools_pending"`
	// UndoLog is every undo and redo of the session, oldest first (left out
	// when there was none).
	UndoLog []UndoOp `json:"undo_log,omitempty"`
}

// An UndoOp is one undo or redo as the session's log keeps it: who asked,
// which turns and runs (execution ids) it took back or put back, and which
// files it changed.
type UndoOp struct {
	ID    string     `json:"id"`
	Kind  string     `json:"kind"` // "undo" or "redo"
	At    time.Time  `json:"at"`
	By    string     `json:"by"`
	Force bool       `json:"force,omitempty"`
	Turns []int      `json:"turns"`
	Runs  []string   `json:"runs"`
	Files []UndoFile `json:"files"`
}

// An Execution is one record of the execution ledger (GET /executions/{id}).
type Execution struct {
	ExecutionID string          `json:"execution_id"`
	ToolName    string          `json:"tool_name"`
	Arguments   json.RawMessage `json:"arguments"`
	SessionID   string          `json:"session_id"`
	StartedAt   time.Time       `json:"started_at"`
	DurationMS  int64           `json:"duration_ms"`
	Completed   bool            `json:"completed"`
	Error       string          `json:"error"`
	// Decision says who decided: DecisionUser, DecisionGrant, DecisionRule
	// or DecisionAuto (CONTRACT section 9).
	Decision string `json:"decision"`
	// Reason says why in words, e.g. "rule 2 in config.yaml: allow
	// write_file in notes/".
	Reason string `json:"reason"`
}

// Who decided that a call may run (CONTRACT section 9).
const (
	DecisionUser  = "user"  // the user approved it
	DecisionGrant = "grant" // a session grant covered it
	DecisionRule  = "rule"  // a rule in config.yaml allowed (or denied) it
	DecisionAuto  = "auto"  // the preset in force needed no approval
)

// A PolicyEntry is one line of what decides calls now (GET /policy): a rule
// of config.yaml or an entry of the preset, in the order they are checked.
type PolicyEntry struct {
	// Source names where it comes from: "rule 2 in config.yaml", "preset
	// moderate", "mcp server files".
	Source string `json:"source"`
	// Effect is "allow", "ask" or "deny".
	Effect string `json:"effect"`
	// Tool is a tool name, SERVER__* or * (every other tool).
	Tool string `json:"tool"`
	// Scope is the folder or host the entry is limited to, "" for none.
	Scope string `json:"scope,omitempty"`
	// Text is the entry in words for people.
	Text string `json:"text"`
}

// A Policy is the answer of GET /policy: the preset and every entry in force.
type Policy struct {
	Preset  string        `json:"preset"`
	Entries []PolicyEntry `json:"entries"`
}

// Kinds of a TraceCall.
const (
	CallModel = "model" // one round of the model
	CallTool  = "tool"  // one tool call under a model round
)

// A TraceCall is one node of a call chain: a model round or a tool call under it.
type TraceCall struct {
	CallID      string          `json:"call_id"`
	ParentID    string          `json:"parent_id"`
	Kind        string          `json:"kind"`
	ToolName    string          `json:"tool_name"`
	ExecutionID string          `json:"execution_id"`
	Arguments   json.RawMessage `json:"arguments"`
	StartedAt   time.Time       `json:"started_at"`
	DurationMS  int64           `json:"duration_ms"`
	Success     bool            `json:"success"`
	Error       string          `json:"error"`
	Result      string          `json:"result,omitempty"`
}

// A Trace is the call chain of one user turn (GET /traces/{id}).
type Trace struct {
	TraceID    string      `json:"trace_id"`
	SessionID  string      `json:"session_id"`
	StartedAt  time.Time   `json:"started_at"`
	DurationMS int64       `json:"duration_ms"`
	Success    bool        `json:"success"`
	Calls      []TraceCall `json:"calls"`
}

// A ToolInfo is one row of GET /tools: a tool the model may call now.
type ToolInfo struct {
	Name          string `json:"name"`
	ToolName      string `json:"tool_name"` // the same as Name, spelt as elsewhere in the API
	Description   string `json:"description"`
	Source        string `json:"source"` // "builtin" or "mcp:NAME"
	NeedsApproval bool   `json:"needs_approval"`
	// Status is an MCP tool's server state: "ready", "starting", "restarting
	// in 4s: <reason>", "failed: <reason>"; empty for built-in tools.
	Status string `json:"status,omitempty"`
}

// A SafetyUpdate is the body of PUT /config/safety.
type SafetyUpdate struct {
	Preset                 string   `json:"preset"`
	ApprovalMode           *bool    `json:"approval_mode,omitempty"`
	ToolsRequiringApproval []string `json:"tools_requiring_approval,omitempty"`
}

// ErrorBody is the shape of every error answer.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail names an error with a stable code and a sentence for people.
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Error codes of the API. The server maps its sentinel errors to these and to
// statuses in one place (server/errors.go); the client maps them back.
const (
	CodeInvalidRequest    = "invalid_request"
	CodeBodyTooLarge      = "body_too_large"
	CodeUnauthorized      = "unauthorized"
	CodeNotFound          = "not_found"
	CodeSessionNotFound   = "session_not_found"
	CodeApprovalPending   = "approval_pending"
	CodeNoPendingApproval = "no_pending_approval"
	CodeInvalidDecisions  = "invalid_decisions"
	CodeInvalidConfig     = "invalid_config"
	CodeConfigLocked      = "config_locked"
	CodeModelError        = "model_error"
	CodeCancelled         = "cancelled"
	CodeNothingRunning    = "nothing_running"
	CodeConflict          = "conflict"        // undo or redo refused: a file changed since the turn
	CodeNothingToUndo     = "nothing_to_undo" // no turn (left) to undo or redo
	CodeSessionBusy       = "session_busy"    // undo or redo while a turn runs on the session
	CodeInternal          = "internal_error"
)

// An UndoRequest is the body of POST /sessions/{id}/undo; every field is
// optional. Turn is the 1-based number of the user turn to undo (later turns
// are undone first); 0 means the last turn that changed files. Force restores
// even files changed since the turn. Preview asks what the undo would do
// without doing it: the answer is the UndoReply the undo would give, with
// Preview set and each file's sizes and diff, and the same errors.
type UndoRequest struct {
	Turn    int  `json:"turn,omitempty"`
	Force   bool `json:"force,omitempty"`
	Preview bool `json:"preview,omitempty"`
}

// A RedoRequest is the body of POST /sessions/{id}/redo (optional); Preview
// as in UndoRequest.
type RedoRequest struct {
	Force   bool `json:"force,omitempty"`
	Preview bool `json:"preview,omitempty"`
}

// Actions of an UndoFile.
const (
	UndoRestored  = "restored"   // the file holds its earlier content again
	UndoRemoved   = "removed"    // the file or empty folder the turn created is gone
	UndoMovedBack = "moved_back" // a moved file or folder is at its earlier path
)

// An UndoFile is one workspace path an undo or redo changed. The fields
// after Action are set in a preview's answer only.
type UndoFile struct {
	Path   string `json:"path"`
	Action string `json:"action"`
	// From is the path a moved_back file or folder comes back from.
	From string `json:"from,omitempty"`
	// Kind is what the path is: "file", "dir" or "symlink" (what it holds
	// now, or after when it holds nothing now).
	Kind string `json:"kind,omitempty"`
	// SizeNow and SizeAfter are the file's size now and after the change;
	// absent when the path holds no file then.
	SizeNow   *int64 `json:"size_now,omitempty"`
	SizeAfter *int64 `json:"size_after,omitempty"`
	// Diff is the unified diff from now to after of a text file that
	// returns (restored), cut at 200 lines or 32 KB (then DiffTruncated).
	Diff          string `json:"diff,omitempty"`
	DiffTruncated bool   `json:"diff_truncated,omitempty"`
}

// An UndoReply answers POST /sessions/{id}/undo and /redo: the turns whose
// changes were undone (or redone), newest first, and the files changed.
// Preview is set on the answer of a preview: nothing was changed.
type UndoReply struct {
	Turns   []int      `json:"turns"`
	Files   []UndoFile `json:"files"`
	Preview bool       `json:"preview,omitempty"`
}

// An UndoConflict is one file that refuses an undo or redo (409 conflict):
// Why says what differs ("changed since turn 3"), Diff is the user's change
// from what the turn left (text only), and Hard marks a conflict that force
// cannot override.
type UndoConflict struct {
	Path string `json:"path"`
	Why  string `json:"why"`
	Diff string `json:"diff,omitempty"`
	Hard bool   `json:"hard,omitempty"`
}

// An UndoConflictBody is the 409 conflict answer of an undo or redo: the
// error, whose message names each file, and the files with their diffs.
type UndoConflictBody struct {
	Error     ErrorDetail    `json:"error"`
	Conflicts []UndoConflict `json:"conflicts"`
}
