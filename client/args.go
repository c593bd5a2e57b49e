package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/ailab/ai-lab/api"
)

// The object of a call is what it acts on: the file, the folders, the page or the
// search. Wherever a call is shown in a bounded space (a table row, a run line, a
// decision line) its object comes first and whole, and the other arguments after
// it give way. The object is known by the arguments' names alone, so that this
// holds for every tool, an MCP server's too, without knowing its schema.

// objectNames are the argument names of the built-in tools that say what a call
// acts on, in the order they are shown.
var objectNames = []string{"path", "source", "destination", "url", "query"}

// objectWords are the words of an argument name (split at _, -, . and case
// changes) that make it an object too: file_path, targetUrl, search_query.
var objectWords = map[string]bool{
	"path": true, "paths": true, "file": true, "filename": true, "files": true, "dir": true,
	"directory": true, "folder": true, "url": true, "urls": true, "uri": true, "link": true,
	"query": true, "q": true, "source": true, "src": true, "destination": true, "dest": true,
	"dst": true, "target": true, "host": true,
}

// objectRank orders the arguments: the names of objectNames in their order,
// then other object-like names, then the rest (rank len(objectNames)+1).
func objectRank(name string) int {
	if i := slices.Index(objectNames, name); i >= 0 {
		return i
	}
	for _, w := range nameWords(name) {
		if objectWords[w] {
			return len(objectNames)
		}
	}
	return len(objectNames) + 1
}

// isObject reports whether an argument named name is part of a call's object.
func isObject(name string) bool { return objectRank(name) <= len(objectNames) }

// nameWords splits an argument name into its lower-case words.
func nameWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	prevLower := false
	for _, r := range name {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			prevLower = false
			continue
		case unicode.IsUpper(r) && prevLower:
			flush()
		}
		cur = append(cur, r)
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
	}
	flush()
	return words
}

// A member is one top-level argument as sent: its key and value bytes untouched.
type member struct {
	name     string // the key decoded
	key, val []byte // the key (quoted) and the value, as sent
}

// members splits a JSON object into its top-level members in the order sent,
// duplicates kept; ok is false for anything that is not one whole JSON object.
func members(raw json.RawMessage) (out []member, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	prev := dec.InputOffset()
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, false
		}
		name, _ := kt.(string)
		end := dec.InputOffset()
		key := bytes.TrimLeft(raw[prev:end], " \t\r\n,")
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		prev = dec.InputOffset()
		out = append(out, member{name: name, key: key, val: bytes.TrimSpace(v)})
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false // more after the object: shown as sent, not reordered
	}
	return out, true
}

// byObject orders members object first (see objectRank), keeping the order sent
// among equals.
func byObject(ms []member) []member {
	ms = slices.Clone(ms)
	slices.SortStableFunc(ms, func(a, b member) int { return objectRank(a.name) - objectRank(b.name) })
	return ms
}

// joinMembers writes members back as one JSON object.
func joinMembers(ms []member) json.RawMessage {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(m.key)
		buf.WriteByte(':')
		buf.Write(m.val)
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

// orderedArgs are a call's arguments with the object first, in the two forms the
// table draws: indented, with how many of its lines after "{" are the object's,
// and on one line, with how many of its bytes (from the start) are the object's.
type orderedArgs struct {
	pretty   []string
	objLines int
	flat     string
	objBytes int
}

func orderArgs(raw json.RawMessage) orderedArgs {
	ms, ok := members(raw)
	if !ok {
		return orderedArgs{pretty: strings.Split(PrettyArgs(raw), "\n"), flat: compactArgs(raw)}
	}
	ms = byObject(ms)
	all := joinMembers(ms)
	a := orderedArgs{pretty: strings.Split(PrettyArgs(all), "\n"), flat: compactArgs(all)}
	n := 0
	for n < len(ms) && isObject(ms[n].name) {
		n++
	}
	if n == 0 {
		return a
	}
	objs := joinMembers(ms[:n])
	a.objLines = max(0, len(strings.Split(PrettyArgs(objs), "\n"))-2)
	if prefix := strings.TrimSuffix(compactArgs(objs), "}"); strings.HasPrefix(a.flat, prefix) {
		a.objBytes = len(prefix)
	} else {
		a.objBytes = len(a.flat) // no safe place to cut: show all of it
	}
	return a
}

// splitCells breaks s into lines of at most w cells, every character kept. It
// looks at a bounded piece of s for each line, so a long argument costs time in
// proportion to its length.
func splitCells(s string, w int) []string {
	w = max(1, w)
	var out []string
	for s != "" {
		var head string
		for n := min(len(s), 8*w+64); ; n = min(len(s), 2*n) {
			for n < len(s) && !utf8.RuneStart(s[n]) {
				n++
			}
			head = ansi.Truncate(s[:n], w, "")
			if len(head) < n || n >= len(s) {
				break
			}
		}
		if head == "" || !strings.HasPrefix(s, head) {
			_, size := utf8.DecodeRuneInString(s) // a character wider than the cell
			head = s[:size]
		}
		out = append(out, head)
		s = s[len(head):]
	}
	if out == nil {
		return []string{""}
	}
	return out
}

// argLines are a call's arguments for a cell argW wide, object first: indented
// JSON when it fits maxLines (<= 0: no limit), else compact JSON, wrapped, cut
// with a pointer to ?. The object's lines are wrapped, never cut, so they may take
// more lines than maxLines. cut reports whether anything of the arguments is
// left out.
func argLines(raw json.RawMessage, argW, maxLines int) (lines []string, cut bool) {
	a := orderArgs(raw)
	for j, l := range a.pretty {
		if j >= 1 && j <= a.objLines {
			lines = append(lines, splitCells(l, argW)...)
			continue
		}
		if ansi.StringWidth(l) > argW {
			cut = true
			l = ansi.Truncate(l, argW, "…")
		}
		lines = append(lines, l)
	}
	if maxLines <= 0 || len(lines) <= maxLines {
		return lines, cut
	}
	// Indented JSON does not fit: compact JSON is as exact and far denser.
	return a.fit(argW, maxLines)
}

// flatLines are a call's arguments on one line of a cell argW wide, object first
// and whole (wrapped onto more lines when it alone does not fit), the rest cut.
func flatLines(raw json.RawMessage, argW int) (lines []string, cut bool) {
	return orderArgs(raw).fit(argW, 1)
}

// fit lays out the compact form in at most maxLines lines argW wide, more when
// the object needs them; cut reports whether anything is left out.
func (a orderedArgs) fit(argW, maxLines int) (lines []string, cut bool) {
	all := splitCells(a.flat, argW)
	if len(all) <= maxLines {
		return all, false
	}
	k, n := 0, 0 // the lines that hold the object, and their bytes
	for k < len(all) && n < a.objBytes {
		n += len(all[k])
		k++
	}
	if maxLines > 1 {
		keep := max(k, maxLines-1)
		if keep >= len(all) {
			return all, false
		}
		return append(slices.Clone(all[:keep]), ansi.Truncate("… (? shows all)", argW, "")), true
	}
	keep := max(k, 1)
	if keep >= len(all) {
		return all, false
	}
	lines = slices.Clone(all[:keep])
	last := lines[keep-1]
	start := 0
	for _, l := range lines[:keep-1] {
		start += len(l)
	}
	objIn := min(len(last), max(0, a.objBytes-start))
	switch {
	case ansi.StringWidth(last) < argW:
		lines[keep-1] = last + "…"
	case ansi.StringWidth(last[:objIn]) < argW:
		lines[keep-1] = ansi.Truncate(last, argW-1, "") + "…"
	default:
		lines = append(lines, "…")
	}
	return lines, true
}

// shortParts are the "key=value" parts of ShortArgs, the object's and the rest;
// ok is false when raw is not a JSON object.
func shortParts(raw json.RawMessage) (objs, rest []string, ok bool) {
	ms, ok := members(raw)
	if !ok {
		return nil, nil, false
	}
	for _, m := range byObject(ms) {
		var part string
		var s string
		if json.Unmarshal(m.val, &s) == nil {
			if !plainValue(s) {
				// Quoted, so a value cannot pose as more arguments: content="x, path=/etc".
				s = string(m.val)
			}
			part = Visible(m.name) + "=" + Visible(s)
		} else {
			var buf bytes.Buffer
			if json.Compact(&buf, m.val) != nil {
				buf.Reset()
				buf.Write(m.val)
			}
			part = Visible(m.name) + "=" + Visible(buf.String())
		}
		if isObject(m.name) {
			objs = append(objs, part)
		} else {
			rest = append(rest, part)
		}
	}
	return objs, rest, true
}

// ShortArgs renders top-level object arguments as "key=value, key=value", the
// object first (path, source, destination, url, query, then other names of that
// kind) and the rest in the order sent, strings unquoted unless that would be
// ambiguous, all made visible; anything else is compact JSON.
func ShortArgs(raw json.RawMessage) string {
	objs, rest, ok := shortParts(raw)
	if !ok {
		var buf bytes.Buffer
		if json.Compact(&buf, raw) != nil {
			return Visible(string(raw))
		}
		return Visible(buf.String())
	}
	return strings.Join(append(objs, rest...), ", ")
}

// ShortArgsFit is ShortArgs in about n cells (<= 0: no limit): the object whole
// however long, the other arguments cut with … to what is left.
func ShortArgsFit(raw json.RawMessage, n int) string {
	full := ShortArgs(raw)
	if n <= 0 || ansi.StringWidth(full) <= n {
		return full
	}
	objs, rest, ok := shortParts(raw)
	if !ok || len(objs) == 0 {
		return cut(full, n)
	}
	o := strings.Join(objs, ", ")
	switch {
	case len(rest) == 0:
		return o
	case ansi.StringWidth(o)+3 > n:
		return o + ", …"
	}
	return cut(full, n)
}

// ShortObject is the object part of ShortArgs, "" when the call names none.
func ShortObject(raw json.RawMessage) string {
	objs, _, _ := shortParts(raw)
	return strings.Join(objs, ", ")
}

// Destructive reports whether p may destroy something that exists: delete_file,
// write_file over an existing file, move_file or copy_file onto an existing
// destination, and every MCP tool, whose effects the client cannot know. Such a
// call has no default answer: Enter decides nothing.
func Destructive(p api.PendingTool) bool {
	if p.ToolName == "delete_file" || IsMCP(p.ToolName) {
		return true
	}
	if pv := p.Preview; pv != nil {
		return pv.Kind == api.PreviewOverwrite || pv.Kind == api.PreviewReplace || pv.Kind == api.PreviewDelete
	}
	return false
}

// IsMCP reports whether a tool name is an MCP server's: SERVER__tool.
func IsMCP(tool string) bool {
	i := strings.Index(tool, "__")
	return i > 0 && i+2 < len(tool)
}

// Plural is "1 call" or "n calls"; word is the singular.
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
