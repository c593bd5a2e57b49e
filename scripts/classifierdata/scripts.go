package main

import (
	"regexp"
	"strings"
	"unicode"
)

// Second benign sources for the scripts and languages of the attack data whose only
// prose came from one treebank (Thai, Hindi, Arabic, Vietnamese, Indonesian): left
// out of training, that treebank's text met a script the model had seen in attacks
// and in little else, and most of it was flagged. Each of them now has prose from a
// second origin besides tldr's pages: another treebank (Thai, Vietnamese,
// Indonesian) and the React documentation's translation (Hindi, Arabic, Vietnamese,
// Indonesian). Bengali, whose only benign text was tldr's pages and a few shop
// mails, gets the React docs too. Hindi's and Arabic's other treebanks are
// NC-licensed, and the React docs have no Thai translation here.

// moreTreebanks are Universal Dependencies treebanks (CC BY-SA 4.0) of the same
// languages as the PUD and VTB treebanks, from other texts: UD_Thai-TUD (wiki, news,
// fiction, non-fiction, academic and legal text), UD_Vietnamese-TueCL (conversation)
// and UD_Indonesian-GSD (news and blogs).
var moreTreebanks = []treebank{
	{"UniversalDependencies/UD_Thai-TUD", "ud-th-tud", []string{"th_tud-ud-dev.conllu", "th_tud-ud-test.conllu", "th_tud-ud-train.conllu"}, 200, 90},
	{"UniversalDependencies/UD_Vietnamese-TueCL", "ud-vi-tuecl", []string{"vi_tuecl-ud-test.conllu"}, 200, 90},
	{"UniversalDependencies/UD_Indonesian-GSD", "ud-id-gsd", []string{"id_gsd-ud-dev.conllu", "id_gsd-ud-test.conllu"}, 200, 90},
}

func moreTreebankText() []record {
	var recs []record
	for _, tb := range moreTreebanks {
		var all []record
		for _, f := range tb.files {
			all = append(all, conllu(tb, string(show(tb.repo, f)))...)
		}
		recs = append(recs, capped(all, tb.passages)...)
	}
	return recs
}

// reactDocs reads the React documentation's translations into Arabic, Hindi,
// Bengali, Vietnamese and Indonesian (CC-BY-4.0), code blocks dropped, keeping the pages
// that are translated (a translation leaves pages in English until someone takes
// them on).
func reactDocs() []record {
	all := func(string) bool { return true }
	var recs []record
	recs = append(recs, docPagesIn("reactjs/ar.react.dev", "react-ar", "src/content", all, inScript(unicode.Arabic), 150)...)
	recs = append(recs, docPagesIn("reactjs/hi.react.dev", "react-hi", "src/content", all, inScript(unicode.Devanagari), 150)...)
	recs = append(recs, docPagesIn("reactjs/bn.react.dev", "react-bn", "src/content", all, inScript(unicode.Bengali), 150)...)
	recs = append(recs, docPagesIn("reactjs/vi.react.dev", "react-vi", "src/content", all, vietnamese, 150)...)
	recs = append(recs, docPagesIn("reactjs/id.react.dev", "react-id", "src/content", all, indonesian, 150)...)
	return recs
}

// inScript accepts a page whose letters are mostly of the script (code, names and
// English terms aside).
func inScript(script *unicode.RangeTable) func(string) bool {
	return func(page string) bool {
		in, letters := 0, 0
		for _, r := range page {
			if unicode.IsLetter(r) {
				letters++
				if unicode.Is(script, r) {
					in++
				}
			}
		}
		return letters > 0 && 2*in >= letters
	}
}

// vietnamese accepts a page where at least a quarter of the words have a letter
// outside ASCII (Vietnamese marks almost every syllable).
func vietnamese(page string) bool {
	words := strings.Fields(page)
	marked := 0
	for _, w := range words {
		for _, r := range w {
			if r > unicode.MaxASCII && unicode.IsLetter(r) {
				marked++
				break
			}
		}
	}
	return len(words) > 0 && 4*marked >= len(words)
}

// indonesian accepts a page where Indonesian function words are at least one word
// in twenty.
func indonesian(page string) bool {
	words := strings.Fields(strings.ToLower(page))
	n := 0
	for _, w := range words {
		switch strings.Trim(w, ".,;:!?()*`\"'") {
		case "yang", "dan", "untuk", "dengan", "di", "ini", "itu", "anda", "tidak", "dapat", "akan", "dari", "ke", "adalah", "jika", "atau":
			n++
		}
	}
	return len(words) > 0 && 20*n >= len(words)
}

// supportArticles reads Adobe Commerce's support knowledge base (MIT): English
// troubleshooting and how-to articles about payments, orders, customer accounts,
// admin passwords, emails that are not sent, security patches and outages, the
// support desk's prose around the topics (money, accounts, passwords, security)
// a classifier trained on attacks takes for evidence. The YAML front matter is
// dropped, then the articles are cut as docPages cuts documentation.
func supportArticles() []record {
	const repo, name, dir = "AdobeDocs/commerce-knowledge-base.en", "adobe-commerce-kb", "help"
	front := regexp.MustCompile(`(?s)\A---\n.*?\n---\n`)
	var recs []record
	for _, f := range ls(repo, dir) {
		if !strings.HasSuffix(f, ".md") {
			continue
		}
		text := front.ReplaceAllString(string(show(repo, f)), "")
		for _, page := range prosePages(text) {
			page = squeezeBlank(page)
			if len(strings.Fields(page)) < 20 {
				continue
			}
			recs = append(recs, record{Text: page, Label: 0, Cat: "web", Src: name + "/" + strings.TrimPrefix(f, dir+"/")})
		}
	}
	return capped(recs, 250)
}
