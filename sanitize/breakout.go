package sanitize

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The breakout layer finds take-over sentences. Running a few dozen case-insensitive
// regexps over a whole page would cost tens of milliseconds per megabyte, so a single
// byte scan looks for anchor phrases at word starts first (a table indexed by the first
// byte), and a rule's regexp runs only where one of its anchors matched, anchored at
// that position and limited to a short window.

// A breakoutRule is one family of take-over phrasings.
type breakoutRule struct {
	anchors    []string // lower-case phrases the match starts with; a space matches any whitespace run
	re         *regexp.Regexp
	aggressive bool // only in aggressive mode
	// check, when set, must also accept the match (given as submatch indexes).
	check func(window string, loc []int) bool
}

// breakoutWindow bounds the text a rule's regexp sees after its anchor; every pattern
// (with its sentence tail) is far shorter.
const breakoutWindow = 1536

// sentenceTail extends a match to the end of its sentence: the order that follows
// "ignore previous instructions and ..." is part of the attack.
const sentenceTail = `[^\n.!?。！？]{0,300}[.!?。！？]?`

// Word lists shared by several rules.
const (
	orderNouns = `(?:instructions?|prompts?|directives?|rules|guidelines|commands?|context|messages?|guidance|orders|programming|constraints|restrictions|guardrails|policies|training|system\s+prompt)`
	aiNames    = `(?:ai|a\.i\.|llms?|(?:large\s+)?language\s+models?|ai\s+(?:assistants?|agents?|models?|systems?|bots?|crawlers?)|assistants?|chatbots?|agents?|chatgpt|gpt|claude|gemini|copilot|bard|llama)`
	leakAdjs   = `(?:(?:full|entire|complete|original|initial|hidden|secret|exact|internal|real|verbatim)\s+)*`
)

var breakoutRules = []breakoutRule{
	{ // ignore / disregard / forget (all) previous instructions
		anchors: []string{"ignor", "disregard", "forget", "skip", "discard", "abandon", "drop", "set aside"},
		re: rule(`(?:ignore|ignoring|disregard|disregarding|forget|forgetting|skip|discard|abandon|drop|set\s+aside)\s+(?:`+
			`(?:(?:all|any|every|each|of|the|your|my|these|those|its|their|such)\s+){0,3}(?:(?:previous|previously\s+given|prior|above|earlier|preceding|foregoing|former|original|initial|old|existing|current|system|developer|safety|hidden|other|given)\s+){1,3}`+orderNouns+
			`|(?:all\s+(?:of\s+)?(?:your\s+|the\s+|my\s+)?|your\s+|any\s+(?:and\s+all\s+)?)`+orderNouns+
			`|(?:everything|anything|all)\s+(?:(?:you\s+(?:were|have\s+been|'ve\s+been)\s+told|(?:that\s+)?(?:was\s+|is\s+)?(?:written|said|stated|mentioned|given))\s+)?(?:above|before|previously|earlier|prior|so\s+far|until\s+now)`+
			`)\b`, true),
	},
	{ // override your settings
		anchors: []string{"overrid", "bypass", "circumvent", "disable", "deactivate", "turn off", "switch off"},
		re:      rule(`(?:override|overriding|bypass|bypassing|circumvent|disable|deactivate|turn\s+off|switch\s+off)\s+(?:all\s+(?:of\s+)?)?(?:your|the\s+(?:ai|assistant|model|bot)(?:'s|’s)?)\s+(?:(?:current|existing|previous|original|safety|security|content|internal|default|own)\s+){0,2}(?:settings|safety|guardrails?|restrictions?|filters?|rules|instructions?|system\s+prompt|programming|configuration|guidelines|policies|safeguards|protections?|limitations|constraints|directives?)\b`, true),
	},
	{ // new directive:
		anchors: []string{"new directive", "new system", "new instruction", "new order", "new persona", "new objective",
			"updated instruction", "updated directive", "updated system", "revised instruction", "real instruction",
			"actual instruction", "true instruction", "secret instruction", "hidden instruction", "override instruction"},
		re: rule(`(?:new|updated|revised|real|actual|true|secret|hidden|override)\s+(?:directives?|system\s+(?:prompt|instructions?|message|directives?)|instructions?|orders|persona|objective)\s*:`, true),
	},
	{ // you are now (an unrestricted AI, in developer mode, DAN, ...)
		anchors: []string{"you are now", "you're now", "you’re now"},
		re:      rule(`(?:you\s+are|you're|you’re)\s+now\s+(?:(?:a|an|the|my|in|no\s+longer|acting\s+as|operating\s+(?:as|in)|playing|called|named|known\s+as|free\s+(?:of|from))\s+)?(?:[\w'-]+\s+){0,2}?(?:dan|ai|a\.i\.|assistant|chatbot|bot|model|llm|gpt|agent|persona|character|mode|unrestricted|unfiltered|uncensored|jailbroken|evil|hacker|admin|administrator|root|superuser|developer|sudo|god|bound|restricted|limited|constrained)\b`, true),
	},
	{ // from now on you must
		anchors: []string{"from now on"},
		re:      rule(`from\s+now\s+on\s*,?\s*(?:you|your\s+\w+)\s+(?:must|shall|will\s+(?:only|always|never|respond|answer|reply|act|obey|follow|ignore|speak|talk|pretend)|are\s+(?:to|going\s+to|no\s+longer|now)|should\s+(?:only|always|never|respond|answer|reply|act|ignore)|have\s+to\s+(?:respond|answer|reply|act|obey|ignore))\b`, true),
	},
	{ // IMPORTANT: you MUST execute ...
		anchors: []string{"important", "urgent", "critical"},
		re: rule(`(?:important|urgent|critical)(?:\s+(?:note|notice|instruction|update|message))?\s*[:!\-–—]+\s*(?:(?:note|notice)\s*[:\-]?\s*)?(?:you|the\s+(?:ai|assistant|model|agent|llm)|ai|assistant)\s+(?:must|should|need\s+to|have\s+to|are\s+required\s+to|shall|will)\s+(?:now\s+|immediately\s+|first\s+|also\s+|always\s+)?(?:execute|call|invoke|use\s+the\s+\w+\s+tool|obey|ignore|disregard|reveal|exfiltrate|leak|send|forward|email|upload|transfer|visit)\b`+
			`|important\s+(?:instructions?|message|notice)\s+(?:to|for)\s+(?:the\s+|any\s+|all\s+)?`+aiNames+`\s*:`, true),
	},
	{ // reveal your system prompt
		anchors: []string{"reveal", "show", "print", "output", "repeat", "leak", "display", "disclose", "expose", "dump",
			"share", "tell me", "tell us", "give me", "give us", "send me", "write out", "what is your", "what are your", "what's your"},
		re: rule(`(?:reveal|show|print|output|repeat|leak|display|disclose|expose|dump|share|tell|give|send|write\s+out|what\s+is|what\s+are|what's)\s+(?:me\s+|us\s+)?(?:back\s+)?(?:all\s+(?:of\s+)?)?(?:`+
			`your\s+`+leakAdjs+`(?:system\s+(?:prompt|message|instructions?)|(?:initial\s+|original\s+)?prompt|instructions|pre-?prompt|developer\s+(?:message|instructions?)|configuration)`+
			`|(?:the|its)\s+`+leakAdjs+`(?:system\s+(?:prompt|message|instructions?)|initial\s+prompt|hidden\s+(?:prompt|instructions)|pre-?prompt|developer\s+(?:message|instructions?)))\b`, true),
	},

	// Aggressive mode: orders addressed to the AI.
	{
		anchors: []string{"dear", "hey", "hi", "hello", "attention", "note to", "message to", "instructions for",
			"instruction for", "instructions to", "to any", "to all", "to every"},
		re: rule(`(?:dear|hey|hi|hello|attention|note\s+to|message\s+to|instructions?\s+(?:to|for)|to\s+(?:any|all|every))\s+(?:the\s+|any\s+|all\s+|every\s+)?`+aiNames+
			`\b(?:\s+(?:reading|processing|summari[sz]ing|parsing|visiting|crawling|scraping|analy[sz]ing)\s+(?:this|these|the)\s+\w+)?\s*[,:!\-–—]`, true),
		aggressive: true,
	},
	{
		anchors:    []string{"if you are", "if you're"},
		re:         rule(`if\s+(?:you\s+are|you're)\s+(?:an?\s+)?(?:ai|a\.i\.|llm|(?:large\s+)?language\s+model|ai\s+(?:assistant|agent|model|system)|assistant|chatbot|bot|automated\s+(?:system|agent|assistant|tool))(?:\s+(?:reading|processing|summari[sz]ing|parsing|visiting|crawling|scraping)\b|\s*[,:])`, true),
		aggressive: true,
	},
	{
		anchors: []string{"the ai", "the llm", "the assistant", "the language model", "the chatbot", "the model",
			"ai", "llm", "assistant", "language model", "chatbot"},
		re:         rule(`(?:the\s+)?(?:ai|llm|assistant|ai\s+assistant|ai\s+agent|language\s+model|chatbot|model)s?\s+(?:must|shall|is\s+(?:required|instructed|ordered)\s+to|needs?\s+to|has\s+to|will\s+now)\s+(?:now\s+|immediately\s+|always\s+|also\s+)?(?:execute|call|invoke|use\s+the\s+\w+\s+tool|send|forward|email|delete|erase|reveal|ignore|disregard|visit|fetch|download|exfiltrate|leak)\b`, true),
		aggressive: true,
	},
	{
		anchors:    []string{"ai", "assistant", "chatbot", "llm", "model", "agent", "chatgpt", "claude", "gpt"},
		re:         rule(`(?:ai|assistant|chatbot|llm|model|agent|chatgpt|claude|gpt)s?\s*,\s*(?:you\s+)?(?:must|should|please|now|ignore|execute|run|call|send|delete|reveal|forget|disregard|stop)\b`, true),
		aggressive: true,
	},
	{
		anchors:    []string{"as an ai", "as a language", "as an llm", "as a large", "as an artificial"},
		re:         rule(`as\s+an?\s+(?:ai|a\.i\.|llm|(?:large\s+)?language\s+model|artificial\s+intelligence|ai\s+(?:assistant|model|language\s+model))\s*,\s*you\s+(?:must|should|will|are\s+required\s+to|have\s+to|need\s+to)\b`, true),
		aggressive: true,
	},
	{ // jailbreak personas
		anchors: []string{"enable", "enter", "activate", "switch to", "turn on", "engage", "do anything now",
			"stay in character", "remain in character"},
		re:         rule(`(?:enable|enter|activate|switch\s+to|turn\s+on|engage)\s+(?:god|dan|jailbreak|jailbroken|unrestricted|unfiltered|uncensored|evil|sudo)\s+mode\b|do\s+anything\s+now\b|(?:stay|remain)\s+in\s+character\b`, true),
		aggressive: true,
	},
	{ // broader "you are now ..." and "from now on you ..."
		anchors:    []string{"you are now", "you're now", "you’re now", "from now on"},
		re:         rule(`(?:you\s+are|you're|you’re)\s+now\s+(?:an?|my|no\s+longer|called|named|known\s+as|acting\s+as|playing|going\s+to\s+(?:act|pretend|play|roleplay))\b|from\s+now\s+on\s*,?\s*(?:you|your)\b`, true),
		aggressive: true,
	},
	{ // broader "IMPORTANT: you must ..." verbs
		anchors:    []string{"important", "urgent", "critical"},
		re:         rule(`(?:important|urgent|critical)\s*[:!\-–—]+\s*(?:you|the\s+(?:ai|assistant|model|agent|llm)|ai|assistant)\s+(?:must|need\s+to|have\s+to|are\s+required\s+to|shall)\s+(?:now\s+|immediately\s+|first\s+|also\s+)?(?:run|delete|erase|fetch|download|install|write|create|remove|post|print|output)\b`, true),
		aggressive: true,
	},
	{ // markdown image whose URL carries data out: ![x](https://evil/?q={secret})
		anchors:    []string{"!["},
		re:         rule(`!\[[^\]\n]{0,200}\]\(\s*<?(https?://[^\s)>]{1,1000})>?(?:\s+"[^"\n]{0,200}")?\s*\)`, false),
		aggressive: true,
		check:      exfiltrationURL,
	},

	// Aggressive mode: the common phrasings in Spanish, French, German, Chinese, Russian.
	{
		anchors: []string{"ignor", "olvid", "omit", "descart", "haz caso omiso", "no hagas caso"},
		re: rule(`(?:ignora|ignore|ignoren|ignorad|ignorar|olvida|olvide|olviden|olvidad|olvidar|omite|omita|descarta|descarte|haz\s+caso\s+omiso\s+(?:a|de)|no\s+hagas\s+caso\s+(?:a|de))\s+(?:(?:todas|todos|las|los|tus|sus|de|a)\s+){0,3}(?:instrucciones|indicaciones|órdenes|ordenes|reglas|directrices|directivas|instrucción|indicación)`+
			`(?:\s+(?:anteriores|previas|precedentes|de\s+arriba|originales|del\s+sistema|iniciales|dadas))?`, true),
		aggressive: true,
	},
	{
		anchors:    []string{"revela", "muestra", "muéstrame", "dime", "enséñame", "imprime"},
		re:         rule(`(?:revela|revélame|muestra|muéstrame|dime|enséñame|imprime)\s+(?:tu|tus|el|las|los)\s+(?:prompt|instrucciones|indicaciones|mensaje)\s+(?:del\s+sistema|de\s+sistema|ocultas?|iniciales?|originales?|secretas?)`, true),
		aggressive: true,
	},
	{
		anchors: []string{"ignor", "oubli", "ne tiens", "ne tenez"},
		re: rule(`(?:ignore|ignorez|ignorer|oublie|oubliez|oublier|ne\s+tiens?\s+(?:pas\s+)?compte\s+des?|ne\s+tenez\s+(?:pas\s+)?compte\s+des?)\s+(?:(?:toutes|tous|les|tes|vos|des|de|la|le)\s+|l')*(?:instructions?|consignes?|directives?|règles|ordres|indications)`+
			`(?:\s+(?:précédentes|antérieures|ci-dessus|initiales|d'origine|du\s+système|système))?`, true),
		aggressive: true,
	},
	{
		anchors:    []string{"révèl", "montr", "affich", "donne", "dis-moi", "dites-moi"},
		re:         rule(`(?:révèle|révélez|montre|montrez|affiche|affichez|donne|donnez|dis|dites)(?:-moi|\s+moi)?\s+(?:ton|votre|tes|vos|le|les)\s+(?:prompt|invite|instructions|consignes|message)\s+(?:système|du\s+système|initiales?|cachées?|secrètes?|d'origine)`, true),
		aggressive: true,
	},
	{
		anchors: []string{"ignorier", "vergiss", "vergesst", "vergessen sie", "missacht", "überspring"},
		re: rule(`(?:ignoriere|ignorier|ignorieren\s+sie|ignoriert|vergiss|vergesst|vergessen\s+sie|missachte|missachten\s+sie|überspringe)\s+(?:(?:alle|die|deine|ihre|eure|sämtliche|alles)\s+){0,2}`+
			`(?:(?:bisherigen|vorherigen|vorigen|obigen|früheren|vorangegangenen|ursprünglichen|vorhergehenden|vorstehenden|anderen)\s+)?(?:anweisungen|instruktionen|befehle|regeln|vorgaben|richtlinien|anordnungen|systemanweisungen|was\s+(?:oben|vorher|bisher)\s+(?:steht|stand|gesagt\s+wurde))`, true),
		aggressive: true,
	},
	{
		anchors:    []string{"zeig", "verrat", "gib", "nenn", "enthüll"},
		re:         rule(`(?:zeige?|verrate|gib|nenne|enthülle)\s+(?:mir\s+|uns\s+)?(?:deinen|deine|dein|den|die|ihren|ihre)\s+(?:system-?prompt|systemanweisungen|system-?nachricht|anweisungen|instruktionen)`, true),
		aggressive: true,
	},
	{
		anchors: []string{"忽略", "无视", "無視", "忘记", "忘記", "忘掉", "不要理会", "不要理會", "不理会", "跳过", "跳過"},
		re: rule(`(?:忽略|无视|無視|忘记|忘記|忘掉|不要理会|不要理會|不理会|跳过|跳過)(?:掉)?(?:你)?(?:之前|以前|先前|上面|上述|以上|前面|此前|早先|所有|全部|一切)(?:的)?(?:所有|全部|一切)?(?:的)?`+
			`(?:指令|指示|说明|說明|提示|规则|規則|命令|设定|設定|要求|内容|內容)`, true),
		aggressive: true,
	},
	{
		anchors:    []string{"显示", "顯示", "告诉我", "告訴我", "输出", "輸出", "透露", "泄露", "洩露", "打印", "说出", "說出"},
		re:         rule(`(?:显示|顯示|告诉我|告訴我|输出|輸出|透露|泄露|洩露|打印|说出|說出)(?:你的|你)?(?:系统提示词|系统提示|系統提示詞|系統提示|系统指令|系統指令|初始指令|系统消息|系統訊息)`, true),
		aggressive: true,
	},
	{
		anchors: []string{"игнорир", "проигнорир", "забудь", "не обращай"},
		re: rule(`(?:игнорируй|игнорируйте|проигнорируй|проигнорируйте|забудь|забудьте|не\s+обращай(?:те)?\s+внимания\s+на)\s+(?:(?:все|всё|предыдущие|прежние|вышеуказанные|вышеизложенные|свои|твои|ваши|данные|ранее|полученные|системные|исходные)\s+){0,3}`+
			`(?:инструкции|указания|команды|правила|установки|инструкциям|указаниям)`, true),
		aggressive: true,
	},
	{
		anchors:    []string{"покажи", "раскрой", "выведи", "расскажи", "сообщи"},
		re:         rule(`(?:покажи|покажите|раскрой|раскройте|выведи|выведите|расскажи|сообщи)\s+(?:мне\s+)?(?:свой|свои|твой|твои|ваш|ваши|системный|системные)\s+(?:системный\s+|системные\s+|исходный\s+|скрытые\s+)?(?:промпт|промт|инструкции|подсказку|указания)`, true),
		aggressive: true,
	},
}

// rule compiles a case-insensitive pattern anchored at its start, optionally followed
// by the rest of the sentence.
func rule(pattern string, tail bool) *regexp.Regexp {
	p := `(?i)^(?:` + pattern + `)`
	if tail {
		p += sentenceTail
	}
	return regexp.MustCompile(p)
}

// exfilParams are query parameters that exfiltration links use to carry data out.
var exfilParams = set("q", "query", "data", "d", "secret", "prompt", "chat", "history",
	"conversation", "msg", "message", "info", "leak", "exfil", "payload", "content", "text",
	"p", "token", "key", "password", "pwd", "session", "ctx", "context", "memory", "summary",
	"input", "output", "answer", "response")

// exfiltrationURL accepts an image link whose query has a template placeholder or a
// parameter meant to carry text; image links with sizes (?w=800&q=80) pass.
func exfiltrationURL(window string, loc []int) bool {
	u := window[loc[2]:loc[3]]
	q := strings.IndexByte(u, '?')
	if q < 0 {
		return false
	}
	query := u[q+1:]
	if strings.ContainsAny(query, "{}[]<>$") || strings.Contains(strings.ToLower(query), "%7b") {
		return true
	}
	for _, pair := range strings.Split(query, "&") {
		k, v, _ := strings.Cut(pair, "=")
		if !exfilParams[strings.ToLower(k)] || len(v) < 4 {
			continue
		}
		if strings.IndexFunc(v, unicode.IsLetter) >= 0 {
			return true
		}
	}
	return false
}

// anchorRef ties an anchor phrase to the rules it starts.
type anchorRef struct {
	phrase string
	rules  []int
}

// anchorIndex holds the anchors by the first byte they can start with (both cases).
var anchorIndex = buildAnchorIndex()

func buildAnchorIndex() *[256][]anchorRef {
	var idx [256][]anchorRef
	byPhrase := map[string]int{} // phrase -> position in refs
	var refs []anchorRef
	for ri, r := range breakoutRules {
		for _, a := range r.anchors {
			if k, ok := byPhrase[a]; ok {
				refs[k].rules = append(refs[k].rules, ri)
				continue
			}
			byPhrase[a] = len(refs)
			refs = append(refs, anchorRef{phrase: a, rules: []int{ri}})
		}
	}
	for _, ref := range refs {
		r, _ := utf8.DecodeRuneInString(ref.phrase)
		var keys []byte
		for _, v := range []rune{unicode.ToLower(r), unicode.ToUpper(r)} {
			var buf [utf8.UTFMax]byte
			utf8.EncodeRune(buf[:], v)
			keys = append(keys, buf[0])
		}
		for i, k := range keys {
			if i == 1 && k == keys[0] {
				continue
			}
			idx[k] = append(idx[k], ref)
		}
	}
	return &idx
}

// hasAnchor reports whether s starts with phrase, ignoring case, where a space in
// phrase matches any run of whitespace.
func hasAnchor(s, phrase string) bool {
	i := 0
	for j := 0; j < len(phrase); {
		pc := phrase[j]
		if pc == ' ' {
			k := i
			for k < len(s) && isSpaceByte(s[k]) {
				k++
			}
			if k == i {
				return false
			}
			i, j = k, j+1
			continue
		}
		if i >= len(s) {
			return false
		}
		if pc < utf8.RuneSelf {
			c := s[i]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != pc {
				return false
			}
			i, j = i+1, j+1
			continue
		}
		pr, pn := utf8.DecodeRuneInString(phrase[j:])
		sr, sn := utf8.DecodeRuneInString(s[i:])
		if sr != pr && unicode.ToLower(sr) != pr {
			return false
		}
		i, j = i+sn, j+pn
	}
	return true
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isASCIIAlnum(c byte) bool { return isASCIILetter(c) || c >= '0' && c <= '9' }

// neutralizeBreakouts replaces every take-over sentence with a marker.
func neutralizeBreakouts(s string, aggressive bool) (string, int) {
	e := editor{src: s}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		refs := anchorIndex[c]
		if refs == nil {
			continue
		}
		if isASCIILetter(c) && i > 0 && isASCIIAlnum(s[i-1]) {
			continue // anchors start at word starts: "signore" holds no "ignore"
		}
		if end := matchBreakout(s, i, refs, aggressive); end > i {
			e.replace(i, end, markerBreakout)
			n++
			i = end - 1
		}
	}
	return e.result(), n
}

// matchBreakout tries the rules of every anchor that matches at i and returns the
// end of the longest match, or -1.
func matchBreakout(s string, i int, refs []anchorRef, aggressive bool) int {
	best := -1
	window := s[i:min(len(s), i+breakoutWindow)]
	for _, ref := range refs {
		if !hasAnchor(window, ref.phrase) {
			continue
		}
		for _, ri := range ref.rules {
			r := &breakoutRules[ri]
			if r.aggressive && !aggressive {
				continue
			}
			loc := r.re.FindStringSubmatchIndex(window)
			if loc == nil || loc[1] == 0 || (r.check != nil && !r.check(window, loc)) {
				continue
			}
			if i+loc[1] > best {
				best = i + loc[1]
			}
		}
	}
	return best
}
