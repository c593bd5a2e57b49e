package client

import (
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/ailab/ai-lab/api"
)

// A place is a position in what a shownAnswer wrote: the row counted from where it
// began, and the column in that row.
type place struct{ row, col int }

// retractNote stands where withdrawn text was until the next attempt writes.
const retractNote = "checking the answer..."

// A shownAnswer is the one-shot mode's streamed answer on a terminal: tokens are
// printed as they arrive, escaped as TerminalSafe says, and erased again when the
// server withdraws them or the final answer differs from them. Erasing moves the
// cursor back over the rows written, which it counts by simulating the terminal's
// line wrap at cols columns; it writes nothing else, so it knows the cursor's place
// until something else is printed on the terminal (then call pause). Rows that have
// scrolled off the top of the screen cannot be erased: the terminal has let them go.
type shownAnswer struct {
	w    io.Writer
	cols int // <= 0 means 80
	err  error

	at    place // where the cursor is
	start place // where this stream's text began
	round place // where the current round's text began
	// text is what the stream said so far, withdrawn parts removed; roundLen is its
	// length when the current round began.
	text     strings.Builder
	roundLen int
	note     bool // retractNote is shown at round
}

// event takes one event of the stream.
func (s *shownAnswer) event(e Event) {
	switch e.Name {
	case api.EventRound:
		if !s.note { // the note stays, and marks the round's start, until text replaces it
			s.round = s.at
		}
		s.roundLen = s.text.Len()
	case api.EventToken:
		if e.Token.Text == "" {
			return
		}
		s.dropNote()
		s.text.WriteString(e.Token.Text)
		s.write(TerminalSafe(e.Token.Text))
	case api.EventRetract:
		s.eraseTo(s.round)
		kept := s.text.String()[:s.roundLen]
		s.text.Reset()
		s.text.WriteString(kept)
		s.write(retractNote)
		s.note = true
	}
}

// pause ends the stream's output on a line of its own, before something else is
// written to the terminal (an approval question, an error), and starts counting
// afresh after it. It does nothing on a nil shownAnswer, which is a pipe's.
func (s *shownAnswer) pause() {
	if s == nil {
		return
	}
	s.dropNote()
	if s.at.col > 0 {
		s.write("\n")
	}
	s.at, s.start, s.round = place{}, place{}, place{}
	s.text.Reset()
	s.roundLen = 0
}

// finish leaves the final answer on the terminal: what was streamed when it is the
// answer, else the answer in its place.
func (s *shownAnswer) finish(response string) error {
	s.dropNote()
	if s.text.String() != response {
		s.eraseTo(s.start)
		s.write(TerminalSafe(strings.TrimRight(response, "\n")))
	}
	if s.at.col > 0 || s.at == s.start {
		s.write("\n")
	}
	return s.err
}

func (s *shownAnswer) dropNote() {
	if s.note {
		s.eraseTo(s.round)
		s.note = false
	}
}

// eraseTo clears everything written after p and puts the cursor there: back to the
// row's start, up, right to p's column, erase to the end of the screen.
func (s *shownAnswer) eraseTo(p place) {
	if s.at == p {
		return
	}
	var b strings.Builder
	b.WriteString("\r")
	if up := s.at.row - p.row; up > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", up)
	}
	if p.col > 0 {
		fmt.Fprintf(&b, "\x1b[%dC", p.col)
	}
	b.WriteString("\x1b[J")
	s.put(b.String())
	s.at = p
}

// write prints text that holds no control character but newline and tab, and moves
// the counted cursor as the terminal moves its own.
func (s *shownAnswer) write(text string) {
	s.put(text)
	cols := s.cols
	if cols <= 0 {
		cols = 80
	}
	for rest := text; rest != ""; {
		g, w := ansi.FirstGraphemeCluster(rest, ansi.GraphemeWidth)
		rest = rest[len(g):]
		switch {
		case g == "\n":
			s.at.row, s.at.col = s.at.row+1, 0
		case g == "\t":
			s.at.col = min(cols-1, (s.at.col/8+1)*8)
		case w > 0:
			// A terminal wraps before a character that does not fit, not after the
			// last one that does: the cursor waits at the margin until more comes.
			if s.at.col+w > cols {
				s.at.row, s.at.col = s.at.row+1, 0
			}
			s.at.col += w
		}
	}
}

func (s *shownAnswer) put(text string) {
	if s.err == nil {
		_, s.err = io.WriteString(s.w, text)
	}
}
