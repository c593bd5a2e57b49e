package verify

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/tools"
)

// pastActions is the one table of how a reply says, in the past tense, that a
// built-in tool ran: "I searched the web", "I've written the file report.md",
// "Done: I deleted notes.txt". Check holds every such statement to the calls
// of the turn (Validator.Turn) and reports one whose tool did not run, failed
// or was denied while the reply tells of a result (CodeUnrunClaim).
//
// A phrase is lower-case words matched in order right after a first-person
// subject ("I", "I've", "we have just"), after "and"/"then"/a comma that
// continues such a statement, before "has been"/"was successfully" ("notes.txt
// has been deleted": then only the verb and its object count), or at the start
// of a sentence ("Deleted notes.txt."). Articles and words such as "quick" may
// stand between the words of a phrase. A phrase may end with a placeholder for
// what the verb acted on:
//
//	<page>  a web page, site, article or URL, within the next seven words
//	<web>   the web, the internet, "online", within the next seven words
//	<file>  a file, its contents or a name like notes.txt, within the next five
//	        words and before a preposition such as "from" or "in", so that
//	        "removed a line from notes.txt" is no claim of deleting a file
//	<dir>   a folder, directory or the workspace, as <file>
//	<it>    "it" or "them" right after the verb
//
// When phrases of several tools match, the one with more words wins, then the
// one whose object is a name (a URL, notes.txt) rather than a noun, then the
// one whose object comes first: "searched the folder" is list_directory's
// "searched <dir>", not web_search's "searched".
//
// "I ran/called/used/invoked <tool name>", "I ... using <tool name>" and "I
// tried to <verb> ..." need no entry: they work for every tool the Validator
// knows, MCP tools included. Validator.Actions adds the phrases of other tools
// and replaces those of a tool it names; a verb whose past tense is also its
// base form ("read") never counts at the start of a sentence, where it is more
// likely an instruction to the user.
var pastActions = map[string][]string{
	tools.WebSearch: {
		"searched", "searched <web>", "looked up", "looked it up", "looked online", "googled", "found online",
		"did a web search", "ran a web search", "performed a web search", "conducted a web search",
		"did a search", "ran a search", "performed a search", "conducted a search",
		"checked <web>", "browsed <web>",
	},
	tools.ReadWebpage: {
		"read <page>", "opened <page>", "fetched <page>", "visited <page>", "browsed <page>", "loaded <page>",
		"scraped <page>", "downloaded <page>", "checked <page>", "accessed <page>", "retrieved <page>",
		"went to <page>", "searched <page>",
	},
	tools.ReadFile: {
		"read <file>", "opened <file>", "loaded <file>", "viewed <file>", "inspected <file>", "searched <file>",
	},
	tools.WriteFile: {
		"wrote <file>", "written <file>", "wrote <it>", "written <it>", "created <file>", "made <file>",
		"saved <file>", "saved <it>", "stored <file>", "updated <file>", "edited <file>", "modified <file>",
		"overwrote <file>", "overwritten <file>",
	},
	tools.DeleteFile: {
		"deleted <file>", "deleted <dir>", "deleted <it>", "removed <file>", "removed <dir>", "removed <it>",
		"erased <file>", "erased <it>", "trashed <file>",
	},
	tools.MoveFile: {
		"moved <file>", "moved <dir>", "moved <it>", "renamed <file>", "renamed <dir>", "renamed <it>",
	},
	tools.CopyFile: {
		"copied <file>", "copied <dir>", "copied <it>", "duplicated <file>", "backed up <file>",
	},
	tools.CreateDirectory: {
		"created <dir>", "made <dir>", "set up <dir>",
	},
	tools.ListDirectory: {
		"listed <file>", "listed <dir>", "looked in <dir>", "searched <dir>", "browsed <dir>", "checked <dir>", "scanned <dir>",
	},
}

// placeholders are the object placeholders a phrase may end with.
var placeholders = map[string]objectClass{
	"<page>": objPage, "<web>": objWeb, "<file>": objFile, "<dir>": objDir, "<it>": objPronoun,
}

// An actionPhrase is one compiled phrase of the table.
type actionPhrase struct {
	tool   string
	words  []string    // the first is the verb
	object objectClass // objNone: the phrase needs no object
}

// An actionTable holds the compiled phrases by their verb.
type actionTable map[string][]actionPhrase

var builtinActions = compileActions(pastActions)

// compileActions compiles a phrase table, tools in name order so that ties
// always go the same way.
func compileActions(table map[string][]string) actionTable {
	t := actionTable{}
	for _, tool := range slices.Sorted(maps.Keys(table)) {
		for _, p := range table[tool] {
			f := strings.Fields(asciiLower(p))
			ph := actionPhrase{tool: tool}
			if n := len(f); n > 1 {
				if c, ok := placeholders[f[n-1]]; ok {
					ph.object, f = c, f[:n-1]
				}
			}
			if len(f) == 0 {
				continue
			}
			ph.words = f
			t[f[0]] = append(t[f[0]], ph)
		}
	}
	return t
}

// actionTable returns the built-in table with Actions applied.
func (v Validator) actionTable() actionTable {
	if len(v.Actions) == 0 {
		return builtinActions
	}
	merged := maps.Clone(pastActions)
	maps.Copy(merged, v.Actions)
	return compileActions(merged)
}

// A pastClaim is one tool a sentence says ran.
type pastClaim struct {
	tool string
	// attempt is set for "I tried to ...": the reply claims a call, not its
	// result, so a failed or denied run is described honestly by it.
	attempt bool
}

// unrunClaims returns an unrun_claim issue for each tool the reply says ran
// that did not run as told in this turn. A claim holds when the tool ran
// successfully in the turn, when its sentence cites a run of the tool that the
// ledger confirmed (cited: a run of an earlier turn, told with its id), or,
// for a call that failed or was denied, when the reply says so.
func (v Validator) unrunClaims(reply string, sents, quoted []cut, cited []Claim, known []string) []Issue {
	var table actionTable
	var names map[string]string
	var issues []Issue
	reported := map[string]bool{}
	for si, sp := range sents {
		for len(quoted) > 0 && quoted[0].end <= sp.start {
			quoted = quoted[1:]
		}
		if len(quoted) > 0 && quoted[0].start <= sp.start {
			continue // someone else's words: a file, a page, a quote
		}
		s := reply[sp.start:sp.end]
		if !mayClaimPast(s) {
			continue
		}
		if table == nil {
			table = v.actionTable()
			names = make(map[string]string, len(known))
			for _, n := range known {
				names[asciiLower(n)] = n
			}
		}
		for _, pc := range table.sentenceClaims(clauseWords(s), names) {
			if reported[pc.tool] {
				continue
			}
			status := v.runStatus(pc.tool)
			if status == api.StatusOK || citesRun(cited, pc.tool, sp) {
				continue
			}
			if status != "" && (pc.attempt || reportsFailure(s) || si+1 < len(sents) && reportsFailure(reply[sents[si+1].start:sents[si+1].end])) {
				continue // the reply tells of the failure or denial
			}
			if status == "" && pc.attempt && !slices.Contains(v.toolNames(), pc.tool) {
				continue // "I tried to ... but I have no such tool" is no run claimed
			}
			reported[pc.tool] = true
			issues = append(issues, unrunIssue(pc, status, s))
		}
	}
	return issues
}

// runStatus is how tool fared in this turn: api.StatusOK when any call of it
// succeeded, else api.StatusError when one failed, else api.StatusDenied when
// the user denied one, else "" when it was not called.
func (v Validator) runStatus(tool string) string {
	status := ""
	for _, r := range v.Turn {
		if r.ToolName != tool {
			continue
		}
		switch r.Status {
		case api.StatusOK:
			return api.StatusOK
		case api.StatusDenied:
			if status == "" {
				status = api.StatusDenied
			}
		default:
			status = api.StatusError
		}
	}
	return status
}

// citesRun reports whether a confirmed claim of tool lies inside sentence sp.
func citesRun(cited []Claim, tool string, sp cut) bool {
	for _, c := range cited {
		if c.ToolName == tool && sp.start <= c.Offset && c.Offset < sp.end {
			return true
		}
	}
	return false
}

func unrunIssue(pc pastClaim, status, sentence string) Issue {
	quote := clip(strings.TrimSpace(sentence), 80)
	var msg string
	switch {
	case status == api.StatusDenied:
		msg = fmt.Sprintf("the reply presents %s as done (%q), but the user denied that call in this turn, so it did not run", pc.tool, quote)
	case status != "":
		msg = fmt.Sprintf("the reply presents %s as done (%q), but its run in this turn failed", pc.tool, quote)
	case pc.attempt:
		msg = fmt.Sprintf("the reply says it tried %s (%q), but %s was not called in this turn", pc.tool, quote, pc.tool)
	default:
		msg = fmt.Sprintf("the reply says %s ran (%q), but %s was not called in this turn", pc.tool, quote, pc.tool)
	}
	return Issue{Code: CodeUnrunClaim, Message: msg, Tool: pc.tool}
}

// mayClaimPast is the cheap look that spares most sentences of a long reply
// the word split: does the sentence hold a first-person word, "been" or
// "successfully", or open with a tool label or a word that may start a claim
// (in its first two words, since a label such as "Result:" may come first)?
func mayClaimPast(s string) bool {
	opening := 2 // the verb of "Deleted notes.txt" may follow a label: "Result: deleted ..."
	for i := 0; i < len(s); {
		if !isLetter(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && (isLetter(s[j]) || s[j] == '_') {
			j++
		}
		w := s[i:j]
		// The length decides first: most words have none of these lengths.
		switch len(w) {
		case 1:
			if w[0] == 'i' || w[0] == 'I' {
				return true
			}
		case 2:
			if strings.EqualFold(w, "we") {
				return true
			}
		case 4:
			if strings.EqualFold(w, "been") {
				return true
			}
		case 12:
			if strings.EqualFold(w, "successfully") {
				return true
			}
		}
		if opening > 0 {
			opening--
			if opening == 1 && strings.IndexByte(w, '_') >= 0 || len(w) > 2 && w[len(w)-2]|0x20 == 'e' && w[len(w)-1]|0x20 == 'd' {
				return true
			}
			// Lower-cased on the stack: looking a string(bytes) up in a
			// map does not allocate.
			var buf [16]byte
			if len(w) <= len(buf) {
				lw := buf[:len(w)]
				for k := range lw {
					lw[k] = w[k] | 0x20 // w is letters only here
				}
				if openers[string(lw)] || irregularPast[string(lw)] {
					return true
				}
			}
		}
		i = j
	}
	return false
}

// A word is one word of a sentence, lower-cased, without the punctuation
// around it.
type word struct {
	text string
	// pause is set when a comma, semicolon, colon or dash follows the word:
	// a new item of a list or a new clause may start after it.
	pause bool
}

// clauseWords splits a sentence into words, leaving out the text of markdown
// links and quotations of several words, which are someone else's words.
func clauseWords(s string) []word {
	s = dropQuotations(strings.ReplaceAll(asciiLower(dropLinkTexts(s)), "’", "'"))
	fields := strings.Fields(s)
	out := make([]word, 0, len(fields))
	for _, f := range fields {
		text := strings.TrimFunc(f, func(r rune) bool {
			return r != '_' && r != '\'' && (unicode.IsPunct(r) || unicode.IsSymbol(r))
		})
		text = strings.Trim(text, "'")
		pause := strings.ContainsAny(f[len(strings.TrimRightFunc(f, unicode.IsPunct)):], ",;:") ||
			strings.Trim(f, "-—–") == ""
		if text == "" {
			if pause && len(out) > 0 {
				out[len(out)-1].pause = true
			}
			continue
		}
		out = append(out, word{text: text, pause: pause})
	}
	return out
}

// dropQuotations blanks out double-quoted text that holds a space: a quoted
// sentence, title or search snippet. A single quoted word stays, so that
// quoting the verb ("I \"deleted\" it") hides nothing.
func dropQuotations(s string) string {
	if !strings.ContainsAny(s, "\"“") {
		return s
	}
	var b strings.Builder
	for {
		open := strings.IndexAny(s, "\"“")
		if open < 0 {
			break
		}
		width := 1
		if s[open] != '"' {
			width = len("“")
		}
		rest := s[open+width:]
		end := strings.IndexAny(rest, "\"”")
		if end < 0 {
			break
		}
		closeWidth := 1
		if rest[end] != '"' {
			closeWidth = len("”")
		}
		b.WriteString(s[:open])
		if inner := rest[:end]; strings.ContainsAny(inner, " \t") {
			b.WriteString(" ")
		} else {
			b.WriteString(inner)
		}
		s = rest[end+closeWidth:]
	}
	b.WriteString(s)
	return b.String()
}

// The word lists of the grammar below.
var (
	// pastFillers may stand between a subject and its verb: "I have just
	// now gone ahead and deleted".
	pastFillers = wordSet("just", "already", "also", "successfully", "now", "then", "first", "quickly", "finally",
		"again", "have", "has", "had", "gone", "went", "ahead", "and", "go", "actually", "indeed", "previously",
		"earlier", "recently", "simply", "carefully", "immediately", "both", "since", "next")
	// phraseFillers may stand between the words of a phrase: "did a quick web search".
	phraseFillers = wordSet("a", "an", "the", "quick", "quickly", "brief", "short", "new", "fresh", "full", "another", "some", "little")
	// runVerbs name a tool as their object: "I ran web_search".
	runVerbs = wordSet("ran", "run", "called", "used", "invoked", "executed", "triggered", "queried")
	// attemptVerbs claim a call whose outcome the rest of the sentence tells.
	attemptVerbs = wordSet("tried", "attempted", "failed")
	// byWords name the tool a past action was done with: "... using web_search".
	byWords = wordSet("using", "via", "with", "through", "by")
	// clauseStops end the clause of a subject: what follows has another subject or
	// is a condition, not a continuation of "I did X and Y".
	clauseStops = wordSet("but", "because", "although", "though", "while", "if", "when", "unless", "so",
		"whereas", "which", "who", "where", "however", "you", "he", "she", "they", "i", "we", "i've", "we've")
	// hypothetical before a subject makes its past tense a supposition: "if I
	// deleted notes.txt, you would lose it".
	hypothetical = wordSet("if", "unless", "whether", "suppose", "supposing", "imagine", "wish")
	// openers are words that, before a verb at the start of a sentence, mark it
	// as an account of what was done: "Done: deleted notes.txt".
	openers = wordSet("done", "ok", "okay", "sure", "successfully", "alright", "great", "all", "set", "finished", "complete", "completed")
	// ambiguousBase are verbs whose past tense is their base form: at the start
	// of a sentence they are more likely an instruction to the user.
	ambiguousBase = wordSet("read", "run", "put", "set", "cut", "quit")
	// irregularPast are past tenses that do not end in -ed, for telling a past
	// statement that may continue with "and deleted it".
	irregularPast = wordSet("found", "got", "made", "took", "saw", "did", "wrote", "written", "read", "ran", "put",
		"set", "gave", "sent", "built", "kept", "left", "brought", "went", "came", "knew", "thought", "told", "said",
		"heard", "felt", "met", "paid", "began", "chose", "drew", "ate", "spoke", "broke", "held", "led", "won", "lost")
	// objectStops end the search for a <file> or <dir> object: what follows
	// is where the action happened, not what it acted on.
	objectStops = wordSet("from", "in", "inside", "within", "of", "about", "for", "with", "by", "at", "on", "and", "then", "but", "or", "because", "so")
	// pageStops end the search for a <page> or <web> object.
	pageStops = wordSet("and", "then", "but", "because", "so", "which", "while", "although")
)

func wordSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

func isFirstPerson(w string) bool { return w == "i" || w == "we" || w == "i've" || w == "we've" }

// sentenceClaims returns the tools one sentence says ran, each once.
func (t actionTable) sentenceClaims(ws []word, names map[string]string) []pastClaim {
	var out []pastClaim
	add := func(c pastClaim) {
		if !slices.ContainsFunc(out, func(o pastClaim) bool { return o.tool == c.tool }) {
			out = append(out, c)
		}
	}
	if c, ok := t.openingClaim(ws, names); ok {
		add(c)
	}
	for i := 0; i < len(ws); i++ {
		w := ws[i].text
		if w == "been" || w == "was" || w == "were" {
			if c, ok := t.passiveClaim(ws, i); ok {
				add(c)
			}
			continue
		}
		if !isFirstPerson(w) || i > 0 && hypothetical[ws[i-1].text] {
			continue
		}
		j := skip(ws, i+1, pastFillers)
		end := clauseEnd(ws, j)
		c, _, ok := t.claimAt(ws, j, end, names)
		if ok {
			add(c)
		}
		if j >= end || !ok && !t.isPastish(ws[j].text) {
			continue
		}
		// "I looked into it using weather__now": the tool an action was done with.
		for k := j + 1; k < end; k++ {
			if byWords[ws[k].text] {
				if tool, ok := toolWithin(ws, k+1, min(end, k+4), names); ok {
					add(pastClaim{tool: tool, attempt: c.attempt})
				}
			}
		}
		// "I searched the web, read the page and deleted notes.txt".
		for k := j + 1; k < end; k++ {
			if p := ws[k-1]; p.text == "and" || p.text == "then" || p.pause {
				if c, _, ok := t.claimAt(ws, skip(ws, k, pastFillers), end, names); ok {
					add(c)
				}
			}
		}
	}
	return out
}

// skip returns the first index at or after i whose word is not in set.
func skip(ws []word, i int, set map[string]bool) int {
	for i < len(ws) && set[ws[i].text] {
		i++
	}
	return i
}

// clauseEnd returns where the clause whose verb is at j ends.
func clauseEnd(ws []word, j int) int {
	for k := j + 1; k < len(ws); k++ {
		if clauseStops[ws[k].text] {
			return k
		}
	}
	return len(ws)
}

func (t actionTable) isPastish(w string) bool {
	_, inTable := t[w]
	return inTable || runVerbs[w] || attemptVerbs[w] || irregularPast[w] || strings.HasSuffix(w, "ed")
}

// claimAt reads a past action whose verb is ws[j], within the clause ending at
// end. concrete reports that its object is a name (notes.txt, a URL, a tool
// name) rather than a noun like "files".
func (t actionTable) claimAt(ws []word, j, end int, names map[string]string) (c pastClaim, concrete, ok bool) {
	if j >= end {
		return pastClaim{}, false, false
	}
	w := ws[j].text
	if attemptVerbs[w] {
		k := j + 1
		if k < end && ws[k].text == "to" {
			k++
		}
		k = skip(ws, k, fillerWords)
		if k >= end {
			return pastClaim{}, false, false
		}
		if tool, ok := names[ws[k].text]; ok {
			return pastClaim{tool: tool, attempt: true}, true, true
		}
		if useWords[ws[k].text] {
			if tool, ok := toolWithin(ws, k+1, min(end, k+5), names); ok {
				return pastClaim{tool: tool, attempt: true}, true, true
			}
		}
		after := make([]string, 0, 8)
		for _, x := range ws[k+1 : min(end, k+9)] {
			after = append(after, x.text)
		}
		if tool, ok := verbTool(ws[k].text, after); ok {
			return pastClaim{tool: tool, attempt: true}, true, true
		}
		return pastClaim{}, false, false
	}
	if runVerbs[w] {
		if tool, ok := toolWithin(ws, j+1, min(end, j+5), names); ok {
			return pastClaim{tool: tool}, true, true
		}
	}
	ph, hit, ok := t.phraseAt(ws, j, end)
	if !ok {
		return pastClaim{}, false, false
	}
	return pastClaim{tool: ph.tool}, hit.concrete, true
}

// toolWithin returns the first tool named among ws[from:to].
func toolWithin(ws []word, from, to int, names map[string]string) (string, bool) {
	for k := from; k < to && k < len(ws); k++ {
		if tool, ok := names[ws[k].text]; ok {
			return tool, true
		}
	}
	return "", false
}

// An objectHit is where a phrase's object was found.
type objectHit struct {
	at       int
	concrete bool
}

// phraseAt returns the best phrase whose verb is ws[j].
func (t actionTable) phraseAt(ws []word, j, end int) (actionPhrase, objectHit, bool) {
	var best actionPhrase
	var bestHit objectHit
	bestScore := -1
	for _, ph := range t[ws[j].text] {
		k, matched := j+1, true
		for _, lit := range ph.words[1:] {
			for k < end && ws[k].text != lit && phraseFillers[ws[k].text] {
				k++
			}
			if k >= end || ws[k].text != lit {
				matched = false
				break
			}
			k++
		}
		if !matched {
			continue
		}
		hit := objectHit{at: end}
		score := 2 * len(ph.words)
		if ph.object != objNone {
			var found bool
			if hit, found = findObject(ws, k, end, ph.object); !found {
				continue
			}
			score++
		}
		better := score > bestScore ||
			score == bestScore && hit.concrete && !bestHit.concrete ||
			score == bestScore && hit.concrete == bestHit.concrete && hit.at < bestHit.at
		if better {
			best, bestHit, bestScore = ph, hit, score
		}
	}
	return best, bestHit, bestScore >= 0
}

// findObject looks for an object of class among the words from k on.
func findObject(ws []word, k, end int, class objectClass) (objectHit, bool) {
	if class == objPronoun {
		if k < end && (ws[k].text == "it" || ws[k].text == "them") {
			return objectHit{at: k, concrete: true}, true
		}
		return objectHit{}, false
	}
	window, stops := 5, objectStops
	if class == objPage || class == objWeb {
		window, stops = 7, pageStops
	}
	for i := k; i < end && i < k+window; i++ {
		if stops[ws[i].text] {
			break
		}
		if c, concrete := wordClass(ws, i); c == class {
			return objectHit{at: i, concrete: concrete}, true
		}
		if ws[i].pause {
			break
		}
	}
	return objectHit{}, false
}

// wordClass tells what ws[i] names, and whether it is a name (a URL, a domain,
// a file name) rather than a noun.
func wordClass(ws []word, i int) (objectClass, bool) {
	w := ws[i].text
	switch w {
	case "page", "webpage", "webpages", "pages", "website", "websites", "site", "url", "link", "article", "docs", "documentation", "homepage":
		return objPage, false
	case "file", "files", "contents", "content":
		return objFile, false
	case "directory", "directories", "folder", "folders", "dir", "workspace":
		return objDir, false
	case "online", "internet", "web":
		if w == "web" && i+1 < len(ws) && (ws[i+1].text == "page" || ws[i+1].text == "pages") {
			return objPage, false
		}
		return objWeb, false
	}
	if strings.HasPrefix(w, "http://") || strings.HasPrefix(w, "https://") || strings.HasPrefix(w, "www.") || isDomain(w) {
		return objPage, true
	}
	if isFileName(w) {
		return objFile, true
	}
	return objNone, false
}

// openingClaim reads a sentence that starts with its verb, as terse accounts
// do: "Deleted notes.txt.", "Done: created the folder drafts", "**write_file**:
// wrote a.txt". Unless an opener word or a tool label comes first, the object
// must be a name: "Created files are kept" describes, it does not report.
func (t actionTable) openingClaim(ws []word, names map[string]string) (pastClaim, bool) {
	i, marked := 0, false
	for i < len(ws) {
		w := ws[i].text
		_, isTool := names[w]
		switch {
		case openers[w] || isTool && ws[i].pause:
			marked = true
		case i == 0 && ws[i].pause, isNumber(w):
			// a label ("Note:") or a list number
		default:
			if ambiguousBase[w] {
				return pastClaim{}, false
			}
			c, concrete, ok := t.claimAt(ws, i, clauseEnd(ws, i), names)
			return c, ok && (marked || concrete)
		}
		i++
	}
	return pastClaim{}, false
}

func isNumber(w string) bool {
	for i := 0; i < len(w); i++ {
		if !isDigit(w[i]) {
			return false
		}
	}
	return w != ""
}

// passiveClaim reads "notes.txt has been deleted" or "the folder was
// successfully created" around ws[i] ("been", "was" or "were"): the verb's
// object is then the subject before the auxiliary.
func (t actionTable) passiveClaim(ws []word, i int) (pastClaim, bool) {
	aux := i
	switch ws[i].text {
	case "been":
		if i == 0 || ws[i-1].text != "has" && ws[i-1].text != "have" {
			return pastClaim{}, false
		}
		aux = i - 1
	default: // was, were: only with "successfully", since "was deleted" may tell of the past
		if i+1 >= len(ws) || ws[i+1].text != "successfully" {
			return pastClaim{}, false
		}
	}
	j := skip(ws, i+1, pastFillers)
	if j >= len(ws) {
		return pastClaim{}, false
	}
	var classes []objectClass
	for k := aux - 1; k >= 0 && k >= aux-5; k-- {
		if k < aux-1 && ws[k].pause {
			break
		}
		if ws[k].text == "it" || ws[k].text == "they" {
			classes = append(classes, objPronoun)
		} else if c, _ := wordClass(ws, k); c != objNone {
			classes = append(classes, c)
		}
	}
	for _, c := range classes { // nearest to the verb first
		for _, ph := range t[ws[j].text] {
			if len(ph.words) == 1 && ph.object == c {
				return pastClaim{tool: ph.tool}, true
			}
		}
	}
	return pastClaim{}, false
}

// isDomain reports whether w looks like a web address without a scheme,
// such as go.dev or example.com/docs.
func isDomain(w string) bool {
	host, _, _ := strings.Cut(w, "/")
	dot := strings.LastIndexByte(host, '.')
	if dot <= 0 {
		return false
	}
	switch host[dot+1:] {
	case "com", "org", "net", "dev", "io", "gov", "edu", "co", "ai", "app", "info", "uk", "de", "fr", "eu":
		return true
	}
	return false
}
