package verify

import (
	"context"
	"fmt"
	"time"

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
)

// An Issue is one reason a reply cannot be shown as it is.
type Issue struct {
	Code string
	// Message is one sentence shown to the model in the re-prompt and to the
	// user in validation.issues.
	Message string
	// Tool is the tool concerned; for announcements, the one to call.
	Tool string
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
}

// Check returns every issue of reply for session sessionID; no issues means
// the reply may be shown. The error is only for a ledger that failed.
func (v Validator) Check(ctx context.Context, sessionID, reply string, ledger Ledger) ([]Issue, error) {
	var issues []Issue
	for _, c := range ExtractClaims(reply) {
		issue, ok, err := v.checkClaim(ctx, sessionID, c, ledger)
		if err != nil {
			return nil, err
		}
		if !ok {
			issues = append(issues, issue)
		}
	}
	issues = append(issues, Announcements(reply, v.toolNames())...)
	return issues, nil
}

func (v Validator) toolNames() []string {
	if len(v.Tools) > 0 {
		return v.Tools
	}
	return tools.Names
}

// checkClaim reports whether one claim holds, and the issue when it does not.
func (v Validator) checkClaim(ctx context.Context, sessionID string, c Claim, ledger Ledger) (Issue, bool, error) {
	if c.ExecutionID == "" {
		return Issue{
			Code:    CodeMissingID,
			Message: fmt.Sprintf("tool claim for %s missing execution_id", c.ToolName),
			Tool:    c.ToolName,
		}, false, nil
	}
	notFound := Issue{
		Code:    CodeNotFound,
		Message: fmt.Sprintf("execution id %s is not in the ledger: no tool run with that id was found in this session", c.ExecutionID),
		Tool:    c.ToolName,
	}
	prefix := idPrefix(c.ExecutionID)
	if prefix == "" {
		return notFound, false, nil // malformed: no ledger could hold it
	}
	rec, found, err := ledger.Lookup(ctx, c.ExecutionID)
	if err != nil {
		return Issue{}, false, fmt.Errorf("look up execution %s: %w", c.ExecutionID, err)
	}
	// Another session's run is reported exactly like a missing one, so a reply
	// cannot learn that an id exists elsewhere.
	if !found || rec.SessionID != sessionID {
		return notFound, false, nil
	}
	if claimed := c.ToolName; claimed != rec.ToolName || prefix != rec.ToolName {
		if claimed == rec.ToolName {
			claimed = prefix
		}
		return Issue{
			Code:    CodeWrongTool,
			Message: fmt.Sprintf("execution id %s belongs to a run of %s, not %s", c.ExecutionID, rec.ToolName, claimed),
			Tool:    claimed,
		}, false, nil
	}
	if age := v.now().Sub(rec.StartedAt); age > v.window() {
		return Issue{
			Code: CodeExpired,
			Message: fmt.Sprintf("execution id %s of %s is %s old, older than the %s it stays citable; run the tool again for a fresh result",
				c.ExecutionID, rec.ToolName, age.Round(time.Second), v.window()),
			Tool: rec.ToolName,
		}, false, nil
	}
	if !rec.Completed || rec.Error != "" {
		if c.ReportsFailure() {
			return Issue{}, true, nil
		}
	}
	if rec.Error != "" {
		return Issue{
			Code:    CodeFailedRun,
			Message: fmt.Sprintf("execution %s of %s failed (%s), it cannot be cited as a result", c.ExecutionID, rec.ToolName, rec.Error),
			Tool:    rec.ToolName,
		}, false, nil
	}
	if !rec.Completed {
		return Issue{
			Code:    CodeFailedRun,
			Message: fmt.Sprintf("execution %s of %s never completed, it cannot be cited as a result", c.ExecutionID, rec.ToolName),
			Tool:    rec.ToolName,
		}, false, nil
	}
	return Issue{}, true, nil
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
