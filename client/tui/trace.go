package tui

import (
	"fmt"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/tree"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client"
)

// renderTrace draws a call chain as a tree: model rounds under the turn, tool calls
// under the round that asked for them, each with its duration.
func renderTrace(t api.Trace, r *lipgloss.Renderer) string {
	root := tree.Root(fmt.Sprintf("trace %s · %dms · %s", client.Visible(t.TraceID), t.DurationMS, okMark(t.Success, "")))
	nodes := map[string]*tree.Tree{}
	for _, c := range t.Calls {
		nodes[c.CallID] = tree.Root(callLabel(c))
	}
	for _, c := range t.Calls {
		parent, ok := nodes[c.ParentID]
		if !ok {
			parent = root
		}
		parent.Child(nodes[c.CallID])
	}
	root.EnumeratorStyle(r.NewStyle().Foreground(lipgloss.Color("8")))
	return root.String()
}

func callLabel(c api.TraceCall) string {
	if c.Kind == api.CallModel {
		return fmt.Sprintf("model round · %dms %s", c.DurationMS, okMark(c.Success, c.Error))
	}
	s := fmt.Sprintf("%s %s(%s) · %dms", okMark(c.Success, ""), client.Visible(c.ToolName), shortArgs(c.Arguments, 40), c.DurationMS)
	if c.ExecutionID != "" {
		s += " · " + client.Visible(c.ExecutionID)
	}
	if c.Error != "" {
		s += " · error: " + client.Visible(c.Error)
	}
	return s
}

func okMark(ok bool, errText string) string {
	if ok {
		return "✓"
	}
	if errText != "" {
		return "✗ " + client.Visible(errText)
	}
	return "✗"
}
