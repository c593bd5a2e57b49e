package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client"
)

// renderRules is the list /rules shows: the preset on the first line, then one
// line per entry of GET /policy in the order the server checks them, its source,
// effect and words in columns: "rule 1 in config.yaml  deny   read_file in secrets/".
// The server decides every call by this list; the client only shows it.
func renderRules(p api.Policy) string {
	var b strings.Builder
	preset := client.Visible(p.Preset)
	if preset == "" {
		preset = "?"
	}
	b.WriteString("preset: " + preset)
	width := 0
	for _, e := range p.Entries {
		width = max(width, ansi.StringWidth(client.Visible(e.Source)))
	}
	for _, e := range p.Entries {
		source := client.Visible(e.Source)
		fmt.Fprintf(&b, "\n%s%s  %-5s  %s", source, strings.Repeat(" ", width-ansi.StringWidth(source)), client.Visible(e.Effect), entryText(e))
	}
	if len(p.Entries) == 0 {
		b.WriteString("\nno rules or preset entries: the server sent none")
	}
	return b.String()
}

// entryText is an entry in words: the server's, else its tool and scope.
func entryText(e api.PolicyEntry) string {
	switch {
	case e.Text != "":
		return client.Visible(e.Text)
	case e.Scope != "":
		return client.Visible(e.Tool) + " in " + client.Visible(e.Scope)
	}
	return client.Visible(e.Tool)
}
