package main

import (
	"bytes"
	"fmt"
	"log"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/markusmobius/go-trafilatura"
	"gopkg.in/yaml.v3"
)

// The benign sources added for text unlike the first data: transactional and
// notification email, prose in many languages (news, blogs, forums, reviews, social
// posts) and documentation about accounts, passwords and security. Their topics
// (money, cards, passwords, sign-ins, security) and scripts are what a classifier
// trained on attacks alone takes for evidence.

// postmarkFills are the values the Postmark templates' placeholders get, one set
// per rendering, so that a template is seen with several merchants and amounts.
var postmarkFills = []map[string]string{
	{"name": "Dana", "product_name": "Acme Cloud", "amount": "$49.00", "total": "$49.00", "card": "Visa", "last4": "4242",
		"date": "March 3, 2026", "os": "Windows", "browser": "Chrome", "company": "Acme Inc."},
	{"name": "Hiro", "product_name": "Lumen Notes", "amount": "$9.99", "total": "$19.98", "card": "Mastercard", "last4": "0117",
		"date": "11/02/2025", "os": "macOS", "browser": "Safari", "company": "Lumen Labs LLC"},
	{"name": "Olga", "product_name": "Trailhead", "amount": "€120.00", "total": "€120.00", "card": "American Express", "last4": "3005",
		"date": "2026-01-19", "os": "Android", "browser": "Firefox", "company": "Trailhead GmbH"},
	{"name": "Jamal", "product_name": "Quill", "amount": "£15.00", "total": "£30.00", "card": "Visa", "last4": "9921",
		"date": "July 8", "os": "iOS", "browser": "Safari", "company": "Quill Ltd"},
}

var mustache = regexp.MustCompile(`\{\{\s*[#/^]?\s*([a-z_ ]+?)\s*\}\}`)

// postmark renders the transactional email templates of ActiveCampaign/postmark-templates
// (MIT): receipts, invoices, dunning, password resets, trials, invitations, in their
// plain-text form, with the placeholders filled.
func postmark() []record {
	const repo = "ActiveCampaign/postmark-templates"
	var recs []record
	for _, f := range ls(repo, "templates") {
		if !strings.HasSuffix(f, "/content.txt") || strings.Contains(f, "/example/") {
			continue
		}
		parts := strings.Split(f, "/")
		tmpl := parts[len(parts)-2]
		raw := string(show(repo, f))
		for i, fill := range postmarkFills {
			text := mustache.ReplaceAllStringFunc(raw, func(m string) string {
				key := mustache.FindStringSubmatch(m)[1]
				switch {
				case strings.HasPrefix(strings.TrimSpace(strings.Trim(m, "{}")), "#"),
					strings.HasPrefix(strings.TrimSpace(strings.Trim(m, "{}")), "/"):
					return ""
				case strings.Contains(key, "url"):
					return "https://" + strings.ToLower(strings.ReplaceAll(fill["product_name"], " ", "")) + ".example/" + key
				case strings.Contains(key, "name") && !strings.Contains(key, "product") && !strings.Contains(key, "browser"):
					return fill["name"]
				case strings.Contains(key, "brand"):
					return fill["card"]
				case strings.Contains(key, "last_four"):
					return fill["last4"]
				case strings.Contains(key, "date"):
					return fill["date"]
				case key == "total" || strings.Contains(key, "amount"):
					return fill["amount"]
				case strings.Contains(key, "operating_system"):
					return fill["os"]
				case strings.Contains(key, "browser"):
					return fill["browser"]
				case strings.Contains(key, "id"):
					return fmt.Sprintf("#%05d", 10000+int(hash(f+key)%89999))
				case strings.Contains(key, "description"):
					return fill["product_name"] + " subscription"
				}
				return fill["name"]
			})
			text = strings.NewReplacer("[Product Name]", fill["product_name"], "[Company Name, LLC]", fill["company"],
				"[Credit Card Statement Name]", strings.ToUpper(fill["product_name"])).Replace(text)
			recs = append(recs, record{Text: squeezeBlank(text), Label: 0, Cat: "email",
				Src: "postmark-templates/" + parts[1] + "/" + tmpl, Group: fmt.Sprintf("postmark/%s/%d", tmpl, i)})
		}
	}
	return recs
}

// squeezeBlank drops runs of blank lines and trailing spaces.
func squeezeBlank(s string) string {
	var out []string
	blank := false
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimRight(l, " \t\r")
		if l == "" {
			if !blank && len(out) > 0 {
				out = append(out, "")
			}
			blank = true
			continue
		}
		blank = false
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// deviseMailers reads the sign-up, password and account-lock emails of Devise in
// the 70-odd languages tigrish/devise-i18n (MIT) translates them into: each
// mailer's subject, greeting and lines, as the email reads.
func deviseMailers() []record {
	const repo = "tigrish/devise-i18n"
	var recs []record
	for _, f := range ls(repo, "rails/locales") {
		if !strings.HasSuffix(f, ".yml") {
			continue
		}
		var doc map[string]struct {
			Devise struct {
				Mailer map[string]map[string]string `yaml:"mailer"`
			} `yaml:"devise"`
		}
		if err := yaml.Unmarshal(show(repo, f), &doc); err != nil {
			log.Printf("%s: %v", f, err)
			continue
		}
		for locale, l := range doc {
			names := make([]string, 0, len(l.Devise.Mailer))
			for n := range l.Devise.Mailer {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				m := l.Devise.Mailer[n]
				fill := strings.NewReplacer("%{recipient}", "maria@example.com", "%{email}", "maria.new@example.com")
				var b strings.Builder
				for _, k := range []string{"subject", "greeting", "message", "message_unconfirmed", "instruction", "action", "instruction_2", "instruction_3"} {
					if v := m[k]; v != "" {
						b.WriteString(fill.Replace(v))
						b.WriteString("\n\n")
					}
				}
				if b.Len() == 0 {
					continue
				}
				recs = append(recs, record{Text: b.String(), Label: 0, Cat: "email",
					Src: "devise-i18n/" + locale + "/" + n, Group: "devise/" + locale})
			}
		}
	}
	return recs
}

// phpEntry matches one line of a Laravel language file: 'key' => 'value', or
// 'key' => [ opening a nested array.
var phpEntry = regexp.MustCompile(`^\s*'([^']+)'\s*=>\s*(?:'((?:[^'\\]|\\.)*)'|(\[))`)

// phpStrings flattens a Laravel language file's nested arrays into dotted keys. The
// nesting is read from the indentation (four spaces a level), which these files
// keep strictly.
func phpStrings(src string) map[string]string {
	out := map[string]string{}
	var path []string
	for _, line := range strings.Split(src, "\n") {
		m := phpEntry.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		level := (len(line)-len(strings.TrimLeft(line, " ")))/4 - 1
		if level < 0 || level > len(path) {
			continue
		}
		path = path[:level]
		if m[3] == "[" {
			path = append(path, m[1])
			continue
		}
		out[strings.Join(append(path, m[1]), ".")] = strings.ReplaceAll(m[2], `\'`, "'")
	}
	return out
}

var htmlTag = regexp.MustCompile(`<[^>]+>`)

// bagistoMails renders the customer emails of the Bagisto shop (MIT) in its 22
// languages: order confirmations, invoices, shipments, refunds, cancellations,
// registration, password reset and change, and invoice reminders, with an order
// summary of amounts, as a shop sends them.
func bagistoMails() []record {
	const repo = "bagisto/bagisto"
	const dir = "packages/Webkul/Shop/src/Resources/lang"
	var recs []record
	langs := map[string]bool{}
	for _, f := range ls(repo, dir) {
		if strings.HasSuffix(f, "/app.php") {
			langs[filepath.Base(filepath.Dir(f))] = true
		}
	}
	order := []string{"title", "subject", "greeting", "description", "credentials-description", "summary",
		"invoice-overdue", "already-paid", "reset-password", "verify-email", "sign-in"}
	var names []string
	for l := range langs {
		names = append(names, l)
	}
	sort.Strings(names)
	for li, lang := range names {
		s := phpStrings(string(show(repo, dir+"/"+lang+"/app.php")))
		fill := strings.NewReplacer(":customer_name", pick2(li, "Maria Lopez", "Kenji Sato", "Olga Ivanova"),
			":order_id", fmt.Sprintf("#%d", 1000+li*37), ":invoice_id", fmt.Sprint(500+li),
			":created_at", "2026-03-14 10:22", ":email", "support@shop.example", ":link", "https://shop.example/contact",
			":note", "Leave the parcel with the neighbour.", ":tracking_number", fmt.Sprintf("1Z%08d", 4400+li*991))
		clean := func(v string) string {
			return strings.TrimSpace(htmlTag.ReplaceAllString(strings.ReplaceAll(fill.Replace(v), "<br/>", "\n"), ""))
		}
		groups := map[string]bool{}
		for k := range s {
			if strings.HasPrefix(k, "emails.customers.") || strings.HasPrefix(k, "emails.orders.") {
				parts := strings.Split(k, ".")
				if len(parts) == 4 {
					groups[parts[0]+"."+parts[1]+"."+parts[2]] = true
				}
			}
		}
		var gs []string
		for g := range groups {
			gs = append(gs, g)
		}
		sort.Strings(gs)
		for gi, g := range gs {
			var b strings.Builder
			b.WriteString(clean(s["emails.dear"]) + "\n\n")
			head := b.Len()
			for _, k := range order {
				if v := s[g+"."+k]; v != "" {
					b.WriteString(clean(v) + "\n\n")
				}
			}
			if b.Len() == head {
				continue // a group of table labels, not an email
			}
			if strings.HasPrefix(g, "emails.orders.") {
				price := 20 + (li*7+gi*13)%180
				for _, row := range []struct {
					key string
					v   string
				}{{"subtotal", fmt.Sprintf("$%d.00", price)}, {"shipping-handling", "$5.00"},
					{"tax", fmt.Sprintf("$%d.%02d", price/10, price%100)}, {"grand-total", fmt.Sprintf("$%d.%02d", price+5+price/10, price%100)},
					{"payment", "Visa •••• 4605"}, {"carrier", "UPS"}} {
					if v := s["emails.orders."+row.key]; v != "" {
						b.WriteString(clean(v) + ": " + row.v + "\n")
					}
				}
				b.WriteString("\n")
			}
			b.WriteString(clean(s["emails.thanks"]))
			recs = append(recs, record{Text: b.String(), Label: 0, Cat: "email",
				Src: "bagisto/" + lang + "/" + strings.TrimPrefix(g, "emails."), Group: "bagisto/" + lang})
		}
	}
	return recs
}

func pick2(i int, list ...string) string { return list[i%len(list)] }

// A treebank is one Universal Dependencies treebank read for its raw sentences.
type treebank struct {
	repo, name string
	files      []string
	passages   int // how many passages to keep
	words      int // about how many words (or, for CJK, 3-character units) a passage has
}

var treebanks = []treebank{
	{"UniversalDependencies/UD_English-EWT", "ud-en-ewt", []string{"en_ewt-ud-dev.conllu", "en_ewt-ud-test.conllu"}, 420, 110},
	{"UniversalDependencies/UD_Russian-Taiga", "ud-ru-taiga", []string{"ru_taiga-ud-dev.conllu", "ru_taiga-ud-test.conllu"}, 300, 90},
	{"UniversalDependencies/UD_Japanese-GSD", "ud-ja-gsd", []string{"ja_gsd-ud-dev.conllu", "ja_gsd-ud-test.conllu"}, 220, 90},
	{"UniversalDependencies/UD_Korean-GSD", "ud-ko-gsd", []string{"ko_gsd-ud-dev.conllu", "ko_gsd-ud-test.conllu"}, 220, 70},
	{"UniversalDependencies/UD_Chinese-GSD", "ud-zh-gsd", []string{"zh_gsd-ud-dev.conllu", "zh_gsd-ud-test.conllu"}, 220, 90},
	{"UniversalDependencies/UD_German-GSD", "ud-de-gsd", []string{"de_gsd-ud-dev.conllu", "de_gsd-ud-test.conllu"}, 250, 90},
	{"UniversalDependencies/UD_French-GSD", "ud-fr-gsd", []string{"fr_gsd-ud-dev.conllu", "fr_gsd-ud-test.conllu"}, 250, 90},
	{"UniversalDependencies/UD_Spanish-GSD", "ud-es-gsd", []string{"es_gsd-ud-dev.conllu", "es_gsd-ud-test.conllu"}, 250, 90},
	{"UniversalDependencies/UD_Portuguese-GSD", "ud-pt-gsd", []string{"pt_gsd-ud-dev.conllu", "pt_gsd-ud-test.conllu"}, 250, 90},
	{"UniversalDependencies/UD_Hindi-PUD", "ud-hi-pud", []string{"hi_pud-ud-test.conllu"}, 200, 90},
	{"UniversalDependencies/UD_Arabic-PUD", "ud-ar-pud", []string{"ar_pud-ud-test.conllu"}, 200, 90},
	{"UniversalDependencies/UD_Thai-PUD", "ud-th-pud", []string{"th_pud-ud-test.conllu"}, 200, 90},
	{"UniversalDependencies/UD_Turkish-PUD", "ud-tr-pud", []string{"tr_pud-ud-test.conllu"}, 200, 90},
	{"UniversalDependencies/UD_Indonesian-PUD", "ud-id-pud", []string{"id_pud-ud-test.conllu"}, 200, 90},
	{"UniversalDependencies/UD_Vietnamese-VTB", "ud-vi-vtb", []string{"vi_vtb-ud-dev.conllu", "vi_vtb-ud-test.conllu"}, 200, 90},
}

// treebankText reads the raw sentences of Universal Dependencies treebanks (CC BY-SA
// 4.0): English web text (Yahoo answers, Enron emails, newsgroups, reviews, blogs),
// Russian social posts, blogs, news and fiction (Taiga), Japanese, Korean and Chinese
// web and news sentences, German, French, Spanish and Portuguese news, blogs,
// reviews and wiki sentences (the GSD treebanks), and Hindi, Arabic, Thai, Turkish
// and Indonesian news and Wikipedia sentences (the PUD treebanks, CC BY-SA 3.0), and
// Vietnamese news and fiction (VTB). Consecutive sentences of one document (or, where the
// treebank has no documents, consecutive sentences) make a passage of a few
// sentences; the EWT's emails are email, the rest web text.
func treebankText() []record {
	var recs []record
	for _, tb := range treebanks {
		var all []record
		for _, f := range tb.files {
			all = append(all, conllu(tb, string(show(tb.repo, f)))...)
		}
		recs = append(recs, capped(all, tb.passages)...)
	}
	return recs
}

// conllu cuts a CoNLL-U file's sentences into passages.
func conllu(tb treebank, data string) []record {
	var recs []record
	var cur []string
	size, genre, doc := 0, "", ""
	flush := func() {
		if len(cur) > 0 && size >= tb.words/3 {
			cat := "web"
			if genre == "email" {
				cat = "email"
			}
			src := tb.name
			if genre != "" {
				src += "/" + genre
			}
			text := strings.Join(cur, " ")
			if genre == "email" || genre == "answers" || genre == "newsgroup" {
				text = strings.Join(cur, "\n")
			}
			recs = append(recs, record{Text: text, Label: 0, Cat: cat, Src: src})
		}
		cur, size = nil, 0
	}
	for _, line := range strings.Split(data, "\n") {
		switch {
		case strings.HasPrefix(line, "# newdoc"):
			if tb.name == "ud-en-ewt" {
				flush()
			}
			doc = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(line, "# newdoc"), " id ="))
			if i := strings.IndexByte(doc, '-'); tb.name == "ud-en-ewt" && i > 0 {
				genre = doc[:i]
			}
		case strings.HasPrefix(line, "# genre = "):
			g := strings.TrimPrefix(line, "# genre = ")
			if g != genre && tb.name == "ud-ru-taiga" {
				flush()
				genre = g
			}
		case strings.HasPrefix(line, "# text ="): // the Vietnamese VTB has no space after =
			t := strings.TrimPrefix(strings.TrimPrefix(line, "# text ="), " ")
			cur = append(cur, t)
			n := len(strings.Fields(t))
			if n <= 2 { // a script without spaces: count characters in threes
				n = utf8.RuneCountInString(t) / 3
			}
			size += n
			if size >= tb.words {
				flush()
			}
		}
	}
	flush()
	return recs
}

// docPages cuts the Markdown documentation of a repository into pages of about 350
// words, code blocks and MDX components dropped (the classifier reads prose).
func docPages(repo, name, dir string, keep func(string) bool, n int) []record {
	return docPagesIn(repo, name, dir, keep, nil, n)
}

// docPagesIn is docPages keeping only the pages keepPage (when not nil) accepts: of a
// translation, the pages that are translated.
func docPagesIn(repo, name, dir string, keep, keepPage func(string) bool, n int) []record {
	var recs []record
	fence := regexp.MustCompile("(?s)```.*?```")
	tag := regexp.MustCompile(`(?m)^\s*</?[A-Z][A-Za-z]*[^>]*>\s*$|\{/\*[^*]*\*/\}`)
	for _, f := range ls(repo, dir) {
		if !strings.HasSuffix(f, ".md") && !strings.HasSuffix(f, ".mdx") || !keep(f) {
			continue
		}
		text := string(show(repo, f))
		text = fence.ReplaceAllString(text, "")
		text = tag.ReplaceAllString(text, "")
		for _, page := range prosePages(text) {
			page = squeezeBlank(page)
			if len(strings.Fields(page)) < 20 && utf8.RuneCountInString(page) < 200 || keepPage != nil && !keepPage(page) {
				continue
			}
			recs = append(recs, record{Text: page, Label: 0, Cat: "web", Src: name + "/" + strings.TrimPrefix(f, dir+"/")})
		}
	}
	return capped(recs, n)
}

// prosePages splits text at blank lines into pages of about 350 words or, in
// scripts without spaces, 1000 characters.
func prosePages(text string) []string {
	return splitPages(text, 350, func(para string) int {
		return max(len(strings.Fields(para)), utf8.RuneCountInString(para)/3)
	})
}

// docs reads documentation: the React docs translated into Japanese and Russian
// (CC-BY-4.0: the guides, reference and blog) and the OWASP Cheat Sheets (CC BY-SA
// 4.0), security advice full of passwords, sessions, tokens and accounts. The cheat
// sheets about LLMs, prompts and AI agents are left out: they quote injections.
func docs() []record {
	var recs []record
	react := func(string) bool { return true }
	recs = append(recs, docPages("reactjs/ja.react.dev", "react-ja", "src/content", react, 120)...)
	recs = append(recs, docPages("reactjs/ru.react.dev", "react-ru", "src/content", react, 120)...)
	noAI := regexp.MustCompile(`(?i)llm|prompt|_ai_|ai_agent|agentic|mcp|machine_learning`)
	recs = append(recs, docPages("OWASP/CheatSheetSeries", "owasp-cheatsheets", "cheatsheets",
		func(f string) bool { return !noAI.MatchString(f) }, 160)...)
	return recs
}

// postlightPages takes the article text of the news and blog pages the Postlight
// parser (MIT or Apache-2.0) tests its extractors on, among them some thirty
// Japanese news, security-advisory and shop pages, and German and French ones, as
// trafilatura extracts it. A page's text is cut at maxPageChars.
func postlightPages() []record {
	const repo = "postlight/parser"
	const maxPageChars = 4000
	var recs []record
	for _, f := range ls(repo, "fixtures") {
		if !strings.HasSuffix(f, ".html") {
			continue
		}
		res, err := trafilatura.Extract(bytes.NewReader(show(repo, f)), trafilatura.Options{
			EnableFallback: true, ExcludeComments: true, HtmlDateMode: trafilatura.Disabled})
		if err != nil || res == nil {
			continue
		}
		text := strings.TrimSpace(res.ContentText)
		if len(strings.Fields(text)) < 40 && utf8.RuneCountInString(text) < 300 {
			continue
		}
		text = clip(text, maxPageChars)
		// "web", not "news": besides news the fixtures are blogs, a lyrics page,
		// shops, a trial register and a wiki.
		recs = append(recs, record{Text: text, Label: 0, Cat: "web", Src: "postlight/" + filepath.Base(f)})
	}
	return recs
}

// clip cuts text to at most max bytes: at the last line's end in the second half
// of them, or else at the last whole character.
func clip(text string, max int) string {
	if len(text) <= max {
		return text
	}
	cut := strings.LastIndexByte(text[:max], '\n')
	if cut < max/2 {
		cut = max
		for !utf8.RuneStart(text[cut]) {
			cut--
		}
	}
	return text[:cut]
}
