package sanitize

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// isZeroWidth reports the invisible joiners and separators that split a keyword
// without changing how it reads (layer zero_width).
func isZeroWidth(r rune) bool {
	switch r {
	case '\u200B', // zero-width space
		'\u200C',                               // zero-width non-joiner
		'\u200D',                               // zero-width joiner
		'\u2060',                               // word joiner
		'\uFEFF',                               // byte order mark / zero-width no-break space
		'\u00AD',                               // soft hyphen
		'\u180E',                               // Mongolian vowel separator, formerly a zero-width space
		'\u2061', '\u2062', '\u2063', '\u2064': // invisible math operators
		return true
	}
	return false
}

// isHidden reports characters the unicode layer removes: bidi controls that reorder
// what a reader sees, tag characters that smuggle ASCII invisibly, and control
// characters other than tab and line breaks.
func isHidden(r rune) bool {
	switch {
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069,
		r == 0x200E, r == 0x200F, r == 0x061C:
		return true
	case r >= 0xE0000 && r <= 0xE007F:
		return true
	case r < 0x20:
		return r != '\t' && r != '\n' && r != '\r'
	case r >= 0x7F && r <= 0x9F:
		return r != 0x85 // NEL is a line break, mapped to '\n' instead
	}
	return false
}

// plainASCII reports text that no part of the unicode or zero_width layers can change:
// printable ASCII plus tab and line breaks. Most pages take this fast path.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x7F || (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
			return false
		}
	}
	return true
}

// normalizeInvisible runs the zero_width and unicode layers: invisible characters are
// removed, every Unicode space becomes ' ' (line and paragraph separators '\n'), and
// the text is put in NFKC so full-width and stylized letters read as plain ones.
func normalizeInvisible(s string) (out string, zeroWidth, uni int) {
	if plainASCII(s) {
		return s, 0, 0
	}
	// NFKC can yield a character another step removes or maps, and removing a
	// character can leave a sequence that NFKC composes; a few rounds reach the fixed
	// point (one in practice).
	for round := 0; round < 4; round++ {
		var zw, u int
		s, zw, u = dropInvisible(s)
		zeroWidth += zw
		uni += u
		if norm.NFKC.IsNormalString(s) {
			return s, zeroWidth, uni
		}
		var n int
		s, n = nfkc(s)
		uni += n
	}
	return s, zeroWidth, uni
}

// dropInvisible removes zero-width and hidden characters, maps spaces, and replaces
// invalid UTF-8 with U+FFFD.
func dropInvisible(s string) (string, int, int) {
	e := editor{src: s}
	zw, uni := 0, 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7F {
				e.replace(i, i+1, "")
				uni++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			e.replace(i, i+1, "\uFFFD")
			uni++
		case isZeroWidth(r):
			e.replace(i, i+size, "")
			zw++
		case isHidden(r):
			e.replace(i, i+size, "")
			uni++
		case r == '\u2028' || r == '\u2029' || r == '\u0085':
			e.replace(i, i+size, "\n")
			uni++
		case unicode.Is(unicode.Zs, r):
			e.replace(i, i+size, " ")
			uni++
		}
		i += size
	}
	return e.result(), zw, uni
}

// nfkc normalizes s and counts the segments NFKC changed.
func nfkc(s string) (string, int) {
	var it norm.Iter
	it.InitString(norm.NFKC, s)
	b := make([]byte, 0, len(s)+16)
	n := 0
	for !it.Done() {
		start := it.Pos()
		seg := it.Next()
		if string(seg) != s[start:it.Pos()] {
			n++
		}
		b = append(b, seg...)
	}
	return string(b), n
}
