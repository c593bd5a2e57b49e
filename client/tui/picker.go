package tui

import (
	"fmt"
	"strings"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client"
)

// picker is the list shown by /sessions.
type picker struct {
	items  []api.SessionSummary
	cursor int
}

func (p *picker) move(d int) {
	p.cursor = min(max(0, p.cursor+d), len(p.items)-1)
}

func (p picker) view(width, height int, st styles) string {
	lines := []string{st.title.Render("Sessions (newest first): Enter resumes, Esc goes back")}
	rows := max(1, height-1)
	start := max(0, p.cursor-rows+1)
	for i := start; i < len(p.items) && i < start+rows; i++ {
		s := p.items[i]
		pending := ""
		if s.PendingApproval {
			pending = " · waiting for approval"
		}
		line := fmt.Sprintf("  %s  %s  %s%s", client.Visible(s.SessionID), s.UpdatedAt.Local().Format("2006-01-02 15:04"), client.Visible(s.Title), pending)
		if i == p.cursor {
			line = st.table.Current.Render(cutw("▸"+line[1:], width))
		} else {
			line = cutw(line, width)
		}
		lines = append(lines, line)
	}
	for len(lines) < height {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}
