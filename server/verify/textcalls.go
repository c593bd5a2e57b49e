package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// A TextCall is a tool call a model wrote as text instead of a native call.
type TextCall struct {
	Name string
	// Arguments is the JSON object of arguments; "{}" when the call gave none.
	Arguments json.RawMessage
	// Err is set when the call cannot run: an unknown tool or arguments that
	// are not a JSON object. It is the tool error the model gets back.
	Err string
	// Raw is the call as written.
	Raw string
}

// A span of text to cut from the visible reply.
type cut struct{ start, end int }

// ParseTextCalls finds tool calls written as text, <tool:NAME>{json}</tool> or
// {"name": "NAME", "parameters": {...}} (or "arguments", an object or a string
// holding one), fenced or not, and returns them in order with the text that is
// left for the user once they, and any code fence they emptied, are removed.
// known lists the registered tools. A JSON object counts as a call only when its
// "name" is a string and it has parameters or arguments, so ordinary JSON in a
// reply stays put.
func ParseTextCalls(text string, known []string) (calls []TextCall, visible string) {
	var cuts []cut
	type found struct {
		at   int
		call TextCall
	}
	var all []found

	sc := newObjectScanner(text)
	// Tag calls first: the JSON inside a tag must not be read a second time.
	for from := 0; ; {
		k := strings.Index(text[from:], "<tool:")
		if k < 0 {
			break
		}
		start := from + k
		call, end, ok := parseTagCall(text, start, known, sc)
		if !ok {
			from = start + len("<tool:")
			continue
		}
		all = append(all, found{start, call})
		cuts = append(cuts, cut{start, end})
		from = end
	}

	for i := 0; i < len(text); i++ {
		if text[i] != '{' {
			continue
		}
		if c, ok := inCut(cuts, i); ok {
			i = c.end - 1
			continue
		}
		end := sc.end(i)
		if end < 0 {
			// A call whose braces never close is a call all the same; it runs
			// to the end of its paragraph or code block.
			if !startsLikeCall(text, i) {
				continue
			}
			end = brokenCallEnd(text, i)
			if _, ok := brokenJSONCall(text[i:end], known); !ok {
				continue
			}
		}
		if presentsClaim(text[i:end]) {
			// A tool result the reply presents is for the validator, and so is
			// the call it may show beside the result.
			i = end - 1
			continue
		}
		call, ok := parseJSONCall(text[i:end], known)
		if !ok {
			continue
		}
		all = append(all, found{i, call})
		cuts = append(cuts, cut{i, end})
		i = end - 1
	}
	if len(all) == 0 {
		return nil, text
	}
	slices.SortFunc(all, func(a, b found) int { return a.at - b.at })
	for _, f := range all {
		calls = append(calls, f.call)
	}
	return calls, strip(text, cuts)
}

func inCut(cuts []cut, i int) (cut, bool) {
	for _, c := range cuts {
		if i >= c.start && i < c.end {
			return c, true
		}
	}
	return cut{}, false
}

// parseTagCall reads <tool:NAME>BODY</tool> at start.
func parseTagCall(text string, start int, known []string, sc *objectScanner) (TextCall, int, bool) {
	i := start + len("<tool:")
	j := i
	for j < len(text) && (isWordByte(text[j]) || text[j] == '-' || text[j] == '.') {
		j++
	}
	if j == i || j >= len(text) || text[j] != '>' {
		return TextCall{}, 0, false
	}
	name := text[i:j]
	bodyStart := j + 1
	var body string
	end := -1
	// A body that is one JSON object is read with the object scanner, so a
	// "</tool>" inside one of its strings does not end the call early. A
	// missing closing tag is forgiven: models often stop right after the object.
	if o := skipWhitespace(text, bodyStart); o < len(text) && text[o] == '{' {
		if e := sc.end(o); e > 0 {
			body, end = text[bodyStart:e], e
			if after := skipWhitespace(text, e); strings.HasPrefix(text[after:], "</tool>") {
				end = after + len("</tool>")
			}
		}
	}
	if end < 0 {
		k := strings.Index(text[bodyStart:], "</tool>")
		if k < 0 {
			return TextCall{}, 0, false
		}
		body = text[bodyStart : bodyStart+k]
		end = bodyStart + k + len("</tool>")
	}
	call := TextCall{Name: name, Raw: text[start:end]}
	body = strings.TrimSpace(unfence(strings.TrimSpace(body)))
	if body == "" {
		call.Arguments = json.RawMessage(`{}`)
	} else {
		call.Arguments, call.Err = argumentsObject(name, []byte(body))
	}
	if !slices.Contains(known, name) {
		call.Err = unknownTool(name, known)
	}
	return call, end, true
}

// parseJSONCall reads {"name": NAME, "parameters"|"arguments": ...}, also in
// the wrapping of OpenAI's tool_calls ({"type": "function", "function": {...}})
// and with "tool" or "tool_name" for "name" when that names a registered tool.
// An object that is not JSON but starts like a call to a registered tool is a
// call whose error quotes the parse error.
func parseJSONCall(raw string, known []string) (TextCall, bool) {
	if !strings.Contains(raw, `"name"`) && !strings.Contains(raw, `"tool`) {
		return TextCall{}, false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(raw), &obj) != nil {
		return brokenJSONCall(raw, known)
	}
	if fn, ok := obj["function"]; ok && !hasAny(obj, "name", "parameters", "arguments") {
		var inner map[string]json.RawMessage
		if json.Unmarshal(fn, &inner) != nil {
			return TextCall{}, false
		}
		obj = inner
	}
	var name string
	if json.Unmarshal(obj["name"], &name) != nil || name == "" {
		// "tool" is also how a reply names the tool of a result it presents
		// (see claimFromObject), so it counts only for a registered tool and
		// an object that carries nothing a result has.
		for _, key := range []string{"tool", "tool_name"} {
			if json.Unmarshal(obj[key], &name) == nil && slices.Contains(known, name) {
				break
			}
			name = ""
		}
		if name == "" || hasAny(obj, resultKeys...) {
			return TextCall{}, false
		}
	}
	args, ok := obj["parameters"]
	if !ok {
		args, ok = obj["arguments"]
	}
	if !ok {
		return TextCall{}, false
	}
	args = bytes.TrimSpace(args)
	if !slices.Contains(known, name) && !plausibleToolName(name, args) {
		return TextCall{}, false // ordinary JSON, such as a package.json
	}
	call := TextCall{Name: name, Raw: raw}
	var s string
	switch {
	case len(args) > 0 && args[0] == '"':
		// Some models send arguments the way the OpenAI wire format does: a
		// string that holds the JSON object.
		_ = json.Unmarshal(args, &s)
		if strings.TrimSpace(s) == "" {
			call.Arguments = json.RawMessage(`{}`)
		} else {
			call.Arguments, call.Err = argumentsObject(name, []byte(strings.TrimSpace(s)))
		}
	case bytes.Equal(args, []byte("null")):
		call.Arguments = json.RawMessage(`{}`)
	default:
		call.Arguments, call.Err = argumentsObject(name, args)
	}
	if !slices.Contains(known, name) {
		call.Err = unknownTool(name, known)
	}
	return call, true
}

// resultKeys are what an object presenting a tool result carries and a call
// does not.
var resultKeys = []string{"execution_id", "result", "results", "output", "error", "status"}

// plausibleToolName reports whether an unregistered name with these arguments
// still reads as a tool call (which then gets the list of available tools): a
// name like run_speed_test with an object or string of arguments. "@scope/pkg"
// or an array of arguments is ordinary JSON.
func plausibleToolName(name string, args json.RawMessage) bool {
	if len(args) == 0 || (args[0] != '{' && args[0] != '"' && !bytes.Equal(args, []byte("null"))) {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !isWordByte(name[i]) && name[i] != '-' {
			return false
		}
	}
	return name != ""
}

// brokenCallPrefix is how a call to a registered tool starts when the rest of
// the object is not JSON.
var brokenCallPrefix = regexp.MustCompile(`^\{\s*"(?:name|tool|tool_name)"\s*:\s*"([A-Za-z0-9_-]+)"\s*,\s*"(?:parameters|arguments)"\s*:`)

// brokenJSONCall returns the call of raw, an object that does not parse but
// starts like a call to a registered tool, with the parse error as its error.
func brokenJSONCall(raw string, known []string) (TextCall, bool) {
	m := brokenCallPrefix.FindStringSubmatch(raw)
	if m == nil || !slices.Contains(known, m[1]) {
		return TextCall{}, false
	}
	var v any
	err := json.Unmarshal([]byte(raw), &v)
	if err == nil {
		return TextCall{}, false
	}
	return TextCall{Name: m[1], Raw: raw, Err: fmt.Sprintf("the call to %s is not valid JSON: %v; write it as {\"name\": \"%s\", \"arguments\": {...}}", m[1], err, m[1])}, true
}

// startsLikeCall is the cheap look before brokenCallEnd: does the object at
// start open with a "name" or "tool" key?
func startsLikeCall(text string, start int) bool {
	rest := text[skipWhitespace(text, start+1):]
	return strings.HasPrefix(rest, `"name"`) || strings.HasPrefix(rest, `"tool`)
}

// maxBrokenCall bounds how far a call whose braces never close may reach, so
// that a reply full of them stays linear.
const maxBrokenCall = 8 << 10

// brokenCallEnd returns where an object opening at start whose braces never
// close ends: at the first blank line or code fence after it, else the end.
func brokenCallEnd(text string, start int) int {
	window := text[start:min(len(text), start+maxBrokenCall)]
	end := start + len(window)
	for _, stop := range []string{"\n\n", "\n```", "\n~~~"} {
		if k := strings.Index(window, stop); k >= 0 {
			end = min(end, start+k)
		}
	}
	return end
}

// argumentsObject checks that body is one JSON object and returns it compacted.
func argumentsObject(name string, body []byte) (json.RawMessage, string) {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, fmt.Sprintf("arguments of %s are not valid JSON: %v", name, err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, fmt.Sprintf("arguments of %s must be a JSON object such as {\"path\": \"notes.txt\"}, not %s", name, jsonKind(v))
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, body); err != nil {
		return nil, fmt.Sprintf("arguments of %s are not valid JSON: %v", name, err)
	}
	return json.RawMessage(buf.Bytes()), ""
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}

func unknownTool(name string, known []string) string {
	return fmt.Sprintf("unknown tool %q; available tools: %s", name, strings.Join(known, ", "))
}

func skipWhitespace(text string, i int) int {
	for i < len(text) && strings.IndexByte(" \t\r\n", text[i]) >= 0 {
		i++
	}
	return i
}

// unfence removes a ``` fence wrapped around a whole tag body.
func unfence(body string) string {
	if !strings.HasPrefix(body, "```") || !strings.HasSuffix(body, "```") || len(body) < 6 {
		return body
	}
	inner := body[3 : len(body)-3]
	if nl := strings.IndexByte(inner, '\n'); nl >= 0 && !strings.Contains(inner[:nl], "{") {
		inner = inner[nl+1:] // drop the language tag line
	}
	return inner
}

// strip removes the cuts from text, widening each to the code fence around it
// when the fence holds nothing else, and tidies the blank lines left behind.
func strip(text string, cuts []cut) string {
	slices.SortFunc(cuts, func(a, b cut) int { return a.start - b.start })
	for _, f := range fences(text) {
		inside := cuts[:0:0]
		for _, c := range cuts {
			if c.start >= f.innerStart && c.end <= f.innerEnd {
				inside = append(inside, c)
			}
		}
		if len(inside) > 0 && onlyCuts(text, f.innerStart, f.innerEnd, inside) {
			cuts = append(cuts, cut{f.start, f.end})
		}
	}
	slices.SortFunc(cuts, func(a, b cut) int { return a.start - b.start })
	var b strings.Builder
	b.Grow(len(text))
	pos := 0
	for _, c := range cuts {
		if c.end <= pos {
			continue
		}
		if c.start > pos {
			b.WriteString(text[pos:c.start])
		}
		pos = c.end
	}
	b.WriteString(text[pos:])
	return tidy(b.String())
}

// onlyCuts reports whether text[start:end] holds nothing but the cuts and whitespace.
func onlyCuts(text string, start, end int, cuts []cut) bool {
	pos := start
	for _, c := range cuts {
		if strings.TrimSpace(text[pos:c.start]) != "" {
			return false
		}
		pos = max(pos, c.end)
	}
	return strings.TrimSpace(text[pos:end]) == ""
}

// A fence is one ``` code block: start..end is the whole block, innerStart..innerEnd its body.
type fence struct{ start, innerStart, innerEnd, end int }

// fences returns the ``` blocks of text whose opening and closing lines are both found.
func fences(text string) []fence {
	var out []fence
	open := -1
	innerStart := 0
	for pos := 0; pos < len(text); {
		lineEnd := strings.IndexByte(text[pos:], '\n')
		next := len(text)
		if lineEnd >= 0 {
			lineEnd += pos
			next = lineEnd + 1
		} else {
			lineEnd = len(text)
		}
		line := strings.TrimSpace(text[pos:lineEnd])
		if strings.HasPrefix(line, "```") {
			if open < 0 {
				open, innerStart = pos, next
			} else if line == "```" {
				out = append(out, fence{start: open, innerStart: innerStart, innerEnd: pos, end: next})
				open = -1
			}
		}
		pos = next
	}
	return out
}

// tidy collapses the runs of blank lines that removed calls leave behind.
func tidy(s string) string {
	for strings.Contains(s, "\n\n\n") {
		s = strings.ReplaceAll(s, "\n\n\n", "\n\n")
	}
	return strings.TrimSpace(s)
}
