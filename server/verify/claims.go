package verify

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/ailab/ai-lab/tools"
)

// A ClaimKind says how a claim was written in a reply.
type ClaimKind string

// The kinds of claims, in the order of precedence used when one id is claimed
// several ways: the JSON form names its tool, the others only imply it.
const (
	ClaimJSON    ClaimKind = "json"    // a JSON object carrying tool_name/tool/function or execution_id
	ClaimMention ClaimKind = "mention" // execution_id: X, execution_id=X, "execution_id": "X"
	ClaimBare    ClaimKind = "bare"    // an id in the contract's format standing alone
	// ClaimMalformed is a word shaped like an execution id that is not in the
	// contract's format: web_search_1763769600123_9F86D081,
	// web_search-1763769600123-9f86d081, a digit or hex digit too many or too few.
	ClaimMalformed ClaimKind = "malformed"
)

// A Claim is one place where a reply presents a tool result as real.
type Claim struct {
	// ExecutionID is the cited id, possibly malformed; empty for a JSON
	// tool-result claim that carries no id at all.
	ExecutionID string
	// ToolName is the tool the reply names beside the id: the JSON tool field,
	// a tool name written right before the id, or else the id's own prefix.
	ToolName string
	Kind     ClaimKind
	// Raw is the text of the claim as written; Offset is where it starts.
	Raw    string
	Offset int

	// jsonFailure is set for a JSON claim that carries an error or an error
	// status; around is the stretch of text a mention or bare id belongs to.
	jsonFailure bool
	around      string
	// named is set when the reply names the tool itself (a JSON tool field,
	// a tool name written before the id) rather than leaving it to the id.
	named bool
	// objects are the paths and URLs a JSON claim gives its run (its
	// "path", "url", "source" or "destination" fields, at any depth).
	objects []string
}

// failureWords are what a reply says when it reports that a run went wrong
// or did not happen. A run that failed may be described in any honest way, so
// the list is broad; it only ever excuses citing a run that really failed.
var failureWords = []string{
	"fail", "error", "could not", "couldn't", "can't", "cannot", "unable", "wasn't able", "was not able",
	"did not work", "didn't work", "not found", "does not exist", "doesn't exist", "no such",
	"denied", "refus", "rejected", "declined", "blocked", "forbidden", "unauthorized", "not allowed", "not permitted",
	"n't allow", "not allow", "n't approve", "not approve", "unavailable", "unreachable",
	"timed out", "timeout", "time out", "interrupted", "aborted", "cancel", "did not complete", "didn't complete",
	"never completed", "no response", "bad gateway", "bad request", "invalid", "went wrong", "broken", "crashed",
}

// ReportsFailure reports whether the reply presents the run as failed (an
// "error" field, or words like "failed" in the claim's own stretch of text)
// rather than as a result: citing a failed run honestly is allowed. It is
// worked out on demand because only claims of failed runs need it.
func (c Claim) ReportsFailure() bool {
	if c.Kind == ClaimJSON {
		return c.jsonFailure
	}
	return reportsFailure(c.around)
}

// reportsFailure reports whether text speaks of a failure: one of the
// failureWords, in any case, or an HTTP error status such as 404 or 503.
func reportsFailure(text string) bool {
	lower := strings.ReplaceAll(asciiLower(text), "’", "'")
	for _, w := range failureWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return hasHTTPErrorStatus(lower)
}

// hasHTTPErrorStatus reports whether text holds a number from 400 to 599
// standing alone, as in "gave a 404" or "HTTP 503": not part of a longer
// number, a version (1.404) or a word.
func hasHTTPErrorStatus(text string) bool {
	for i := 0; i+3 <= len(text); i++ {
		if c := text[i]; c != '4' && c != '5' || !isDigit(text[i+1]) || !isDigit(text[i+2]) {
			continue
		}
		if i > 0 && (isWordByte(text[i-1]) || text[i-1] == '.' && i > 1 && isDigit(text[i-2])) {
			continue
		}
		if j := i + 3; j < len(text) && (isWordByte(text[j]) || text[j] == '.' && j+1 < len(text) && isDigit(text[j+1])) {
			continue
		}
		return true
	}
	return false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// ExtractClaims finds every claim of a tool result in text, read as it is
// given (Check normalises the reply first, see normalizeText): JSON objects that
// name a tool or carry an execution id, execution_id mentions, bare ids, and
// words shaped like an id of a catalog tool that are not in the contract's
// format. A claim of the same id made several ways is returned once, in its
// most specific form; claims are ordered by offset.
func ExtractClaims(text string) []Claim {
	return extractClaims(text, tools.Names)
}

// extractClaims is ExtractClaims with the tool names that anchor malformed ids.
func extractClaims(text string, names []string) []Claim {
	return distinctClaims(text, allClaims(text, names))
}

// allClaims returns every claim of text, an id claimed several ways once per
// way, in order of precedence.
func allClaims(text string, names []string) []Claim {
	var claims []Claim
	claims = append(claims, jsonClaims(text)...)
	claims = append(claims, mentionClaims(text)...)
	claims = append(claims, bareClaims(text)...)
	if malformed := malformedClaims(text, names); len(malformed) > 0 {
		// A mention whose value stops at the first odd character
		// ("execution_id: web_search #1763769600123-9f86d081") names only part
		// of the malformed id; the malformed claim names all of it.
		claims = slices.DeleteFunc(claims, func(c Claim) bool {
			if c.Kind != ClaimMention {
				return false
			}
			from, to := c.Offset+len(c.Raw)-len(c.ExecutionID), c.Offset+len(c.Raw)
			for _, m := range malformed {
				if from < m.Offset+len(m.Raw) && m.Offset < to {
					return true
				}
			}
			return false
		})
		claims = append(claims, malformed...)
	}
	return claims
}

// distinctClaims keeps the first claim of each id of claims, which are in
// order of precedence, and returns them ordered by offset.
func distinctClaims(text string, claims []Claim) []Claim {
	seen := make(map[string]bool, len(claims))
	kept := claims[:0]
	for _, c := range claims {
		key := c.ExecutionID
		if key == "" {
			key = "\x00" + c.ToolName // id-less JSON claims: one per tool
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		kept = append(kept, c)
	}
	slices.SortStableFunc(kept, func(a, b Claim) int { return a.Offset - b.Offset })
	markFailureReports(text, kept)
	return kept
}

// markFailureReports gives each mention and bare id its own stretch of its
// sentence: from the previous claim, the sentence start or the line start to
// the next claim, the sentence end or the line end. Words there speak about
// this run and no other.
func markFailureReports(text string, claims []Claim) {
	for i := range claims {
		c := &claims[i]
		if c.Kind == ClaimJSON {
			continue // decided from the object's own fields
		}
		from := strings.LastIndexByte(text[:c.Offset], '\n') + 1
		if i > 0 {
			from = max(from, min(claims[i-1].Offset+len(claims[i-1].Raw), c.Offset))
		}
		end := c.Offset + len(c.Raw)
		to := len(text)
		if nl := strings.IndexByte(text[end:], '\n'); nl >= 0 {
			to = end + nl
		}
		if i+1 < len(claims) {
			to = max(end, min(to, claims[i+1].Offset))
		}
		// Only the claim's own sentence: "Let me know if you see any
		// errors." after it says nothing of its run.
		if k := lastSentenceEnd(text[from:c.Offset]); k >= 0 {
			from += k
		}
		if k := firstSentenceEnd(text[end:to]); k >= 0 {
			to = end + k
		}
		c.around = text[from:to]
	}
}

// lastSentenceEnd returns where the last sentence that ends in s (at '.',
// '!' or '?' before a space) is over, or -1.
func lastSentenceEnd(s string) int {
	for i := len(s) - 2; i >= 0; i-- {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && isSpace(s[i+1]) {
			return i + 1
		}
	}
	return -1
}

// firstSentenceEnd returns where the first sentence of s ends (just past
// its '.', '!' or '?' before a space or the end), or -1.
func firstSentenceEnd(s string) int {
	for i := 0; i < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && (i+1 == len(s) || isSpace(s[i+1])) {
			return i + 1
		}
	}
	return -1
}

// jsonClaims returns the JSON objects of text that present a tool result.
func jsonClaims(text string) []Claim {
	var claims []Claim
	sc := newObjectScanner(text)
	for i := 0; i < len(text); i++ {
		if text[i] != '{' {
			continue
		}
		end := sc.end(i)
		if end < 0 {
			continue
		}
		raw := text[i:end]
		if !mayBeClaim(raw) {
			continue
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(raw), &obj) != nil {
			// Trailing commas are the commonest slip in JSON a model writes;
			// a claim must not slip through on one.
			if json.Unmarshal(withoutTrailingCommas(raw), &obj) != nil {
				continue
			}
		}
		c, ok := claimFromObject(obj)
		if !ok {
			// Not a claim itself; an object nested inside may still be one,
			// so scanning goes on from the next byte.
			continue
		}
		c.Raw, c.Offset = raw, i
		if c.ExecutionID != "" && mayHoldObject(raw) {
			c.objects = objectFields(obj)
		}
		claims = append(claims, c)
		i = end - 1
	}
	return claims
}

// withoutTrailingCommas returns raw with every comma that only whitespace
// separates from a closing brace or bracket removed, outside strings.
func withoutTrailingCommas(raw string) []byte {
	out := make([]byte, 0, len(raw))
	inString, escaped := false, false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		} else if c == '"' {
			inString = true
		} else if c == ',' {
			j := skipWhitespace(raw, i+1)
			if j < len(raw) && (raw[j] == '}' || raw[j] == ']') {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

// presentsClaim reports whether raw, one balanced object, is a claim as
// jsonClaims sees it.
func presentsClaim(raw string) bool {
	if !mayBeClaim(raw) {
		return false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(raw), &obj) != nil && json.Unmarshal(withoutTrailingCommas(raw), &obj) != nil {
		return false
	}
	_, ok := claimFromObject(obj)
	return ok
}

// mayBeClaim is a cheap filter that spares json.Unmarshal for the many
// objects that cannot be claims.
func mayBeClaim(raw string) bool {
	return strings.Contains(raw, `"tool`) || strings.Contains(raw, `"function"`) || strings.Contains(raw, `"execution_id"`)
}

// claimFromObject decides whether a decoded object presents a tool result.
// An object that only names a tool and its arguments is a tool call written as
// text (see ParseTextCalls), not a result, unless it also carries what a result
// has: an execution id, a result, an output, an error or a status.
func claimFromObject(obj map[string]json.RawMessage) (Claim, bool) {
	var c Claim
	_, hasID := obj["execution_id"]
	if hasID {
		c.ExecutionID = jsonString(obj["execution_id"])
	}
	callLike := false
	for _, key := range []string{"tool_name", "tool", "function"} {
		v, ok := obj[key]
		if !ok {
			continue
		}
		if name := jsonString(v); name != "" {
			c.ToolName, c.named = name, true
			break
		}
		// OpenAI's tool_calls shape: "function": {"name": ..., "arguments": ...}.
		var fn map[string]json.RawMessage
		if json.Unmarshal(v, &fn) == nil {
			if name := jsonString(fn["name"]); name != "" {
				c.ToolName, c.named = name, true
				_, a := fn["arguments"]
				_, p := fn["parameters"]
				callLike = a || p
				break
			}
		}
	}
	if !hasID && c.ToolName == "" {
		return Claim{}, false
	}
	if hasID && c.ToolName == "" {
		// An object with an id but no tool field names its tool with "name",
		// as a call does, or else only through the id's own prefix.
		if c.ToolName = jsonString(obj["name"]); c.ToolName == "" {
			c.ToolName = idPrefix(c.ExecutionID)
		} else {
			c.named = true
		}
	}
	if !hasID {
		_, a := obj["arguments"]
		_, p := obj["parameters"]
		callLike = callLike || a || p
		if callLike && !hasAny(obj, "result", "results", "output", "error", "status") {
			return Claim{}, false
		}
		if !presentsResult(obj) {
			return Claim{}, false
		}
	}
	c.Kind = ClaimJSON
	if hasID {
		errVal, hasErr := obj["error"]
		status := jsonString(obj["status"])
		c.jsonFailure = hasErr && string(errVal) != "null" || status == "error" || status == "failed"
	}
	return c, true
}

// mayHoldObject is the cheap look that spares most JSON claims objectFields.
func mayHoldObject(raw string) bool {
	for _, k := range []string{`"path"`, `"url"`, `"source"`, `"destination"`, `"file"`, `"filename"`} {
		if strings.Contains(raw, k) {
			return true
		}
	}
	return false
}

// objectFields returns the string values of the path and URL fields of a
// decoded JSON object, at any depth.
func objectFields(obj map[string]json.RawMessage) []string {
	var out []string
	var walk func(m map[string]json.RawMessage, depth int)
	walk = func(m map[string]json.RawMessage, depth int) {
		for k, v := range m {
			switch k {
			case "path", "url", "source", "destination", "file", "filename":
				if s := jsonString(v); s != "" {
					out = append(out, s)
				}
				continue
			}
			if depth >= 4 || len(v) == 0 {
				continue
			}
			switch v[0] {
			case '{':
				var inner map[string]json.RawMessage
				if json.Unmarshal(v, &inner) == nil {
					walk(inner, depth+1)
				}
			case '[':
				var list []json.RawMessage
				if json.Unmarshal(v, &list) == nil {
					for _, e := range list {
						var inner map[string]json.RawMessage
						if len(e) > 0 && e[0] == '{' && json.Unmarshal(e, &inner) == nil {
							walk(inner, depth+1)
						}
					}
				}
			}
		}
	}
	walk(obj, 0)
	return out
}

// presentsResult reports whether an id-less object naming a tool presents
// an outcome as real. Echoing a denial or a run that did not happen
// (CONTRACT section 5: {"tool_name", "status": "denied", ...}) claims nothing,
// and neither does an error with no result beside it.
func presentsResult(obj map[string]json.RawMessage) bool {
	switch jsonString(obj["status"]) {
	case "denied", "not_run":
		return false
	}
	if _, isErr := obj["error"]; isErr && !hasAny(obj, "result", "results", "output") {
		return false
	}
	return true
}

func hasAny(obj map[string]json.RawMessage, keys ...string) bool {
	for _, k := range keys {
		if _, ok := obj[k]; ok {
			return true
		}
	}
	return false
}

// jsonString returns the value of a JSON string, or "" for anything else.
func jsonString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return strings.TrimSpace(s)
}

// mentionClaims returns execution_id: X, execution_id=X, "execution_id": "X"
// and (execution_id: X) mentions, X possibly malformed.
func mentionClaims(text string) []Claim {
	var claims []Claim
	for from := 0; ; {
		k := indexMentionKey(text, from)
		if k < 0 {
			return claims
		}
		keyStart, keyEnd := k, k+len("execution_id")
		from = keyEnd
		i := keyEnd
		if i < len(text) && (text[i] == '"' || text[i] == '`' || text[i] == '\'') {
			i++
		}
		i = skipSpaces(text, i)
		if i >= len(text) || (text[i] != ':' && text[i] != '=') {
			continue
		}
		i = skipSpaces(text, i+1)
		if i < len(text) && (text[i] == '"' || text[i] == '`' || text[i] == '\'') {
			i++
		}
		j := i
		for j < len(text) && (isWordByte(text[j]) || text[j] == '-') {
			j++
		}
		if j == i {
			continue // a placeholder like <id> or an empty value names nothing
		}
		id := text[i:j]
		tool, named := toolBeforeNamed(text, keyStart, idPrefix(id))
		claims = append(claims, Claim{
			ExecutionID: id,
			ToolName:    tool,
			Kind:        ClaimMention,
			Raw:         text[keyStart:j],
			Offset:      keyStart,
			named:       named,
		})
		from = j
	}
}

// indexMentionKey finds the next "execution_id" or "execution id", in any
// case, at or after from that is not part of a longer word. It searches for
// the lower-case tail so the reply need not be lower-cased as a whole.
func indexMentionKey(text string, from int) int {
	for from < len(text) {
		k := strings.Index(text[from:], "xecution")
		if k < 0 {
			return -1
		}
		k += from - 1 // the 'e' or 'E' before the tail
		from = k + 2
		if k < 0 || k+len("execution_id") > len(text) || !strings.EqualFold(text[k:k+len("execution_id")], "execution_id") && !strings.EqualFold(text[k:k+len("execution_id")], "execution id") {
			continue
		}
		if k > 0 && isWordByte(text[k-1]) {
			continue
		}
		if after := k + len("execution_id"); after < len(text) && isWordByte(text[after]) {
			continue
		}
		return k
	}
	return -1
}

func skipSpaces(text string, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	return i
}

// bareClaims returns every well-formed id of text.
func bareClaims(text string) []Claim {
	spans := findExecutionIDs(text)
	claims := make([]Claim, 0, len(spans))
	for _, s := range spans {
		tool, named := toolBeforeNamed(text, s.Start, text[s.Start:s.ToolEnd])
		claims = append(claims, Claim{
			ExecutionID: text[s.Start:s.End],
			ToolName:    tool,
			Kind:        ClaimBare,
			Raw:         text[s.Start:s.End],
			Offset:      s.Start,
			named:       named,
		})
	}
	return claims
}

// malformedClaims returns a claim for every id-shaped word of text that is
// not an execution id (see findMalformedIDs).
func malformedClaims(text string, names []string) []Claim {
	spans := findMalformedIDs(text, names)
	if len(spans) == 0 {
		return nil
	}
	claims := make([]Claim, 0, len(spans))
	for _, s := range spans {
		raw := text[s.Start:s.End]
		claims = append(claims, Claim{
			ExecutionID: raw,
			ToolName:    s.tool,
			Kind:        ClaimMalformed,
			Raw:         raw,
			Offset:      s.Start,
		})
	}
	return claims
}

// idPrefix returns the tool part of a well-formed id, or "" for a malformed one.
func idPrefix(id string) string {
	spans := findExecutionIDs(id)
	if len(spans) != 1 || spans[0].Start != 0 || spans[0].End != len(id) {
		return ""
	}
	return id[:spans[0].ToolEnd]
}

// toolBeforeNamed is toolBefore, and whether the reply named the tool.
func toolBeforeNamed(text string, offset int, fallback string) (string, bool) {
	t, ok := toolWordBefore(text, offset)
	if !ok {
		return fallback, false
	}
	return t, true
}

// toolBefore returns the tool a reply names right before a claim at offset,
// as in "run_speed_test (execution_id: X)" or "check_internet_connection: X",
// and fallback when there is none. Only a word separated from the claim by
// nothing but spaces and punctuation counts: looking further back mixes up the
// tools of a sentence that lists several results. A catalog tool name always
// counts; another snake_case word only when it is not quoted or part of a path,
// since `old_notes` or docs/my_plan is a file name, not a tool.
func toolBefore(text string, offset int, fallback string) string {
	t, _ := toolBeforeNamed(text, offset, fallback)
	return t
}

// toolWordBefore returns the tool name written right before offset, as
// toolBefore reads it, in its own case.
func toolWordBefore(text string, offset int) (string, bool) {
	i := offset
	quoted := false
	for i > 0 && strings.IndexByte(" \t([`'\":=-*", text[i-1]) >= 0 {
		quoted = quoted || strings.IndexByte("`'\"", text[i-1]) >= 0
		i--
	}
	end := i
	for i > 0 && isWordByte(text[i-1]) {
		i--
	}
	word := text[i:end]
	if tools.IsName(word) {
		return word, true
	}
	if k := strings.Index(word, "__"); k > 0 && k+2 < len(word) && isLetter(word[0]) && !strings.HasSuffix(word, "_") && idPrefix(word) == "" {
		return word, true // an MCP tool, SERVER__TOOL, in any case
	}
	if i > 0 && strings.IndexByte("`'\"./\\", text[i-1]) >= 0 {
		quoted = true
	}
	if quoted || !isSnakeName(word) || strings.HasSuffix(word, "_id") || idPrefix(word) != "" {
		return "", false
	}
	return word, true
}

// isSnakeName reports whether w looks like a tool name: lowercase words
// joined by underscores, at least two of them.
func isSnakeName(w string) bool {
	return validPrefix(w) && strings.Contains(w, "_") && !strings.HasSuffix(w, "_") && !strings.Contains(w, "__")
}
