// Package visible is the one definition of a character that does not show as
// itself: what the server refuses to offer a grant for, and what the client
// writes as an escape wherever a person decides on text. Both sides import it,
// so a character can never be harmless to one and hidden to the other.
//
// It imports nothing of ours and holds no state.
package visible

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Deceptive reports whether r would not read as itself on a terminal: control
// characters (newline and tab included: a call's object is one line), Unicode
// default-ignorable code points (zero-width characters, joiners, variation
// selectors, tag characters, the combining grapheme joiner, Hangul and Khmer
// fillers), format (bidi) and private-use characters, surrogates and
// noncharacters, the braille blank, every space but U+0020 (no-break, em,
// ideographic ...), the line and paragraph separators, and the replacement
// character that stands for a byte that was not UTF-8.
func Deceptive(r rune) bool {
	switch {
	case r == ' ':
		return false
	case r < 0x20 || r >= 0x7f && r <= 0x9f:
		return true
	case r < 0x7f:
		return false
	case r == utf8.RuneError, r == 0x2800: // replacement character, braille blank
		return true
	case r&0xfffe == 0xfffe, r >= 0xfdd0 && r <= 0xfdef: // noncharacters
		return true
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs, unicode.Zs, unicode.Zl, unicode.Zp,
		unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector) ||
		// Hangul fillers are letters to Unicode but draw nothing.
		r == 0x115f || r == 0x1160 || r == 0x3164 || r == 0xffa0
}

// In reports whether s holds a deceptive character or a byte that is not UTF-8.
func In(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || Deceptive(r) {
			return true
		}
		i += size
	}
	return false
}

// Escape returns s with every deceptive character written as an escape (\n,
// \t, \r, \x1b, \u200b, \U000e0041) and every byte that is not UTF-8 as \xNN,
// so what a person reads is what the text holds.
func Escape(s string) string {
	if !In(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !Deceptive(r):
			b.WriteString(s[i : i+size])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	return b.String()
}
