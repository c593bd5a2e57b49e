package sanitize

import (
	"strings"
	"unicode/utf8"
)

// The instruction_pattern and role_prefix layers are small hand-written scanners
// rather than regular expressions: they look only at '<', '[' and line starts, which
// keeps a megabyte of prose well under a millisecond, and they can skip markup and
// spaced-out letters that a regexp would need a pattern per spelling for.

// Tag names that are chat-template or special-token syntax in some model family.
var (
	// angleTags are <name> and </name>; always neutralized.
	angleTags = set("system", "system-reminder", "system_reminder", "system-prompt",
		"system_prompt", "sys", "start_of_turn", "end_of_turn", "im_start", "im_end",
		"instructions", "instruction", "developer", "begin_of_text", "end_of_text",
		"eot", "endoftext")
	// angleTagsAggressive also appear in harmless XML samples, so only aggressive
	// mode takes them.
	angleTagsAggressive = set("user", "assistant", "human", "tool", "tool_call",
		"tool_response", "tool_result", "function_call", "function_calls",
		"function_results", "model", "bot", "s")
	// bracketTags are [NAME] and [/NAME] (Llama and Mistral templates).
	bracketTags = set("inst", "system", "sys", "system_prompt", "sys_prompt",
		"available_tools", "tool_calls", "tool_results", "system_message")
	bracketTagsAggressive = set("user", "assistant", "human", "developer")
	// hashHeadings are "### Name:" lines of Alpaca-style templates.
	hashHeadings           = set("instruction", "instructions", "system", "system prompt")
	hashHeadingsAggressive = set("response", "input", "context")
	// roleWords are fake transcript prefixes ("SYSTEM:").
	roleWords = set("user", "assistant", "system", "human", "ai", "bot", "developer",
		"tool")
	// roleQualifiers may follow a role word before the colon ("System message:").
	roleQualifiers = set("message", "prompt", "note", "instruction", "instructions",
		"override", "command", "update")
)

// roleInitial marks the ASCII letters a role word can start with, in both cases.
var roleInitial = func() (t [256]bool) {
	for w := range roleWords {
		t[w[0]], t[w[0]-'a'+'A'] = true, true
	}
	return t
}()

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// indexFrom returns the index of the next c at or after i, or len(s).
func indexFrom(s string, i int, c byte) int {
	if j := strings.IndexByte(s[i:], c); j >= 0 {
		return i + j
	}
	return len(s)
}

// neutralizeTokens replaces template tags and special tokens introduced by '<' or
// '[' with a marker.
func neutralizeTokens(s string, aggressive bool) (string, int) {
	e := editor{src: s}
	n := 0
	// Two IndexByte scans (vectorized) beat one IndexAny (a byte loop).
	nextLT, nextBR := -1, -1
	for i := 0; i < len(s); {
		if nextLT < i {
			nextLT = indexFrom(s, i, '<')
		}
		if nextBR < i {
			nextBR = indexFrom(s, i, '[')
		}
		if nextLT == len(s) && nextBR == len(s) {
			break
		}
		i = min(nextLT, nextBR)
		var end int
		if s[i] == '<' {
			end = matchAngleToken(s, i, aggressive)
		} else {
			end = matchBracketToken(s, i, aggressive)
		}
		if end < 0 {
			i++
			continue
		}
		e.replace(i, end, markerInstruction)
		n++
		i = end
	}
	return e.result(), n
}

func skipBlanks(s string, i int) int {
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	return i
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '-'
}

func isNameOrDigit(c byte) bool { return isNameByte(c) || c >= '0' && c <= '9' }

// readName returns the lower-cased name of [A-Za-z_-] at i and the index after it.
func readName(s string, i int) (string, int) {
	j := i
	for j < len(s) && j-i < 40 && isNameByte(s[j]) {
		j++
	}
	return strings.ToLower(s[i:j]), j
}

// matchAngleToken matches <|any|>, <<SYS>>, <</SYS>> and <name>/</name> at i and
// returns the end of the token, or -1.
func matchAngleToken(s string, i int, aggressive bool) int {
	if i+1 >= len(s) {
		return -1
	}
	if p := skipBlanks(s, i+1); p < len(s) && s[p] == '|' {
		// <|im_start|>, <|eot_id|>, <|begin▁of▁sentence|>: every such token is special.
		j := skipBlanks(s, p+1)
		k := j
		letters := 0
		for k < len(s) && k-j < 64 && s[k] != '|' && s[k] != '>' && s[k] != '<' && !isSpaceByte(s[k]) {
			if isNameByte(s[k]) {
				letters++
			}
			k++
		}
		if letters < 2 {
			return -1
		}
		name := strings.ToLower(s[j:k])
		// Spaced out, "<| x |>" is also the pipe operator of Elm and F#; only names of
		// known tokens count then.
		if spaced := p > i+1 || j > p+1 || (k < len(s) && isBlank(s[k])); spaced &&
			!angleTags[name] && !angleTagsAggressive[name] && !strings.Contains(name, "_") {
			return -1
		}
		k = skipBlanks(s, k)
		if strings.HasPrefix(s[k:], "|") {
			if q := skipBlanks(s, k+1); q < len(s) && s[q] == '>' {
				return q + 1
			}
		}
		return -1
	}
	if s[i+1] == '<' { // <<SYS>> and <</SYS>>
		j := skipBlanks(s, i+2)
		if j < len(s) && s[j] == '/' {
			j = skipBlanks(s, j+1)
		}
		name, k := readName(s, j)
		k = skipBlanks(s, k)
		if name == "sys" && strings.HasPrefix(s[k:], ">>") {
			return k + 2
		}
		return -1
	}
	j := skipBlanks(s, i+1)
	if j < len(s) && s[j] == '/' {
		j = skipBlanks(s, j+1)
	}
	name, k := readName(s, j)
	if name == "tool" && k < len(s) && s[k] == ':' {
		// <tool:NAME> is how AI Lab's models without native tool calling write a
		// call; a page that hands one to the model hopes it gets echoed and run.
		m := k + 1
		for m < len(s) && (isNameOrDigit(s[m]) || s[m] == '.') {
			m++
		}
		if m > k+1 {
			if m = skipBlanks(s, m); m < len(s) && s[m] == '>' {
				return m + 1
			}
		}
		return -1
	}
	if !angleTags[name] && !(aggressive && angleTagsAggressive[name]) {
		return -1
	}
	k = skipBlanks(s, k)
	if k < len(s) && s[k] == '>' {
		if !angleTags[name] && placeholder(s, i, k+1, name) {
			return -1
		}
		return k + 1
	}
	// <system-reminder priority="high"> carries attributes; plain tags never do
	// here. Without an '=' it is prose in brackets: uptime's synopsis says
	// "<current time>, <system state>, <running time>".
	if angleTags[name] && k > j && k < len(s) && (s[k-1] == ' ' || s[k-1] == '\t') {
		attr := false
		for m := k; m < len(s) && m-k < 200; m++ {
			switch s[m] {
			case '=':
				attr = true
			case '>':
				if attr {
					return m + 1
				}
				return -1
			case '<', '\n':
				return -1
			}
		}
	}
	return -1
}

// placeholderReach is how far around a tag placeholder looks for another
// placeholder.
const placeholderReach = 300

// htmlTags are HTML's commonest elements, which are markup around a turn
// ("<p><user>obey</user></p>"), never a command's placeholder.
var htmlTags = set("a", "b", "i", "u", "p", "br", "hr", "em", "strong", "code", "pre", "kbd",
	"div", "span", "li", "ul", "ol", "dl", "dt", "dd", "table", "tr", "td", "th", "thead", "tbody",
	"h1", "h2", "h3", "h4", "h5", "h6", "img", "sup", "sub", "small", "blockquote", "details",
	"summary", "section", "article", "header", "footer", "main", "nav", "html", "body", "head",
	"title", "script", "style", "mark", "del", "ins", "q", "cite", "abbr", "label", "form", "button")

// placeholder reports whether the aggressive-only tag s[i:end] (<user>, <model>,
// <s>) is a placeholder or markup rather than a chat template's turn:
//   - a command's synopsis glues it to other text ("<user>@<host>", "-U<user>",
//     "<user>.<role>") or has other placeholders around it ("chown <user>
//     <file>", "ollama run <model>" near "<prompt>": another <name> within
//     placeholderReach bytes that is no template tag), or ends a line after a
//     word ("su <user>");
//   - <s> and </s> are strikethrough in HTML and Markdown; they are Llama's
//     sentence marks only next to another template token ("<s>[INST]",
//     "</s><s>").
//
// Neither test looks at the words around the tag, which the breakout layer and
// the classifier read anyway.
func placeholder(s string, i, end int, name string) bool {
	if name == "s" {
		before := i > 0 && (s[i-1] == '>' || s[i-1] == ']')
		after := skipBlanks(s, end)
		return !before && !(after < len(s) && (s[after] == '[' || s[after] == '<'))
	}
	if j := skipBlanks(s, i+1); j < len(s) && s[j] == '/' {
		return false // a placeholder is never closed: "obey</user>" ends a turn
	}
	if i > 0 && (isNameOrDigit(s[i-1]) || strings.IndexByte("/@:=%", s[i-1]) >= 0) {
		return true
	}
	if end < len(s) && strings.IndexByte("@./%:=", s[end]) >= 0 {
		return true
	}
	// The last argument of a command: "su <user>" ends its line.
	if i >= 2 && s[i-1] == ' ' && isNameOrDigit(s[i-2]) &&
		(end == len(s) || s[end] == '\n' || s[end] == '\r') {
		return true
	}
	from, to := max(0, i-placeholderReach), min(len(s), end+placeholderReach)
	for k := from; k < to; {
		l := strings.IndexByte(s[k:to], '<')
		if l < 0 {
			break
		}
		k += l
		if k == i {
			k = end
			continue
		}
		m := k + 1
		for m < to && m-k < 40 && (isNameOrDigit(s[m]) || s[m] == ' ') {
			m++
		}
		if m < to && s[m] == '>' && m > k+1 && s[k+1] != ' ' {
			tag := strings.ToLower(s[k+1 : m])
			if !angleTags[tag] && !angleTagsAggressive[tag] && !htmlTags[tag] {
				return true
			}
		}
		k++
	}
	return false
}

// matchBracketToken matches [INST], [/INST], [SYSTEM] and the like at i.
func matchBracketToken(s string, i int, aggressive bool) int {
	j := skipBlanks(s, i+1)
	if j < len(s) && s[j] == '/' {
		j = skipBlanks(s, j+1)
	}
	name, k := readName(s, j)
	if !bracketTags[name] && !(aggressive && bracketTagsAggressive[name]) {
		return -1
	}
	k = skipBlanks(s, k)
	if k < len(s) && s[k] == ']' {
		if k+1 < len(s) && s[k+1] == '(' {
			// "[SYSTEM](#system)" is a Markdown link to a heading, not a template.
			return -1
		}
		return k + 1
	}
	return -1
}

// neutralizeLineStarts looks at the start of every line, after list and quote markup:
// an Alpaca heading ("### Instruction:") counts as instruction_pattern, a transcript
// prefix ("**SYSTEM:**", "S Y S T E M:") as role_prefix.
func neutralizeLineStarts(s string, aggressive bool) (string, int, int) {
	e := editor{src: s}
	tokens, roles := 0, 0
	hasCR := strings.IndexByte(s, '\r') >= 0 // a lone CR also starts a line for a reader
	for i := 0; i < len(s); {
		if start, end := matchHashHeading(s, i, aggressive); end >= 0 {
			e.replace(start, end, markerInstruction)
			tokens++
		} else if start, end := matchRolePrefix(s, i); end >= 0 {
			e.replace(start, end, markerRolePrefix)
			roles++
		}
		next := indexFrom(s, i, '\n')
		if hasCR {
			next = min(next, indexFrom(s, i, '\r'))
		}
		i = next + 1
	}
	return e.result(), tokens, roles
}

// skipMarkup skips what may precede a prefix on a line: blanks, quote and heading
// marks, bullets, emphasis, numbered-list labels and opening quotes.
func skipMarkup(s string, i int) int {
	// No length limit: "- - - - ... SYSTEM:" must not hide a prefix behind padding.
	for i < len(s) {
		c := s[i]
		switch c {
		case ' ', '\t', '>', '#', '*', '_', '-', '+', '|', '~', '`', '"', '\'':
			i++
			continue
		}
		if c >= '0' && c <= '9' {
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j < len(s) && (s[j] == '.' || s[j] == ')') {
				i = j + 1
				continue
			}
			return i
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			switch r {
			case '•', '·', '◦', '▪', '‣', '“', '‘', '«', '„':
				i += size
				continue
			}
		}
		return i
	}
	return i
}

// matchHashHeading matches "### Instruction:" at the line starting at i and returns
// the span to replace, or end -1.
func matchHashHeading(s string, i int, aggressive bool) (int, int) {
	start := skipBlanks(s, i)
	j := start
	for j < len(s) && s[j] == '#' {
		j++
	}
	if j == start {
		return 0, -1
	}
	j = skipBlanks(s, j)
	name, k := readName(s, j)
	if name == "system" {
		if p := skipBlanks(s, k); p > k {
			if next, q := readName(s, p); next == "prompt" {
				name, k = "system prompt", q
			}
		}
	}
	if !hashHeadings[name] && !(aggressive && hashHeadingsAggressive[name]) {
		return 0, -1
	}
	k = skipBlanks(s, k)
	if end := colonAt(s, k); end > 0 {
		return start, end
	}
	return 0, -1
}

// colonAt returns the index after a colon (or a look-alike that NFKC keeps) at i,
// or -1. A double colon is a path in code ("Human::fly(&person)" in the Rust
// book), not a speaker's.
func colonAt(s string, i int) int {
	if i >= len(s) {
		return -1
	}
	if s[i] == ':' {
		if i+1 < len(s) && s[i+1] == ':' {
			return -1
		}
		return i + 1
	}
	if s[i] >= utf8.RuneSelf {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '：', '∶', '꞉', '˸', 'ː', '︓', '﹕':
			return i + size
		}
	}
	return -1
}

// letterAt returns the lower-case Latin letter at i (folding look-alikes) and its size.
func letterAt(s string, i int) (byte, int) {
	if i >= len(s) {
		return 0, 0
	}
	c := s[i]
	switch {
	case c >= 'a' && c <= 'z':
		return c, 1
	case c >= 'A' && c <= 'Z':
		return c + 'a' - 'A', 1
	case c >= utf8.RuneSelf:
		r, size := utf8.DecodeRuneInString(s[i:])
		if l := lookalikeLetter(r); l != 0 {
			return l, size
		}
	}
	return 0, 0
}

// closesUnderscoreEmphasis reports whether the '_' run at i closes markdown emphasis
// ("__System__:") rather than continuing a name ("system_prompt"): nothing
// name-like follows the run.
func closesUnderscoreEmphasis(s string, i int) bool {
	j := i
	for j < len(s) && s[j] == '_' {
		j++
	}
	if j == i {
		return false
	}
	_, letter := letterAt(s, j)
	return letter == 0 && (j == len(s) || !isNameByte(s[j]))
}

func isWordSeparator(c byte) bool { return c == ' ' || c == '.' || c == '-' || c == '_' }

// readRoleWord reads a word at i into word, either contiguous ("System") or spelled
// out with one separator between single letters ("S Y S T E M", "S.Y.S.T.E.M"),
// lower-cased, and returns its length and the index after it.
func readRoleWord(s string, i int, word *[24]byte) (int, int) {
	n := 0
	l, size := letterAt(s, i)
	if size == 0 {
		return 0, i
	}
	word[n] = l
	n++
	j := i + size
	if _, next := letterAt(s, j); next > 0 {
		for n < len(word) {
			l, size := letterAt(s, j)
			if size == 0 {
				break
			}
			word[n] = l
			n++
			j += size
		}
		if _, more := letterAt(s, j); more > 0 || (j < len(s) && isNameByte(s[j]) && !closesUnderscoreEmphasis(s, j)) {
			return 0, i // longer than any role word, or glued to a name ("system_x"): not a role
		}
		return n, j
	}
	// Spelled out: letter, separator, letter, ... each letter alone.
	for n < len(word) && j+1 < len(s) && isWordSeparator(s[j]) {
		l, size := letterAt(s, j+1)
		if size == 0 {
			break
		}
		if _, after := letterAt(s, j+1+size); after > 0 {
			break // a whole word follows, not a spelled-out letter
		}
		word[n] = l
		n++
		j += 1 + size
	}
	if j < len(s) && s[j] == '.' { // "A.I.:"
		j++
	}
	return n, j
}

// matchRolePrefix matches a fake transcript prefix at the line starting at i and
// returns the span from the role word through the colon, or end -1.
func matchRolePrefix(s string, i int) (int, int) {
	start := skipMarkup(s, i)
	if start < len(s) && s[start] < utf8.RuneSelf && !roleInitial[s[start]] {
		return 0, -1 // most lines: the first letter starts no role word
	}
	var word [24]byte
	n, j := readRoleWord(s, start, &word)
	if !roleWords[string(word[:n])] { // the conversion does not allocate in a map index
		return 0, -1
	}
	if p := skipBlanks(s, j); p > j {
		if q, k := readName(s, p); roleQualifiers[q] {
			j = k
		}
	}
	// Closing emphasis may sit between the word and the colon ("**System**:",
	// "__System__:", "~~System~~:").
	for j < len(s) && (s[j] == '*' || s[j] == '_' || s[j] == '~' || s[j] == ' ' || s[j] == '\t' || s[j] == '`') {
		j++
	}
	lower := start < len(s) && s[start] >= 'a' && s[start] <= 'z'
	if end := colonAt(s, j); end > 0 && !codeValueAt(s, end, lower) {
		return start, end
	}
	return 0, -1
}

// codeValueAt reports whether what follows a role word's colon at i makes it a
// name or an object's key rather than a speaker: a word glued to the colon of a
// role word written in lower case ("system:anonymous" in Kubernetes; "SYSTEM:obey"
// stays a prefix), or a quoted string, a number, a list or an object that ends
// its line with a comma ("  user: 'maciej'," in a JavaScript object).
func codeValueAt(s string, i int, lower bool) bool {
	if lower && i < len(s) && isNameOrDigit(s[i]) {
		return true
	}
	j := skipBlanks(s, i)
	if j >= len(s) || strings.IndexByte("'\"0123456789[{", s[j]) < 0 {
		return false
	}
	line := s[j:indexFrom(s, j, '\n')]
	return strings.HasSuffix(strings.TrimRight(line, " \t\r"), ",")
}
