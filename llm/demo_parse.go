package llm

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"
)

// The demo model's request parser. It is hand-written on purpose: the demo must be
// offline and deterministic, so a few anchored patterns over plain English requests
// stand in for a language model.

// A demoCall is one tool call the demo wants to make, before it gets an id.
type demoCall struct {
	Name string
	Args map[string]string
}

func (c demoCall) arguments() string {
	b, _ := json.Marshal(c.Args) // map[string]string always marshals; keys come out sorted
	return string(b)
}

// A demoPlan is the parsed request: stages run one model round each ("then"),
// and the calls inside a stage run in the same round ("and").
type demoPlan [][]demoCall

// pathToken matches one path: quoted (spaces allowed) or a run of non-space.
const pathToken = "(\"[^\"]+\"|'[^']+'|`[^`]+`|\\S+)"

var (
	urlPattern = lazyRegexp(`https?://[^\s<>"'` + "`" + `]+`)

	// Joints between requests: "and", "then", "and then", ", then", "; ". A joint
	// only splits when what follows starts with a verb the demo knows, so
	// "with salt and pepper" stays one request.
	jointPattern = lazyRegexp(`(?i)(?:\s*[,;]\s*|\s+)(and\s+then|then|and|also)\s+|\s*;\s*`)
	verbPattern  = lazyRegexp(`(?i)^(?:please\s+)?(?:search|look\s+up|lookup|google|read|open|fetch|browse|visit|show|cat|display|create|make|write|add|save|put|delete|remove|rm|erase|list|ls|move|rename|mv|copy|cp|duplicate|mkdir)\b`)

	politePattern = lazyRegexp(`(?i)^(?:(?:hey|hi|ok|okay|so)[,!]?\s+)?(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+)?(?:go\s+ahead\s+and\s+|now\s+|also\s+)?`)

	searchPattern = lazyRegexp(`(?i)^(?:search|look\s+up|lookup|google)\s+(?:(?:on\s+)?(?:the\s+)?(?:web|internet|online)\s+)?(?:for\s+)?(.+?)(?:\s+(?:on|in)\s+(?:the\s+)?(?:web|internet))?$`)
	dirPattern    = lazyRegexp(`(?i)^(?:make|create|add|mkdir)\s+(?:(?:a|an|the|new)\s+)*(?:(?:directory|folder|dir)\s+)?(?:(?:named|called)\s+)?` + pathToken + `$`)
	dirWordRe     = lazyRegexp(`(?i)^(?:mkdir\b|(?:make|create|add)\s+(?:(?:a|an|the|new)\s+)*(?:directory|folder|dir)\b)`)
	createPattern = lazyRegexp(`(?i)^(?:create|make|write|add|save)\s+(?:(?:a|an|the|new)\s+)*(?:text\s+)?file\s+(?:(?:named|called)\s+)?` + pathToken + `(?:\s+(?:with|containing|that\s+says|saying)\s+(?:(?:the\s+)?(?:content|contents|text)\s+)?(.+))?$`)
	writeToRe     = lazyRegexp(`(?i)^(?:write|save|put)\s+(.+?)\s+(?:to|into|in)\s+(?:(?:a|the|new)\s+)*(?:file\s+)?(?:(?:named|called)\s+)?` + pathToken + `$`)
	deletePattern = lazyRegexp(`(?i)^(?:delete|remove|rm|erase)\s+(?:(?:the|a)\s+)?(?:file\s+)?` + pathToken + `$`)
	moveCopyRe    = lazyRegexp(`(?i)^(move|rename|mv|copy|cp|duplicate)\s+(?:(?:the|a)\s+)?(?:file\s+)?` + pathToken + `\s+(?:to|into|as)\s+` + pathToken + `$`)
	listPattern   = lazyRegexp(`(?i)^(?:(?:list|ls)(?:\s+(?:(?:all|the)\s+)*(?:files|directory|folder|dir|contents|entries|workspace)(?:\s+(?:files|contents))?)?(?:\s+(?:in|of|under|inside)\s+(?:the\s+)?(?:(?:directory|folder|dir)\s+)?` + pathToken + `)?|show\s+(?:me\s+)?(?:(?:all|the)\s+)*(?:files|directory|folder|workspace)(?:\s+(?:files|contents))?(?:\s+(?:in|under|inside)\s+(?:the\s+)?(?:(?:directory|folder|dir)\s+)?` + pathToken + `)?)$`)
	readFileRe    = lazyRegexp(`(?i)^(?:read|open|show|cat|display)\s+(?:me\s+)?(?:(?:the|a)\s+)?(?:contents\s+of\s+(?:the\s+)?)?(?:file\s+)?` + pathToken + `$`)
)

// pronouns that refer to the last path named earlier in the request.
var pronouns = map[string]bool{"it": true, "that": true, "that file": true, "this file": true, "the file": true, "this": true}

// parseDemoRequest turns a user request into a plan; an empty plan means the demo
// did not understand it.
func parseDemoRequest(text string) demoPlan {
	var plan demoPlan
	lastPath := ""
	for _, clause := range splitClauses(text) {
		call, ok := parseClause(clause.text, &lastPath)
		if !ok {
			continue
		}
		if clause.then || len(plan) == 0 {
			plan = append(plan, nil)
		}
		plan[len(plan)-1] = append(plan[len(plan)-1], call)
	}
	return plan
}

type clause struct {
	text string
	then bool // this clause waits for the results of the ones before it
}

// splitClauses cuts text at joints followed by a known verb.
func splitClauses(text string) []clause {
	text = strings.TrimSpace(text)
	var out []clause
	start, then := 0, false
	quotes, counted := 0, 0 // double quotes in text[:counted]; counted grows so the scan stays linear
	for _, m := range jointPattern().FindAllStringSubmatchIndex(text, -1) {
		quotes += strings.Count(text[counted:m[0]], `"`)
		counted = m[0]
		if m[0] < start || quotes%2 == 1 {
			continue // overlapping, or inside a quoted text
		}
		// Only the start of what follows matters; a bounded prefix keeps long texts linear.
		rest := text[m[1]:min(len(text), m[1]+160)]
		rest = strings.TrimSpace(politePattern().ReplaceAllString(rest, ""))
		if !verbPattern().MatchString(rest) {
			continue
		}
		out = append(out, clause{text: text[start:m[0]], then: then})
		word := ""
		if m[2] >= 0 {
			word = strings.ToLower(text[m[2]:m[3]])
		}
		then = strings.Contains(word, "then")
		start = m[1]
	}
	return append(out, clause{text: text[start:], then: then})
}

// parseClause maps one request to a tool call. lastPath carries the file the
// request talked about last, so "and then delete it" knows what "it" is.
func parseClause(text string, lastPath *string) (call demoCall, ok bool) {
	text = strings.TrimSpace(politePattern().ReplaceAllString(strings.TrimSpace(text), ""))
	text = strings.TrimRight(text, " .!?")
	if text == "" {
		return demoCall{}, false
	}
	// "delete it" with nothing named before is not understood, rather than a
	// request to delete a file called "it".
	unresolved := false
	defer func() {
		if unresolved {
			call, ok = demoCall{}, false
		}
	}()
	path := func(p string) string {
		p = cleanPath(p)
		if pronouns[strings.ToLower(p)] {
			unresolved = unresolved || *lastPath == ""
			return *lastPath
		}
		*lastPath = p
		return p
	}
	if m := searchPattern().FindStringSubmatch(text); m != nil && !urlPattern().MatchString(text) {
		return demoCall{Name: "web_search", Args: map[string]string{"query": unquote(m[1])}}, true
	}
	if u := urlPattern().FindString(text); u != "" {
		return demoCall{Name: "read_webpage", Args: map[string]string{"url": strings.TrimRight(u, ".,;:!?)]")}}, true
	}
	if m := moveCopyRe().FindStringSubmatch(text); m != nil {
		name := "move_file"
		switch strings.ToLower(m[1]) {
		case "copy", "cp", "duplicate":
			name = "copy_file"
		}
		src := path(m[2])
		return demoCall{Name: name, Args: map[string]string{"source": src, "destination": path(m[3])}}, true
	}
	if dirWordRe().MatchString(text) {
		if m := dirPattern().FindStringSubmatch(text); m != nil {
			return demoCall{Name: "create_directory", Args: map[string]string{"path": path(m[1])}}, true
		}
	}
	if m := createPattern().FindStringSubmatch(text); m != nil {
		return demoCall{Name: "write_file", Args: map[string]string{"path": path(m[1]), "content": unquote(m[2])}}, true
	}
	if m := writeToRe().FindStringSubmatch(text); m != nil {
		return demoCall{Name: "write_file", Args: map[string]string{"path": path(m[2]), "content": unquote(m[1])}}, true
	}
	if m := deletePattern().FindStringSubmatch(text); m != nil {
		return demoCall{Name: "delete_file", Args: map[string]string{"path": path(m[1])}}, true
	}
	if m := listPattern().FindStringSubmatch(text); m != nil {
		dir := "."
		if p := m[1] + m[2]; p != "" {
			dir = path(p)
		}
		return demoCall{Name: "list_directory", Args: map[string]string{"path": dir}}, true
	}
	if m := readFileRe().FindStringSubmatch(text); m != nil {
		return demoCall{Name: "read_file", Args: map[string]string{"path": path(m[1])}}, true
	}
	return demoCall{}, false
}

// cleanPath strips quotes and sentence punctuation around a path.
func cleanPath(p string) string {
	p = unquote(p)
	if p != "." && p != ".." {
		p = strings.TrimRight(p, ",;:!?")
		if strings.HasSuffix(p, ".") && !strings.HasSuffix(p, "..") {
			p = strings.TrimSuffix(p, ".")
		}
	}
	return p
}

// unquote removes one pair of matching quotes around s.
func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 {
		switch q := s[0]; q {
		case '"', '\'', '`':
			if s[len(s)-1] == q {
				return s[1 : len(s)-1]
			}
		}
	}
	return s
}

// lazyRegexp compiles expr on first use. The demo's patterns cost about
// 0.4 MB and half a millisecond to compile, which every ai-server and
// ai-client command would otherwise pay at start-up, demo or not.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
