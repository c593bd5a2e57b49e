package tui

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ailab/ai-lab/api"
)

// The commands below are the only place the TUI does I/O; each answers with one Msg.

// cancelCmd asks the server to cancel the session's running turn, then closes the
// turn's stream (which alone would cancel it too, but the server's cancel is the one
// that names the reason). A turn whose session is not known yet is only closed.
func (m *Model) cancelCmd(s *turnStream, session string) tea.Cmd {
	c, ctx := m.c, m.ctx
	return func() tea.Msg {
		defer s.cancel()
		if session == "" {
			return CancelMsg{}
		}
		ctx, done := context.WithTimeout(ctx, cancelWait)
		defer done()
		return CancelMsg{Err: c.Cancel(ctx, session)}
	}
}

// cancelWait bounds the wait for the server's answer to a cancel; the stream is
// closed after it either way.
const cancelWait = 3 * time.Second

func (m *Model) healthCmd() tea.Cmd {
	c, ctx := m.c, m.ctx
	return func() tea.Msg {
		h, err := c.Health(ctx)
		return HealthMsg{Health: h, Err: err}
	}
}

// healthRecheck is how long after start the client asks the server again
// about its model: the server's own check takes at most a few seconds.
var healthRecheck = 6 * time.Second

// healthAgainCmd asks GET /health once more after healthRecheck.
func (m *Model) healthAgainCmd() tea.Cmd {
	c, ctx := m.c, m.ctx
	return tea.Tick(healthRecheck, func(time.Time) tea.Msg {
		h, err := c.Health(ctx)
		return HealthMsg{Health: h, Err: err, Again: true}
	})
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

func (m *Model) toolsCmd() tea.Cmd {
	c, ctx := m.c, m.ctx
	return func() tea.Msg {
		t, err := c.Tools(ctx)
		return ToolsMsg{Tools: t, Err: err}
	}
}

func (m *Model) grantsCmd(session string) tea.Cmd {
	c, ctx := m.c, m.ctx
	return func() tea.Msg {
		g, err := c.Grants(ctx, session)
		return GrantsMsg{Grants: g, Err: err}
	}
}

func (m *Model) revokeCmd(session string, g api.SessionGrant) tea.Cmd {
	c, ctx := m.c, m.ctx
	return func() tea.Msg {
		return RevokeMsg{Grant: g, Err: c.RevokeGrant(ctx, session, g.GrantID)}
	}
}

func (m *Model) rulesCmd() tea.Cmd {
	c, ctx := m.c, m.ctx
	return func() tea.Msg {
		p, err := c.Policy(ctx)
		return RulesMsg{Policy: p, Err: err}
	}
}
