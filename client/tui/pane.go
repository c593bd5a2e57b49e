package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// A pane shows Height lines of the conversation from YOffset down, as bubbles'
// viewport did. It takes its lines in two parts, the entries' and the live turn's, so
// a streamed token re-splits only the live turn: the viewport's SetContent wanted the
// whole text joined again each time, and measured every line's width for horizontal
// scrolling that the TUI, which wraps everything, never uses. With 2,000 messages that
// was 2 to 3 ms and 600 KB of garbage per token.
type pane struct {
	Width, Height int
	YOffset       int
	hist, live    []string
}

// wheelLines is how far one notch of the mouse wheel scrolls, as in the viewport.
const wheelLines = 3

// setLines replaces the lines; the offset stays unless it would be past the bottom.
func (p *pane) setLines(hist, live []string) {
	p.hist, p.live = hist, live
	p.SetYOffset(p.YOffset)
}

// TotalLineCount is the number of lines of the conversation.
func (p *pane) TotalLineCount() int { return len(p.hist) + len(p.live) }

func (p *pane) maxYOffset() int { return max(0, p.TotalLineCount()-p.Height) }

// AtTop reports whether the first line is in view.
func (p *pane) AtTop() bool { return p.YOffset <= 0 }

// AtBottom reports whether the last line is in view.
func (p *pane) AtBottom() bool { return p.YOffset >= p.maxYOffset() }

// SetYOffset scrolls so line n is at the top, kept within the lines.
func (p *pane) SetYOffset(n int) { p.YOffset = min(max(0, n), p.maxYOffset()) }

// SetHeight changes how many lines show; a view at the bottom stays there.
func (p *pane) SetHeight(h int) {
	bottom := p.AtBottom()
	p.Height = max(0, h)
	if bottom {
		p.GotoBottom()
		return
	}
	p.SetYOffset(p.YOffset)
}

// GotoTop shows the first lines.
func (p *pane) GotoTop() { p.SetYOffset(0) }

// GotoBottom shows the last lines.
func (p *pane) GotoBottom() { p.SetYOffset(p.maxYOffset()) }

// PageUp scrolls up by a screen.
func (p *pane) PageUp() { p.SetYOffset(p.YOffset - p.Height) }

// PageDown scrolls down by a screen.
func (p *pane) PageDown() { p.SetYOffset(p.YOffset + p.Height) }

// wheel scrolls for a mouse wheel press.
func (p *pane) wheel(msg tea.MouseMsg) {
	if msg.Action != tea.MouseActionPress {
		return
	}
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		p.SetYOffset(p.YOffset - wheelLines)
	case tea.MouseButtonWheelDown:
		p.SetYOffset(p.YOffset + wheelLines)
	}
}

func (p *pane) line(i int) string {
	if i < len(p.hist) {
		return p.hist[i]
	}
	return p.live[i-len(p.hist)]
}

// View draws the lines in view, each padded (or cut) to Width, and blank lines
// below them up to Height.
func (p *pane) View() string {
	var sb strings.Builder
	blank := strings.Repeat(" ", max(0, p.Width))
	for i := range p.Height {
		if i > 0 {
			sb.WriteByte('\n')
		}
		n := p.YOffset + i
		if n >= p.TotalLineCount() {
			sb.WriteString(blank)
			continue
		}
		l := p.line(n)
		w := ansi.StringWidth(l)
		if w > p.Width {
			l = ansi.Truncate(l, p.Width, "")
			w = ansi.StringWidth(l)
		}
		sb.WriteString(l)
		sb.WriteString(blank[:p.Width-w])
	}
	return sb.String()
}
