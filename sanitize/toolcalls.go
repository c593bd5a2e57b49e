package sanitize

import "strings"

// The tool-JSON part of the instruction_pattern layer neutralizes JSON that reads as
// AI Lab's tool protocol: a call a model writes as text ({"name": "write_file",
// "arguments": {...}}, which the server runs when the model echoes it) and a tool
// result ({"execution_id": ..., "tool_name": ..., "result": ...}, which a model
// would cite as if a tool had said it). The object is replaced whole by
// [instruction token removed]; one that never closes is replaced to the end of its
// paragraph, as the server reads a broken call that far.
//
// An object is a call when it has "name" (or "tool", "tool_name", "function")
// with a tool-like name — letters, digits and "_-." only — and "arguments" or
// "parameters" holding an object, a string or null. It is a result when it has
// "execution_id" with any of "tool_name", "tool", "result", "output", "status",
// "error" or "executed_at", or "tool_name" with any of "result", "output",
// "status", "error" or "executed_at". Keys may be in single quotes, as a
// Python dict prints them. Ordinary JSON (a package.json, an API answer) has none
// of these pairs.

// Key bits an object collects.
const (
	keyName = 1 << iota // "name", "tool", "tool_name" or "function" with a tool-like name
	keyArgs             // "arguments" or "parameters" with an object, a string or null
	keyExecutionID
	keyToolName
	keyResultish // "result", "output", "status", "error", "executed_at"
)

// maxToolJSON bounds one top-level object the layer reads; a longer one is read
// that far and treated as never closing.
const maxToolJSON = 64 << 10

// maxJSONDepth bounds the nesting the layer tracks; deeper objects are skipped.
const maxJSONDepth = 32

func toolJSONMatch(keys int) bool {
	call := keys&keyName != 0 && keys&keyArgs != 0
	result := keys&keyExecutionID != 0 && keys&(keyToolName|keyName|keyResultish) != 0 ||
		keys&keyToolName != 0 && keys&(keyResultish|keyExecutionID) != 0
	return call || result
}

// neutralizeToolJSON replaces every tool call or tool result written as JSON.
func neutralizeToolJSON(s string) (string, int) {
	e := editor{src: s}
	n := 0
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '{')
		if j < 0 {
			break
		}
		i += j
		spans, end := scanJSONObject(s, i)
		for _, sp := range spans {
			e.replace(sp[0], sp[1], markerInstruction)
			n++
		}
		i = max(end, i+1)
	}
	return e.result(), n
}

// scanJSONObject reads the object (and the objects inside it) that starts at the
// '{' at i, in one pass, and returns the outermost spans that read as tool calls or
// results, and where the object ends.
func scanJSONObject(s string, i int) ([][2]int, int) {
	type frame struct {
		start int
		keys  int
	}
	var stack [maxJSONDepth]frame
	depth := 0
	limit := min(len(s), i+maxToolJSON)
	var spans [][2]int
	add := func(start, end int) {
		// An inner match inside an outer one is dropped: the outer replaces both.
		for len(spans) > 0 && spans[len(spans)-1][0] >= start {
			spans = spans[:len(spans)-1]
		}
		spans = append(spans, [2]int{start, end})
	}
	skipped := 0 // objects deeper than maxJSONDepth, not tracked
	k := i
	for k < limit {
		c := s[k]
		switch c {
		case '{':
			if depth == len(stack) {
				skipped++
			} else {
				stack[depth] = frame{start: k}
				depth++
			}
			k++
		case '}':
			k++
			if skipped > 0 {
				skipped--
				continue
			}
			depth--
			if f := stack[depth]; toolJSONMatch(f.keys) {
				add(f.start, k)
			}
			if depth == 0 {
				return spans, k
			}
		case '"', '\'':
			if !opensString(s, i, k) {
				k++
				continue
			}
			end := stringEnd(s, k, limit)
			if depth > 0 && skipped == 0 {
				// A string followed by ':' is a key of the innermost object.
				p := skipSpaces(s, end, limit)
				if p < limit && s[p] == ':' {
					stack[depth-1].keys |= keyBit(s[k+1:max(k+1, end-1)], s, skipSpaces(s, p+1, limit), limit)
				}
			}
			k = end
		default:
			k++
		}
	}
	// Never closed: any open object that matches runs to the end of its paragraph.
	for d := 0; d < depth; d++ {
		if toolJSONMatch(stack[d].keys) {
			end := strings.Index(s[stack[d].start:], "\n\n")
			if end < 0 {
				end = len(s)
			} else {
				end += stack[d].start
			}
			add(stack[d].start, end)
			return spans, end
		}
	}
	return spans, k
}

// opensString reports whether the quote at k starts a JSON string: it follows
// '{', ',', ':' or '[' (blanks between), as a key or value does, and not a letter,
// as an apostrophe in "it's" does. from is where the object began.
func opensString(s string, from, k int) bool {
	for p := k - 1; p >= from; p-- {
		switch s[p] {
		case ' ', '\t', '\n', '\r':
			continue
		case '{', ',', ':', '[':
			return true
		}
		return false
	}
	return false
}

// stringEnd returns the index after the string whose quote is at i: its closing
// quote, a line break (a JSON string holds none), or limit.
func stringEnd(s string, i, limit int) int {
	q := s[i]
	for k := i + 1; k < limit; k++ {
		switch s[k] {
		case '\\':
			k++
		case q:
			return k + 1
		case '\n':
			return k
		}
	}
	return limit
}

func skipSpaces(s string, i, limit int) int {
	for i < limit && isSpace[s[i]] {
		i++
	}
	return i
}

// keyBit returns the bit of the key name whose value starts at v.
func keyBit(name, s string, v, limit int) int {
	switch strings.ToLower(name) {
	case "name", "tool", "tool_name", "function":
		bit := keyName
		if strings.EqualFold(name, "tool_name") {
			bit |= keyToolName
		}
		if v < limit && (s[v] == '"' || s[v] == '\'') {
			end := stringEnd(s, v, limit)
			if toolLikeName(s[v+1 : max(v+1, end-1)]) {
				return bit
			}
		}
		return bit &^ keyName
	case "arguments", "parameters":
		if v < limit && (s[v] == '{' || s[v] == '"' || s[v] == '\'' || strings.HasPrefix(s[v:limit], "null")) {
			return keyArgs
		}
	case "execution_id":
		return keyExecutionID
	case "result", "output", "status", "error", "executed_at":
		return keyResultish
	}
	return 0
}

// toolLikeName reports a name a tool could have: 1 to 64 letters, digits and "_-.".
func toolLikeName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !isASCIIAlnum(c) && c != '_' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}
