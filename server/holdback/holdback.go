// Package holdback decides which parts of a model's reply, streamed piece by
// piece, may be shown before the reply is validated (CONTRACT section 10). A
// reply streams sentence by sentence; the first sentence that could be a claim
// of a tool run (an execution-id-shaped word, a JSON object, a tool tag or code
// fence, a registered tool's name, a past-tense account or an announcement of
// a tool run) is held back with everything after it, until the server has
// validated the whole reply (CONTRACT section 7) and shows or withdraws it.
//
// What it releases is always a prefix of the reply, ends at a sentence end, and
// is the same however the reply was cut into pieces. It must never release
// claim-shaped text, and it must stay pure: no I/O, no clock, no goroutines,
// no ledger. It does not judge the reply either; that is package verify's
// work, whose detectors it reuses on each sentence.
package holdback

import (
	"context"
	"slices"
	"strings"

	"github.com/ailab/ai-lab/server/verify"
	"github.com/ailab/ai-lab/tools"
)

// A Filter sees a reply as it streams. It is not safe for concurrent use: the
// server feeds it from the one goroutine that reads the model's stream.
type Filter struct {
	// text is everything written so far. A Builder never changes bytes it
	// holds, so the strings it gives are slices of one buffer: releasing and
	// judging a sentence copy nothing.
	text strings.Builder
	// shown is how much of text has been released. While nothing is held it
	// is also where the sentence being written starts.
	shown int
	// scan is where the search for the end of that sentence resumes, so a long
	// sentence written in small pieces is scanned once, not once per piece.
	scan int
	// held is set by the first claim-shaped sentence; nothing is released after it.
	held bool

	names []toolName
	// firsts marks the bytes, lower case, that a name or its first word
	// starts with, so that most bytes of a sentence are passed over at a look.
	firsts    [256]bool
	validator verify.Validator
}

// A toolName is a registered tool's name split into its words, lower case:
// files__read_text is files, read, text.
type toolName struct {
	exact string
	words []string
}

// New returns a Filter for a turn whose registered tools are tools (built-in
// names like web_search and MCP names like files__read_text). The built-in
// catalog is always held too: a reply claiming a built-in tool the server
// lacks still claims a run that did not happen.
func New(tools []string) *Filter {
	names := knownNames(tools)
	f := &Filter{
		// A validator for a turn that called no tool: every claim it finds in a
		// sentence is one the ledger has yet to confirm.
		validator: verify.Validator{Tools: names},
		names:     make([]toolName, 0, 2*len(names)),
	}
	for _, n := range names {
		f.addName(n)
		// An MCP tool is often called by its own name, without its server's.
		if i := strings.LastIndex(n, "__"); i >= 0 && len(n)-i-2 >= 3 {
			f.addName(n[i+2:])
		}
	}
	return f
}

// knownNames returns registered followed by the catalog names it lacks.
func knownNames(registered []string) []string {
	names := make([]string, 0, len(registered)+len(tools.Names))
	for _, n := range registered {
		if n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for _, n := range tools.Names {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

func (f *Filter) addName(n string) {
	lower := asciiLower(n)
	if slices.ContainsFunc(f.names, func(t toolName) bool { return t.exact == lower }) {
		return
	}
	words := strings.FieldsFunc(lower, func(r rune) bool { return r < 0x80 && !isAlnum(byte(r)) })
	if len(words) == 0 {
		return
	}
	f.firsts[lower[0]] = true
	f.firsts[words[0][0]] = true
	f.names = append(f.names, toolName{exact: lower, words: words})
}

// Write takes the next piece of the reply and returns the text that may be
// shown now ("" when everything must wait). Once text is held, everything
// after it is held too, so what is shown is always a prefix of the reply.
func (f *Filter) Write(piece string) string {
	f.text.WriteString(piece)
	if f.held {
		return ""
	}
	text := f.text.String()
	from := f.shown
	for {
		end := f.sentenceEnd(text)
		if end < 0 {
			break
		}
		if f.claimShaped(text[f.shown:end], f.shown == 0 || text[f.shown-1] == '\n') {
			f.held = true
			break
		}
		f.shown, f.scan = end, end
	}
	return text[from:f.shown]
}

// Held returns the text written but not yet shown: after the reply passes
// validation the server shows it; after a failure it withdraws what was shown.
func (f *Filter) Held() string { return f.text.String()[f.shown:] }

// Shown returns everything released so far (for the server's bookkeeping).
func (f *Filter) Shown() string { return f.text.String()[:f.shown] }

// sentenceEnd returns the end of the sentence that starts at f.shown, just
// past the newline or the space after its '.', '!' or '?', or -1 while it is
// still being written. Sentences end where verify's end, so that each one is
// judged here exactly as validation will judge it; a mark ends a sentence only
// before a space, so URLs, versions and file names stay whole, and one at the
// very end of the text waits for the next byte.
func (f *Filter) sentenceEnd(t string) int {
	for i := f.scan; i < len(t); i++ {
		switch t[i] {
		case '\n':
			return i + 1
		case '.', '!', '?':
			if i+1 == len(t) {
				f.scan = i
				return -1
			}
			if isSpace(t[i+1]) {
				return i + 2
			}
		}
	}
	f.scan = len(t)
	return -1
}

// claimShaped reports whether a whole sentence could be a claim of a tool run.
// The byte-level shapes are looked for first because they are cheap and cover
// what a validator may not call a claim yet could become one with the text
// around it; verify then judges the words.
func (f *Filter) claimShaped(s string, lineStart bool) bool {
	if strings.TrimLeft(s, " \t\r\n") == "" {
		return false // a blank line, common between markdown paragraphs, claims nothing
	}
	if hasMarkup(s) || hasIDShape(s) || f.namesTool(s) {
		return true
	}
	text := unquoted(s, lineStart)
	issues, err := f.validator.Check(context.Background(), "", text, noRuns{})
	if err != nil || len(issues) > 0 {
		return true
	}
	// A question claims nothing alone, but the reply may answer it itself
	// ("I have deleted notes.txt? Yes, it is gone."), which validation reads
	// as a claim: a question that would be a claim as a statement waits.
	if q := strings.TrimRight(text, " \t\r\n"); strings.HasSuffix(q, "?") {
		issues, err = f.validator.Check(context.Background(), "", strings.TrimSuffix(q, "?")+".", noRuns{})
		return err != nil || len(issues) > 0
	}
	return false
}

// unquoted returns s without the '>' that would make verify read it as a
// quote line, unless s starts a line of the reply. Alone, such a sentence
// looks like a quote even though in the reply it continues a line ("Done. >
// I deleted notes.txt."), and validation would then call it a claim after it
// was shown. A quote line proper is someone else's words to validation too.
func unquoted(s string, lineStart bool) string {
	if lineStart {
		return s
	}
	// "> > x" is a quote line too: every '>' of the opening goes.
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '>') {
		i++
	}
	if strings.IndexByte(s[:i], '>') < 0 {
		return s
	}
	return strings.Repeat(" ", i) + s[i:]
}

// hasMarkup reports whether s holds a '{' (a JSON tool result or a call
// written as JSON), a <tool...> or </tool> tag, or a code fence, whose
// content may be any of these.
func hasMarkup(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '{':
			return true
		case '<':
			if hasPrefixFold(s[i+1:], "tool") || hasPrefixFold(s[i+1:], "/tool") {
				return true
			}
		case '`', '~':
			if i+2 < len(s) && s[i+1] == c && s[i+2] == c {
				return true
			}
		}
	}
	return false
}

// hasIDShape reports whether s holds something shaped like an execution id
// (<tool>_<13 digits>_<8 hex>) or a near-miss of one: any run of ten or more
// digits, which every id and every near-miss verify reports has; six or more
// digits followed by a separator and six hex digits, which is an id with a
// shortened timestamp; or a mention of an execution id in any spelling.
func hasIDShape(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if isDigit(c) {
			j := i + 1
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			if j-i >= 10 || j-i >= 6 && hexAfterSeparator(s[j:]) {
				return true
			}
			i = j
			continue
		}
		if c|0x20 == 'e' && hasPrefixFold(s[i:], "execution") {
			k := i + len("execution")
			for n := 0; n < 3 && k < len(s) && !isAlnum(s[k]) && s[k] != '\n'; n++ {
				k++
			}
			if hasPrefixFold(s[k:], "id") {
				return true
			}
		}
		i++
	}
	return false
}

// hexAfterSeparator reports whether s opens with one separator and at least six
// hex digits, as the tail of an id does.
func hexAfterSeparator(s string) bool {
	if len(s) < 7 || strings.IndexByte("_-.:#/ ", s[0]) < 0 {
		return false
	}
	for i := 1; i < 7; i++ {
		if !isHex(s[i]) {
			return false
		}
	}
	return true
}

// namesTool reports whether s names a tool: its exact name in any case
// anywhere, even inside a longer word, or its words written apart or together
// from the start of a word (web search, Web-Search, websearch, files read text).
func (f *Filter) namesTool(s string) bool {
	for i := 0; i < len(s); i++ {
		c := lowerByte(s[i])
		if !f.firsts[c] {
			continue
		}
		wordStart := i == 0 || !isAlnum(s[i-1])
		for _, n := range f.names {
			if n.exact[0] == c && hasPrefixFold(s[i:], n.exact) || wordStart && n.words[0][0] == c && wordsAt(s[i:], n.words) {
				return true
			}
		}
	}
	return false
}

// wordsAt reports whether s opens with words, each separated from the next by
// at most three bytes that are neither letters, digits nor a line break.
func wordsAt(s string, words []string) bool {
	k := 0
	for w, word := range words {
		if w > 0 {
			for n := 0; n < 3 && k < len(s) && !isAlnum(s[k]) && s[k] != '\n'; n++ {
				k++
			}
		}
		if !hasPrefixFold(s[k:], word) {
			return false
		}
		k += len(word)
	}
	return true
}

// noRuns is the ledger of a reply not yet validated: it confirms no run.
type noRuns struct{}

func (noRuns) Lookup(context.Context, string) (verify.Record, bool, error) {
	return verify.Record{}, false, nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'f' }

// isAlnum counts bytes of multi-byte UTF-8 characters as letters, so that a
// name is never matched inside a word of another script.
func isAlnum(c byte) bool { return isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'z' || c >= 0x80 }

// hasPrefixFold compares ASCII letters in any case; prefix is lower case.
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if lowerByte(s[i]) != prefix[i] {
			return false
		}
	}
	return true
}

func lowerByte(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lowerByte(c)
	}
	return string(b)
}
