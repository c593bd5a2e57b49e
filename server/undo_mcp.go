package server

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/ailab/ai-lab/tools"
)

// outsideChanges is what an MCP tool's call will change in the workspace,
// where it can be known: its identity says it writes, creates, deletes or
// moves, and every path its arguments name (path, source, destination...) is
// inside the workspace, given relative to it or absolute under it, as the
// official filesystem server takes them. Anything else (no path, a path
// elsewhere, an action of unknown effect) gives no changes: such a run is
// not recorded, and cannot be undone.
func outsideChanges(id tools.Identity, args json.RawMessage, ws *tools.Workspace) (tools.Changes, bool) {
	if id.Source == tools.SourceBuiltin {
		return tools.Changes{}, false
	}
	var fields map[string]any
	if json.Unmarshal(args, &fields) != nil {
		return tools.Changes{}, false
	}
	var keys []string
	switch id.Action {
	case tools.ActionWrite, tools.ActionCreateDir, tools.ActionDelete:
		keys = []string{"path", "file", "file_path", "filename"}
	case tools.ActionMove:
		keys = []string{"source", "destination"}
	default:
		return tools.Changes{}, false
	}
	var ch tools.Changes
	for _, k := range keys {
		v, ok := fields[k].(string)
		if !ok {
			continue
		}
		p, ok := insideWorkspace(ws, v)
		if !ok {
			return tools.Changes{}, false
		}
		ch.Paths = append(ch.Paths, p)
	}
	switch {
	case id.Action == tools.ActionMove && len(ch.Paths) == 2:
		ch.Move = true
	case id.Action != tools.ActionMove && len(ch.Paths) == 1:
	default:
		return tools.Changes{}, false
	}
	return ch, true
}

// insideWorkspace is p as a canonical workspace path, when it names one:
// relative to the workspace, or absolute under its folder.
func insideWorkspace(ws *tools.Workspace, p string) (string, bool) {
	if filepath.IsAbs(p) {
		dir := ws.Dir()
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		rel, err := filepath.Rel(dir, filepath.Clean(p))
		if err != nil || rel == "." || !filepath.IsLocal(rel) {
			return "", false
		}
		p = filepath.ToSlash(rel)
	}
	if strings.TrimSpace(p) == "" {
		return "", false
	}
	c, err := ws.Canonical(p, false)
	if err != nil || c == "." {
		return "", false
	}
	return c, true
}
