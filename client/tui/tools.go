package tui

import (
	"fmt"
	"strings"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client"
)

// renderTools is the list /tools shows: one line per tool with its source,
// whether the preset in force asks before it runs, and an MCP server's state.
func renderTools(list []api.ToolInfo) string {
	if len(list) == 0 {
		return "The server offers no tools."
	}
	width := 0
	for _, t := range list {
		width = max(width, len([]rune(client.Visible(t.Name))))
	}
	var b strings.Builder
	b.WriteString("Tools the model may call:\n")
	for _, t := range list {
		ask := "runs without asking"
		if t.NeedsApproval {
			ask = "needs approval"
		}
		name := client.Visible(t.Name)
		fmt.Fprintf(&b, "  %s%s  %-11s  %s", name, strings.Repeat(" ", width-len([]rune(name))), client.Visible(t.Source), ask)
		if t.Status != "" {
			fmt.Fprintf(&b, "  (%s)", client.Visible(t.Status))
		}
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}
