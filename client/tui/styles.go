package tui

import (
	"github.com/charmbracelet/lipgloss"

	"github.com/ailab/ai-lab/client"
)

// styles are built from the program's renderer, so its colour profile (Ascii under
// NO_COLOR or in tests) decides whether any colour is written.
type styles struct {
	bar, user, assistant, dim, ok, warn, err, accent, title, helpKey lipgloss.Style
	below                                                            lipgloss.Style // "new messages below (End)"
	table                                                            client.TableStyle
}

func newStyles(r *lipgloss.Renderer) styles {
	return styles{
		bar:       r.NewStyle().Reverse(true),
		user:      r.NewStyle().Bold(true).Foreground(lipgloss.Color("12")),
		assistant: r.NewStyle().Bold(true).Foreground(lipgloss.Color("10")),
		dim:       r.NewStyle().Foreground(lipgloss.Color("8")),
		ok:        r.NewStyle().Foreground(lipgloss.Color("10")),
		warn:      r.NewStyle().Foreground(lipgloss.Color("11")),
		err:       r.NewStyle().Foreground(lipgloss.Color("9")),
		accent:    r.NewStyle().Foreground(lipgloss.Color("13")),
		title:     r.NewStyle().Bold(true),
		helpKey:   r.NewStyle().Bold(true),
		below:     r.NewStyle().Bold(true).Reverse(true),
		table:     client.NewTableStyle(r),
	}
}
