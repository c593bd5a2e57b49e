package verify

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

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
// continues such a statement, after a passive auxiliary ("notes.txt has been
// deleted", "the file was deleted", "notes.txt is deleted": then only the
// verb and its object count, and the subject must be a name or a noun with a
// determiner, done by nobody else), or at the start of a sentence ("Deleted
// notes.txt."). Besides the table, the grammar reads the state an action left
// ("notes.txt is gone now", "the folder is now empty"), a tool's name beside a
// success word ("| delete_file | ok |"), a search the reply calls its own
// ("according to my web search"), and the languages of foreign.go. Articles and words such as "quick" may
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
// The deeds of tools beyond files and the web ("I've sent the email", see
// deedPhrases in deeds.go) are compiled into the same table under names no
// tool can have, and read by the same grammar.
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
		"checked <web>", "browsed <web>", "used search", "used web search", "used search tool", "used search engine",
		"used google", "used internet search", "used online search",
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
		"erased <file>", "erased <it>", "trashed <file>", "got rid of <file>", "got rid of <dir>", "got rid of <it>",
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

var builtinActions = compileActions(withDeeds(pastActions))

// withDeeds returns table with the phrases of the deeds added.
func withDeeds(table map[string][]string) map[string][]string {
	merged := maps.Clone(table)
	maps.Copy(merged, deedPhrases)
	return merged
}

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
				} else if c, ok := deedPlaceholders[f[n-1]]; ok {
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
	merged := withDeeds(pastActions)
	maps.Copy(merged, v.Actions)
	return compileActions(merged)
}

// A pastClaim is one action a sentence says was done: which tool's kind of
// action, on which object.
type pastClaim struct {
	// tool is the tool the phrase belongs to: a built-in tool for the
	// grammar's phrases, or the tool a reply names ("I ran files__read").
	tool string
	// exact is set when the reply named the tool itself: only a run of that
	// very tool backs the claim. Otherwise any run of the same action does.
	exact bool
	// object is the name the claim acts on (notes.txt, a URL), lower-cased,
	// or "" when the claim names none ("the file", "it").
	object string
	// attempt is set for "I tried to ...": the reply claims a call, not its
	// result, so a failed or denied run is described honestly by it.
	attempt bool
	// at is the index of the claim's verb among the sentence's words, -1
	// when not known.
	at int
	// nouns are, for a deed, the words of its clause that are words of a
	// registered tool's name ("channel", "email"): a run backs the deed
	// only if its tool's name holds one of them.
	nouns []string
	// figures are, for a deed, the amounts, account numbers and other
	// figures of three digits or more its clause names ("$2200",
	// "US133000000121212121212"): a run backs the deed only if its
	// arguments hold one of them.
	figures []string
}

// A citedRun is an id claim of the reply that the ledger confirmed, with
// the ledger's record of the run.
type citedRun struct {
	claim Claim
	rec   Record
}

// unrunClaims returns an unrun_claim issue for each action the reply says
// was done that no run of this turn did as told. A claim holds when a run of
// the same action on the same object succeeded in the turn, or when its
// sentence cites a run (of an earlier turn, told with its id) that the ledger
// confirmed for that action and object. A claim that a call failed or was
// denied, or an attempt ("I tried to delete notes.txt but you denied it"),
// holds when such a call failed or was denied. Words elsewhere excuse
// nothing: only a clause of the same sentence that goes on to tell the
// failure ("..., but it timed out") does.
//
// prose is the reply as proseText reads it; quoted spans of text (code
// blocks, quotes) are read too, unless they show what a run of this turn
// returned.
func (v Validator) unrunClaims(text, prose string, quoted []cut, shown *shownContent, cited []citedRun, known []string) []Issue {
	var table actionTable
	var names toolNames
	var nameWords map[string]map[string]bool // by deed
	var issues []Issue
	reported := map[string]bool{}
	for _, sp := range claimSentences(prose) {
		if q, ok := quotedAt(quoted, sp); ok && shown.any() && shown.holds(quotedChunk(text, q, sp.end)) {
			continue // the tool's own output, shown as it came
		}
		s := prose[sp.start:sp.end]
		if spokenBy(s) {
			continue // "- Bob: I read an article": someone else's words, quoted
		}
		english, foreign := claimHints(s)
		if english {
			foreign = mayBeForeign(s)
		}
		if !english && !foreign {
			continue
		}
		if table == nil {
			table = v.actionTable()
			names = v.toolNameIndex(known)
		}
		var claims []pastClaim
		var ws []word
		if english {
			ws = clauseWords(s)
			claims = table.sentenceClaims(ws, names)
		}
		if foreign {
			for _, fc := range readForeign(s) {
				if phrases, ok := v.Actions[fc.tool]; !ok || len(phrases) > 0 {
					claims = append(claims, fc)
				}
			}
		}
		if english {
			for _, nc := range negatedClaims(ws) {
				key := "\x01" + nc.tool + "\x00" + nc.object
				if !reported[key] && v.onlySucceeded(nc) {
					reported[key] = true
					issues = append(issues, Issue{
						Code:    CodeUndoneClaim,
						Message: fmt.Sprintf("the reply says %s on %s did not happen or failed (%q), but it ran successfully in this turn", nc.tool, nc.object, clip(strings.TrimSpace(s), 80)),
						Tool:    nc.tool,
					})
				}
			}
		}
		for _, pc := range claims {
			deedTool := ""
			if isDeed(pc.tool) {
				if slices.ContainsFunc(claims, func(o pastClaim) bool { return o.exact && o.at == pc.at }) {
					continue // "I checked the forecast using weather__now": the tool named tells it
				}
				var ok bool
				if deedTool, ok = v.deedTool(pc.tool); !ok {
					continue // no tool here could do it
				}
			}
			if nounDeeds[pc.tool] && ws != nil && pc.at >= 0 {
				if nameWords[pc.tool] == nil {
					if nameWords == nil {
						nameWords = map[string]map[string]bool{}
					}
					nameWords[pc.tool] = v.toolNameWords(pc.tool)
				}
				pc.nouns = clauseNouns(ws, pc.at, nameWords[pc.tool], pc.tool == deedRead)
			}
			if figureDeeds[pc.tool] && ws != nil && pc.at >= 0 {
				pc.figures = clauseFigures(ws, pc.at)
			}
			key := pc.tool + "\x00" + pc.object
			if len(pc.nouns)+len(pc.figures) > 0 {
				key += "\x00" + strings.Join(pc.nouns, ",") + "\x00" + strings.Join(pc.figures, ",")
			}
			if reported[key] {
				continue
			}
			status := v.claimStatus(pc)
			if status == api.StatusOK || v.citesRun(cited, pc, sp) {
				continue
			}
			if status != "" && (pc.attempt || toldFailure(ws, pc.at)) {
				continue // the reply tells of the failure or denial
			}
			if status == "" && pc.attempt && !slices.Contains(v.toolNames(), pc.tool) {
				continue // "I tried to ... but I have no such tool" is no run claimed
			}
			reported[key] = true
			if deedTool != "" {
				pc.tool = deedTool
			}
			issues = append(issues, unrunIssue(pc, status, s))
		}
	}
	return issues
}

// The fillers the readers below skip: between a subject and its negation
// ("I still couldn't"), between a negation and its verb ("couldn't even
// delete"), before a state ("is now completely empty") and before "search"
// in "my earlier web search".
var (
	negFillers     = wordSet("just", "still", "also", "actually", "unfortunately")
	negVerbFillers = wordSet("even", "yet", "actually", "successfully", "be", "get", "to")
	stateFillers   = wordSet("now", "all", "completely", "entirely", "totally", "officially", "finally")
	searchFillers  = wordSet("quick", "earlier", "recent", "previous", "latest", "own", "last", "brief", "online")
)

// negators open a first-person statement that an action was not done or
// failed: "I couldn't delete notes.txt", "I did not read plan.md", "I was
// unable to open https://go.dev".
var negators = [][]string{
	{"couldn't"}, {"could", "not"}, {"cannot"}, {"can't"}, {"didn't"}, {"did", "not"}, {"never"},
	{"wasn't", "able", "to"}, {"was", "not", "able", "to"}, {"was", "unable", "to"}, {"were", "unable", "to"},
	{"weren't", "able", "to"}, {"haven't"}, {"have", "not"}, {"hasn't"},
}

// negatedClaims returns the actions a sentence says, in the first person,
// were not done or failed, each with the object it names: a claim of that
// kind without a name ("I didn't delete anything else") is not held to runs.
func negatedClaims(ws []word) []pastClaim {
	var out []pastClaim
	for i := 0; i < len(ws); i++ {
		if !isFirstPerson(ws[i].text) {
			continue
		}
		j := skip(ws, i+1, negFillers)
		n := 0
		for _, neg := range negators {
			if j+len(neg) <= len(ws) && slices.EqualFunc(ws[j:j+len(neg)], neg, func(w word, s string) bool { return w.text == s }) {
				n = len(neg)
				break
			}
		}
		if n == 0 {
			continue
		}
		k := skip(ws, j+n, negVerbFillers)
		if k >= len(ws) {
			continue
		}
		end := clauseEnd(ws, k)
		after := make([]string, 0, 8)
		object := ""
		for m := k + 1; m < min(end, k+9); m++ {
			after = append(after, ws[m].text)
			if c, named := wordClass(ws, m); named && object == "" && (c == objFile || c == objDir || c == objPage) {
				object = ws[m].text
			}
		}
		verb := ws[k].text
		if object == "" || verb == "find" || verb == "check" || verb == "get" {
			continue // "I could not find notes.txt" may be a read that found nothing
		}
		if tool, ok := verbTool(verb, after); ok && tool != tools.WebSearch {
			out = append(out, pastClaim{tool: tool, object: object, at: k})
		}
	}
	return out
}

// onlySucceeded reports whether the turn holds a run of the action pc tells
// on its object, all such runs succeeded and their arguments are known.
func (v Validator) onlySucceeded(pc pastClaim) bool {
	ran := false
	for _, r := range v.Turn {
		if !v.does(r.ToolName, v.runAction(r), pc) {
			continue
		}
		vals, ok := argStrings(r.Arguments)
		if !ok || !objectMatches(pc.object, vals) {
			continue
		}
		if r.Status != api.StatusOK {
			return false
		}
		ran = true
	}
	return ran
}

// toolNames finds the tools a reply names: by their exact spelling first,
// then in any case when only one tool has that spelling.
type toolNames struct {
	exact map[string]bool
	lower map[string]string // "" for a spelling several tools share
}

// builtinToolNames is the index of the catalog's names, which a Validator
// that registers no tools of its own uses on every reply.
var builtinToolNames = newToolNames(tools.Names)

// toolNameIndex returns the index of known, the Validator's knownTools.
func (v Validator) toolNameIndex(known []string) toolNames {
	if len(v.Tools) == 0 && len(v.Actions) == 0 {
		return builtinToolNames
	}
	return newToolNames(known)
}

func newToolNames(known []string) toolNames {
	t := toolNames{exact: make(map[string]bool, len(known)), lower: make(map[string]string, len(known))}
	for _, n := range known {
		t.exact[n] = true
		l := asciiLower(n)
		if prev, ok := t.lower[l]; ok && prev != n {
			t.lower[l] = ""
		} else {
			t.lower[l] = n
		}
	}
	return t
}

// of returns the tool word w names.
func (t toolNames) of(w word) (string, bool) {
	if t.exact[w.raw] {
		return w.raw, true
	}
	n := t.lower[w.text]
	return n, n != ""
}

// claimStatus is how the action a claim tells fared in this turn:
// api.StatusOK when a run of it on its object succeeded, else api.StatusError
// when one failed, else api.StatusDenied when the user denied one, else ""
// when none was called.
func (v Validator) claimStatus(pc pastClaim) string {
	status := ""
	for _, r := range v.Turn {
		if !v.backs(r.ToolName, v.runAction(r), r.Arguments, pc) {
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

// does reports whether a run of tool, which did action, is the kind of run
// claim pc tells of.
func (v Validator) does(tool string, action tools.Action, pc pastClaim) bool {
	if tool == pc.tool {
		return true
	}
	if pc.exact {
		return false
	}
	if isDeed(pc.tool) {
		return deedBacks(pc.tool, action)
	}
	want := v.identity(pc.tool).Action
	return matchesByAction(want) && compatible(want, action)
}

// backs reports whether a run of tool, which did action with arguments
// args, is a run of what pc tells on its object. A run of a compatible but
// other action (see compatible) backs it only when its arguments show an
// object of the claimed kind: a web address for a page, a path for a file.
func (v Validator) backs(tool string, action tools.Action, args json.RawMessage, pc pastClaim) bool {
	if !v.does(tool, action, pc) {
		return false
	}
	if isDeed(pc.tool) {
		vals, _ := argStrings(args)
		return deedObjectHolds(pc.object, vals) && nounsHold(tool, pc.nouns) && figuresHold(args, pc.figures)
	}
	vals, known := argStrings(args)
	if known && !objectMatches(pc.object, vals) {
		return false
	}
	want := v.identity(pc.tool).Action
	if tool == pc.tool || pc.exact || action == want || want == tools.ActionRead && action == tools.ActionFetch && pc.object == "" {
		return true
	}
	if !known {
		return false
	}
	for _, o := range vals {
		web := isWebObject(strings.ToLower(strings.TrimSpace(o)))
		if looksLikeObject(o) && (want == tools.ActionFetch) == web {
			return true
		}
	}
	return false
}

// compatible reports whether a run that did action backs a claim of want.
// Reading a page and reading a file are one act told of two objects, and so
// are creating and writing a file: an outside tool's identity, derived from
// its name (get_webpage, create_file), may say either, and the object decides.
func compatible(want, action tools.Action) bool {
	switch {
	case want == action:
		return true
	case want == tools.ActionFetch || want == tools.ActionRead:
		return action == tools.ActionFetch || action == tools.ActionRead
	case want == tools.ActionWrite || want == tools.ActionCreateDir:
		return action == tools.ActionWrite || action == tools.ActionCreateDir
	}
	return false
}

// citesRun reports whether sentence sp cites a confirmed, successful run of
// the action pc tells, on its object.
func (v Validator) citesRun(cited []citedRun, pc pastClaim, sp cut) bool {
	for _, c := range cited {
		if c.claim.Offset < sp.start || c.claim.Offset >= sp.end || !c.rec.Completed || c.rec.Error != "" {
			continue
		}
		if v.backs(c.rec.ToolName, v.actionOf(c.rec.ToolName, v.identity(c.rec.ToolName)), c.rec.Arguments, pc) {
			return true
		}
	}
	return false
}

// toldFailure reports whether the words after a claim's verb go on, in a
// clause of their own ("but it timed out", "however, you denied it"), to tell
// that the action failed or was refused. A condition ("let me know if you
// see any errors") tells nothing.
func toldFailure(ws []word, at int) bool {
	if at < 0 || at >= len(ws) {
		return false
	}
	for k := at + 1; k < len(ws); k++ {
		switch ws[k].text {
		case "but", "however", "yet", "unfortunately", "sadly", "only":
		default:
			continue
		}
		var b strings.Builder
		for _, w := range ws[k+1:] {
			switch w.text {
			case "if", "unless", "case", "should", "ever", "whenever", "know":
				return false
			}
			b.WriteString(w.text)
			b.WriteByte(' ')
		}
		return reportsFailure(b.String())
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
	case pc.object != "":
		msg = fmt.Sprintf("the reply says %s ran (%q), but %s was not called on %s in this turn", pc.tool, quote, pc.tool, pc.object)
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
	english, _ := claimHints(s)
	return english
}

// claimHints is mayClaimPast, and whether the sentence may be in another
// language the grammar reads (see mayBeForeign), worked out in the same
// pass when the first answer is no.
func claimHints(s string) (english, foreign bool) {
	opening := 2 // the verb of "Deleted notes.txt" may follow a label: "Result: deleted ..."
	// A passive or a state ("notes.txt was deleted", "is gone now") needs
	// its auxiliary and a participle; a search of the reply's own ("my web
	// search") its possessive and "search".
	aux, participle, mine, search, dotted := false, false, false, false, false
	for i := 0; i < len(s); {
		if !isLetter(s[i]) {
			foreign = foreign || s[i] >= utf8.RuneSelf
			i++
			continue
		}
		j := i
		for j < len(s) && (isLetter(s[j]) || s[j] == '_') {
			j++
		}
		w := s[i:j]
		dotted = dotted || j+1 < len(s) && s[j] == '.' && isLetter(s[j+1])
		foreign = foreign || mayBeForeignWord(w)
		if n := len(w); n > 3 && w[n-2]|0x20 == 'e' && (w[n-1]|0x20 == 'd' || w[n-1]|0x20 == 'n') {
			participle = true
		}
		// The length decides first: most words have none of these lengths.
		switch len(w) {
		case 1:
			if w[0] == 'i' || w[0] == 'I' {
				return true, false
			}
		case 2:
			if strings.EqualFold(w, "we") {
				return true, false
			}
			aux = aux || strings.EqualFold(w, "is")
			mine = mine || strings.EqualFold(w, "my")
		case 3:
			aux = aux || strings.EqualFold(w, "was") || strings.EqualFold(w, "are")
			mine = mine || strings.EqualFold(w, "our")
		case 4:
			if strings.EqualFold(w, "been") {
				return true, false
			}
			aux = aux || strings.EqualFold(w, "were")
			participle = participle || strings.EqualFold(w, "gone") || strings.EqualFold(w, "made") || strings.EqualFold(w, "read")
		case 5:
			participle = participle || strings.EqualFold(w, "empty")
		case 6, 8:
			search = search || strings.EqualFold(w, "search") || strings.EqualFold(w, "searches")
		case 12:
			if strings.EqualFold(w, "successfully") {
				return true, false
			}
		}
		if opening > 0 {
			opening--
			if opening == 1 && strings.IndexByte(w, '_') >= 0 || len(w) > 2 && w[len(w)-2]|0x20 == 'e' && w[len(w)-1]|0x20 == 'd' {
				return true, false
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
					return true, false
				}
			}
		}
		i = j
	}
	return aux && participle || mine && search || dotted && participle, foreign
}

// A word is one word of a sentence, lower-cased, without the punctuation
// around it.
type word struct {
	text string
	// raw is the word as written, in its own case: a tool name is matched
	// on it first, since srv__Read and srv__read are two tools.
	raw string
	// pause is set when a comma, semicolon, colon or dash follows the word:
	// a new item of a list or a new clause may start after it.
	pause bool
}

// clauseWords splits a sentence into words, leaving out quotations of
// several words, which are someone else's words. Emphasis marks around a
// word ("**deleted**", "_deleted_") are no part of it.
func clauseWords(s string) []word {
	if strings.Contains(s, "’") {
		s = strings.ReplaceAll(s, "’", "'")
	}
	s = dropQuotations(s)
	// One lower-cased copy of the sentence: a word's text is a slice of it
	// and its raw spelling the same slice of s, so no word allocates.
	lower := asciiLower(s)
	fields := strings.Fields(s)
	out := make([]word, 0, len(fields))
	from := 0
	for _, f := range fields {
		at := from + strings.Index(s[from:], f)
		from = at + len(f)
		a := at + strings.IndexFunc(f, notTrimmed)
		if a < at {
			a = from // nothing but punctuation
		}
		b := a
		if a < from {
			b = at + strings.LastIndexFunc(f, notTrimmed) + 1
			_, size := utf8.DecodeRuneInString(s[b-1:])
			if size > 1 { // LastIndexFunc gives the rune's first byte
				b += size - 1
			}
		}
		for a < b && s[a] == '\'' {
			a++
		}
		for b > a && s[b-1] == '\'' {
			b--
		}
		if b-a > 2 && s[a] == '_' && s[b-1] == '_' {
			for a < b && s[a] == '_' {
				a++
			}
			for b > a && s[b-1] == '_' {
				b--
			}
		}
		pause := strings.ContainsAny(f[len(strings.TrimRightFunc(f, unicode.IsPunct)):], ",;:") ||
			(f[0] == '-' || f[0] == 0xE2) && strings.Trim(f, "-—–") == ""
		if a >= b {
			if pause && len(out) > 0 {
				out[len(out)-1].pause = true
			}
			continue
		}
		out = append(out, word{text: lower[a:b], raw: s[a:b], pause: pause})
	}
	return out
}

// notTrimmed reports whether r is part of a word rather than punctuation
// around it.
func notTrimmed(r rune) bool {
	return r == '_' || r == '\'' || !unicode.IsPunct(r) && !unicode.IsSymbol(r)
}

// dropQuotations blanks out double-quoted text that holds a space: a quoted
// sentence, title or search snippet. A single quoted word stays, so that
// quoting the verb ("I \"deleted\" it") hides nothing.
func dropQuotations(s string) string {
	if strings.IndexByte(s, '"') < 0 && !strings.Contains(s, "“") {
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
	// noneWords after a verb say it acted on nothing.
	noneWords = wordSet("nothing", "none", "no", "anything", "neither", "nobody", "noone")
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
	ambiguousBase = wordSet("read", "run", "put", "set", "cut", "quit", "reset", "forward", "email", "message", "text", "post")
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

// sentenceClaims returns the actions one sentence says were done, each
// tool and object once.
func (t actionTable) sentenceClaims(ws []word, names toolNames) []pastClaim {
	var out []pastClaim
	add := func(c pastClaim) {
		if !slices.ContainsFunc(out, func(o pastClaim) bool { return o.tool == c.tool && o.object == c.object }) {
			out = append(out, c)
		}
	}
	if c, ok := t.openingClaim(ws, names); ok {
		add(c)
	}
	if c, ok := rowClaim(ws, names); ok {
		add(c)
	}
	for i := 0; i < len(ws); i++ {
		w := ws[i].text
		switch w {
		case "been", "was", "were", "is", "are":
			if c, ok := t.passiveClaim(ws, i); ok {
				add(c)
			} else if c, ok := t.deedPassive(ws, i); ok {
				add(c)
			}
			if c, ok := stateClaim(ws, i); ok {
				add(c)
			}
			continue
		case "my", "our":
			if c, ok := searchOfMine(ws, i); ok {
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
					add(pastClaim{tool: tool, exact: true, attempt: c.attempt, at: j})
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
func (t actionTable) claimAt(ws []word, j, end int, names toolNames) (c pastClaim, concrete, ok bool) {
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
		if tool, ok := names.of(ws[k]); ok {
			return pastClaim{tool: tool, exact: true, attempt: true, at: k}, true, true
		}
		if useWords[ws[k].text] {
			if tool, ok := toolWithin(ws, k+1, min(end, k+5), names); ok {
				return pastClaim{tool: tool, exact: true, attempt: true, at: k}, true, true
			}
		}
		after := make([]string, 0, 8)
		object := ""
		for i, x := range ws[k+1 : min(end, k+9)] {
			after = append(after, x.text)
			if c, named := wordClass(ws, k+1+i); named && object == "" && (c == objFile || c == objDir || c == objPage) {
				object = x.text
			}
		}
		if tool, ok := verbTool(ws[k].text, after); ok {
			if tool == tools.WebSearch {
				object = ""
			}
			return pastClaim{tool: tool, object: object, attempt: true, at: k}, true, true
		}
		return pastClaim{}, false, false
	}
	if runVerbs[w] {
		if tool, ok := toolWithin(ws, j+1, min(end, j+5), names); ok {
			return pastClaim{tool: tool, exact: true, at: j}, true, true
		}
	}
	ph, hit, ok := t.phraseAt(ws, j, end)
	if !ok {
		return pastClaim{}, false, false
	}
	if isDeed(ph.tool) && j+1 < end && (noneWords[ws[j+1].text] || ph.tool == deedRead && ws[j+1].text == "about") {
		return pastClaim{}, false, false // "I deleted nothing", "I read about it"
	}
	if ph.tool == tools.WebSearch && ph.object == objNone && ownThingsAfter(ws, j, len(ph.words), end) {
		// "I looked up your transaction history": a look into the user's
		// own things, not a search of the web.
		return pastClaim{}, false, false
	}
	c = pastClaim{tool: ph.tool, at: j}
	if isDeed(ph.tool) {
		c.tool = refineDeed(ph.tool, ws, j, end)
	}
	if hit.concrete && hit.at < len(ws) && ph.object != objPronoun && ph.object != objWeb {
		c.object = ws[hit.at].text
	}
	return c, hit.concrete, true
}

// ownThingsAfter reports whether the words right after a phrase of n words at j (and
// the fillers among them) name the user's own things: "your", "our", "my".
func ownThingsAfter(ws []word, j, n, end int) bool {
	k := j + n
	for k < end && phraseFillers[ws[k].text] {
		k++
	}
	return k < end && (ws[k].text == "your" || ws[k].text == "our" || ws[k].text == "my")
}

// toolWithin returns the first tool named among ws[from:to].
func toolWithin(ws []word, from, to int, names toolNames) (string, bool) {
	for k := from; k < to && k < len(ws); k++ {
		if tool, ok := names.of(ws[k]); ok {
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
	if class >= objMoney {
		for i := k; i < end && i < k+7; i++ {
			if pageStops[ws[i].text] {
				break
			}
			if deedClass(ws[i].text) == class {
				return objectHit{at: i}, true
			}
		}
		return objectHit{}, false
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
	if strings.Contains(w, "@") && !strings.Contains(w, "/") {
		return objNone, false // an e-mail address
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
func (t actionTable) openingClaim(ws []word, names toolNames) (pastClaim, bool) {
	i, marked := 0, false
	for i < len(ws) {
		w := ws[i].text
		_, isTool := names.of(ws[i])
		switch {
		case openers[w] || isTool && ws[i].pause:
			marked = true
		case i == 0 && ws[i].pause && !ambiguousBase[w]:
			// "Deleted: notes.txt" is an account; "Note:" a label.
			if c, concrete, ok := t.claimAt(ws, i, clauseEnd(ws, i), names); ok && concrete {
				return c, true
			}
		case isNumber(w):
			// a list number
		default:
			if ambiguousBase[w] {
				return pastClaim{}, false
			}
			c, concrete, ok := t.claimAt(ws, i, clauseEnd(ws, i), names)
			return c, ok && (marked || concrete || t.hasDeed(w) && deedOpens(ws, i))
		}
		i++
	}
	return pastClaim{}, false
}

// successWords tell, beside a tool's name, that its run succeeded: a table
// row "| delete_file | ok |" or a line "delete_file: done".
var successWords = wordSet("ok", "okay", "done", "success", "succeeded", "successful", "completed", "complete", "finished", "passed", "yes")

// rowClaim reads a tool's name followed by a success word, as a table row or
// a status line gives it: "| delete_file | ok |", "delete_file: done".
func rowClaim(ws []word, names toolNames) (pastClaim, bool) {
	// "| notes.txt | deleted |", "notes.txt: deleted": a name, a pause, and
	// a participle that ends the row.
	marked := len(ws) > 0 && openers[ws[0].text]
	for i := 0; i+1 < len(ws); i++ {
		// After an opener ("Done — notes.txt deleted", "✅ notes.txt
		// deleted") no pause is needed between the name and the verb.
		if !ws[i].pause && !(marked && i > 0) || i+2 < len(ws) && !ws[i+1].pause {
			continue
		}
		c, concrete := wordClass(ws, i)
		if !concrete || c != objFile {
			continue
		}
		for _, ph := range builtinActions[ws[i+1].text] {
			if len(ph.words) == 1 && ph.object == objFile && ph.tool != tools.ReadFile {
				return pastClaim{tool: ph.tool, object: ws[i].text, at: i + 1}, true
			}
		}
	}
	for i := 0; i < len(ws); i++ {
		tool, ok := names.of(ws[i])
		if !ok {
			continue
		}
		for k := i + 1; k < len(ws) && k <= i+3; k++ {
			if successWords[ws[k].text] {
				return pastClaim{tool: tool, exact: true, at: k}, true
			}
		}
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

// determiners before a noun make it a definite thing the reply acted on:
// "the file was deleted", unlike "files are deleted after a week".
var determiners = wordSet("the", "your", "that", "this", "my", "our", "those", "these", "both")

// subjectBefore looks back from the auxiliary at ws[aux] for the subject of
// a passive or a state: the nearest object words, nearest first. pronoun
// admits "it" and "they".
func subjectBefore(ws []word, aux int, pronoun bool) (classes []objectClass, names []string) {
	for k := aux - 1; k >= 0 && k >= aux-5; k-- {
		if k < aux-1 && ws[k].pause {
			break
		}
		if ws[k].text == "it" || ws[k].text == "they" {
			if pronoun {
				classes, names = append(classes, objPronoun), append(names, "")
			}
			continue
		}
		c, concrete := wordClass(ws, k)
		if c == objNone || c == objWeb {
			continue
		}
		if concrete {
			classes, names = append(classes, c), append(names, ws[k].text)
		} else if k > 0 && determiners[ws[k-1].text] || k > 1 && determiners[ws[k-2].text] {
			classes, names = append(classes, c), append(names, "")
		}
	}
	return classes, names
}

// byOthers reports whether the words from i on say someone else did it:
// "was deleted by you", "by the user".
func byOthers(ws []word, i int) bool {
	for k := i; k < len(ws) && k < i+4; k++ {
		if ws[k].text == "by" && k+1 < len(ws) {
			switch ws[k+1].text {
			case "you", "the", "someone", "another", "them", "him", "her", "your":
				return true
			}
		}
	}
	return false
}

// passiveClaim reads "notes.txt has been deleted", "the folder was created"
// or "notes.txt is deleted" around ws[i] ("been", "was", "were", "is" or
// "are"): the verb's object is then the subject before the auxiliary, a name
// or a noun with a determiner ("it" only after "has been" or with
// "successfully").
func (t actionTable) passiveClaim(ws []word, i int) (pastClaim, bool) {
	aux := i
	pronoun := false
	switch ws[i].text {
	case "been":
		if i == 0 || ws[i-1].text != "has" && ws[i-1].text != "have" {
			return pastClaim{}, false
		}
		aux, pronoun = i-1, true
	default:
		pronoun = i+1 < len(ws) && ws[i+1].text == "successfully"
	}
	j := skip(ws, i+1, pastFillers)
	if j >= len(ws) || byOthers(ws, j+1) || longAgo(ws, j+1) {
		return pastClaim{}, false
	}
	if t := ws[i].text; (t == "is" || t == "are") && !nowAround(ws, i+1, j+1) {
		// "The file is written in Go" describes; "is now deleted",
		// "is deleted now" report.
		return pastClaim{}, false
	}
	classes, objects := subjectBefore(ws, aux, pronoun)
	for n, c := range classes { // nearest to the verb first
		for _, ph := range t[ws[j].text] {
			if len(ph.words) == 1 && ph.object == c || c == objPronoun && len(ph.words) == 1 && ph.object != objNone && ph.object != objPage && ph.object != objWeb {
				obj := objects[n]
				if ph.tool == tools.WebSearch {
					obj = ""
				}
				return pastClaim{tool: ph.tool, object: obj, at: j}, true
			}
		}
	}
	return pastClaim{}, false
}

// nowAround reports whether "now" stands among ws[from:to] or right after
// to, as in "is now deleted" or "is gone now".
func nowAround(ws []word, from, to int) bool {
	for k := from; k <= to && k < len(ws); k++ {
		if ws[k].text == "now" || ws[k].text == "successfully" {
			return true
		}
	}
	return false
}

// longAgo reports whether the words from i on place the action in the past
// of the conversation: "was created two years ago", "last week".
func longAgo(ws []word, i int) bool {
	for k := i; k < len(ws) && k < i+4; k++ {
		switch ws[k].text {
		case "ago", "yesterday", "last", "years", "months", "weeks", "before", "since", "originally", "recently", "according",
			"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
			"january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december":
			return true
		}
	}
	return false
}

// stateClaim reads the state an action left, told of its object: "notes.txt
// is gone now", "the folder drafts is now empty".
func stateClaim(ws []word, i int) (pastClaim, bool) {
	if ws[i].text != "is" && ws[i].text != "are" {
		return pastClaim{}, false
	}
	j := skip(ws, i+1, stateFillers)
	if j >= len(ws) {
		return pastClaim{}, false
	}
	classes, objects := subjectBefore(ws, i, false)
	if len(classes) == 0 || !nowAround(ws, i+1, j+1) {
		// "notes.txt is empty" tells what a read found; "is now empty",
		// "is gone now" tell what an action did.
		return pastClaim{}, false
	}
	c, obj := classes[0], objects[0]
	switch ws[j].text {
	case "gone":
		if c == objFile || c == objDir {
			return pastClaim{tool: tools.DeleteFile, object: obj, at: j}, true
		}
	case "empty", "emptied":
		switch c {
		case objFile:
			return pastClaim{tool: tools.WriteFile, object: obj, at: j}, true
		case objDir:
			return pastClaim{tool: tools.DeleteFile, object: obj, at: j}, true
		}
	}
	return pastClaim{}, false
}

// searchOfMine reads a web search the reply calls its own, at ws[i] ("my"
// or "our"): "according to my web search", "my online search shows".
func searchOfMine(ws []word, i int) (pastClaim, bool) {
	k := skip(ws, i+1, searchFillers)
	// "Based on my research" after a look into the user's trip or mailbox
	// names no web search: only the web itself does.
	web := false
	if k < len(ws) && (ws[k].text == "web" || ws[k].text == "internet" || ws[k].text == "google" || ws[k].text == "online") {
		web, k = true, k+1
	}
	if k > 0 && ws[k-1].text == "online" {
		web = true
	}
	if k >= len(ws) {
		return pastClaim{}, false
	}
	switch ws[k].text {
	case "search", "searches", "lookup", "research":
		if web {
			return pastClaim{tool: tools.WebSearch, at: k}, true
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
