package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode"
)

// Demo is the offline, deterministic stand-in for a model (CONTRACT section 8). It
// turns plain requests in the last user message into real tool calls, one round per
// "then", and once the results are in it answers from them, citing their execution
// ids. It never invents a result or an id: everything it says comes from the tool
// messages in the conversation.
type Demo struct {
	// Pace is the pause between the pieces Stream delivers, so the demo reads
	// like a model writing; zero delivers them all at once.
	Pace time.Duration
}

var _ Streamer = (*Demo)(nil)

// DefaultDemoPace is the Pace NewDemo sets: about 65 words a second.
const DefaultDemoPace = 15 * time.Millisecond

// NewDemo returns the demo model, pacing its streamed answers by DefaultDemoPace.
func NewDemo() *Demo { return &Demo{Pace: DefaultDemoPace} }

// Model returns "demo", which is how /health labels it.
func (*Demo) Model() string { return "demo" }

// Complete answers one round without any I/O.
func (*Demo) Complete(ctx context.Context, req Request) (Message, error) {
	if err := ctx.Err(); err != nil {
		return Message{}, &Error{Kind: KindCanceled, Message: "the request to the model was canceled before it answered", Cause: err}
	}
	user := -1
	idsUsed := 0
	for i, m := range req.Messages {
		if m.Role == RoleUser {
			user = i
		}
		idsUsed += len(m.ToolCalls)
	}
	if user < 0 {
		return assistant(demoHelp), nil
	}
	plan := parseDemoRequest(req.Messages[user].Content)
	if len(plan) == 0 && isVerificationComplaint(req.Messages[:user+1]) {
		// The server refused the demo's last answer: quoted tool output (a file
		// holding an execution id, say) looked like a claim. Repeating it would
		// fail the same way, so the demo states only what ran.
		prev := user - 1
		for prev >= 0 && req.Messages[prev].Role != RoleUser {
			prev--
		}
		results, _, _ := demoResults(req.Messages[prev+1 : user])
		return assistant(demoPlainAnswer(results)), nil
	}

	results, rounds, lastRoundStart := demoResults(req.Messages[user+1:])

	if rounds == 0 && len(plan) == 0 {
		return assistant(demoHelp), nil
	}
	stopped := false
	for _, r := range results[lastRoundStart:] {
		stopped = stopped || r.Status == "denied" || r.Error != "" || !r.readable
	}
	if rounds < len(plan) && !stopped {
		msg := Message{Role: RoleAssistant}
		for i, c := range plan[rounds] {
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{
				ID:        fmt.Sprintf("call_%d", idsUsed+i+1),
				Name:      c.Name,
				Arguments: c.arguments(),
			})
		}
		return msg, nil
	}
	return assistant(demoAnswer(results, rounds < len(plan))), nil
}

// Stream answers like Complete and delivers the answer word by word (each
// word with the blank space after it), pausing Pace between words.
func (d *Demo) Stream(ctx context.Context, req Request, onText func(text string)) (Message, error) {
	msg, err := d.Complete(ctx, req)
	if err != nil {
		return Message{}, err
	}
	for i, piece := range demoPieces(msg.Content) {
		if i > 0 {
			if err := Sleep(ctx, d.Pace); err != nil {
				return Message{}, &Error{Kind: KindCanceled, Message: "the request to the model was canceled before it answered", Cause: err}
			}
		}
		onText(piece)
	}
	return msg, nil
}

// demoPieces cuts text after each run of blank space: "a b\n\nc" gives "a ",
// "b\n\n", "c". Blank space at the start goes with the first word.
func demoPieces(text string) []string {
	var pieces []string
	start, word, prevBlank := 0, false, false
	for i, r := range text {
		blank := unicode.IsSpace(r)
		if !blank && prevBlank && word {
			pieces = append(pieces, text[start:i])
			start, word = i, false
		}
		word = word || !blank
		prevBlank = blank
	}
	if start < len(text) {
		pieces = append(pieces, text[start:])
	}
	return pieces
}

// demoResults reads the tool results of msgs, in the order they ran, and counts
// the tool-call rounds; lastRoundStart is where the last round's results begin.
func demoResults(msgs []Message) (results []demoResult, rounds, lastRoundStart int) {
	calls := map[string]ToolCall{}
	for _, m := range msgs {
		switch {
		case m.Role == RoleAssistant && len(m.ToolCalls) > 0:
			rounds++
			lastRoundStart = len(results)
			for _, c := range m.ToolCalls {
				calls[c.ID] = c
			}
		case m.Role == RoleTool:
			results = append(results, readDemoResult(m, calls))
		}
	}
	return results, rounds, lastRoundStart
}

// isVerificationComplaint reports whether the last of msgs, a user message, is
// the server's refusal of the demo's answer just before it (CONTRACT section 7)
// rather than a new request.
func isVerificationComplaint(msgs []Message) bool {
	n := len(msgs)
	if n < 2 {
		return false
	}
	before, last := msgs[n-2], strings.ToLower(msgs[n-1].Content)
	return before.Role == RoleAssistant && len(before.ToolCalls) == 0 &&
		strings.HasPrefix(before.Content, demoAnswerHead) &&
		strings.Contains(last, "verif") && strings.Contains(last, "execution")
}

func assistant(content string) Message { return Message{Role: RoleAssistant, Content: content} }

const demoHelp = "I am the **demo model**: an offline stand-in for a real LLM that understands only a few plain requests, " +
	"so you can try tool calls and approvals without installing a model. Try for example:\n\n" +
	"- `search the web for bubble tea tutorial`\n" +
	"- `read https://go.dev/doc/effective_go`\n" +
	"- `create a file named notes.txt with hello world`\n" +
	"- `write buy milk to todo.txt`\n" +
	"- `read the file notes.txt`\n" +
	"- `list files` or `list files in docs`\n" +
	"- `move notes.txt to old.txt` or `copy a.txt to b.txt`\n" +
	"- `create a directory named drafts`\n" +
	"- `delete notes.txt`\n\n" +
	"Join requests with \"and\" to run them in one round, or with \"then\" to run them one after another, " +
	"e.g. `create a file named a.txt with hi and then delete it`. " +
	"To use a real model, run the server without --demo and set llm.base_url and llm.model."

// A demoResult is one tool message as the demo understands it (CONTRACT section 5).
type demoResult struct {
	ExecutionID string          `json:"execution_id"`
	ToolName    string          `json:"tool_name"`
	Result      json.RawMessage `json:"result"`
	Error       string          `json:"error"`
	Status      string          `json:"status"`
	Message     string          `json:"message"`
	Feedback    string          `json:"feedback"`

	args     map[string]any // the arguments of the call it answers, when known
	readable bool
}

func readDemoResult(m Message, calls map[string]ToolCall) demoResult {
	var r demoResult
	r.readable = json.Unmarshal([]byte(m.Content), &r) == nil
	if c, ok := calls[m.ToolCallID]; ok {
		if r.ToolName == "" {
			r.ToolName = c.Name
		}
		_ = json.Unmarshal([]byte(c.Arguments), &r.args) // unreadable arguments just mean fewer details
	}
	if r.ToolName == "" {
		r.ToolName = "a tool"
	}
	return r
}

// demoAnswerHead opens every answer the demo writes from tool results.
const demoAnswerHead = "Here is what the tools returned (demo model, no LLM involved):\n"

// demoPlainAnswer lists what ran without quoting any output, for when quoting
// it was refused.
func demoPlainAnswer(results []demoResult) string {
	if len(results) == 0 {
		return "I (the demo model) have no tool results to report for this request."
	}
	var b strings.Builder
	b.WriteString("These tools ran (demo model, no LLM involved); their output is left out because it could not be shown as written:\n")
	for _, r := range results {
		b.WriteString("\n- **" + r.ToolName + "**" + r.target())
		switch {
		case !r.readable:
			b.WriteString(": returned something the demo could not read as a tool result.")
		case r.Status == "denied":
			b.WriteString(": the user denied this call.")
		case r.Error != "":
			b.WriteString(": failed" + r.cite() + ".")
		default:
			b.WriteString(": ran" + r.cite() + ".")
		}
	}
	return b.String()
}

// demoAnswer writes the markdown answer from the results, in the order they ran.
func demoAnswer(results []demoResult, stoppedEarly bool) string {
	if len(results) == 0 {
		return "I (the demo model) asked for tools, but no results came back, so there is nothing to report."
	}
	var b strings.Builder
	b.WriteString(demoAnswerHead)
	for _, r := range results {
		b.WriteString("\n- ")
		b.WriteString(r.summary())
	}
	if stoppedEarly {
		b.WriteString("\n\nI did not go on with the rest of the request, because a step was denied or failed.")
	}
	return b.String()
}

// executionID is the contract's id format (CONTRACT section 5). It repeats
// tools.ExecutionIDPattern because llm must not import tools.
var executionID = lazyRegexp(`^[a-z][a-z0-9_]*_\d{13}_[0-9a-f]{8}$`)

// cite is the execution id reference for a run, or "" when the run has no
// well-formed id: the demo cites only ids the server really issued.
func (r demoResult) cite() string {
	if !executionID().MatchString(r.ExecutionID) {
		return ""
	}
	return " (execution_id: " + r.ExecutionID + ")"
}

func (r demoResult) summary() string {
	head := "**" + r.ToolName + "**"
	switch {
	case !r.readable:
		return head + ": returned something the demo could not read as a tool result."
	case r.Status == "denied":
		s := head + r.target() + ": the user denied this call."
		if r.Feedback != "" {
			s += " Their feedback: \"" + OneLine(r.Feedback, 300) + "\""
		}
		return s
	case r.Error != "":
		return head + r.target() + ": failed: " + OneLine(r.Error, 300) + r.cite() + "."
	}
	var res map[string]any
	if json.Unmarshal(r.Result, &res) != nil {
		res = map[string]any{}
	}
	switch r.ToolName {
	case "web_search":
		return head + ": " + r.searchSummary(res)
	case "read_webpage":
		return head + ": " + r.pageSummary(res)
	case "read_file":
		return head + ": " + r.fileSummary(res)
	case "write_file":
		return head + ": wrote " + code(r.str(res, "path")) + sizeNote(res) + r.cite() + "."
	case "delete_file":
		return head + ": deleted " + code(r.str(res, "path")) + r.cite() + "."
	case "move_file":
		return head + ": moved " + code(r.str(res, "source")) + " to " + code(r.str(res, "destination")) + r.cite() + "."
	case "copy_file":
		return head + ": copied " + code(r.str(res, "source")) + " to " + code(r.str(res, "destination")) + r.cite() + "."
	case "create_directory":
		return head + ": created the directory " + code(r.str(res, "path")) + r.cite() + "."
	case "list_directory":
		return head + ": " + r.listSummary(res)
	}
	raw := string(r.Result)
	if raw == "" {
		raw = "null"
	}
	return head + ": returned " + code(OneLine(raw, 200)) + r.cite() + "."
}

// target names what a call was about, from its arguments, for denied and failed calls.
func (r demoResult) target() string {
	for _, k := range []string{"path", "source", "url", "query"} {
		if v, ok := r.args[k].(string); ok && v != "" {
			return " on " + code(v)
		}
	}
	return ""
}

// str reads a string field from the result, falling back to the call's arguments.
func (r demoResult) str(res map[string]any, key string) string {
	if v, ok := res[key].(string); ok && v != "" {
		return v
	}
	if v, ok := r.args[key].(string); ok {
		return v
	}
	return "?"
}

func (r demoResult) searchSummary(res map[string]any) string {
	query := r.str(res, "query")
	items, _ := res["results"].([]any)
	if len(items) == 0 {
		return fmt.Sprintf("no results for %q%s.", query, r.cite())
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s for %q%s; the top ones:", count(len(items), "result"), query, r.cite())
	for i, it := range items[:min(len(items), 5)] {
		m, _ := it.(map[string]any)
		title, _ := m["title"].(string)
		u, _ := m["url"].(string)
		fmt.Fprintf(&b, "\n  %d. %s", i+1, link(title, u))
	}
	return b.String()
}

func (r demoResult) pageSummary(res map[string]any) string {
	u := r.str(res, "final_url")
	if u == "?" {
		u = r.str(res, "url")
	}
	title, _ := res["title"].(string)
	s := "read " + link(title, u)
	if n, ok := res["length"].(float64); ok {
		s += fmt.Sprintf(" (%d characters", int64(n))
		if t, _ := res["truncated"].(bool); t {
			s += ", truncated"
		}
		s += ")"
	}
	s += r.cite() + "."
	if content, _ := res["content"].(string); content != "" {
		if ex := OneLine(wrapperTags().ReplaceAllString(content, " "), 300); ex != "" {
			s += "\n\n  > " + ex
		}
	}
	return s
}

// wrapperTags matches the content wrappers of CONTRACT section 5, which the
// excerpt leaves out.
var wrapperTags = lazyRegexp(`</?(?:webpage_content|search_results)\b[^>]*>`)

func (r demoResult) fileSummary(res map[string]any) string {
	content, _ := res["content"].(string)
	s := "read " + code(r.str(res, "path")) + sizeNote(res) + r.cite() + "."
	if content == "" {
		return s + " It is empty."
	}
	excerpt := content
	if len(excerpt) > 600 {
		excerpt = strings.ToValidUTF8(excerpt[:600], "") + "\n…"
	}
	fence := strings.Repeat("`", max(3, longestRun(excerpt, '`')+1))
	return s + "\n\n  " + fence + "\n  " + strings.ReplaceAll(strings.TrimRight(excerpt, "\n"), "\n", "\n  ") + "\n  " + fence
}

func (r demoResult) listSummary(res map[string]any) string {
	dir := r.str(res, "path")
	var entries []any
	for _, k := range []string{"entries", "items", "files", "children"} {
		if e, ok := res[k].([]any); ok {
			entries = e
			break
		}
	}
	if len(entries) == 0 {
		return code(dir) + " is empty" + r.cite() + "."
	}
	var names []string
	for _, e := range entries {
		names = append(names, entryName(e))
	}
	s := fmt.Sprintf("%s holds %s%s: ", code(dir), count(len(entries), "entry"), r.cite())
	const shown = 20
	for i, n := range names[:min(len(names), shown)] {
		if i > 0 {
			s += ", "
		}
		s += code(n)
	}
	if len(names) > shown {
		s += fmt.Sprintf(" and %d more", len(names)-shown)
	}
	return s + "."
}

// entryName renders one list_directory entry, a plain name or an object; a
// trailing slash marks a directory.
func entryName(e any) string {
	switch v := e.(type) {
	case string:
		return v
	case map[string]any:
		name, _ := v["name"].(string)
		if name == "" {
			name, _ = v["path"].(string)
		}
		typ, _ := v["type"].(string)
		isDir, _ := v["is_dir"].(bool)
		if (isDir || typ == "dir" || typ == "directory") && !strings.HasSuffix(name, "/") {
			name += "/"
		}
		return name
	}
	return OneLine(fmt.Sprint(e), 60)
}

// sizeNote reports a byte count the result gives under one of the usual names.
func sizeNote(res map[string]any) string {
	for _, k := range []string{"bytes", "size", "bytes_written", "length"} {
		if n, ok := res[k].(float64); ok && n >= 0 && n <= math.MaxInt64 {
			if n == 1 {
				return " (1 byte)"
			}
			return fmt.Sprintf(" (%d bytes)", int64(n))
		}
	}
	return ""
}

// code renders s as inline code, whatever backticks it holds.
func code(s string) string {
	s = OneLine(s, 200)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// link renders a markdown link whose text and target cannot break out of it.
func link(title, u string) string {
	title = OneLine(title, 120)
	if title == "" {
		title = u
	}
	title = strings.NewReplacer("[", "\\[", "]", "\\]").Replace(title)
	u = strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E").Replace(u)
	return "[" + title + "](" + u + ")"
}

// count writes "1 result", "2 results", "3 entries".
func count(n int, noun string) string {
	switch {
	case n == 1:
		return "1 " + noun
	case strings.HasSuffix(noun, "y"):
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(noun, "y"))
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}
