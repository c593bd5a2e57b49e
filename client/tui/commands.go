package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ailab/ai-lab/api"
)

// The commands below are the only place the TUI does I/O; each answers with one Msg.

func (m *Model) chatCmd(text, session string) tea.Cmd {
	c, ctx := m.c, m.ctx
	return func() tea.Msg {
		r, err := c.Chat(ctx, text, session)
		return TurnMsg{Reply: r, Err: err}
	}
}

func (m *Model) approveCmd(session string, d []api.Decision) tea.Cmd {
	c, ctx := m.c, m.ctx
	return func() tea.Msg {
		r, err := c.Approve(ctx, session, d)
		return TurnMsg{Reply: r, Err: err, decided: true}
	}
}

func (m *Model) healthCmd() tea.Cmd {
	c, ctx := m.c, m.ctx
	return func() tea.Msg {
		h, err := c.Health(ctx)
		return HealthMsg{Health: h, Err: err}
	}
}

func (m *Model) configCmd(show bool) tea.Cmd {
	c, ctx := m.c, m.ctx
	return func() tea.Msg {
		cfg, err := c.Config(ctx)
		return ConfigMsg{Config: cfg, Show: show, Err: err}
	}
}

func (m *Model) setPresetCmd(name string) tea.Cmd {
	c, ctx := m.c, m.ctx
	return func() tea.Msg {
		cfg, err := c.SetSafety(ctx, api.SafetyUpdate{Preset: name})
		return ConfigMsg{Config: cfg, Changed: true, Err: err}
	}
}

func (m *Model) sessionsCmd() tea.Cmd {
	c, ctx := m.c, m.ctx
	return func() tea.Msg {
		s, err := c.Sessions(ctx)
		return SessionsMsg{Sessions: s, Err: err}
	}
}

func (m *Model) sessionCmd(id string) tea.Cmd {
	c, ctx := m.c, m.ctx
	return func() tea.Msg {
		d, err := c.Session(ctx, id)
		return SessionMsg{Session: d, Err: err, id: id}
	}
}

func (m *Model) traceCmd(id string) tea.Cmd {
	c, ctx := m.c, m.ctx
	return func() tea.Msg {
		t, err := c.Trace(ctx, id)
		return TraceMsg{Trace: t, Err: err}
	}
}
