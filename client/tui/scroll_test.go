package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ailab/ai-lab/client/clienttest"
)

// withHistory is a test model at w×h whose conversation is longer than the screen.
func withHistory(t *testing.T, srv *clienttest.Server, w, h int) *Model {
	t.Helper()
	m := newTestModel(t, srv, w, h)
	for i := range 40 {
		m.conv.add(entry{kind: kindNote, text: fmt.Sprintf("earlier note %d", i)})
	}
	m.refresh()
	return m
}

// A sent message and its reply keep a view at the bottom there; a view scrolled up
// stays where it is and says that there is more below, and End goes there.
func TestNewMessagesBelowTheView(t *testing.T) {
	t.Run("at the bottom: follows", func(t *testing.T) {
		m := withHistory(t, clienttest.New(t, clienttest.Final("s_1", "the first reply")), 80, 24)
		send(t, m, "hello")
		if v := plain(m); !m.vp.AtBottom() || !strings.Contains(v, "the first reply") || strings.Contains(v, "new messages below") {
			t.Fatalf("the reply is not in view at the bottom:\n%s", v)
		}
	})
	t.Run("scrolled up: notice, then End", func(t *testing.T) {
		m := withHistory(t, clienttest.New(t, clienttest.Final("s_1", "the second reply")), 80, 24)
		press(t, m, "pgup")
		at := m.vp.YOffset
		send(t, m, "again")
		v := plain(m)
		if m.vp.YOffset != at || strings.Contains(v, "the second reply") || !strings.Contains(v, "↓ new messages below (End)") {
			t.Fatalf("a scrolled-up view moved (%d to %d) or shows no notice:\n%s", at, m.vp.YOffset, v)
		}
		press(t, m, "end")
		if v := plain(m); !m.vp.AtBottom() || !strings.Contains(v, "the second reply") || strings.Contains(v, "new messages below") {
			t.Fatalf("End did not go to the reply:\n%s", v)
		}
	})
	t.Run("scrolled back down by hand: no notice", func(t *testing.T) {
		m := withHistory(t, clienttest.New(t, clienttest.Final("s_1", "reply")), 80, 24)
		press(t, m, "pgup")
		send(t, m, "again")
		for !m.vp.AtBottom() {
			m.Update(tea.MouseMsg{Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
		}
		press(t, m, "pgup")
		if strings.Contains(plain(m), "new messages below") {
			t.Fatalf("the notice came back after the news was seen:\n%s", plain(m))
		}
	})
}

// End in a view at the bottom is the input's: it goes to the end of the line.
func TestEndAtTheBottomMovesTheCursor(t *testing.T) {
	m := newTestModel(t, clienttest.New(t), 80, 24)
	typeText(t, m, "abc")
	press(t, m, "left", "left", "end")
	typeText(t, m, "d")
	if got := m.input.Value(); got != "abcd" {
		t.Fatalf("input = %q", got)
	}
}
