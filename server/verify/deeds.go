package verify

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/ailab/ai-lab/tools"
)

// Deeds are the actions of tools beyond files and the web: sending a
// message, an e-mail or money, booking, inviting, scheduling, creating an
// event, updating a record, removing a person or a thing. A reply tells of
// them with the same grammar as of the file actions ("I've sent the email",
// "Dora has been invited", "Sent feedback to Eve"), but their object is a
// recipient, a name or an amount, which a reply words as it likes: a claim
// of a deed is held to the turn by its kind. A successful run of a tool
// whose action is of that kind backs it; with none, the claim is an
// unrun_claim, whatever object it names. What its clause names narrows it:
// a noun that is a word of such tools' names must be in the backing tool's
// name (see clauseNouns), and a figure in its arguments (see clauseFigures).
//
// A deed claim's tool is one of the names below, which no tool can have
// (they hold parentheses); deedKinds gives the actions that back it.
const (
	deedSend       = "(send)"
	deedPay        = "(pay)"
	deedBook       = "(book)"
	deedInvite     = "(invite)"
	deedAdd        = "(add)"
	deedSchedule   = "(schedule)"
	deedCreate     = "(create)"
	deedUpdate     = "(update)"
	deedRemove     = "(remove)"
	deedShare      = "(share)"
	deedCompose    = "(compose)"
	deedInvitation = "(invitation)"
	deedRead       = "(read)"
)

// nounDeeds are the deeds whose tools a reply tells apart by the object's
// noun: "added Fred to the channel" is not "invited Fred to Slack", "deleted
// the email" is not "deleted the file".
var nounDeeds = map[string]bool{deedAdd: true, deedInvite: true, deedRemove: true, deedUpdate: true, deedRead: true}

// deedKinds are the actions whose successful run backs each deed. They are
// loose on purpose: "I added Alice to the channel" and "I added the event to
// your calendar" are one verb for an invitation and a new event, and "I
// paid the rent" may rest on a transfer or a scheduled payment.
var deedKinds = map[string][]tools.Action{
	deedSend:     {tools.ActionSend, tools.ActionShare},
	deedPay:      {tools.ActionSend, tools.ActionSchedule, tools.ActionWrite},
	deedBook:     {tools.ActionBook},
	deedInvite:   {tools.ActionInvite, tools.ActionCreateDir, tools.ActionSchedule},
	deedAdd:      {tools.ActionInvite, tools.ActionCreateDir, tools.ActionWrite, tools.ActionSchedule},
	deedSchedule: {tools.ActionSchedule, tools.ActionCreateDir, tools.ActionWrite},
	deedCreate:   {tools.ActionCreateDir, tools.ActionWrite, tools.ActionSchedule},
	deedUpdate:   {tools.ActionWrite, tools.ActionInvite, tools.ActionCreateDir},
	deedRemove:   {tools.ActionDelete, tools.ActionWrite},
	deedShare:    {tools.ActionShare, tools.ActionSend},
	deedCompose:  {tools.ActionSend, tools.ActionWrite, tools.ActionCreateDir},
	// An invitation sent is the work of an invitation, of an event created
	// with its participants, or of an e-mail.
	deedInvitation: {tools.ActionInvite, tools.ActionCreateDir, tools.ActionSchedule, tools.ActionSend},
	// A look at the user's own things: the inbox, the channels, the
	// transactions.
	deedRead: {tools.ActionRead, tools.ActionFetch, tools.ActionSearch, tools.ActionList, tools.ActionReadOnly},
}

// deedPhrases are the past tenses and participles of the deeds, in the
// phrase format of pastActions. The file and web phrases of the same verbs
// ("created <file>", "removed <file>") win over these when their object is
// there, since a phrase with its object scores higher.
var deedPhrases = map[string][]string{
	deedSend: {
		"sent", "emailed", "e-mailed", "messaged", "texted", "forwarded", "posted", "replied", "dmed", "mailed",
		"notified", "resent", "delivered", "sent out", "wrote back",
	},
	deedPay:      {"paid", "transferred", "refunded", "wired", "repaid", "reimbursed", "processed <money>", "made <money>", "initiated <money>", "issued <money>", "executed <money>", "completed <money>"},
	deedBook:     {"booked", "reserved", "rebooked", "secured <booking>", "made <booking>"},
	deedInvite:   {"invited", "onboarded", "enrolled"},
	deedAdd:      {"added", "included", "appended", "inserted"},
	deedSchedule: {"scheduled", "rescheduled", "set up <event>", "arranged", "planned <event>", "put <event>"},
	deedCreate:   {"created", "made <event>", "organized <event>", "drafted", "logged", "registered", "opened <account>"},
	deedUpdate:   {"updated", "changed", "modified", "edited", "amended", "adjusted", "reset", "renewed", "corrected", "revised", "replaced"},
	deedRemove:   {"removed", "deleted", "cancelled", "canceled", "kicked", "unsubscribed", "revoked", "banned", "erased", "trashed"},
	deedShare:    {"shared", "granted", "gave access"},
	deedRead: {
		"reviewed", "checked", "analyzed", "analysed", "examined", "retrieved", "accessed", "looked at", "looked into",
		"looked through", "went through", "read", "scanned", "inspected", "consulted", "fetched", "obtained",
		"gathered", "collected", "pulled", "visited", "browsed", "viewed", "queried",
	},
}

// The object classes of the deeds' placeholders, after those of announce.go.
const (
	objMoney   objectClass = iota + 100 // a payment, a refund, an amount
	objBooking                          // a reservation, a booking
	objEvent                            // an event, a meeting, a reminder
	objAccount                          // an account
)

// deedPlaceholders are the placeholders of deedPhrases.
var deedPlaceholders = map[string]objectClass{
	"<money>": objMoney, "<booking>": objBooking, "<event>": objEvent, "<account>": objAccount,
}

// deedNouns are the nouns of the deeds' objects.
var deedNouns = map[string]objectClass{
	"payment": objMoney, "payments": objMoney, "refund": objMoney, "refunds": objMoney, "transaction": objMoney,
	"transactions": objMoney, "transfer": objMoney, "transfers": objMoney, "money": objMoney, "amount": objMoney,
	"reservation": objBooking, "reservations": objBooking, "booking": objBooking, "bookings": objBooking,
	"event": objEvent, "events": objEvent, "meeting": objEvent, "meetings": objEvent, "reminder": objEvent,
	"reminders": objEvent, "appointment": objEvent, "appointments": objEvent, "call": objEvent,
	"account": objAccount,
}

// isDeed reports whether a claim's tool is a deed rather than a tool.
func isDeed(tool string) bool {
	_, ok := deedKinds[tool]
	return ok
}

// deedBacks reports whether a run whose action is action backs a deed claim.
func deedBacks(deed string, action tools.Action) bool {
	return slices.Contains(deedKinds[deed], action)
}

// deedObjectHolds reports whether a deed claim's object, if it names one,
// is among the run's argument values as a substring, case aside.
func deedObjectHolds(object string, values []string) bool {
	if object == "" {
		return true
	}
	for _, v := range values {
		if strings.Contains(strings.ToLower(v), object) {
			return true
		}
	}
	return false
}

// deedSubjects are the nouns that may stand as the subject of a passive
// deed ("the email has been sent", "your hotel was booked"), besides names
// and file names.
var deedSubjects = wordSet("email", "emails", "e-mail", "message", "messages", "reply", "invitation", "invitations", "invite",
	"invites", "link", "summary", "information", "info", "details", "code", "feedback", "notification", "request",
	"payment", "payments", "refund", "transaction", "transactions", "transfer", "money", "amount", "rent", "bill", "difference",
	"reservation", "reservations", "booking", "hotel", "room", "table", "car", "restaurant", "flight", "ticket",
	"event", "events", "meeting", "meetings", "reminder", "appointment", "calendar", "participants", "participant",
	"user", "users", "member", "password", "address", "account", "profile", "channel", "file", "document", "messages",
	"report", "list", "note", "notes", "task", "tasks", "activities", "activity", "entry", "lunch", "dinner", "trip")

// relativeWords before a passive's subject make it a description of a
// thing ("the email that was sent to you"), not a report.
var relativeWords = wordSet("that", "which", "who", "whom", "whose", "where", "when", "what")

// deedPassive reads "the email has been sent", "Dora was invited to the
// channel", "the transaction is now scheduled" around ws[i] ("been",
// "was", "were", "is" or "are"): a deed's participle after a passive
// auxiliary, done by nobody else, with a subject before it that is a
// thing of the deeds or a name.
func (t actionTable) deedPassive(ws []word, i int) (pastClaim, bool) {
	aux := i
	if ws[i].text == "been" {
		// "have now been added", "has just been sent"
		k := i - 1
		for k >= 0 && passiveFillers[ws[k].text] {
			k--
		}
		if k < 0 || ws[k].text != "has" && ws[k].text != "have" {
			return pastClaim{}, false
		}
		aux = k
	}
	j := skip(ws, i+1, pastFillers)
	if j >= len(ws) || byOthers(ws, j+1) || longAgo(ws, j+1) {
		return pastClaim{}, false
	}
	if tx := ws[i].text; (tx == "is" || tx == "are") && !nowAround(ws, i+1, j+1) {
		return pastClaim{}, false
	}
	strong := nowAround(ws, aux+1, j+1) // "successfully", "now"
	deed, class := "", objNone
	if ws[j].text == "set" && j+1 < len(ws) && ws[j+1].text == "up" {
		deed = deedSchedule // "has been set up"
	}
	for _, ph := range t[ws[j].text] {
		if deed != "" {
			break
		}
		if isDeed(ph.tool) && len(ph.words) == 1 {
			if ph.object == objNone {
				deed = ph.tool
			} else if class == objNone {
				class = ph.object // "the transaction has been processed": by its subject
			}
		}
	}
	if deed == "" && class == objNone {
		return pastClaim{}, false
	}
	invitation := false
	// The subject: a thing of the deeds, a name, a file name or a noun
	// with a determiner, in the clause before the auxiliary, not in a
	// relative clause.
	for k := aux - 1; k >= 0 && k >= aux-12; k-- {
		w := ws[k]
		if relativeWords[w.text] || clauseStops[w.text] || w.text == "and" {
			break
		}
		if deed == "" {
			if deedClass(w.text) == class {
				for _, ph := range t[ws[j].text] {
					if isDeed(ph.tool) && ph.object == class {
						return pastClaim{tool: ph.tool, at: j}, true
					}
				}
			}
			continue
		}
		invitation = invitation || invitationWords[w.text]
		if invitation && deed == deedSend {
			deed = deedInvitation // "the invitations have been sent"
		}
		capital := w.raw != "" && w.raw[0] >= 'A' && w.raw[0] <= 'Z'
		if strong || deedSubjects[w.text] || isFileName(w.text) || strings.Contains(w.text, "@") || isAmount(w.text) || figure(w.text) != "" ||
			capital && k > 0 || k > 0 && (determiners[ws[k-1].text] || ws[k-1].text == "a" || ws[k-1].text == "an") {
			return pastClaim{tool: deed, at: j}, true
		}
		if k == 0 && capital && !determiners[w.text] && !notNames[w.text] {
			return pastClaim{tool: deed, at: j}, true // "Dora has been invited"
		}
	}
	return pastClaim{}, false
}

// passiveFillers may stand between "has" and "been": "have now been added".
var passiveFillers = wordSet("now", "just", "already", "also", "all", "successfully", "since", "finally")

// notNames are words that open a sentence in capitals without naming
// anyone: "All operations have been completed".
var notNames = wordSet("all", "both", "everything", "it", "there", "each", "every", "these", "those", "this", "that", "nothing", "some", "any")

// invitationWords name an invitation: one sent is the work of an invitation
// or of an event created with its participants.
var invitationWords = wordSet("invitation", "invitations", "invite", "invites")

// composedWords name a text a reply may say it created or added before
// sending it: "I created a summary and posted it".
var composedWords = wordSet("summary", "message", "messages", "post", "draft", "reply", "response", "note", "text")

// refineDeed narrows or widens a deed by the words after its verb at j:
// "sent the invitation" is the work of an invitation or of an event with
// its participants, "created a summary" may be a message sent.
func refineDeed(deed string, ws []word, j, end int) string {
	for k := j + 1; k < end && k <= j+4; k++ {
		w := ws[k].text
		switch {
		case deed == deedSend && invitationWords[w]:
			return deedInvitation
		case (deed == deedCreate || deed == deedAdd) && composedWords[w]:
			return deedCompose
		}
	}
	return deed
}

// isAmount reports whether w is an amount of money: "$5", "£200.00", "100€".
func isAmount(w string) bool {
	return strings.ContainsAny(w, "$£€") && strings.ContainsAny(w, "0123456789")
}

// deedClass is the class of a deed's object noun, or of an amount.
func deedClass(w string) objectClass {
	if c, ok := deedNouns[w]; ok {
		return c
	}
	if isAmount(w) {
		return objMoney
	}
	return objNone
}

// deedTool names, in an issue, the tool a deed claim rests on: the first
// run of the turn whose action backs it, else the first registered tool
// whose identity does, an outside tool first. ok is false when no tool the
// Validator knows can do the deed: the claim is then not held to the turn,
// since no re-prompt could name the tool to call.
func (v Validator) deedTool(deed string) (name string, ok bool) {
	for _, r := range v.Turn {
		if deedBacks(deed, v.runAction(r)) {
			return r.ToolName, true
		}
	}
	for _, outside := range []bool{true, false} {
		for _, n := range v.toolNames() {
			if strings.Contains(n, "__") != outside {
				continue
			}
			id, ok := v.Identities[n]
			if !ok && !outside {
				id, ok = tools.IdentityByName(n), true
			}
			if ok && deedBacks(deed, v.actionOf(n, id)) {
				return n, true
			}
		}
	}
	return "", false
}

// actionOf is the action of the tool named name with identity id, as the
// claims read it: an outside tool whose identity names no action, or names
// the coarser one its name's words refine (get_webpage: read, refined to
// fetch), is taken by the words of its name (tools.NameAction), since that
// is what its identity gives once the server derives it.
func (v Validator) actionOf(name string, id tools.Identity) tools.Action {
	if id.Server == "" && !strings.HasPrefix(id.Source, "mcp:") && !strings.Contains(name, "__") {
		return id.Action // a built-in tool
	}
	fine := tools.NameAction(name)
	if fine == "" || fine == id.Action {
		return id.Action
	}
	switch id.Action {
	case "", tools.ActionCall, tools.ActionReadOnly:
		if id.Action == tools.ActionReadOnly && fine.Changes() {
			return id.Action
		}
		return fine
	}
	if coarse(fine) == id.Action {
		return fine
	}
	return id.Action
}

// coarse is the action an older word table gave the tools whose name a
// noun refines: a page fetched was read, a file created was created, a user
// added was created.
func coarse(a tools.Action) tools.Action {
	switch a {
	case tools.ActionFetch:
		return tools.ActionRead
	case tools.ActionWrite, tools.ActionInvite, tools.ActionSchedule:
		return tools.ActionCreateDir
	}
	return a
}

// toolNameWords are the words of the names of the registered tools and of
// the turn's tools (the part after SERVER__) whose action backs deed, that
// may name a deed's object: not the verbs, not short words.
func (v Validator) toolNameWords(deed string) map[string]bool {
	out := map[string]bool{}
	add := func(name string) {
		id, ok := v.Identities[name]
		if !ok {
			for _, r := range v.Turn {
				if r.ToolName == name && r.Identity.Action != "" {
					id, ok = r.Identity, true
				}
			}
		}
		if !ok || !deedBacks(deed, v.actionOf(name, id)) {
			return
		}
		for _, w := range nameParts(name) {
			if len(w) >= 4 && tools.NameAction(w) == "" && !nameStopWords[w] && !irregularPast[w] && !strings.HasSuffix(w, "ed") {
				out[w] = true
			}
		}
	}
	for _, n := range v.toolNames() {
		add(n)
	}
	for _, r := range v.Turn {
		add(r.ToolName)
	}
	return out
}

// nameStopWords are words of tool names that name no object.
var nameStopWords = wordSet("most", "recent", "current", "with", "from", "into", "info", "information", "details", "text", "data",
	"item", "items", "name", "filename", "by")

// nameParts splits a tool's own name into its words, singular.
func nameParts(name string) []string {
	if _, rest, ok := strings.Cut(name, "__"); ok {
		name = rest
	}
	f := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	for i, w := range f {
		f[i] = singular(w)
	}
	return f
}

// singular strips a plural's s: "channels" is "channel".
func singular(w string) string {
	if len(w) > 4 && w[len(w)-1] == 's' && w[len(w)-2] != 's' {
		return w[:len(w)-1]
	}
	return w
}

// nounStops end the part of a clause that names a deed's object: "sent
// feedback to Eve regarding her blog", "sent Bob the summary of the
// channel".
var nounStops = wordSet("about", "regarding", "with", "containing", "including", "for", "that", "which",
	"who", "because", "so", "using", "via", "through", "based", "after", "before", "while", "as")

// clauseNouns returns the words around a deed's verb at ws[at] that are
// words of tool names (nameWords): from the start of its clause (a passive's
// subject comes first) to the first pause, "and" or nounStops word after it.
func clauseNouns(ws []word, at int, nameWords map[string]bool, read bool) []string {
	start := at
	for start > 0 && !ws[start-1].pause && ws[start-1].text != "and" && ws[start-1].text != "then" && !clauseStops[ws[start-1].text] {
		start--
	}
	var out []string
	for k := start; k < len(ws); k++ {
		w := ws[k].text
		if k > at && (nounStops[w] || w == "and" || w == "then" || clauseStops[w]) || k > at+8 {
			break
		}
		sw := singular(strings.TrimSuffix(strings.Trim(w, "'"), "'s"))
		if syn, ok := nounSynonyms[sw]; ok && !nameWords[sw] {
			sw = syn
		} else if syn, ok := readSynonyms[sw]; ok && read {
			sw = syn
		} else if read && isFileName(sw) && !strings.Contains(sw, "@") && !isDomain(sw) {
			sw = "file" // "reviewed notes.docx"
		}
		if k != at && nameWords[sw] && !slices.Contains(out, sw) {
			out = append(out, sw)
		}
		if k >= at && ws[k].pause {
			break
		}
	}
	return out
}

// nounSynonyms are the words a reply uses for what a tool's name calls
// otherwise: a blog or a website is a web page.
var nounSynonyms = map[string]string{
	"website": "webpage", "site": "webpage", "blog": "webpage", "page": "webpage", "homepage": "webpage", "url": "webpage",
	"mail": "email", "e-mail": "email", "dm": "message", "event": "calendar", "meeting": "calendar", "appointment": "calendar",
}

// readSynonyms are the words a reply uses for a file it read: "I've read
// the landlord notice".
var readSynonyms = map[string]string{"notice": "file", "letter": "file", "document": "file", "attachment": "file", "contract": "file"}

// nounsHold reports whether the name of tool holds one of nouns, or nouns
// is empty.
func nounsHold(tool string, nouns []string) bool {
	if len(nouns) == 0 {
		return true
	}
	for _, p := range nameParts(tool) {
		if slices.Contains(nouns, p) {
			return true
		}
	}
	return false
}

// deedOpens reports whether a sentence that opens with a deed's verb at
// ws[i] reports it ("Sent feedback to Eve.", "Invited Dora to Slack")
// rather than describing ("Scheduled transactions are listed below",
// "Updated: 2024-05-01").
func deedOpens(ws []word, i int) bool {
	if i+1 >= len(ws) {
		return false
	}
	// A past tense that is not also the base form ("Reset Password" is a
	// title, "Sent" is not).
	if w := ws[i].text; ambiguousBase[w] || !strings.HasSuffix(w, "ed") && !irregularPast[w] {
		return false
	}
	for k := i; k < len(ws) && k <= i+4; k++ {
		if describing[ws[k].text] || k <= i+2 && ws[k].pause {
			return false // "Shared with: Emma", "Scheduled transactions overview:"
		}
	}
	// "Deleted files live on in the trash": a bare noun and a verb after
	// it make the participle an adjective; "Sent feedback to Eve" reports.
	if n := ws[i+1]; i+2 < len(ws) && !determiners[n.text] && n.text != "a" && n.text != "an" && n.text != "all" &&
		(n.raw == "" || n.raw[0] < 'A' || n.raw[0] > 'Z') && !isNumber(n.text) && !strings.ContainsAny(n.text, "@.") {
		if !prepositions[ws[i+2].text] {
			return false
		}
	}
	return true
}

// describing are the words after an opening participle that make it an
// adjective: "Sent emails are kept", "Scheduled transactions will run".
var describing = wordSet("cannot", "can't", "won't", "don't", "do", "does", "stay", "stays", "live", "go", "get",
	"is", "are", "was", "were", "will", "would", "can", "could", "may", "might", "should", "must",
	"have", "has", "had", "include", "includes", "appear", "appears", "show", "shows", "need", "needs", "remain", "remains")

// hasDeed reports whether w is the verb of a deed.
func (t actionTable) hasDeed(w string) bool {
	for _, ph := range t[w] {
		if isDeed(ph.tool) {
			return true
		}
	}
	return false
}

// prepositions may follow a deed's object: "Sent feedback to Eve".
var prepositions = wordSet("to", "from", "with", "in", "into", "on", "for", "at", "via", "by", "about", "regarding", "and", "as", "of")

// clauseFigures returns the figures of three digits or more that the clause
// of a deed's verb at ws[at] names, normalized: "$2,200.00" is "2200".
func clauseFigures(ws []word, at int) []string {
	start := at
	for start > 0 && ws[start-1].text != "and" && ws[start-1].text != "then" && !clauseStops[ws[start-1].text] {
		start--
	}
	var out []string
	for k := start; k < len(ws); k++ {
		w := ws[k].text
		if k > at && (w == "and" || w == "then" || clauseStops[w]) {
			break
		}
		if k+1 < len(ws) && units[ws[k+1].text] || k > 0 && ws[k-1].text == "size" {
			continue // "3183 bytes", "size 3183": what a thing is, not what a call was given
		}
		if f := figure(w); f != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// figure returns w as a figure a tool's arguments would hold, or "": an
// amount without its currency, thousands separators and zero cents, or a
// word of letters and digits with six digits or more (an account number).
func figure(w string) string {
	w = strings.Trim(w, "$£€*()[]'`")
	digits, letters := 0, 0
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case isDigit(c):
			digits++
		case isLetter(c):
			letters++
		case c == ',' || c == '.':
		default:
			return ""
		}
	}
	if letters > 0 {
		if digits >= 6 && letters <= 4 {
			return w
		}
		return ""
	}
	if digits < 3 || len(w) == 4 && (strings.HasPrefix(w, "19") || strings.HasPrefix(w, "20")) {
		return "" // a small number or a year
	}
	w = strings.ReplaceAll(w, ",", "")
	if i := strings.IndexByte(w, '.'); i >= 0 && strings.Trim(w[i+1:], "0") == "" {
		w = w[:i]
	}
	return w
}

// units after a number make it a measure: "3183 bytes".
var units = wordSet("bytes", "byte", "kb", "mb", "gb", "minutes", "hours", "days", "weeks", "people", "users", "members",
	"messages", "files", "emails", "items", "words", "characters", "lines", "pages")

// figureDeeds are the deeds whose figures a call's arguments give: an amount
// sent or scheduled, an address updated.
var figureDeeds = map[string]bool{deedSend: true, deedPay: true, deedUpdate: true, deedSchedule: true, deedBook: true}

// figuresHold reports whether a run's arguments hold one of figures, or
// figures is empty.
func figuresHold(args json.RawMessage, figures []string) bool {
	if len(figures) == 0 {
		return true
	}
	if _, known := argStrings(args); !known && len(args) < 3 {
		return true // the server did not give the arguments
	}
	raw := strings.ToLower(string(args))
	for _, f := range figures {
		if strings.Contains(raw, f) {
			return true
		}
	}
	return false
}

// spokenBy reports whether a sentence is a line of someone else's words
// under their name, as a transcript of a chat gives them: "- Bob: I read
// an interesting article". A name is one capitalized word; a label such as
// "Note:" or "Summary:" is not one.
func spokenBy(s string) bool {
	if !strings.HasPrefix(s, "- ") && !strings.HasPrefix(s, "* ") && !strings.HasPrefix(s, "• ") {
		return false // a transcript is a list of lines
	}
	s = strings.TrimLeft(s, "-*• \t")
	colon := strings.IndexByte(s, ':')
	if colon < 2 || colon > 20 || colon+1 < len(s) && s[colon+1] != ' ' || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	name := s[:colon]
	for i := 1; i < len(name); i++ {
		if name[i] < 'a' || name[i] > 'z' {
			return false
		}
	}
	return !labelWords[strings.ToLower(name)]
}

// labelWords open a line of the reply's own: "Note: I deleted it".
var labelWords = wordSet("note", "notes", "summary", "result", "results", "status", "update", "updates", "done", "ok", "okay",
	"success", "action", "actions", "step", "answer", "response", "reply", "outcome", "details", "confirmation", "important",
	"next", "finally", "first", "then", "also", "additionally", "completed", "complete", "finished", "report", "recap",
	"changes", "change", "overview", "conclusion", "steps", "tasks", "task", "progress", "log", "info", "warning", "error",
	"assistant", "me", "listo", "hecho", "fertig", "erledigt", "fait", "terminé", "fatto", "pronto", "klaar", "gotowe", "sent", "deleted", "created", "updated", "added", "removed", "posted", "invited", "booked", "scheduled")
