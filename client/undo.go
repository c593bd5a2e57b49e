package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/ailab/ai-lab/api"
)

// An UndoConflictError is an undo or redo the server refused, changing
// nothing, because files changed since the turn (409 conflict): the
// server's sentence and each file with the diff of the change.
type UndoConflictError struct {
	*APIError
	Conflicts []api.UndoConflict
}

// Forcible reports whether force would override every conflict: none is a
// path that now goes through a link or a destination that is taken.
func (e *UndoConflictError) Forcible() bool {
	return !slices.ContainsFunc(e.Conflicts, func(c api.UndoConflict) bool { return c.Hard })
}

// Undo asks POST /sessions/{id}/undo; with req.Preview it only says what
// the undo would change. A conflict is an *UndoConflictError.
func (c *Client) Undo(ctx context.Context, sessionID string, req api.UndoRequest) (api.UndoReply, error) {
	return c.undoPost(ctx, "/sessions/"+url.PathEscape(sessionID)+"/undo", req)
}

// Redo asks POST /sessions/{id}/redo; with req.Preview it only says what the
// redo would change. A conflict is an *UndoConflictError.
func (c *Client) Redo(ctx context.Context, sessionID string, req api.RedoRequest) (api.UndoReply, error) {
	return c.undoPost(ctx, "/sessions/"+url.PathEscape(sessionID)+"/redo", req)
}

func (c *Client) undoPost(ctx context.Context, path string, body any) (api.UndoReply, error) {
	var r api.UndoReply
	resp, err := c.send(ctx, http.MethodPost, path, body, "application/json")
	if err != nil {
		return r, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return r, c.transportError(err)
	}
	if resp.StatusCode >= 300 {
		return r, c.undoError(resp.StatusCode, data)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("%w: the answer of POST %s is not the expected JSON (%v); is %s really ai-server?", ErrServer, path, err, c.baseURL)
	}
	return r, nil
}

// undoError is the error of an undo's or redo's error answer, with the
// conflicting files when it is a conflict.
func (c *Client) undoError(status int, data []byte) error {
	err := c.answerError(status, data)
	var ae *APIError
	if !errors.Is(err, ErrUndoConflict) || !errors.As(err, &ae) {
		return err
	}
	var body api.UndoConflictBody
	_ = json.Unmarshal(data, &body) // the sentence alone still says what and why
	return &UndoConflictError{APIError: ae, Conflicts: body.Conflicts}
}

// Sizes for people: bytes up to 1 KB, then KB and MB with one decimal.
func humanSize(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

// turnList writes turns for a sentence: "turn 3", "turns 3 and 4",
// "turns 2, 3 and 4", smallest first.
func turnList(turns []int) string {
	t := slices.Clone(turns)
	slices.Sort(t)
	words := make([]string, len(t))
	for i, n := range t {
		words[i] = fmt.Sprint(n)
	}
	switch len(words) {
	case 0:
		return "no turn"
	case 1:
		return "turn " + words[0]
	}
	return "turns " + strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// UndoHeadline is the first line of an undo's or redo's preview: which turns
// it takes back or puts back, and, when undoing a turn takes later ones with
// it, that it does ("Undoing turn 2 also undoes turn 3, which came after
// it.").
func UndoHeadline(redo bool, r api.UndoReply) string {
	if redo {
		return fmt.Sprintf("Redo %s: the changes the last undo took back are made again.", turnList(r.Turns))
	}
	if len(r.Turns) == 0 {
		return "Undo: no turn."
	}
	asked := slices.Min(r.Turns)
	later := slices.DeleteFunc(slices.Clone(r.Turns), func(n int) bool { return n == asked })
	if len(later) == 0 {
		return fmt.Sprintf("Undo turn %d: the workspace goes back to how it was before it.", asked)
	}
	which := "which came"
	if len(later) > 1 {
		which = "which all came"
	}
	return fmt.Sprintf("Undoing turn %d also undoes %s, %s after it.", asked, turnList(later), which)
}

// actionWords are the actions of an UndoFile as a preview lists them.
var actionWords = map[string]string{
	api.UndoRestored:  "restored",
	api.UndoRemoved:   "removed",
	api.UndoMovedBack: "moved back",
}

// UndoLines are an undo's or redo's preview for people, one string per
// line, never wider than width cells (<= 0: no limit): the headline, a row
// per path (action, path, size now → after, or "folder"), then the diff of
// each file that returns, indented. Paths and diffs come from the workspace,
// so every character that could drive the terminal is escaped.
func UndoLines(redo bool, r api.UndoReply, width int) []string {
	lines := []string{UndoHeadline(redo, r)}
	if len(r.Files) == 0 {
		return fit(append(lines, "No file changes: the runs' files are already as they would be."), width)
	}
	change := " change:"
	if len(r.Files) == 1 {
		change = " changes:"
	}
	lines = append(lines, Plural(len(r.Files), "path")+change)
	pathW := 0
	for _, f := range r.Files {
		pathW = max(pathW, ansi.StringWidth(shownPath(f)))
	}
	pathW = min(pathW, 40)
	for _, f := range r.Files {
		action := actionWords[f.Action]
		if action == "" {
			action = Visible(f.Action)
		}
		p := shownPath(f)
		row := fmt.Sprintf("  %-10s  %s%s  %s", action, p, strings.Repeat(" ", max(0, pathW-ansi.StringWidth(p))), sizes(f))
		lines = append(lines, strings.TrimRight(row, " "))
	}
	for _, f := range r.Files {
		if f.Diff == "" {
			continue
		}
		lines = append(lines, "", "Changes to "+Visible(f.Path)+" (- now, + after):")
		lines = append(lines, diffLines(f.Diff)...)
		if f.DiffTruncated {
			lines = append(lines, "  [the diff is cut here]")
		}
	}
	return fit(lines, width)
}

// shownPath is a path as a preview shows it: escaped, a folder with a slash.
func shownPath(f api.UndoFile) string {
	p := Visible(f.Path)
	if f.Kind == "dir" {
		p += "/"
	}
	return p
}

// sizes is a path's size now and after ("14 B → 8 B", "5 B → gone"), or
// what it is when it is not a file.
func sizes(f api.UndoFile) string {
	if f.Action == api.UndoMovedBack && f.From != "" {
		return "from " + Visible(f.From)
	}
	switch {
	case f.SizeNow == nil && f.SizeAfter == nil:
		if f.Kind == "dir" {
			return "folder"
		}
		if f.Kind == "symlink" {
			return "link"
		}
		return ""
	case f.SizeNow == nil:
		return "absent → " + humanSize(*f.SizeAfter)
	case f.SizeAfter == nil:
		return humanSize(*f.SizeNow) + " → gone"
	}
	return humanSize(*f.SizeNow) + " → " + humanSize(*f.SizeAfter)
}

// diffLines are a diff's lines indented and escaped (tabs shown as spaces,
// so a cut line keeps its width).
func diffLines(d string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(d, "\n"), "\n") {
		out = append(out, "  "+Visible(strings.ReplaceAll(l, "\t", "    ")))
	}
	return out
}

// fit cuts each line to width cells (<= 0: none).
func fit(lines []string, width int) []string {
	if width <= 0 {
		return lines
	}
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, width, "…")
	}
	return lines
}

// ConflictLines are an undo or redo refused by a conflict, for people: what
// was refused, each file with why and the diff of the change made since,
// and whether force can override it.
func ConflictLines(redo bool, e *UndoConflictError, width int) []string {
	verb := "undo"
	if redo {
		verb = "redo"
	}
	lines := []string{fmt.Sprintf("Cannot %s: %s changed since the turn, so nothing was changed.", verb, Plural(len(e.Conflicts), "file"))}
	if len(e.Conflicts) == 0 {
		lines = append(lines, TerminalSafe(e.Message))
	}
	for _, c := range e.Conflicts {
		row := "  " + Visible(c.Path) + "  " + Visible(c.Why)
		if c.Hard {
			row += " (force cannot override this)"
		}
		lines = append(lines, row)
		if c.Diff != "" {
			lines = append(lines, diffLines(c.Diff)...)
		}
	}
	if !e.Forcible() {
		lines = append(lines, "Forcing cannot help: set these paths right by hand first.")
	}
	return fit(lines, width)
}

// UndoDone is the one line that says what an undo or redo did: "Undid
// turns 2 and 3: notes.txt restored, docs/report.md removed."
func UndoDone(redo bool, r api.UndoReply) string {
	verb := "Undid"
	if redo {
		verb = "Redid"
	}
	parts := make([]string, len(r.Files))
	for i, f := range r.Files {
		action := actionWords[f.Action]
		if action == "" {
			action = Visible(f.Action)
		}
		parts[i] = Visible(f.Path) + " " + action
	}
	s := verb + " " + turnList(r.Turns)
	if len(parts) > 0 {
		s += ": " + strings.Join(parts, ", ")
	}
	return s + "."
}

// An UndoOnce is one run of `ai-client undo` or `ai-client redo`: show the
// preview, ask, then undo or redo.
type UndoOnce struct {
	Redo      bool
	SessionID string // empty: the most recent session
	Turn      int    // undo only; 0 is the last turn that changed files
	Force     bool   // overwrite files changed since the turn
	Yes       bool   // do it without asking
	JSON      bool   // print the UndoReply (stdout) instead of sentences
	// Ask says the question can be asked: stdin and stderr are a terminal.
	Ask    bool
	In     io.Reader // where the answer to the question is read
	Out    io.Writer // the preview and what was done, or the JSON
	Prompt io.Writer // the question
	Width  int       // columns for the preview; <= 0: no limit
}

// ErrNeedsYes refuses an undo or redo that would have to ask without a
// terminal to ask on.
var ErrNeedsYes = errors.New("not undoing without asking, and there is no terminal to ask on: add --yes to do it without the question")

// ErrDeclined means the user answered no: nothing was changed.
var ErrDeclined = errors.New("nothing was changed")

// Codes of the undo command's own outcomes for --json, beside the server's.
const (
	CodeNeedsYes = "needs_yes" // no terminal to ask on and no --yes
	CodeDeclined = "declined"  // the user answered no
)

// Run previews the undo or redo against c, asks unless Yes, and does it.
func (o UndoOnce) Run(ctx context.Context, c *Client) error {
	if !o.Yes && !o.Ask {
		return ErrNeedsYes
	}
	if o.Redo {
		o.Turn = 0
	}
	if o.SessionID == "" {
		list, err := c.Sessions(ctx)
		if err != nil {
			return err
		}
		if len(list) == 0 {
			return fmt.Errorf("%w: this server has no session yet", ErrNothingToUndo)
		}
		o.SessionID = list[0].SessionID
	}
	call := func(preview bool) (api.UndoReply, error) {
		if o.Redo {
			return c.Redo(ctx, o.SessionID, api.RedoRequest{Force: o.Force, Preview: preview})
		}
		return c.Undo(ctx, o.SessionID, api.UndoRequest{Turn: o.Turn, Force: o.Force, Preview: preview})
	}
	shown := o.Out
	if o.JSON {
		shown = o.Prompt // stdout holds the JSON alone
	}
	verb := "undo"
	if o.Redo {
		verb = "redo"
	}
	pv, err := call(true)
	var ce *UndoConflictError
	if errors.As(err, &ce) {
		for _, l := range ConflictLines(o.Redo, ce, o.Width) {
			fmt.Fprintln(shown, l)
		}
		if ce.Forcible() {
			return fmt.Errorf("%w: cannot %s session %s while those files differ; add --force to overwrite the changes made since", ErrUndoConflict, verb, o.SessionID)
		}
		return ce
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(shown, "Session %s.\n", Visible(o.SessionID))
	for _, l := range UndoLines(o.Redo, pv, o.Width) {
		fmt.Fprintln(shown, l)
	}
	if !o.Yes {
		q := "Undo these changes? [y/n] (n): "
		if o.Redo {
			q = "Redo these changes? [y/n] (n): "
		}
		fmt.Fprint(o.Prompt, q)
		line, _ := readLine(o.In)
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			return ErrDeclined
		}
	}
	done, err := call(false)
	if err != nil {
		if errors.As(err, &ce) {
			// Changed between the preview and now.
			for _, l := range ConflictLines(o.Redo, ce, o.Width) {
				fmt.Fprintln(shown, l)
			}
		}
		return err
	}
	if o.JSON {
		enc := json.NewEncoder(o.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(done)
	}
	_, err = fmt.Fprintln(o.Out, UndoDone(o.Redo, done))
	return err
}

// readLine reads one line from r a byte at a time, so nothing after it is
// taken from a terminal or pipe that others read next.
func readLine(r io.Reader) (string, error) {
	var b strings.Builder
	var c [1]byte
	for {
		n, err := r.Read(c[:])
		if n == 1 {
			if c[0] == '\n' {
				return b.String(), nil
			}
			b.WriteByte(c[0])
		}
		if err != nil {
			return b.String(), err
		}
	}
}

// UndoErrorCode names an undo's or redo's failure for --json: the server's
// code, or one of the undo command's or the one-shot mode's own.
func UndoErrorCode(err error) string {
	switch {
	case errors.Is(err, ErrNeedsYes):
		return CodeNeedsYes
	case errors.Is(err, ErrDeclined):
		return CodeDeclined
	case errors.Is(err, ErrUndoConflict):
		return api.CodeConflict
	case errors.Is(err, ErrNothingToUndo):
		return api.CodeNothingToUndo
	}
	return ErrorCode(err)
}
