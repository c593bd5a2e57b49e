package main

import (
	"path"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bengali and Hindi prose of other kinds than the React docs. Left out of training,
// the React docs in Bengali and in Hindi were the only documentation prose of their
// scripts, and the model, which had seen those scripts in translated attacks, flagged
// 29% and 11% of their pages. indicProse adds, for both languages, GitHub's Open
// Source Guides (essays on contributing to and running a project, CC BY 4.0) and the
// Free Programming Books project's contributor guides (CC BY 4.0); for Bengali,
// classic literature from Wikisource as CLTK gathered it (Abanindranath Tagore's
// Shakuntala, Rabindranath Tagore's Gitanjali and the Pandava Gita, CC BY-SA 3.0)
// and the BRU treebank's grammar examples (CC BY-SA 4.0).
func indicProse() []record {
	var recs []record
	bn, hi := inScript(unicode.Bengali), inScript(unicode.Devanagari)
	recs = append(recs, guidePages("github/opensource.guide", "osguide-bn", "_articles/bn", bn, 150)...)
	recs = append(recs, guidePages("github/opensource.guide", "osguide-hi", "_articles/hi", hi, 150)...)
	var fpb []record
	for _, f := range []string{"docs/CODE_OF_CONDUCT-bn.md", "docs/HOWTO-bn.md", "docs/CODE_OF_CONDUCT-hi.md", "docs/CONTRIBUTING-hi.md", "docs/HOWTO-hi.md"} {
		fpb = append(fpb, markdownPages("EbookFoundation/free-programming-books", "free-programming-books", f, func(p string) bool { return bn(p) || hi(p) })...)
	}
	recs = append(recs, fpb...)
	recs = append(recs, wikisourceBengali()...)
	bru := treebank{"UniversalDependencies/UD_Bengali-BRU", "ud-bn-bru", []string{"bn_bru-ud-test.conllu"}, 100, 40}
	recs = append(recs, conllu(bru, string(show(bru.repo, bru.files[0])))...)
	return recs
}

var (
	frontMatter = regexp.MustCompile(`(?s)\A---\n.*?\n---\n`)
	htmlLine    = regexp.MustCompile(`(?m)^\s*</?[a-zA-Z][^>]*>\s*$`)
	inlineTag   = regexp.MustCompile(`</?[a-zA-Z][^>]*>`)
	mdImage     = regexp.MustCompile(`!\[[^\]]*\]\([^)]*\)`)
)

// markdownPages cuts one Markdown file into pages as docPages does, with its YAML
// front matter, HTML tags and images dropped, keeping the pages keepPage accepts.
func markdownPages(repo, name, f string, keepPage func(string) bool) []record {
	text := frontMatter.ReplaceAllString(string(show(repo, f)), "")
	text = htmlLine.ReplaceAllString(text, "")
	text = inlineTag.ReplaceAllString(text, "")
	text = mdImage.ReplaceAllString(text, "")
	text = regexp.MustCompile("(?s)```.*?```").ReplaceAllString(text, "")
	var recs []record
	for _, page := range prosePages(text) {
		page = squeezeBlank(page)
		if len(strings.Fields(page)) < 20 && utf8.RuneCountInString(page) < 200 || !keepPage(page) {
			continue
		}
		recs = append(recs, record{Text: page, Label: 0, Cat: "web", Src: name + "/" + path.Base(f)})
	}
	return recs
}

// guidePages reads the Markdown articles of a folder with markdownPages, at most n
// pages.
func guidePages(repo, name, dir string, keepPage func(string) bool, n int) []record {
	var recs []record
	for _, f := range ls(repo, dir) {
		if strings.HasSuffix(f, ".md") {
			recs = append(recs, markdownPages(repo, name, f, keepPage)...)
		}
	}
	return capped(recs, n)
}

// wikisourceBengali reads the plain-text chapters of cltk/bengali_text_wikisource:
// Shakuntala retold in prose, the songs of Gitanjali and the Pandava Gita, a
// chapter's lines joined into passages of about 120 words.
func wikisourceBengali() []record {
	const repo = "cltk/bengali_text_wikisource"
	var recs []record
	out := strings.TrimRight(string(git(repo, "ls-tree", "-r", "-z", "--name-only", sources[repo])), "\x00")
	for _, f := range strings.Split(out, "\x00") { // Bengali names, with spaces
		if !strings.HasSuffix(f, ".txt") {
			continue
		}
		var cur []string
		words := 0
		flush := func() {
			if words >= 30 {
				recs = append(recs, record{Text: strings.Join(cur, "\n"), Label: 0, Cat: "web", Src: "bn-wikisource/" + f})
			}
			cur, words = nil, 0
		}
		for _, l := range strings.Split(string(show(repo, f)), "\n") {
			l = strings.TrimSpace(l)
			if l == "" {
				continue
			}
			cur = append(cur, l)
			words += len(strings.Fields(l))
			if words >= 120 {
				flush()
			}
		}
		flush()
	}
	return recs
}
