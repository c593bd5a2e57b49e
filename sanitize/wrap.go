package sanitize

import (
	"html"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The wrapper tag names. Content must never spell any of them: not in any case, not
// with spaces inside the tag, not with invisible or full-width characters between the
// letters, since a model reads all of those as the tag. Every wrapper neutralizes
// every name, so text wrapped twice (an MCP server that returns a web page) cannot
// close the outer wrapper either.
const (
	webpageTag    = "webpage_content"
	searchTag     = "search_results"
	toolOutputTag = "tool_output"
)

// wrapperTags lists the names matchWrapperTag looks for.
var wrapperTags = [...]string{webpageTag, searchTag, toolOutputTag}

// WrapWebpage wraps page content in <webpage_content source="URL">...</webpage_content>.
// The source is attribute-escaped and any wrapper tag inside content is neutralized,
// so the result is safe even when content was not sanitized.
func WrapWebpage(source, content string) string {
	return `<` + webpageTag + ` source="` + escapeAttr(source) + `">` +
		neutralizeWrapperTags(content) + `</` + webpageTag + `>`
}

// WriteWebpage writes what WrapWebpage returns to w, without building it as one
// string: a page of megabytes is written from the content as it is, not copied.
func WriteWebpage(w io.Writer, source, content string) error {
	parts := [...]string{`<` + webpageTag + ` source="` + escapeAttr(source) + `">`,
		neutralizeWrapperTags(content), `</` + webpageTag + `>`}
	for _, p := range parts {
		if _, err := io.WriteString(w, p); err != nil {
			return err
		}
	}
	return nil
}

// WrapSearchResults wraps a listing in
// <search_results source="duckduckgo" query="...">...</search_results>, with the same
// guarantees as WrapWebpage.
func WrapSearchResults(query, content string) string {
	return `<` + searchTag + ` source="duckduckgo" query="` + escapeAttr(query) + `">` +
		neutralizeWrapperTags(content) + `</` + searchTag + `>`
}

// escapeAttr makes s safe inside a double-quoted attribute on one line.
func escapeAttr(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7F || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
	return neutralizeWrapperTags(html.EscapeString(s))
}

// neutralizeWrapperTags replaces the opening of any wrapper tag in s ("<", an
// optional "/", and the tag name) with a marker.
func neutralizeWrapperTags(s string) string {
	e := editor{src: s}
	for i := 0; i < len(s); {
		j := indexTagOpen(s[i:])
		if j < 0 {
			break
		}
		i += j
		if end := matchWrapperTag(s, i); end > 0 {
			e.replace(i, end, markerWrapperTag)
			i = end
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return e.result()
}

// neutralizeFoldedWrapperTags is neutralizeWrapperTags for text the unicode layer
// has already folded (NFKC turns '＜' and '﹤' into '<'), so two vectorized byte scans
// for '<' and '&' stand in for the byte loop. It also returns how many tags it replaced.
func neutralizeFoldedWrapperTags(s string) (string, int) {
	e := editor{src: s}
	n := 0
	nextLT, nextAmp := -1, -1
	for i := 0; i < len(s); {
		if nextLT < i {
			nextLT = indexFrom(s, i, '<')
		}
		if nextAmp < i {
			nextAmp = indexFrom(s, i, '&')
		}
		if i = min(nextLT, nextAmp); i == len(s) {
			break
		}
		if s[i] == '&' && tagOpenEntity(s[i:]) == 0 {
			i++
			continue
		}
		if end := matchWrapperTag(s, i); end > 0 {
			e.replace(i, end, markerWrapperTag)
			n++
			i = end
			continue
		}
		i++
	}
	return e.result(), n
}

// indexTagOpen finds the next '<', a look-alike of it (full-width, small form) or
// its HTML entity.
func indexTagOpen(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<':
			return i
		case '&':
			if tagOpenEntity(s[i:]) > 0 {
				return i
			}
		case 0xEF: // U+FF1C '＜' and U+FE64 '﹤' start with 0xEF
			if strings.HasPrefix(s[i:], "＜") || strings.HasPrefix(s[i:], "﹤") {
				return i
			}
		}
	}
	return -1
}

// ignorableInTag reports characters a reader's eye (or a tokenizer) skips inside a
// tag: whitespace, zero-width and bidi characters, tag characters, and any other
// format character (no real text puts one inside a wrapper tag's name, so reading
// past all of them costs nothing).
func ignorableInTag(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v' ||
		isZeroWidth(r) || isHidden(r) || isVariationSelector(r) || r == '\u00A0' || r == '\u3000' ||
		(r >= '\u2000' && r <= '\u200A') || r == '\u202F' || r == '\u205F' ||
		r >= utf8.RuneSelf && unicode.Is(unicode.Cf, r)
}

// tagLetter folds r to the lower-case ASCII it reads as (full-width forms included).
func tagLetter(r rune) rune {
	if r >= utf8.RuneSelf {
		// NFKC folds full-width, mathematical and circled letters to ASCII.
		if k := norm.NFKC.String(string(r)); len(k) == 1 {
			r = rune(k[0])
		}
	}
	if r >= 'A' && r <= 'Z' {
		r += 'a' - 'A'
	}
	if r == '－' || r == '‐' || r == '‑' {
		r = '-'
	}
	return r
}

// matchWrapperTag matches "<", optional "/", and a wrapper tag name at i, skipping
// ignorable characters anywhere in between, and returns the end, or -1.
func matchWrapperTag(s string, i int) int {
	size := tagOpenEntity(s[i:])
	if size == 0 {
		_, size = utf8.DecodeRuneInString(s[i:])
	}
	j := skipIgnorable(s, i+size)
	if j < len(s) {
		if r, n := utf8.DecodeRuneInString(s[j:]); r == '/' || r == '／' || r == '\\' {
			j = skipIgnorable(s, j+n)
		}
	}
	for _, name := range wrapperTags {
		if end := matchSpread(s, j, name); end > 0 {
			return end
		}
	}
	return -1
}

func skipIgnorable(s string, i int) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !ignorableInTag(r) {
			return i
		}
		i += n
	}
	return i
}

// matchSpread matches name at i letter by letter, folding case and width and letting
// ignorable characters sit between letters; '_' may also be spelled '-' or left out.
func matchSpread(s string, i int, name string) int {
	for k := 0; k < len(name); k++ {
		if k > 0 {
			i = skipIgnorable(s, i)
		}
		if i >= len(s) {
			return -1
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		r = tagLetter(r)
		if name[k] == '_' {
			if r == '_' || r == '-' || r == '＿' {
				i += n
			}
			continue
		}
		if r != rune(name[k]) {
			return -1
		}
		i += n
	}
	return i
}

// tagOpenEntity returns the length of an HTML entity for '<' at the start of s, or 0.
func tagOpenEntity(s string) int {
	for _, ent := range []string{"&lt;", "&#60;", "&#x3c;", "&#060;"} {
		if len(s) >= len(ent) && strings.EqualFold(s[:len(ent)], ent) {
			return len(ent)
		}
	}
	return 0
}
