package websearch

import (
	"bytes"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	trafilatura "github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"
)

// jsShellMaxRunes is how little text a page with scripts may have before it is
// called a JavaScript shell rather than a (very short) page.
const jsShellMaxRunes = 80

// shortPageRunes is the body size (visible characters) up to which a page is
// its own main content. trafilatura's last-resort baseline answers such pages with
// the whole document's text run together, title and navigation included, after the
// paragraphs it already found; the visible body is the better answer.
const shortPageRunes = 200

// An article is what extraction keeps of an HTML page.
type article struct {
	title string
	text  string
	// scripted says the page carries <script> elements, i.e. it may need JavaScript.
	scripted bool
}

// extractArticle finds the main content of an HTML page (UTF-8) with trafilatura
// and renders it as markdown-like text: headings, paragraphs, lists, quotes.
// Navigation, comments and boilerplate are left out.
func extractArticle(page []byte, pageURL *url.URL) article {
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return article{}
	}
	var a article
	gq := goquery.NewDocumentFromNode(doc)
	a.scripted = gq.Find("script").Length() > 0
	a.title = cleanText(gq.Find("title").First().Text())

	// A short page that carries its article as JSON-LD (pages drawn by scripts often
	// do) is left to trafilatura, which reads that articleBody.
	short := !hasMoreText(doc, shortPageRunes) && !hasJSONLDArticle(gq)
	pruneComments(doc)
	// readability is trafilatura's first fallback; running it here lets its
	// article serve both as that fallback and as the second opinion below.
	readable := runReadability(doc, pageURL)
	var readableText string
	if readable != nil {
		// Rendered now: trafilatura rewrites the candidate in place if it takes it.
		readableText = renderText(readable)
	}
	res, err := runTrafilatura(doc, pageURL, readable)
	if err == nil && res != nil {
		if t := cleanText(res.Metadata.Title); t != "" {
			a.title = t
		}
		if !short && res.ContentNode != nil {
			a.text = renderText(res.ContentNode)
		}
		if !short && a.text == "" {
			a.text = strings.TrimSpace(res.ContentText)
		}
	}
	if !short && readableWithin(readableText, a.text) {
		a.text = linesAlsoIn(readableText, a.text)
	}
	if a.text == "" {
		// The visible body without page furniture.
		body := gq.Find("body").Clone()
		body.Find("nav, header, footer, aside, form, svg").Remove()
		if body.Length() > 0 {
			a.text = renderText(body.Get(0))
		}
	}
	return a
}

// pruneComments removes reader comment sections. trafilatura does this only
// when it favours precision; otherwise, with comments excluded, it still
// often takes a long comment thread for part of the article. Older blog
// engines (Movable Type, for one) put no container around the comments: a
// heading such as <h2 id="comments"> opens them, and they run to the end of
// its parent, so the heading goes with everything after it.
func pruneComments(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		switch {
		case c.Type != html.ElementNode:
		case isCommentSection(c):
			n.RemoveChild(c)
		case isCommentHeading(c):
			for c != nil {
				next := c.NextSibling
				n.RemoveChild(c)
				c = next
			}
			return
		default:
			pruneComments(c)
		}
		c = next
	}
}

// isCommentHeading reports whether n is a heading that names itself the
// comments (id or class starting with "comment").
func isCommentHeading(n *html.Node) bool {
	switch n.Data {
	case "h1", "h2", "h3", "h4", "h5", "h6":
	default:
		return false
	}
	for _, a := range n.Attr {
		if (a.Key == "id" || a.Key == "class") && strings.HasPrefix(strings.ToLower(a.Val), "comment") {
			return true
		}
	}
	return false
}

// isCommentSection is trafilatura's own test for a comment section (its
// RemovedComments rule).
func isCommentSection(n *html.Node) bool {
	switch n.Data {
	case "div", "ol", "ul", "dl", "section":
	default:
		return false
	}
	var id, class string
	for _, a := range n.Attr {
		switch a.Key {
		case "id":
			id = a.Val
		case "class":
			class = a.Val
		}
	}
	id, class = strings.ToLower(id), strings.ToLower(class)
	return strings.HasPrefix(id, "comment") || strings.HasPrefix(class, "comment") ||
		strings.Contains(class, "article-comments") || strings.Contains(class, "post-comments") ||
		strings.HasPrefix(id, "comol") || strings.HasPrefix(id, "disqus_thread") || strings.HasPrefix(id, "dsq-comments")
}

// hasJSONLDArticle reports whether the page has JSON-LD metadata with an articleBody.
func hasJSONLDArticle(gq *goquery.Document) bool {
	found := false
	gq.Find(`script[type="application/ld+json"]`).EachWithBreak(func(_ int, s *goquery.Selection) bool {
		found = strings.Contains(strings.ToLower(s.Text()), `"articlebody"`)
		return !found
	})
	return found
}

// hasMoreText reports whether the page's text outside scripts and styles has more
// than limit non-space characters; it stops counting as soon as it knows.
func hasMoreText(doc *html.Node, limit int) bool {
	n := 0
	var walk func(*html.Node) bool
	walk = func(node *html.Node) bool {
		if node.Type == html.ElementNode {
			switch node.Data {
			case "script", "style", "noscript", "template", "head":
				return false
			}
		}
		if node.Type == html.TextNode {
			for _, r := range node.Data {
				if !unicode.IsSpace(r) {
					n++
				}
			}
			if n > limit {
				return true
			}
		}
		for c := node.FirstChild; c != nil; c = c.NextSibling {
			if walk(c) {
				return true
			}
		}
		return false
	}
	return walk(doc)
}

// runTrafilatura extracts the main content. A panic inside the extractor on
// hostile markup must cost one page, not the server, so it becomes an error.
func runTrafilatura(doc *html.Node, pageURL *url.URL, readable *html.Node) (res *trafilatura.ExtractResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("extractor failed: %v", r)
		}
	}()
	return trafilatura.ExtractDocument(doc, trafilatura.Options{
		OriginalURL:    pageURL,
		EnableFallback: true,
		// nil makes trafilatura run readability itself.
		FallbackCandidates: &trafilatura.FallbackCandidates{Readability: readable},
		ExcludeComments:    true,
		// Deduplication drops a paragraph that repeats an earlier one, but a
		// repeated line (a refrain, a recurring table row) is part of the text.
		Deduplicate: false,
		// Dates are not used and their search is the slowest part of extraction.
		HtmlDateMode: trafilatura.Disabled,
	})
}

// isJavaScriptShell reports whether a page came out nearly empty because its
// text is drawn by scripts.
func (a article) isJavaScriptShell() bool {
	return a.scripted && utf8.RuneCountInString(a.text) < jsShellMaxRunes
}

// A textWriter renders a node tree as plain text with markdown-like blocks.
type textWriter struct {
	b strings.Builder
	// breaks is how many newlines must come before the next text (0, 1 or 2).
	breaks int
	// space says a space must come before the next inline text.
	space  bool
	prefix string // written at the start of each line ("> " in quotes)
}

func renderText(n *html.Node) string {
	var w textWriter
	w.node(n)
	return strings.TrimSpace(w.b.String())
}

func (w *textWriter) block(n int) {
	if w.b.Len() > 0 {
		w.breaks = max(w.breaks, n)
	}
	w.space = false
}

func (w *textWriter) text(s string, pre bool) {
	if !pre {
		first, _ := utf8.DecodeRuneInString(s)
		last, _ := utf8.DecodeLastRuneInString(s)
		// Any space counts, U+00A0 too: cleanText drops it, and a no-break space
		// between a word and a link is all that keeps the two apart.
		lead := len(s) > 0 && unicode.IsSpace(first)
		trail := len(s) > 0 && unicode.IsSpace(last)
		s = cleanText(s)
		if s == "" {
			if lead || trail {
				w.space = true
			}
			return
		}
		if lead {
			w.space = true
		}
		defer func() { w.space = trail }()
	}
	if s == "" {
		return
	}
	switch {
	case w.breaks > 0:
		w.b.WriteString(strings.Repeat("\n", w.breaks))
		w.b.WriteString(w.prefix)
	case w.b.Len() == 0:
		w.b.WriteString(w.prefix)
	case w.space:
		w.b.WriteByte(' ')
	}
	w.breaks, w.space = 0, false
	if pre && w.prefix != "" {
		s = strings.ReplaceAll(s, "\n", "\n"+w.prefix)
	}
	w.b.WriteString(s)
}

func (w *textWriter) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c)
	}
}

func (w *textWriter) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.text(n.Data, false)
		return
	case html.ElementNode:
	default:
		w.children(n)
		return
	}
	switch n.Data {
	case "script", "style", "noscript", "template", "img", "svg", "head":
	case "h1", "h2", "h3", "h4", "h5", "h6":
		w.block(2)
		level, _ := strconv.Atoi(n.Data[1:])
		w.text(strings.Repeat("#", level)+" ", true)
		w.children(n)
		w.block(2)
	case "ul", "ol", "dl":
		w.block(2)
		i := 0
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || (c.Data != "li" && c.Data != "dt" && c.Data != "dd") {
				w.node(c)
				continue
			}
			i++
			w.block(1)
			if n.Data == "ol" {
				w.text(strconv.Itoa(i)+". ", true)
			} else {
				w.text("- ", true)
			}
			w.children(c)
		}
		w.block(2)
	case "blockquote":
		w.block(2)
		old := w.prefix
		w.prefix += "> "
		w.children(n)
		w.prefix = old
		w.block(2)
	case "pre":
		w.block(2)
		w.text(strings.Trim(nodeText(n), "\n"), true)
		w.block(2)
	case "br":
		w.block(1)
	case "hr":
		w.block(2)
	case "tr":
		w.block(1)
		first := true
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && (c.Data == "td" || c.Data == "th") {
				if !first {
					w.space = true
					w.text("|", true)
					w.space = true
				}
				first = false
				w.children(c)
			}
		}
		w.block(1)
	case "td", "th":
		// A cell outside a row: trafilatura leaves these when it flattens a
		// table inside a quote. Cells must not run together.
		w.space = true
		w.children(n)
		w.space = true
	case "p", "div", "section", "article", "main", "table", "figure", "figcaption", "header", "footer", "summary", "details", "li", "dt", "dd":
		w.block(2)
		w.children(n)
		w.block(2)
	default:
		w.children(n)
	}
}

func nodeText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}
