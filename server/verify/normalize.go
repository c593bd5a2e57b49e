package verify

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The validator reads a reply the way its reader sees it, so that no spelling
// hides a claim: full-width digits in an id, a zero-width space inside
// "deleted" or a Cyrillic 'е' in it change how the text is stored, not how it
// reads.
//
// package sanitize does this for text that comes in from the web, but it
// exports no normaliser (its NFKC, look-alike folding and invisible-character
// removal are unexported layers of Sanitize, which also rewrites tokens and
// anchors), and verify must not change the reply it only reads. So verify
// keeps this small normaliser of its own: invisible characters removed, NFKC,
// then the Cyrillic, Greek and Armenian look-alikes of Latin letters folded to
// ASCII inside words that are not wholly of that script. The look-alike
// table is the one sanitize/lookalike.go uses.

// lookalikeASCII maps each look-alike letter to the lower-case ASCII letter
// it reads as.
var lookalikeASCII = func() map[rune]byte {
	m := map[rune]byte{}
	for _, pairs := range []string{
		"АaВbЕeКkМmНhОoРpСcТtХxУyІiЅsЈjԚqԜwҮyҺhӀlѴvаaеeоoрpсcуyхxіiѕsјjһhԁdԛqԝwӏlѵvүyкkѡw",
		"ΑaΒbΕeΖzΗhΙiΚkΜmΝnΟoΡpΤtΥyΧxϹcοoιiαaνvκkρpυuϲcϳjγyηnωwχx",
		"ոnսuօoհhցgզqՕoՍuՏs",
		"ɡgɑaɩiȷjᴀaʙbᴄcᴅdᴇeꜰfɢgʜhɪiᴊjᴋkʟlᴍmɴnᴏoᴘpꞯqʀrꜱsᴛtᴜuᴠvᴡwʏyᴢz",
	} {
		rs := []rune(pairs)
		for i := 0; i+1 < len(rs); i += 2 {
			m[rs[i]] = byte(rs[i+1])
		}
	}
	return m
}()

// isInvisible reports the characters a reader cannot see: zero-width spaces
// and joiners, the soft hyphen, bidi controls, variation selectors, tag
// characters and other default-ignorable format characters, and control
// characters other than tab and line breaks.
func isInvisible(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return false
	case r < 0x20 || r >= 0x7F && r <= 0x9F:
		return true
	case r == 0x00AD, r == 0x034F, r == 0x061C, r == 0x115F, r == 0x1160, r == 0x17B4, r == 0x17B5,
		r == 0x180E, r == 0x3164, r == 0xFEFF, r == 0xFFA0:
		return true
	case r >= 0x200B && r <= 0x200F, r >= 0x202A && r <= 0x202E, r >= 0x2060 && r <= 0x206F:
		return true
	case r >= 0xFE00 && r <= 0xFE0F, r >= 0x180B && r <= 0x180D, r >= 0xE0000 && r <= 0xE0FFF, r >= 0xFFF0 && r <= 0xFFFB:
		return true
	case r >= 0x1D173 && r <= 0x1D17A, r >= 0x1BCA0 && r <= 0x1BCA3:
		return true
	}
	return false
}

// normalizeText returns s as the validator reads it (see the top of this
// file). Plain ASCII, most replies, comes back as it is without a copy.
func normalizeText(s string) string {
	i := 0
	for i < len(s) && s[i] < utf8.RuneSelf && (s[i] >= 0x20 && s[i] < 0x7F || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for _, r := range s[i:] {
		if !isInvisible(r) {
			b.WriteRune(r)
		}
	}
	t := norm.NFKC.String(b.String())
	return foldLookalikeWords(t)
}

// foldLookalikeWords folds the look-alike letters of every word that mixes
// them with ASCII letters, or is made of look-alikes only, to ASCII. A word
// with any other letter of Cyrillic, Greek or Armenian is a word of that
// language and stays as it is.
func foldLookalikeWords(s string) string {
	var b strings.Builder
	last := 0 // s[:last] is written to b
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if _, ok := lookalikeASCII[r]; !ok {
			i += n
			continue
		}
		ws, we := i, i+n
		for ws > last {
			p, m := utf8.DecodeLastRuneInString(s[:ws])
			if !unicode.IsLetter(p) && !unicode.IsDigit(p) {
				break
			}
			ws -= m
		}
		for we < len(s) {
			p, m := utf8.DecodeRuneInString(s[we:])
			if !unicode.IsLetter(p) && !unicode.IsDigit(p) {
				break
			}
			we += m
		}
		word := s[ws:we]
		i = we
		if strings.ContainsFunc(word, func(p rune) bool {
			_, look := lookalikeASCII[p]
			return !look && p >= utf8.RuneSelf && unicode.In(p, unicode.Cyrillic, unicode.Greek, unicode.Armenian)
		}) {
			continue // a word of that language
		}
		b.WriteString(s[last:ws])
		for _, p := range word {
			if a, ok := lookalikeASCII[p]; ok {
				p = rune(a)
			}
			b.WriteRune(p)
		}
		last = we
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}
