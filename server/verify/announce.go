package verify

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ailab/ai-lab/tools"
)

// Announcement detection looks for a first-person statement of intent ("I'll",
// "let me", "I'm going to") followed closely by a verb that only a tool can
// carry out, or by "use/call <tool_name>". Only sentences that commit to an
// action count: questions and offers ("if you like", "shall I", "let me know")
// are left alone, as are past tense and advice to the user ("you can search").
// Quoted material (code blocks, "> " quotes, the text of markdown links) is
// someone else's words, such as a file, page or search result the reply shows,
// so it announces nothing.

// intentMarkers are the word sequences that open a statement of intent.
var intentMarkers = [][]string{
	{"i'll"}, {"i", "will"}, {"i", "shall"}, {"let", "me"}, {"let's"},
	{"i'm", "going", "to"}, {"i", "am", "going", "to"}, {"i'm", "gonna"},
	{"i'm", "about", "to"}, {"i", "am", "about", "to"}, {"allow", "me", "to"},
	{"we'll"}, {"we", "will"},
}

// fillerWords may stand between a marker and its verb: "let me go ahead and
// quickly search", "I'll start by searching".
var fillerWords = map[string]bool{
	"now": true, "quickly": true, "first": true, "also": true, "just": true, "then": true,
	"go": true, "ahead": true, "and": true, "try": true, "to": true, "briefly": true,
	"directly": true, "immediately": true, "next": true, "start": true, "by": true,
	"begin": true, "again": true,
}

// offerPhrases turn a sentence into a question, an offer to the user or a
// promise that waits for the user ("I will search only when you allow it"),
// each a fine way to end a turn.
var offerPhrases = []string{"if you", "would you like", "do you want", "want me to", "shall i", "should i", "let me know", "if needed", "if necessary",
	"when you", "once you", "after you", "unless you", "until you", "if allowed", "your permission", "your approval"}

// useWords introduce an explicit tool name: "I'll check this using web_search".
var useWords = map[string]bool{
	"use": true, "using": true, "call": true, "calling": true, "run": true, "running": true,
	"invoke": true, "invoking": true, "with": true, "via": true, "through": true, "execute": true,
}

// An object class is what a verb acts on, told from the nouns after it.
type objectClass int

const (
	objNone objectClass = iota
	objPage
	objFile
	objDir
	objWeb // "online", "the web", "the internet"
	objPronoun
)

// Announcements returns an announced_not_called issue for each registered tool
// that reply says it is about to use. Check calls it for final replies, which by
// definition ended the turn without a tool call.
//
// A reply that asks the user a question (see asksUser) announces nothing.
func Announcements(reply string, registered []string) []Issue {
	if asksUser(reply) {
		return nil
	}
	return announcements(reply, sentences(reply), quotedSpans(reply), registered)
}

// announcements is Announcements on the sentences and quoted spans of reply,
// which Check works out once for every look at the reply's prose.
func announcements(reply string, sents, quoted []cut, registered []string) []Issue {
	var issues []Issue
	seen := map[string]bool{}
	for _, sp := range sents {
		for len(quoted) > 0 && quoted[0].end <= sp.start {
			quoted = quoted[1:]
		}
		if len(quoted) > 0 && quoted[0].start <= sp.start {
			continue
		}
		s := reply[sp.start:sp.end]
		// Most sentences of a long honest reply hold no intent marker; the
		// cheap look first keeps validation inside its budget.
		if !mayAnnounce(s) {
			continue
		}
		tool, ok := announcedTool(strings.ReplaceAll(asciiLower(dropLinkTexts(s)), "’", "'"), registered)
		if !ok || seen[tool] || !slices.Contains(registered, tool) {
			continue
		}
		seen[tool] = true
		issues = append(issues, Issue{
			Code:    CodeAnnouncedNotCalled,
			Message: fmt.Sprintf("the reply announces %s (%q) but ends the turn without calling it", tool, clip(reply[sp.start:sp.end], 80)),
			Tool:    tool,
		})
	}
	return issues
}

// asksUser reports whether reply asks the user a question: a sentence
// ending in '?' that speaks to the user ("Could you give me the airport
// code?"). A reply that asks for what it needs before it can act ends the
// turn to wait for the answer, so what it says it will do is no promise.
func asksUser(reply string) bool {
	for from := 0; ; {
		k := strings.IndexByte(reply[from:], '?')
		if k < 0 {
			return false
		}
		q := from + k
		from = q + 1
		if q+1 < len(reply) && !isSpace(reply[q+1]) && reply[q+1] != '*' && reply[q+1] != '_' {
			continue // inside a URL or a word
		}
		start := q
		for start > 0 {
			c := reply[start-1]
			if c == '\n' || (c == '.' || c == '!' || c == '?') && start < len(reply) && isSpace(reply[start]) {
				break
			}
			start--
		}
		for _, w := range sentenceWords(asciiLower(reply[start:q])) {
			switch w {
			case "you", "your", "you'd", "you're", "yours", "please":
				return true
			}
		}
	}
}

// sentences returns the spans of text's sentences (see eachSentence) that
// are not questions: a question does not commit to anything.
func sentences(text string) []cut {
	var out []cut
	eachSentence(text, func(s cut, question bool) {
		if !question {
			out = append(out, s)
		}
	})
	return out
}

// eachSentence calls f with the span of each sentence of text, trimmed of
// blanks, and whether it ends with '?'. Sentences end at line breaks and at
// '.', '!' or '?' before a space or the end, so URLs and file names stay
// whole.
func eachSentence(text string, f func(s cut, question bool)) {
	start := 0
	emit := func(end int, question bool) {
		for start < end && isSpace(text[start]) {
			start++
		}
		for end > start && isSpace(text[end-1]) {
			end--
		}
		if end > start {
			f(cut{start, end}, question)
		}
	}
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '\n':
			emit(i, false)
			start = i + 1
		case '.', '!', '?':
			if i+1 == len(text) || isSpace(text[i+1]) {
				emit(i, c == '?')
				start = i + 1
			}
		}
	}
	emit(len(text), false)
}

// quotedSpans returns, in order, the lines of text that quote rather than
// speak: the lines of ``` or ~~~ code blocks (an unclosed block runs to the
// end, as markdown renders it) and "> " quote lines.
func quotedSpans(text string) []cut {
	var out []cut
	inFence := false
	for pos := 0; pos < len(text); {
		end := len(text)
		if nl := strings.IndexByte(text[pos:], '\n'); nl >= 0 {
			end = pos + nl
		}
		line := strings.TrimLeft(text[pos:end], " \t")
		fenceLine := strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~")
		if inFence || fenceLine || strings.HasPrefix(line, ">") {
			if n := len(out); n > 0 && out[n-1].end+1 >= pos {
				out[n-1].end = end
			} else {
				out = append(out, cut{pos, end})
			}
		}
		if fenceLine {
			inFence = !inFence
		}
		pos = end + 1
	}
	return out
}

// dropLinkTexts removes the text of markdown links, [text](url), from s: it
// is a title written by someone else.
func dropLinkTexts(s string) string {
	if !strings.Contains(s, "](") {
		return s
	}
	var b strings.Builder
	for {
		open := strings.IndexByte(s, '[')
		if open < 0 {
			break
		}
		end := strings.Index(s[open:], "](")
		if end < 0 {
			break
		}
		b.WriteString(s[:open])
		s = s[open+end+1:]
	}
	b.WriteString(s)
	return b.String()
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// asciiLower lower-cases ASCII letters only: every marker and verb looked for
// is ASCII, so the Unicode tables of strings.ToLower would be wasted work.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// mayAnnounce reports whether a sentence holds, in any case, the first word
// of an intent marker.
func mayAnnounce(s string) bool {
	for i := 0; i < len(s); i++ {
		if i > 0 && isLetterOrQuote(s[i-1]) {
			continue
		}
		rest := s[i:]
		switch s[i] | 0x20 { // ASCII lower case
		case 'i':
			if hasPrefixFold(rest, "i'") || strings.HasPrefix(rest[1:], "’") || hasPrefixFold(rest, "i will") || hasPrefixFold(rest, "i shall") || hasPrefixFold(rest, "i am") {
				return true
			}
		case 'l':
			if hasPrefixFold(rest, "let") {
				return true
			}
		case 'a':
			if hasPrefixFold(rest, "allow me") {
				return true
			}
		case 'w':
			if hasPrefixFold(rest, "we'") || strings.HasPrefix(rest[1:], "e’") || hasPrefixFold(rest, "we will") {
				return true
			}
		}
	}
	return false
}

func isLetterOrQuote(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '\''
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// announcedTool returns the tool a lower-cased sentence says it is about to use.
func announcedTool(lower string, registered []string) (string, bool) {
	for _, p := range offerPhrases {
		if strings.Contains(lower, p) {
			return "", false
		}
	}
	words := sentenceWords(lower)
	for m := 0; m < len(words); m++ {
		n := markerAt(words, m)
		if n == 0 {
			continue
		}
		rest := words[m+n:]
		if tool, ok := explicitTool(rest, registered); ok {
			return tool, true
		}
		v := 0
		for v < len(rest) && fillerWords[rest[v]] {
			v++
		}
		if v < len(rest) {
			if tool, ok := verbTool(rest[v], rest[v+1:min(len(rest), v+9)]); ok {
				return tool, true
			}
		}
	}
	return "", false
}

// sentenceWords splits on spaces and trims punctuation around each word,
// keeping the dots and slashes inside file names and URLs.
func sentenceWords(s string) []string {
	fields := strings.Fields(s)
	words := fields[:0]
	for _, f := range fields {
		w := strings.TrimFunc(f, func(r rune) bool {
			return r != '_' && r != '\'' && (unicode.IsPunct(r) || unicode.IsSymbol(r))
		})
		w = strings.Trim(w, "'")
		if w != "" {
			words = append(words, w)
		}
	}
	return words
}

// markerAt returns the length of the intent marker starting at words[i], or 0.
func markerAt(words []string, i int) int {
	best := 0
	for _, m := range intentMarkers {
		if len(m) > best && i+len(m) <= len(words) && slices.Equal(words[i:i+len(m)], m) {
			best = len(m)
		}
	}
	return best
}

// explicitTool finds "use/call/run ... <registered tool>" in the words after a marker.
func explicitTool(rest []string, registered []string) (string, bool) {
	for j, w := range rest {
		if !slices.Contains(registered, w) {
			continue
		}
		for _, u := range rest[:j] {
			if useWords[u] {
				return w, true
			}
		}
	}
	return "", false
}

// verbTool maps a verb and the words after it to the tool that would do it.
func verbTool(verb string, after []string) (string, bool) {
	obj := classify(after)
	// "do a quick web search", "take a look at the page": the action is in
	// the noun after a light verb.
	switch verb {
	case "do", "doing", "perform", "performing", "run", "running", "conduct", "conducting", "make", "use", "using":
		if i := nounAt(after, "search", "searches", "lookup"); i >= 0 {
			// "a web search", "the search tool": the noun names the web.
			for _, w := range after[:i] {
				if w == "web" || w == "internet" || w == "online" || w == "google" {
					return tools.WebSearch, true
				}
			}
			if i+1 < len(after) && (after[i+1] == "tool" || after[i+1] == "engine") {
				return tools.WebSearch, true
			}
			return verbTool("search", after[i+1:])
		}
	case "take", "taking", "have", "having":
		if i := nounAt(after, "look"); i >= 0 {
			return readTool(classify(after[i+1:]))
		}
	case "get", "getting", "grab", "grabbing":
		return readTool(obj)
	}
	switch verb {
	case "google", "googling":
		return tools.WebSearch, true
	case "search", "searching", "browse", "browsing":
		// Searching is the web tool's only when the web is its object:
		// "search the web", "search online". "I will search for flights"
		// names no tool.
		switch obj {
		case objFile, objDir:
			return tools.ListDirectory, true
		case objWeb, objPage:
			return tools.WebSearch, true
		}
	case "look", "looking":
		if len(after) > 0 && (after[0] == "up" || len(after) > 1 && after[1] == "up") {
			for _, w := range after {
				if w == "online" || w == "web" || w == "internet" || w == "google" {
					return tools.WebSearch, true
				}
			}
			return "", false
		}
		return readTool(obj)
	case "find", "finding", "check", "checking":
		if obj == objWeb {
			return tools.WebSearch, true
		}
		return readTool(obj)
	case "read", "reading", "fetch", "fetching", "open", "opening", "visit", "visiting",
		"load", "loading", "scrape", "scraping", "retrieve", "retrieving", "pull", "access", "view", "download":
		return readTool(obj)
	case "write", "writing", "save", "saving", "create", "creating", "make", "making", "generate", "store", "put":
		switch obj {
		case objFile:
			return tools.WriteFile, true
		case objDir:
			return tools.CreateDirectory, true
		}
	case "delete", "deleting", "remove", "removing", "erase", "erasing":
		if obj == objFile || obj == objDir || obj == objPronoun {
			return tools.DeleteFile, true
		}
	case "move", "moving", "rename", "renaming":
		if obj == objFile || obj == objDir || obj == objPronoun {
			return tools.MoveFile, true
		}
	case "copy", "copying", "duplicate":
		if obj == objFile || obj == objDir || obj == objPronoun {
			return tools.CopyFile, true
		}
	case "list", "listing":
		if obj == objFile || obj == objDir {
			return tools.ListDirectory, true
		}
	case "mkdir":
		return tools.CreateDirectory, true
	}
	return "", false
}

// nounAt returns where one of nouns stands among the first words of a verb's
// object ("a quick web search"), or -1.
func nounAt(after []string, nouns ...string) int {
	for i, w := range after[:min(len(after), 4)] {
		if slices.Contains(nouns, w) {
			return i
		}
	}
	return -1
}

func readTool(obj objectClass) (string, bool) {
	switch obj {
	case objPage:
		return tools.ReadWebpage, true
	case objFile:
		return tools.ReadFile, true
	case objDir:
		return tools.ListDirectory, true
	}
	return "", false
}

// classify tells what the first noun of a verb's object is.
func classify(after []string) objectClass {
	for i, w := range after {
		switch w {
		case "page", "webpage", "webpages", "pages", "website", "site", "url", "link", "article", "docs", "documentation", "homepage":
			return objPage
		case "file", "files", "contents", "content":
			return objFile
		case "directory", "directories", "folder", "folders", "dir", "workspace":
			return objDir
		case "online", "internet", "web":
			if w == "web" && i+1 < len(after) && (after[i+1] == "page" || after[i+1] == "pages") {
				return objPage
			}
			return objWeb
		case "it", "them":
			if i == 0 {
				return objPronoun
			}
		}
		if strings.HasPrefix(w, "http://") || strings.HasPrefix(w, "https://") || strings.HasPrefix(w, "www.") {
			return objPage
		}
		if isFileName(w) {
			return objFile
		}
	}
	return objNone
}

// isFileName reports whether w looks like notes.txt or docs/plan.md. An
// extension needs a letter, so that a version such as 1.26 is no file.
func isFileName(w string) bool {
	dot := strings.LastIndexByte(w, '.')
	if dot <= 0 || dot == len(w)-1 || len(w)-dot-1 > 5 {
		return false
	}
	letter := false
	for _, r := range w[dot+1:] {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
		letter = letter || unicode.IsLetter(r)
	}
	return letter
}

// clip shortens s to at most n runes for quoting in a message.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
