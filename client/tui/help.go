package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// A helpRow is one line of an aligned list: a key (a command, a key, a preset)
// and what it does, or, with no key, a heading.
type helpRow struct {
	key, desc string
}

// presetNames are the four safety presets, for every text that lists them.
const presetNames = "strict, moderate, minimal or custom"

// presetRows say in one line each what the presets ask for.
var presetRows = []helpRow{
	{"strict", "asks before every file change, web search and page read; offers no session grants"},
	{"moderate", "asks before every file change (write, delete, move, copy, new folder); web searches and page reads run"},
	{"minimal", "asks for nothing: every call runs"},
	{"custom", "asks for the tools listed in safety.tools_requiring_approval in config.yaml"},
}

// helpRows are what /help shows.
var helpRows = []helpRow{
	{"", "Commands:"},
	{"/help", "this list"},
	{"/new", "start a new session"},
	{"/sessions", "pick a session to resume"},
	{"/resume ID", "resume session ID"},
	{"/preset", "show the safety preset and the choices"},
	{"/preset NAME", "set the safety preset: " + presetNames},
	{"/grants", "list this session's grants and revoke one"},
	{"/grants revoke ID", "revoke grant ID"},
	{"/rules", "the preset and every rule that decides tool calls, in the order they are checked"},
	{"/undo", "take back the last turn's file changes: shows each file and its diff, then asks y/n"},
	{"/undo N", "take back turn N (your Nth message here) and every later turn"},
	{"/redo", "put back what the last /undo took back (asks y/n after the preview)"},
	{"/tools", "every tool the model may call, where it comes from, and whether it asks"},
	{"/trace", "the last turn's call chain with durations"},
	{"/quit", "leave (Ctrl+C works too)"},
	{"", "Keys:"},
	{"Enter", "send"},
	{"Alt+Enter, Ctrl+J", "add a line"},
	{"PgUp/PgDn, wheel", "scroll the conversation"},
	{"End", "go to the newest message"},
	{"", "Approvals (the prompt under the table lists the keys that work for the call):"},
	{"y", "approve"},
	{"Enter", "approve, except a call that may destroy data (delete, overwrite, replace, MCP tool): press y or n"},
	{"n", "deny, then an optional reason"},
	{"s", "approve and allow such calls for this session, when the server offers a grant"},
	{"r", "approve and allow such calls always (saves an allow rule in config.yaml)"},
	{"a", "approve all remaining calls"},
	{"d", "deny all remaining calls, then an optional reason"},
	{"?", "the full arguments and what the call changes (the diff of an overwrite)"},
	{"↑/↓", "scroll the table; PgUp/PgDn scroll the conversation"},
	{"why:", "under the call being decided: the server's reason for asking"},
}

// renderRows lays rows out for width: headings flush left, keys indented in a
// column as wide as the widest key, and each description wrapped within its own
// column, so every line of it starts under the first. On a terminal too narrow
// for two columns the description goes under its key.
func renderRows(rows []helpRow, width int) string {
	keyW := 0
	for _, r := range rows {
		keyW = max(keyW, ansi.StringWidth(r.key))
	}
	indent := 2 + keyW + 2
	descW := width - indent
	var out []string
	for _, r := range rows {
		if r.key == "" {
			out = append(out, strings.Split(ansi.Wrap(r.desc, width, ""), "\n")...)
			continue
		}
		if descW < 24 {
			out = append(out, "  "+r.key)
			for _, l := range strings.Split(ansi.Wrap(r.desc, max(1, width-4), ""), "\n") {
				out = append(out, "    "+l)
			}
			continue
		}
		lines := strings.Split(ansi.Wrap(r.desc, descW, ""), "\n")
		out = append(out, "  "+r.key+strings.Repeat(" ", indent-2-ansi.StringWidth(r.key))+lines[0])
		for _, l := range lines[1:] {
			out = append(out, strings.Repeat(" ", indent)+l)
		}
	}
	return strings.Join(out, "\n")
}
