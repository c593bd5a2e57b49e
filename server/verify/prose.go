package verify

import (
	"strings"
	"unsafe"
)

// proseText returns the reply as the claim reader reads it: every part of
// the markdown is prose. Quote markers and heading marks at the start of a
// line become spaces, so a quoted "> **Done:** I deleted notes.txt" is read
// like the line without them; the cells of a table row are separated like
// the items of a list; the text of a link, [text](url), is read with its
// address after it; short HTML tags such as <b> are blanked; check marks read
// as "ok". Emphasis marks and backticks need no change, since the word
// splitter trims them. The result has the byte length of text, so that an
// offset in one is the same place in the other.
//
// The bytes of the spans in blank (JSON claims, judged by their ids) become
// spaces.
func proseText(text string, blank []cut) string {
	if len(blank) == 0 && !strings.ContainsAny(text, ">#|[<\u2705\u2713\u2714") {
		return text
	}
	var b []byte // a copy of text, made at the first change
	set := func(i int, c byte) {
		if b == nil {
			b = []byte(text)
		}
		b[i] = c
	}
	lineStart := true
	for i := 0; i < len(text); i++ {
		c := text[i]
		if !lineStart && !proseMarks[c] {
			continue
		}
		if c == '\n' {
			lineStart = true
			continue
		}
		if lineStart {
			switch c {
			case ' ', '\t':
				continue
			case '>', '#':
				set(i, ' ')
				continue // "> > ## Title": every mark of the line start
			}
			lineStart = false
		}
		switch c {
		case '|':
			set(i, ',')
		case '[':
			set(i, ' ')
		case ']':
			if i+1 < len(text) && text[i+1] == '(' {
				set(i, ' ')
			}
		case '<':
			if end := htmlTagEnd(text, i); end > 0 {
				for k := i; k < end; k++ {
					set(k, ' ')
				}
				i = end - 1
			}
		case 0xE2: // ✅ U+2705, ✓ U+2713, ✔ U+2714: three bytes, as "ok " is
			if i+2 < len(text) && text[i+1] == 0x9C && (text[i+2] == 0x85 || text[i+2] == 0x93 || text[i+2] == 0x94) {
				set(i, 'o')
				set(i+1, 'k')
				set(i+2, ' ')
				i += 2
			}
		}
	}
	for _, sp := range blank {
		for i := sp.start; i < sp.end && i < len(text); i++ {
			if text[i] != '\n' {
				set(i, ' ')
			}
		}
	}
	if b == nil {
		return text
	}
	// b is never written again: the string may share its memory.
	return unsafe.String(&b[0], len(b))
}

// proseMarks are the bytes proseText may change in the middle of a line.
var proseMarks = [256]bool{'\n': true, '|': true, '[': true, ']': true, '<': true, 0xE2: true}

// htmlTagEnd returns the end of a short HTML tag such as <b>, </em> or <br/>
// starting at b[i], or 0.
func htmlTagEnd(b string, i int) int {
	j := i + 1
	if j < len(b) && b[j] == '/' {
		j++
	}
	start := j
	for j < len(b) && j-start < 10 && isLetter(b[j]) {
		j++
	}
	if j == start {
		return 0
	}
	if j < len(b) && b[j] == '/' {
		j++
	}
	if j < len(b) && b[j] == '>' {
		return j + 1
	}
	return 0
}

// claimSentences returns the sentences of text that may claim a run: all
// but questions, since "Shall I delete notes.txt?" claims nothing. A question
// the reply answers itself ("I have deleted notes.txt? Yes, it is gone.") is
// a claim all the same, so it is kept when the next sentence opens with an
// answer.
func claimSentences(text string) []cut {
	var out []cut
	var pending cut // a question waiting for its answer, when pending.end > 0
	eachSentence(text, func(s cut, question bool) {
		if pending.end > 0 && opensWithAnswer(text[s.start:s.end]) {
			out = append(out, pending)
		}
		pending = cut{}
		if question {
			pending = s
			return
		}
		out = append(out, s)
	})
	return out
}

// answers are the words that open a reply's answer to its own question.
var answers = wordSet("yes", "yep", "yeah", "indeed", "done", "absolutely", "certainly", "correct", "sure", "of", "oui", "ja", "sí", "si", "sì", "sim", "tak", "jawel")

// opensWithAnswer reports whether a sentence opens with an answer such as
// "Yes," or "Of course".
func opensWithAnswer(s string) bool {
	f := strings.Fields(asciiLower(s))
	if len(f) == 0 {
		return false
	}
	w := strings.Trim(f[0], ",.!:;*_-")
	if w == "of" {
		return len(f) > 1 && strings.HasPrefix(f[1], "course")
	}
	return answers[w]
}

// quotedAt returns the quoted span (code block or quote) a sentence starts
// in, if any.
func quotedAt(quoted []cut, sp cut) (cut, bool) {
	for _, q := range quoted {
		if q.start <= sp.start && sp.start <= q.end {
			return q, true
		}
		if q.start > sp.start {
			break
		}
	}
	return cut{}, false
}
