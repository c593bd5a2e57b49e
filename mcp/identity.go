package mcp

import (
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ailab/ai-lab/tools"
)

// nameActions maps a word of an MCP tool's own name to the action it names,
// for tools whose annotations do not say they only read. The first word
// that names one decides: read_text_file reads, move_file moves.
var nameActions = map[string]tools.Action{
	"read": tools.ActionRead, "get": tools.ActionRead, "view": tools.ActionRead, "cat": tools.ActionRead, "open": tools.ActionRead,
	"list": tools.ActionList, "ls": tools.ActionList, "tree": tools.ActionList,
	"search": tools.ActionSearch, "find": tools.ActionSearch, "query": tools.ActionSearch,
	"fetch": tools.ActionFetch, "browse": tools.ActionFetch, "download": tools.ActionFetch,
	"write": tools.ActionWrite, "edit": tools.ActionWrite, "update": tools.ActionWrite, "save": tools.ActionWrite, "put": tools.ActionWrite, "set": tools.ActionWrite, "append": tools.ActionWrite, "patch": tools.ActionWrite,
	"create": tools.ActionCreateDir, "make": tools.ActionCreateDir, "mkdir": tools.ActionCreateDir, "add": tools.ActionCreateDir, "new": tools.ActionCreateDir,
	"delete": tools.ActionDelete, "remove": tools.ActionDelete, "rm": tools.ActionDelete, "unlink": tools.ActionDelete, "drop": tools.ActionDelete, "destroy": tools.ActionDelete,
	"move": tools.ActionMove, "rename": tools.ActionMove, "mv": tools.ActionMove,
	"copy": tools.ActionCopy, "cp": tools.ActionCopy, "duplicate": tools.ActionCopy,
}

// identify is the Identity of the MCP tool named name (SERVER__TOOL, tool the
// server's own name). The annotations are hints from the server, so they can
// only make the tool look less harmless than its name, never more: a tool is
// read-only only when readOnlyHint says so AND its name names no change;
// destructive unless destructiveHint is false; open-world unless
// openWorldHint is false (the MCP defaults). The object is unknown to the
// policy: MCP tools are decided by name, rules and their server's setting.
func identify(server, name, tool string, ann *sdk.ToolAnnotations) tools.Identity {
	id := tools.Identity{Name: name, Source: "mcp:" + server, Server: server, Action: tools.ActionCall, Object: tools.ObjectNone,
		Destructive: true, OpenWorld: true}
	for _, word := range strings.FieldsFunc(strings.ToLower(tool), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if a, ok := nameActions[word]; ok {
			id.Action = a
			break
		}
	}
	if ann == nil {
		return id
	}
	if ann.ReadOnlyHint && (id.Action == tools.ActionCall || !id.Action.Changes()) {
		id.Destructive = false
		if id.Action == tools.ActionCall {
			id.Action = tools.ActionReadOnly
		}
	}
	if ann.DestructiveHint != nil && !*ann.DestructiveHint {
		id.Destructive = false
	}
	if ann.OpenWorldHint != nil && !*ann.OpenWorldHint {
		id.OpenWorld = false
	}
	return id
}
