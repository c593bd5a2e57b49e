package sanitize

import (
	"strings"
	"unicode"
)

// The link layer (counted as breakout) neutralizes markdown links and images whose
// URL is shaped to carry data out: a model that renders or follows one sends what it
// put in the URL to whoever owns the host. An image is the worse case, since a
// client fetches it without a click. The rule:
//
//   - a link or image whose URL (after the scheme and host) holds a template
//     placeholder, which asks the model to fill in data: "{...}" or "<...>" (or
//     their percent-encodings, an opening one before a closing one), or "..." /
//     "…" standing for a value. Both modes. A lone "%3E" is a badge's ">=", as
//     in shields.io's "go%20version-%3E=1.23".
//   - aggressive mode also: a query parameter named for data (data, secret, prompt,
//     chat, history, conversation, memory, password, ...) whose value has at least
//     four characters and a letter; for an image also the parameters a search or a
//     text field uses (q, query, text, content, p, ...), which an image never needs.
//
// Ordinary query strings (?page=2, ?q=golang+generics on a link, ?w=800&q=80 on an
// image) pass. A matching link or image is replaced whole by [filtered content].

// exfilParams are query parameters that exfiltration links use to carry data out.
var exfilParams = set("data", "secret", "secrets", "prompt", "system_prompt", "chat", "history",
	"conversation", "memory", "password", "passwd", "pwd", "leak", "exfil", "payload",
	"transcript", "dump", "creds", "credentials", "apikey", "api_key", "ctx", "stolen")

// imageExfilParams add, for images only, the parameters of a search or text field:
// on a link they are ordinary (?q=golang), on an image they carry text nobody needs.
var imageExfilParams = set("q", "query", "d", "msg", "message", "info", "content", "text",
	"p", "token", "key", "session", "context", "summary", "input", "output", "answer",
	"response", "email", "user", "name")

// maxLinkText bounds how far back the layer looks for a link's '['.
const maxLinkText = 1000

// neutralizeExfilLinks replaces every markdown link or image that carries data out.
func neutralizeExfilLinks(s string, aggressive bool) (string, int) {
	e := editor{src: s}
	n := 0
	done := 0 // the end of the last replacement
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], "](")
		if j < 0 {
			break
		}
		close := i + j
		i = close + 2
		open := linkTextStart(s, close, done)
		if open < 0 {
			continue
		}
		url, end := linkDestination(s, close+2)
		if end < 0 {
			continue
		}
		image := open > done && s[open-1] == '!'
		if !exfiltrationURL(url, image, aggressive) {
			continue
		}
		if image {
			open--
		}
		e.replace(open, end, markerBreakout)
		n++
		i, done = end, end
	}
	return e.result(), n
}

// linkTextStart returns the index of the '[' that the ']' at close ends, not before
// from, or -1. Nested brackets count; a blank line ends the search.
func linkTextStart(s string, close, from int) int {
	depth := 0
	for k := close - 1; k >= from && close-k <= maxLinkText; k-- {
		switch s[k] {
		case ']':
			depth++
		case '[':
			if depth == 0 {
				return k
			}
			depth--
		case '\n':
			if k > 0 && s[k-1] == '\n' {
				return -1
			}
		}
	}
	return -1
}

// linkDestination reads a link's destination from i (just after "(") and returns
// the URL and the index after the closing ')', or end -1. The URL may be in angle
// brackets and may hold balanced parentheses; a title in quotes may follow.
func linkDestination(s string, i int) (string, int) {
	i = skipBlanks(s, i)
	var url string
	if i < len(s) && s[i] == '<' {
		k := strings.IndexAny(s[i+1:], ">\n")
		if k < 0 || s[i+1+k] != '>' {
			return "", -1
		}
		url, i = s[i+1:i+1+k], i+2+k
	} else {
		start, depth := i, 0
	loop:
		for ; i < len(s); i++ {
			switch c := s[i]; {
			case c == '(':
				depth++
			case c == ')':
				if depth == 0 {
					break loop
				}
				depth--
			case isSpace[c]:
				break loop
			}
			if i-start > 8192 {
				return "", -1
			}
		}
		url = s[start:i]
	}
	i = skipBlanks(s, i)
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		k := strings.IndexByte(s[i+1:], s[i])
		if k < 0 {
			return "", -1
		}
		i = skipBlanks(s, i+2+k)
	}
	if i >= len(s) || s[i] != ')' || !strings.Contains(url, "://") {
		return "", -1
	}
	return url, i + 1
}

// exfiltrationURL applies the layer's rule (see the top of this file) to a link's
// or image's URL.
func exfiltrationURL(url string, image, aggressive bool) bool {
	rest := url[strings.Index(url, "://")+3:]
	slash := strings.IndexAny(rest, "/?#")
	if slash < 0 {
		return false
	}
	rest = rest[slash:]
	lower := strings.ToLower(rest)
	if paired(lower, "{", "}") || paired(lower, "<", ">") || paired(lower, "%7b", "%7d") || paired(lower, "%3c", "%3e") ||
		standsForValue(rest, "...") || standsForValue(rest, "…") || strings.Contains(lower, "%e2%80%a6") {
		return true
	}
	if !aggressive {
		return false
	}
	q := strings.IndexByte(rest, '?')
	if q < 0 {
		return false
	}
	query, _, _ := strings.Cut(rest[q+1:], "#")
	for pair := range strings.SplitSeq(query, "&") {
		k, v, _ := strings.Cut(pair, "=")
		k = strings.ToLower(k)
		if len(v) < 4 || !(exfilParams[k] || image && imageExfilParams[k]) {
			continue
		}
		if strings.IndexFunc(v, unicode.IsLetter) >= 0 {
			return true
		}
	}
	return false
}

// standsForValue reports whether dots in a URL's path or query stand for a value
// the model is to fill in ("/log/...", "?q=…"): not between two letters or
// digits, as in MDN's ".../Statements/if...else".
func standsForValue(rest, dots string) bool {
	for i := 0; ; {
		j := strings.Index(rest[i:], dots)
		if j < 0 {
			return false
		}
		at, after := i+j, i+j+len(dots)
		glued := at > 0 && isASCIIAlnum(rest[at-1]) && after < len(rest) && isASCIIAlnum(rest[after])
		if !glued {
			return true
		}
		i = after
	}
}

// paired reports whether open occurs in s with close somewhere after it.
func paired(s, open, close string) bool {
	i := strings.Index(s, open)
	return i >= 0 && strings.Contains(s[i+len(open):], close)
}
