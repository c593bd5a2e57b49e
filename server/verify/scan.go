package verify

import (
	"slices"
	"strings"
)

// Both the claim extractor and the text tool-call parser need to find JSON
// objects inside free prose. Prose is not JSON, so a decoder cannot be pointed at
// the whole reply; instead every '{' is tried as the start of an object and its
// matching '}' is found by a small scanner that knows JSON strings and escapes.
// Only the spans it finds are handed to encoding/json.

// An objectScanner finds the end of the JSON-looking object that starts at a
// given '{' of one text. It remembers every brace pair it has matched: a '{'
// met outside a string while scanning an enclosing object is in the same lexical
// state a fresh scan from it would be in, so its answer is already known. That
// keeps a reply full of nested objects linear instead of quadratic.
type objectScanner struct {
	text string
	ends map[int]int // '{' offset -> offset just past its '}', or -1 when it never closes
}

// maxObjectBytes bounds a single candidate object, so that one stray '{' in a
// long reply does not make every later brace rescan the rest of the text.
const maxObjectBytes = 64 << 10

func newObjectScanner(text string) *objectScanner {
	return &objectScanner{text: text}
}

// end returns the offset just past the '}' that closes the object opening at
// start, or -1 when the braces never balance.
func (s *objectScanner) end(start int) int {
	if e, ok := s.ends[start]; ok {
		return e
	}
	text := s.text
	limit := min(len(text), start+maxObjectBytes)
	var stack []int
	inString, escaped := false, false
	for i := start; i < limit; i++ {
		c := text[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{':
			stack = append(stack, i)
		case '}':
			if len(stack) == 0 {
				continue
			}
			open := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				// The outermost answer is not stored: callers move past start
				// and never ask for it again.
				return i + 1
			}
			s.remember(open, i+1)
		}
	}
	if limit == len(text) {
		// Reaching the real end of the text proves every open brace on the stack
		// never closes; hitting only the size limit proves nothing about inner ones.
		for _, open := range stack[1:] {
			s.remember(open, -1)
		}
	}
	return -1
}

// remember stores the end of a nested object; the map is made only when a
// reply has nested braces, which most prose does not.
func (s *objectScanner) remember(open, end int) {
	if s.ends == nil {
		s.ends = make(map[int]int)
	}
	s.ends[open] = end
}

// isWordByte reports whether c is a regexp word character (\w in RE2).
func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isHexLower(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' }

// An idSpan is one execution id found in text: text[Start:End], whose tool
// prefix ends at ToolEnd.
type idSpan struct {
	Start, ToolEnd, End int
}

// findExecutionIDs returns every match of tools.ExecutionIDPattern in text, in
// order. It is hand-written because the regexp engine needs about 0.8 ms for a
// 20 KB reply, nearly the whole validation budget; this scan needs a few
// microseconds. TestFindExecutionIDsMatchesPattern and the fuzz target hold it
// to exactly the pattern's answers.
func findExecutionIDs(text string) []idSpan {
	var spans []idSpan
	// An id is <prefix>_<13 digits>_<8 hex>; the anchor is the '_' before the
	// digits. The prefix is the whole run of word characters before it, because
	// \b can only hold at the start of such a run.
	const tail = 1 + 13 + 1 + 8
	from := 0
	for i := 0; i+tail <= len(text); i++ {
		if text[i] != '_' || i == 0 {
			continue
		}
		j := i + 1
		for j < i+14 && '0' <= text[j] && text[j] <= '9' {
			j++
		}
		if j != i+14 || text[j] != '_' {
			continue
		}
		k := j + 1
		for k < j+9 && isHexLower(text[k]) {
			k++
		}
		if k != j+9 || (k < len(text) && isWordByte(text[k])) {
			continue
		}
		start := i
		for start > from && isWordByte(text[start-1]) {
			start--
		}
		if start == i || start < from || !validPrefix(text[start:i]) {
			continue
		}
		spans = append(spans, idSpan{Start: start, ToolEnd: i, End: k})
		from = k
		i = k - 1
	}
	return spans
}

// validPrefix reports whether p can be the tool part of an execution id:
// a lowercase letter followed by lowercase letters, digits and underscores.
func validPrefix(p string) bool {
	if p == "" || p[0] < 'a' || p[0] > 'z' {
		return false
	}
	for i := 1; i < len(p); i++ {
		c := p[i]
		if !(c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z') {
			return false
		}
	}
	return true
}

// A malformedSpan is one id-shaped word of text that is not an execution id:
// text[Start:End], anchored on tool.
type malformedSpan struct {
	Start, End int
	tool       string
}

// findMalformedIDs returns, in order, the near-misses of execution ids in
// text: what a model writes when it makes an id up or copies one badly. Two
// shapes count, and neither can be ordinary prose:
//
//   - a tool name of names (in any case) followed by up to three separators
//     from " _-#:.=/", 10 to 16 digits, one separator and 6 to 10 hex digits
//     of either case (web_search #1763769600123-9f86d081), or by '_' and 12 to
//     14 digits alone (web_search_1763769600123);
//   - any word of the form <letter...>_<12 to 14 digits>_<7 to 9 hex digits>
//     (run_speed_test_1763769600999_ABCDEF12).
//
// A timestamp, version, phone number, git hash or UUID has no tool name before
// it and not that shape, so it is never reported. Exact ids are left to
// findExecutionIDs. The scan starts from runs of ten or more digits, which
// prose rarely has, so it costs little.
func findMalformedIDs(text string, names []string) []malformedSpan {
	var out []malformedSpan
	var exact []idSpan
	exactDone := false
	// A run of ten digits holds every tenth byte it spans, so only those
	// bytes are looked at until one is a digit.
	for p := 9; p < len(text); {
		if !isDigit(text[p]) {
			p += 10
			continue
		}
		ds, de := p, p+1
		for ds > 0 && isDigit(text[ds-1]) {
			ds--
		}
		for de < len(text) && isDigit(text[de]) {
			de++
		}
		p = de + 10 // the next run starts after de
		n := de - ds
		if n < 10 || n > 16 {
			continue
		}
		sep := ds
		for sep > 0 && ds-sep < 3 && strings.IndexByte(" _-#:.=/", text[sep-1]) >= 0 {
			sep--
		}
		ws := sep
		for ws > 0 && isWordByte(text[ws-1]) {
			ws--
		}
		if sep == ds || ws == sep {
			continue // digits glued to a word, or no word before them
		}
		word := text[ws:sep]
		tool := ""
		for _, name := range names {
			if strings.EqualFold(word, name) {
				tool = name
				break
			}
		}
		tight := text[sep:ds] == "_"
		hexLen, end := 0, de
		if de < len(text) && strings.IndexByte("_-.:/# ", text[de]) >= 0 {
			h := de + 1
			for h < len(text) && isHex(text[h]) {
				h++
			}
			if h == len(text) || !isWordByte(text[h]) {
				hexLen, end = h-de-1, h
			}
		}
		switch {
		case tool != "" && 6 <= hexLen && hexLen <= 10:
		case tool != "" && tight && hexLen == 0 && 12 <= n && n <= 14 && (de == len(text) || !isWordByte(text[de])):
			end = de
		case 7 <= hexLen && hexLen <= 9 && tight && text[de] == '_' && 12 <= n && n <= 14 && isLetter(word[0]):
			tool = asciiLower(word)
		default:
			continue
		}
		if hexLen == 8 && tight && n == 13 && text[de] == '_' && validPrefix(word) && isLowerHex(text[de+1:end]) {
			continue // exactly the contract's format
		}
		if !exactDone {
			exact, exactDone = findExecutionIDs(text), true
		}
		if slices.ContainsFunc(exact, func(e idSpan) bool { return e.Start < end && ws < e.End }) {
			continue
		}
		out = append(out, malformedSpan{Start: ws, End: end, tool: tool})
	}
	return out
}

func isHex(c byte) bool { return isHexLower(c) || 'A' <= c && c <= 'F' }

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHexLower(s[i]) {
			return false
		}
	}
	return true
}
