package tui

import (
	"errors"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client"
)

// grantList is the list /grants shows, to pick a grant to revoke.
type grantList struct {
	items  []api.SessionGrant
	cursor int
}

// grantsCommand handles /grants (list, pick one to revoke) and /grants revoke ID.
func (m *Model) grantsCommand(arg string) tea.Cmd {
	if m.sessionID == "" {
		m.status = "no session yet: grants belong to a session, and s in the approval table gives one"
		return nil
	}
	verb, id, _ := strings.Cut(arg, " ")
	switch {
	case arg == "":
		return m.grantsCmd(m.sessionID)
	case verb == "revoke" && strings.TrimSpace(id) != "":
		// The id typed out is the confirmation.
		return m.revokeCmd(m.sessionID, api.SessionGrant{GrantID: strings.TrimSpace(id)})
	}
	m.status = "use /grants to list this session's grants, or /grants revoke ID"
	return nil
}

func (m *Model) grantsAnswer(msg GrantsMsg) {
	if msg.Err != nil {
		m.addError(msg.Err)
		return
	}
	if len(msg.Grants) == 0 {
		m.conv.add(entry{kind: kindNote, text: "No session grants in this session: every call its preset asks about is asked. s in the approval table approves a call and grants such calls for the session."})
		m.refresh()
		return
	}
	m.grants = grantList{items: msg.Grants}
	m.mode = modeGrants
}

func (m *Model) grantsKey(k tea.KeyMsg) tea.Cmd {
	l := &m.grants
	switch k.String() {
	case "up", "k":
		l.cursor = max(0, l.cursor-1)
	case "down", "j":
		l.cursor = min(len(l.items)-1, l.cursor+1)
	case "esc", "q":
		m.mode = modeChat
	case "enter", "d", "delete":
		g, session := l.items[l.cursor], m.sessionID
		m.confirmAsk([]string{
			fmt.Sprintf("Revoking %s: later %s calls matching %s will be asked again.", client.Visible(g.GrantID), client.Visible(g.ToolName), client.Visible(g.Pattern)),
			"Revoke it? [y/n] (n): ",
		}, func() tea.Cmd {
			m.mode = modeChat
			return m.revokeCmd(session, g)
		})
	}
	return nil
}

func (m *Model) revokeAnswer(msg RevokeMsg) {
	id := client.Visible(msg.Grant.GrantID)
	if errors.Is(msg.Err, client.ErrNotFound) {
		m.addError(fmt.Errorf("this session has no grant %s; /grants lists the ones it has", id))
		return
	}
	if msg.Err != nil {
		m.addError(msg.Err)
		return
	}
	what := ""
	if msg.Grant.ToolName != "" {
		what = fmt.Sprintf(" (%s %s)", client.Visible(msg.Grant.ToolName), client.Visible(msg.Grant.Pattern))
	}
	m.conv.add(entry{kind: kindNote, text: fmt.Sprintf("Revoked grant %s%s: such calls are asked again.", id, what)})
	m.refresh()
}

// grantsView is the list of grants, and the question to revoke one under it.
func (m *Model) grantsView() string {
	st, l := m.styles, m.grants
	height := m.height - 2 // status bar, help line
	var footer []string
	if m.mode == modeConfirm && m.ask != nil {
		for _, q := range m.ask.lines {
			footer = append(footer, st.table.Prompt.Render(cutw(q, m.width)))
		}
	}
	lines := []string{st.title.Render(cutw("Session grants (id, tool, given at, pattern): Enter revokes one, Esc goes back", m.width))}
	rows := max(1, height-1-len(footer))
	start := max(0, l.cursor-rows+1)
	// Columns as wide as their longest value, the pattern last but the time, so a
	// long pattern is what an 80-column terminal cuts.
	idW, toolW := 0, 0
	for _, g := range l.items {
		idW, toolW = max(idW, ansi.StringWidth(client.Visible(g.GrantID))), max(toolW, ansi.StringWidth(client.Visible(g.ToolName)))
	}
	for i := start; i < len(l.items) && i < start+rows; i++ {
		g := l.items[i]
		line := fmt.Sprintf("  %s  %s  %s  %s", pad(client.Visible(g.GrantID), idW), pad(client.Visible(g.ToolName), toolW),
			g.CreatedAt.Local().Format("2006-01-02 15:04"), client.Visible(g.Pattern))
		if i == l.cursor {
			line = st.table.Current.Render(cutw("▸"+line[1:], m.width))
		} else {
			line = cutw(line, m.width)
		}
		lines = append(lines, line)
	}
	for len(lines) < height-len(footer) {
		lines = append(lines, "")
	}
	return strings.Join(append(lines, footer...), "\n")
}

// pad fills s with spaces to w cells.
func pad(s string, w int) string {
	return s + strings.Repeat(" ", max(0, w-ansi.StringWidth(s)))
}
