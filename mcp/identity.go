package mcp

import (
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ailab/ai-lab/tools"
)

// identify is the Identity of the MCP tool named name (SERVER__TOOL, tool the
// server's own name). Its action is the one the words of its own name give
// (tools.NameAction: send_email sends, get_webpage fetches, reserve_hotel
// books). The annotations are hints from the server, so they can
// only make the tool look less harmless than its name, never more: a tool is
// read-only only when readOnlyHint says so AND its name names no change;
// destructive unless destructiveHint is false; open-world unless
// openWorldHint is false (the MCP defaults). The object is unknown to the
// policy: MCP tools are decided by name, rules and their server's setting.
func identify(server, name, tool string, ann *sdk.ToolAnnotations) tools.Identity {
	id := tools.Identity{Name: name, Source: "mcp:" + server, Server: server, Action: tools.ActionCall, Object: tools.ObjectNone,
		Destructive: true, OpenWorld: true}
	if a := tools.NameAction(tool); a != "" {
		id.Action = a
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
