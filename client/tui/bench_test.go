package tui

import (
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
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

// answerTokens is a markdown answer of about 5 KB cut into tokens of a few
// characters, as a model streams it.
func answerTokens() []string {
	var sb strings.Builder
	for i := range 12 {
		fmt.Fprintf(&sb, "## Part %d\n\nThe workspace holds **%d files**; `notes/today.txt` was written by write_file, and the rest were listed.\n\n- first point of part %d\n- second point, a little longer than the first\n- third\n\n", i, i*3, i)
	}
	text := sb.String()
	var out []string
	for len(text) > 0 {
		n := min(len(text), 4+len(out)%3)
		out = append(out, text[:n])
		text = text[n:]
	}
	return out
}

// streamingModel is historyModel(n) with a turn streaming into it, on a clock the
// benchmark moves.
func streamingModel(n int, now *time.Time) (*Model, *turnStream) {
	m := historyModel(n)
	m.now = func() time.Time { return *now }
	s := newTurnStream(m.ctx, false)
	m.busy, m.live = true, &liveTurn{stream: s}
	return m, s
}

func tokenMsg(s *turnStream, text string) TurnMsg {
	return TurnMsg{stream: s, More: true, Events: []client.Event{{Name: api.EventToken, Token: api.TokenEvent{Text: text}}}}
}

// BenchmarkStreamFrame measures one frame of a streamed answer at 100 tokens a
// second: Update with one token, then View. Every fifth frame renders the draft's
// markdown again (mdEvery is 50 ms); the others add plain text. A new answer starts
// every 1,000 tokens (about 5 KB), so the draft stays the size of a real one. Besides
// the mean it reports the 99th percentile, the frames a reader would notice.
func BenchmarkStreamFrame(b *testing.B) {
	tokens := answerTokens()
	for _, n := range []int{10, 2000} {
		b.Run(fmt.Sprintf("history=%d", n), func(b *testing.B) {
			now := epoch
			m, s := streamingModel(n, &now)
			frames := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%len(tokens) == 0 && i > 0 {
					b.StopTimer()
					m.live = &liveTurn{stream: s}
					b.StartTimer()
				}
				now = now.Add(10 * time.Millisecond)
				start := time.Now()
				m.Update(tokenMsg(s, tokens[i%len(tokens)]))
				_ = m.View()
				frames = append(frames, time.Since(start))
			}
			b.StopTimer()
			slices.Sort(frames)
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/frame")
			b.ReportMetric(float64(frames[len(frames)*99/100].Microseconds())/1000, "p99-ms/frame")
		})
	}
}

// BenchmarkKeystrokeWhileStreaming is BenchmarkKeystroke while an answer streams at
// 100 tokens a second and the user types ten keys a second: ten token frames go
// through Update between two keystrokes. ms/keystroke is the keystroke's own
// Update+View; ms/op includes the token frames.
func BenchmarkKeystrokeWhileStreaming(b *testing.B) {
	tokens := answerTokens()
	for _, n := range []int{10, 2000} {
		b.Run(fmt.Sprintf("history=%d", n), func(b *testing.B) {
			now := epoch
			m, s := streamingModel(n, &now)
			keys := []tea.KeyMsg{{Type: tea.KeyRunes, Runes: []rune{'a'}}, {Type: tea.KeyBackspace}}
			var keyTime time.Duration
			t := 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for range 10 {
					if t%len(tokens) == 0 && t > 0 {
						m.live = &liveTurn{stream: s}
					}
					now = now.Add(10 * time.Millisecond)
					m.Update(tokenMsg(s, tokens[t%len(tokens)]))
					t++
				}
				start := time.Now()
				m.Update(keys[i%2])
				_ = m.View()
				keyTime += time.Since(start)
			}
			b.ReportMetric(float64(keyTime.Microseconds())/float64(b.N)/1000, "ms/keystroke")
		})
	}
}

// A token re-renders and re-splits only the live turn: the history's lines are
// reused as they are, so a frame's work does not grow with the session.
func TestTokenReusesTheHistoryLines(t *testing.T) {
	now := epoch
	m, s := streamingModel(50, &now)
	m.Update(tokenMsg(s, "first"))
	lines := m.conv.split
	m.conv.entries[1].cached = "SENTINEL"
	now = now.Add(time.Second)
	m.Update(tokenMsg(s, " second"))
	if len(lines) == 0 || &m.conv.split[0] != &lines[0] || m.conv.entries[1].cached != "SENTINEL" {
		t.Fatal("a token rendered or split the history again")
	}
	if v := ansi.Strip(m.View()); !strings.Contains(v, "first second") {
		t.Fatalf("the token is not on screen:\n%s", v)
	}
}

// BenchmarkApprovalKey measures a key on the approval screen (the table scrolled by
// one row, then View) with 30 pending calls under a long conversation: the table is
// laid out again on each key, and its cost must not grow with the history.
func BenchmarkApprovalKey(b *testing.B) {
	for _, n := range []int{10, 2000} {
		b.Run(fmt.Sprintf("history=%d", n), func(b *testing.B) {
			m := historyModel(n)
			m.openBatch(client.NewBatch(writes(30)))
			m.fitViewport()
			keys := []tea.KeyMsg{{Type: tea.KeyDown}, {Type: tea.KeyUp}}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				m.Update(keys[i%2])
				_ = m.View()
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/key")
		})
	}
}
