package tui

import (
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client"
)

// historyModel is an 80x24 chat whose conversation holds n messages, half questions
// and half markdown answers with a tool line, already rendered once as on screen.
func historyModel(n int) *Model {
	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(termenv.ANSI256)
	m := New(Options{Client: client.New("http://127.0.0.1:1", "", nil), Renderer: r, Now: func() time.Time { return epoch }})
	m.input.Cursor.SetMode(cursor.CursorStatic)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	v := api.Validation{Valid: true}
	for i := range n {
		if i%2 == 0 {
			m.conv.add(entry{kind: kindUser, text: fmt.Sprintf("question %d: what is in the workspace?", i)})
			continue
		}
		m.conv.add(entry{kind: kindAssistant, validation: &v,
			text:  fmt.Sprintf("Answer **%d**:\n\n- `a.txt`\n- `notes/`\n\nCited web_search_1763769600123_9f86d081.", i),
			tools: []api.ToolUse{{ToolName: "list_directory", Arguments: json.RawMessage(`{"path":"."}`), ExecutionID: "list_directory_1763769600123_9f86d081", Status: "ok", DurationMS: 3}}})
	}
	m.refresh()
	return m
}

// BenchmarkKeystroke measures one keystroke's Update plus View; the history size must
// not matter because the viewport only draws the lines on screen and entries are
// rendered once per width.
func BenchmarkKeystroke(b *testing.B) {
	for _, n := range []int{10, 2000} {
		b.Run(fmt.Sprintf("history=%d", n), func(b *testing.B) {
			m := historyModel(n)
			keys := []tea.KeyMsg{{Type: tea.KeyRunes, Runes: []rune{'a'}}, {Type: tea.KeyBackspace}}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				m.Update(keys[i%2])
				_ = m.View()
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/keystroke")
		})
	}
}

// A keystroke must not re-render the conversation: the joined history is reused.
func TestKeystrokeReusesRenderedHistory(t *testing.T) {
	m := historyModel(50)
	before := m.conv.entries[1].cached
	m.conv.entries[1].cached = "SENTINEL"
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'a'}})
	_ = m.View()
	if m.conv.dirty || m.conv.entries[1].cached != "SENTINEL" {
		t.Fatal("a keystroke re-rendered the history")
	}
	if before == "" {
		t.Fatal("history was not rendered by refresh")
	}
}

// TestKeystrokeWorkDoesNotGrowWithHistory is the deterministic half of the
// keystroke budget (BenchmarkKeystroke measures the time): one keystroke's
// Update+View allocates no more memory with 2,000 messages than with 10, so its
// cost does not grow with the session.
func TestKeystrokeWorkDoesNotGrowWithHistory(t *testing.T) {
	small, large := historyModel(10), historyModel(2000)
	keys := []tea.KeyMsg{{Type: tea.KeyRunes, Runes: []rune{'a'}}, {Type: tea.KeyBackspace}}
	bytesPerStroke := func(m *Model) uint64 {
		const n = 200
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := range n {
			m.Update(keys[i%2])
			_ = m.View()
		}
		runtime.ReadMemStats(&after)
		return (after.TotalAlloc - before.TotalAlloc) / n
	}
	bytesPerStroke(small) // warm both caches first
	bytesPerStroke(large)
	bs, bl := bytesPerStroke(small), bytesPerStroke(large)
	t.Logf("bytes allocated per keystroke: %d with 10 messages, %d with 2000", bs, bl)
	if float64(bl) > 1.2*float64(bs)+4096 {
		t.Errorf("a keystroke with 2000 messages allocates %d bytes, against %d with 10: its work grows with the history", bl, bs)
	}
}

// BenchmarkResize measures a width change, which re-renders the markdown of every
// entry in the window; the window keeps it bounded however long the session is.
func BenchmarkResize(b *testing.B) {
	for _, n := range []int{10, 2000} {
		b.Run(fmt.Sprintf("history=%d", n), func(b *testing.B) {
			m := historyModel(n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				m.Update(tea.WindowSizeMsg{Width: 80 + i%2, Height: 24})
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/resize")
		})
	}
}
