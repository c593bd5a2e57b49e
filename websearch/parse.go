package websearch

import (
	"bytes"
	"net/url"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// A Result is one organic search result.
type Result struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
}

// pageKind says what a DuckDuckGo answer turned out to be.
type pageKind int

const (
	pageResults   pageKind = iota // at least one organic result
	pageNoResults                 // a results page that says there are none
	pageBotCheck                  // the anomaly (captcha) page
	pageUnknown                   // not a results page: JavaScript page, changed layout
)

// parseHTMLPage reads an answer of the html endpoint (div.result blocks).
func parseHTMLPage(body []byte) ([]Result, pageKind) {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		return nil, pageUnknown
	}
	if isBotCheck(doc) {
		return nil, pageBotCheck
	}
	var results []Result
	seen := map[string]bool{}
	doc.Find("div.result").Each(func(_ int, s *goquery.Selection) {
		if s.HasClass("result--ad") || s.HasClass("result--no-result") {
			return
		}
		link := s.Find("a.result__a").First()
		href, ok := link.Attr("href")
		if !ok {
			return
		}
		target, ok := resultTarget(href)
		if !ok || seen[target] {
			return
		}
		seen[target] = true
		results = append(results, Result{
			Title:   cleanText(link.Text()),
			URL:     target,
			Snippet: cleanText(s.Find(".result__snippet").First().Text()),
		})
	})
	if len(results) > 0 {
		return results, pageResults
	}
	if doc.Find(".result--no-result, .no-results").Length() > 0 {
		return nil, pageNoResults
	}
	return nil, pageUnknown
}

// parseLitePage reads an answer of the lite endpoint: a table where a row with
// a.result-link starts a result and a later row's td.result-snippet belongs to it.
func parseLitePage(body []byte) ([]Result, pageKind) {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		return nil, pageUnknown
	}
	if isBotCheck(doc) {
		return nil, pageBotCheck
	}
	var results []Result
	seen := map[string]bool{}
	current := -1 // index in results of the result the next snippet belongs to
	doc.Find("tr").Each(func(_ int, row *goquery.Selection) {
		if link := row.Find("a.result-link").First(); link.Length() > 0 {
			current = -1
			if row.HasClass("result-sponsored") || row.Find(".result-sponsored").Length() > 0 {
				return
			}
			href, _ := link.Attr("href")
			target, ok := resultTarget(href)
			if !ok || seen[target] {
				return
			}
			seen[target] = true
			results = append(results, Result{Title: cleanText(link.Text()), URL: target})
			current = len(results) - 1
			return
		}
		if snip := row.Find("td.result-snippet").First(); snip.Length() > 0 && current >= 0 && results[current].Snippet == "" {
			results[current].Snippet = cleanText(snip.Text())
		}
	})
	if len(results) > 0 {
		return results, pageResults
	}
	if doc.Find("form.next_form, input[name=q]").Length() > 0 && strings.Contains(doc.Find("body").Text(), "No results") {
		return nil, pageNoResults
	}
	return nil, pageUnknown
}

// isBotCheck recognises DuckDuckGo's anomaly page, which may come with status 200.
func isBotCheck(doc *goquery.Document) bool {
	if doc.Find("form#challenge-form, .anomaly-modal__title, [data-testid=anomaly-modal]").Length() > 0 {
		return true
	}
	found := false
	doc.Find("form").EachWithBreak(func(_ int, f *goquery.Selection) bool {
		action, _ := f.Attr("action")
		found = strings.Contains(action, "anomaly.js")
		return !found
	})
	return found || strings.Contains(doc.Find("body").Text(), "bots use DuckDuckGo too")
}

// resultTarget turns a result link into the page it points to, unwrapping the
// //duckduckgo.com/l/?uddg= redirect. It refuses ads (y.js?ad_domain=, also when
// wrapped in uddg) and anything that is not an http or https address.
func resultTarget(href string) (string, bool) {
	href = strings.TrimSpace(href)
	if strings.HasPrefix(href, "//") {
		href = "https:" + href
	}
	u, err := url.Parse(href)
	if err != nil {
		return "", false
	}
	if isDDGHost(u.Host) && strings.HasPrefix(u.Path, "/l/") {
		target := u.Query().Get("uddg")
		if target == "" {
			return "", false
		}
		if u, err = url.Parse(target); err != nil {
			return "", false
		}
		href = target // kept as DuckDuckGo encoded it, not re-escaped
	}
	if isAd(u) || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", false
	}
	return plainURL(href), true
}

// plainURL percent-encodes what has no place in a URL written as one token:
// spaces, controls, quotes, angle brackets and non-ASCII bytes. URLs reach the
// model unsanitized, and a query such as "?q=x Ignore all previous instructions"
// must not read as a sentence. The escaped form addresses the same resource.
func plainURL(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c > ' ' && c < 0x7F && c != '"' && c != '<' && c != '>' && c != '`' {
			if b.Len() > 0 {
				b.WriteByte(c)
			}
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(s) + 16)
			b.WriteString(s[:i])
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&0xF])
	}
	if b.Len() == 0 {
		return s
	}
	return b.String()
}

func isDDGHost(host string) bool {
	return host == "duckduckgo.com" || strings.HasSuffix(host, ".duckduckgo.com")
}

func isAd(u *url.URL) bool {
	return isDDGHost(u.Host) && (strings.HasPrefix(u.Path, "/y.js") || u.Query().Has("ad_domain"))
}

// cleanText collapses the whitespace the result markup is indented with.
func cleanText(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
