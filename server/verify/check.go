package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/tools"
)

// A Record is what the execution ledger knows about one tool run.
type Record struct {
	ExecutionID string
	ToolName    string
	SessionID   string
	StartedAt   time.Time
	Completed   bool
	Error       string
	// Arguments are the run's arguments as the model gave them, so a cited
	// id can be held to the object the reply names beside it.
	Arguments json.RawMessage
}

// A Ledger looks up tool runs by execution id. Lookup reports found=false for
// an id it has never recorded; err is for a ledger that could not answer.
type Ledger interface {
	Lookup(ctx context.Context, executionID string) (rec Record, found bool, err error)
}

// Codes of an Issue.
const (
	CodeNotFound           = "not_found"            // id not in this session's ledger (or malformed)
	CodeExpired            = "expired"              // id older than the window
	CodeWrongTool          = "wrong_tool"           // id cited for another tool than the one that ran
	CodeFailedRun          = "failed_run"           // run failed or never completed
	CodeMissingID          = "missing_execution_id" // JSON tool-result claim without an id
	CodeAnnouncedNotCalled = "announced_not_called" // reply says it will use a tool but did not call it
	CodeUnrunClaim         = "unrun_claim"          // reply says a tool ran that did not run (or failed, or was denied) in this turn
	CodeUndoneClaim        = "undone_claim"         // reply says an action failed or was not done that succeeded in this turn
	CodeWrongObject        = "wrong_object"         // id cited for a run on another path or URL than the claim gives
)

// An Issue is one reason a reply cannot be shown as it is.
type Issue struct {
	Code string
	// Message is one sentence shown to the model in the re-prompt and to the
	// user in validation.issues.
	Message string
	// Tool is the tool concerned; for announcements, the one to call.
	Tool string
	// Denied lists the tools the user denied in the turn the reply ends.
	// Check sets it on every issue so that RepromptMessage, which sees only
	// the issues, never asks the model to call one of them again.
	Denied []string
}

// A Run is one tool call of the turn being validated, as the server recorded it.
type Run struct {
	ToolName    string
	ExecutionID string // "" for a denied call
	Status      string // "ok", "error" or "denied" (the api.Status* values)
	Result      string // for a successful read_file: the file's content as the tool returned it; "" otherwise
	// Arguments are the call's arguments as the model gave them: the object
	// (path, URL, query) a claim of this run must name.
	Arguments json.RawMessage
	// Identity is the tool's one identity record (what it does, to what),
	// shared with the approval policy; the zero value means the server did
	// not say, and the catalog's record by name is used.
	Identity tools.Identity
}

// DefaultWindow is how long an execution id stays citable when the Validator
// is given no window (CONTRACT section 2, tracking.window).
const DefaultWindow = 5 * time.Minute

// A Validator checks a final reply against the execution ledger (CONTRACT
// section 7). The zero value works: window DefaultWindow, wall clock, and the
// full tool catalog.
type Validator struct {
	// Window is how long after its start a run may be cited.
	Window time.Duration
	// Now is the clock; tests inject a fixed one.
	Now func() time.Time
	// Tools are the registered tool names; only these are reported as
	// announced-but-not-called, since asking the model to call a tool it does
	// not have would loop.
	Tools []string
	// Turn holds the tool calls of the turn the reply ends, in order. A reply
	// that says a tool ran ("I searched the web", "I've written report.md") is
	// held to it: nil means no tool was called in this turn.
	Turn []Run
	// Actions adds the past-tense phrases of tools that the built-in table
	// (see pastActions) does not know, such as MCP tools, and replaces the
	// built-in phrases of a tool it names; an empty list switches a tool's
	// phrases off. "I ran/called/used <tool name>" needs no entry.
	Actions map[string][]string
	// Identities are the identity records of the registered tools, built-in
	// and MCP, by name: a claim is matched to a run of the same kind of
	// action, so an honest "I deleted notes.txt" after files__delete_file ran
	// holds, and srv__Read is never taken for srv__read.
	Identities map[string]tools.Identity
}

// Check returns every issue of reply for session sessionID; no issues means
// the reply may be shown. The error is only for a ledger that failed.
func (v Validator) Check(ctx context.Context, sessionID, reply string, ledger Ledger) ([]Issue, error) {
	// Every look at the reply reads it as its reader sees it: a full-width
	// digit, a zero-width space or a Cyrillic letter hides no id and no verb.
	reply = normalizeText(reply)
	var issues []Issue
	var cited []citedRun // claims that held, each for a run the ledger confirms
	known := v.knownTools()
	sents, quoted := sentences(reply), quotedSpans(reply)
	claims := allClaims(reply, known)
	shown := newShownContent(v.Turn)
	if shown.any() && len(claims) > 0 {
		// The tool's own output, shown as it came, claims nothing. This is
		// decided before an id claimed several ways is counted once, so that
		// the id of a file's JSON cited again outside it is still checked.
		claims = slices.DeleteFunc(claims, func(c Claim) bool { return shown.covers(reply, c, quoted) })
	}
	for _, c := range distinctClaims(reply, claims) {
		issue, rec, ok, err := v.checkClaim(ctx, sessionID, c, ledger)
		if err != nil {
			return nil, err
		}
		if !ok {
			issues = append(issues, issue)
			continue
		}
		cited = append(cited, citedRun{claim: c, rec: rec})
	}
	// A JSON claim is judged by its id, not read as prose.
	var jsonSpans []cut
	for _, c := range claims {
		if c.Kind == ClaimJSON {
			jsonSpans = append(jsonSpans, cut{c.Offset, c.Offset + len(c.Raw)})
		}
	}
	prose := proseText(reply, jsonSpans)
	issues = append(issues, v.unrunClaims(reply, prose, quoted, shown, cited, known)...)
	denied := v.deniedTools()
	if !asksUser(reply) {
		for _, is := range announcements(reply, sents, quoted, v.toolNames()) {
			// The user said no to this tool in this turn: asking the model to
			// call it would override that answer.
			if !slices.Contains(denied, is.Tool) {
				issues = append(issues, is)
			}
		}
	}
	if len(denied) > 0 {
		for i := range issues {
			issues[i].Denied = denied
		}
	}
	return issues, nil
}

func (v Validator) toolNames() []string {
	if len(v.Tools) > 0 {
		return v.Tools
	}
	return tools.Names
}

// knownTools are every tool name a reply may cite or claim to have run: the
// registered ones, the built-in catalog and the tools Actions describes. The
// catalog is always included because a claim of a built-in tool the server
// lacks is still a claim of a run that did not happen.
func (v Validator) knownTools() []string {
	names := slices.Clone(v.toolNames())
	for _, n := range tools.Names {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for n := range v.Actions {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

// deniedTools returns, sorted, the tools the user denied in this turn.
func (v Validator) deniedTools() []string {
	var out []string
	for _, r := range v.Turn {
		if r.Status == api.StatusDenied && !slices.Contains(out, r.ToolName) {
			out = append(out, r.ToolName)
		}
	}
	slices.Sort(out)
	return out
}

// checkClaim reports whether one claim holds, with the ledger's record of
// the run it cites, and the issue when it does not.
func (v Validator) checkClaim(ctx context.Context, sessionID string, c Claim, ledger Ledger) (Issue, Record, bool, error) {
	if c.ExecutionID == "" {
		return Issue{
			Code:    CodeMissingID,
			Message: fmt.Sprintf("tool claim for %s missing execution_id", c.ToolName),
			Tool:    c.ToolName,
		}, Record{}, false, nil
	}
	notFound := Issue{
		Code:    CodeNotFound,
		Message: fmt.Sprintf("execution id %s is not in the ledger: no tool run with that id was found in this session", c.ExecutionID),
		Tool:    c.ToolName,
	}
	prefix := idPrefix(c.ExecutionID)
	if prefix == "" {
		// No ledger could hold it; saying why lets the model cite the id
		// exactly as its tool result gave it instead of guessing again.
		notFound.Message = fmt.Sprintf("execution id %s is not in the ledger: it is malformed, since an execution id is <tool name>_<13-digit unix milliseconds>_<8 lowercase hex digits>, such as web_search_1763769600123_9f86d081", c.ExecutionID)
		return notFound, Record{}, false, nil
	}
	rec, found, err := ledger.Lookup(ctx, c.ExecutionID)
	if err != nil {
		return Issue{}, Record{}, false, fmt.Errorf("look up execution %s: %w", c.ExecutionID, err)
	}
	// Another session's run is reported exactly like a missing one, so a reply
	// cannot learn that an id exists elsewhere.
	if !found || rec.SessionID != sessionID {
		return notFound, Record{}, false, nil
	}
	// An id's tool part is the tool's name as tools.IDPrefix writes it (an MCP
	// tool's name may have capitals or dashes); a claim may name the tool
	// either way. Two tools may share that spelling (srv__Read, srv__read):
	// a claim that names a tool by its exact name is then held to that
	// tool, never to the other.
	want := tools.IDPrefix(rec.ToolName)
	claimed := c.ToolName
	sameTool := claimed == rec.ToolName || claimed == want && !(c.named && v.isOtherTool(claimed, rec.ToolName))
	if !sameTool || prefix != want {
		if claimed == rec.ToolName || claimed == want && !c.named {
			claimed = prefix
		}
		return Issue{
			Code:    CodeWrongTool,
			Message: fmt.Sprintf("execution id %s belongs to a run of %s, not %s", c.ExecutionID, rec.ToolName, claimed),
			Tool:    claimed,
		}, Record{}, false, nil
	}
	if vals, ok := argStrings(rec.Arguments); ok {
		for _, o := range c.objects {
			if !objectMatches(o, vals) {
				return Issue{
					Code:    CodeWrongObject,
					Message: fmt.Sprintf("execution id %s is a run of %s on %s, not on %s", c.ExecutionID, rec.ToolName, strings.Join(vals, ", "), o),
					Tool:    rec.ToolName,
				}, Record{}, false, nil
			}
		}
	}
	if age := v.now().Sub(rec.StartedAt); age > v.window() {
		return Issue{
			Code: CodeExpired,
			Message: fmt.Sprintf("execution id %s of %s is %s old, older than the %s it stays citable; run the tool again for a fresh result",
				c.ExecutionID, rec.ToolName, age.Round(time.Second), v.window()),
			Tool: rec.ToolName,
		}, Record{}, false, nil
	}
	if !rec.Completed || rec.Error != "" {
		if c.ReportsFailure() {
			return Issue{}, rec, true, nil
		}
	}
	if rec.Error != "" {
		return Issue{
			Code:    CodeFailedRun,
			Message: fmt.Sprintf("execution %s of %s failed (%s), it cannot be cited as a result", c.ExecutionID, rec.ToolName, rec.Error),
			Tool:    rec.ToolName,
		}, Record{}, false, nil
	}
	if !rec.Completed {
		return Issue{
			Code:    CodeFailedRun,
			Message: fmt.Sprintf("execution %s of %s never completed, it cannot be cited as a result", c.ExecutionID, rec.ToolName),
			Tool:    rec.ToolName,
		}, Record{}, false, nil
	}
	return Issue{}, rec, true, nil
}

// isOtherTool reports whether name is the exact name of a tool the
// Validator knows other than ran.
func (v Validator) isOtherTool(name, ran string) bool {
	if name == ran {
		return false
	}
	if _, ok := v.Identities[name]; ok {
		return true
	}
	return slices.Contains(v.knownTools(), name)
}

func (v Validator) now() time.Time {
	if v.Now != nil {
		return v.Now()
	}
	return time.Now()
}

func (v Validator) window() time.Duration {
	if v.Window > 0 {
		return v.Window
	}
	return DefaultWindow
}
