package sanitize

import (
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Look-alike letters are letters of other scripts, or Latin letters outside ASCII,
// that read as an ASCII letter and that NFKC keeps apart: a Cyrillic 'о', an
// Armenian 'ո' (n), a Latin script 'ɡ', a small capital 'ꜱ'. The table holds the
// ones attackers use; each belongs to a group, its script.
//
// The unicode layer folds the look-alikes of a word to ASCII when the word is a
// disguise rather than a language:
//
//   - it holds ASCII letters and look-alikes of Cyrillic, Greek or Armenian
//     ("ignоre" with a Cyrillic 'о');
//   - it holds look-alikes of two groups or more ("іɡոоrе": Cyrillic, Latin,
//     Armenian);
//   - it is made only of Latin look-alikes (small capitals, 'ɡ', 'ɑ') and ASCII
//     letters, two letters at least ("ꜱʏꜱᴛᴇᴍ", "iɡnore").
//
// A word written wholly in Cyrillic, Greek or Armenian is left alone, and so is IPA
// with other phonetic letters ("ˈɪŋɡlɪʃ") and a lone small capital. Turkish 'ı' is
// no look-alike: "kadın" is a word.

// Groups of look-alikes.
const (
	groupCyrillic = 1 << iota
	groupGreek
	groupArmenian
	groupLatin // non-ASCII Latin: small capitals and IPA letters
)

type lookalikeEntry struct {
	letter byte // the lower-case ASCII letter it reads as
	group  uint8
}

// lookalikes maps each look-alike to its letter and group.
var lookalikes = func() map[rune]lookalikeEntry {
	m := map[rune]lookalikeEntry{}
	add := func(group uint8, pairs string) {
		rs := []rune(pairs)
		for i := 0; i+1 < len(rs); i += 2 {
			m[rs[i]] = lookalikeEntry{byte(rs[i+1]), group}
		}
	}
	add(groupCyrillic, "АaВbЕeКkМmНhОoРpСcТtХxУyІiЅsЈjԚqԜwҮyҺhӀlѴv"+
		"аaеeоoрpсcуyхxіiѕsјjһhԁdԛqԝwӏlѵvүyкkѡw")
	add(groupGreek, "ΑaΒbΕeΖzΗhΙiΚkΜmΝnΟoΡpΤtΥyΧxϹc"+
		"οoιiαaνvκkρpυuϲcϳjγyηnωwχx")
	add(groupArmenian, "ոnսuօoհhցgզqՕoՍuՏs")
	add(groupLatin, "ɡgɑaɩiȷj"+
		"ᴀaʙbᴄcᴅdᴇeꜰfɢgʜhɪiᴊjᴋkʟlᴍmɴnᴏoᴘpꞯqʀrꜱsᴛtᴜuᴠvᴡwʏyᴢz")
	return m
}()

// lookalikeLead marks the UTF-8 lead bytes every look-alike starts with: C8–D6
// (U+0200–U+05BF: IPA, Greek, Cyrillic, Armenian), E1 (small capitals U+1D00–),
// EA (U+A700–: 'ꜱ', 'ꞯ'). No continuation byte has these values.
var lookalikeLead = func() (t [256]bool) {
	for r := range lookalikes {
		var b [4]byte
		utf8.EncodeRune(b[:], r)
		t[b[0]] = true
	}
	return t
}()

// denseLookalikes is lookalikes for U+0000–U+05FF (IPA, Greek, Cyrillic,
// Armenian), where text in those scripts asks for a look-up per letter: an array
// index instead of a map's hash.
var denseLookalikes = func() (t [0x600]lookalikeEntry) {
	for r, e := range lookalikes {
		if r < 0x600 {
			t[r] = e
		}
	}
	return t
}()

// lookalikeEntryOf returns the look-alike entry of r; its letter is 0 when r is
// none.
func lookalikeEntryOf(r rune) lookalikeEntry {
	switch {
	case r < 0x200:
		return lookalikeEntry{} // Latin-1 and Latin Extended-A: real letters, and 'ı'
	case r < 0x600:
		return denseLookalikes[r]
	}
	return lookalikes[r]
}

// lookalikeLetter returns the lower-case ASCII letter r reads as, or 0.
func lookalikeLetter(r rune) byte { return lookalikeEntryOf(r).letter }

// foldLookalikes folds the look-alikes of every word that is a disguise (see the
// top of this file) and counts the words it changed.
func foldLookalikes(s string) (string, int) { return foldLookalikesIn(s, nil) }

// foldLookalikesIn is foldLookalikes building its result in scratch, when set
// (see editor).
func foldLookalikesIn(s string, scratch *[]byte) (string, int) {
	return foldLookalikesScan(s, scratch, true)
}

// foldLookalikesScan is foldLookalikesIn; runs says whether a stretch of one
// script may be passed at once (see scriptRun), which the differential test
// turns off to compare with the word-by-word path.
func foldLookalikesScan(s string, scratch *[]byte, runs bool) (string, int) {
	e := editor{src: s, scratch: scratch}
	n := 0
	tried := 0 // scriptRun is not asked again before here (see scriptRun)
	for i := 0; i < len(s); {
		p := nextLookalikeLead(s, i)
		if p == len(s) {
			break
		}
		r, size := utf8.DecodeRuneInString(s[p:])
		if lookalikeLetter(r) == 0 {
			i = p + size
			continue
		}
		if runs && p >= tried {
			end, ok := scriptRun(s, p)
			if ok {
				i = end
				continue
			}
			tried = end
		}
		ws, we := wordAround(s, p, p+size)
		if word := s[ws:we]; disguisedWord(word) {
			e.replace(ws, we, strings.Map(foldLookalike, word))
			n++
		}
		i = we
	}
	return e.result(), n
}

// scriptRun reports whether the look-alike whose lead byte is s[p] sits in a
// stretch of Cyrillic (U+0400–U+04FF, lead bytes D0–D3) or of Greek (U+0380–U+03FF,
// CE–CF) that ASCII other than letters (or the text's ends) bounds, and returns
// where the stretch ends. Every word there is then of that script alone, which no
// rule at the top of this file folds: a word is a run of letters, and the
// characters of a stretch, the invalid bytes it may hold included, are letters of
// its script or end a word; the ASCII around it ends the word too, and no
// decoding reads a byte of it as part of a character of the stretch. So
// foldLookalikes may go on from the end. Russian and Greek text has a look-alike
// in most words, and wordAround and disguisedWord (a Unicode table look-up per
// letter, both ways) made foldLookalikes read it some ten times slower than text
// in any other script.
//
// When it reports false, the end is where the stretch ends (or p when s[p] is in
// neither script), past which the next stretch begins: the caller does not ask
// again before it, so no byte is read more than twice.
func scriptRun(s string, p int) (end int, ok bool) {
	var lo, hi byte
	switch c := s[p]; {
	case c >= 0xD0 && c <= 0xD3:
		lo, hi = 0xD0, 0xD3
	case c == 0xCE || c == 0xCF:
		lo, hi = 0xCE, 0xCF
	default:
		return p, false
	}
	in := func(c byte) bool { return c >= lo && c <= hi || c >= 0x80 && c <= 0xBF }
	end = p + 1
	for end < len(s) && in(s[end]) {
		end++
	}
	if end < len(s) && (s[end] >= utf8.RuneSelf || isASCIILetter(s[end])) {
		return end, false
	}
	start := p
	for start > 0 && in(s[start-1]) {
		start--
	}
	if start > 0 && (s[start-1] >= utf8.RuneSelf || isASCIILetter(s[start-1])) {
		return end, false
	}
	return end, true
}

// nextLookalikeLead returns the index of the next byte at or after i that
// lookalikeLead marks, or len(s), eight bytes per step while none of them is in
// lookalikeLeads (ASCII, and text in scripts without look-alikes: CJK, Arabic).
func nextLookalikeLead(s string, i int) int {
	for i < len(s) {
		if i+8 <= len(s) {
			x := load64(s, i)
			m := x & highBits
			if m != 0 {
				m = lookalikeLeads.mask(x)
			}
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		}
		if lookalikeLead[s[i]] {
			return i
		}
		i++
	}
	return i
}

// lookalikeLeads is lookalikeLead as a highByteSet.
var lookalikeLeads = newHighByteSet(&lookalikeLead)

// disguisedWord applies the rules at the top of this file to a word.
func disguisedWord(word string) bool {
	var groups uint8
	ascii, letters, other := false, 0, false
	for _, r := range word {
		letters++
		switch {
		case r < utf8.RuneSelf:
			ascii = true
		case lookalikeLetter(r) != 0:
			groups |= lookalikeEntryOf(r).group
		default:
			other = true
		}
	}
	switch {
	case ascii && groups&(groupCyrillic|groupGreek|groupArmenian) != 0:
		return true
	case bits.OnesCount8(groups) >= 2:
		return true
	}
	return groups == groupLatin && !other && letters >= 2
}

// foldLookalike maps a look-alike to the ASCII letter of the same case.
func foldLookalike(r rune) rune {
	l := lookalikeLetter(r)
	if l == 0 {
		return r
	}
	if unicode.IsUpper(r) {
		return rune(l - 'a' + 'A')
	}
	return rune(l)
}

// wordAround widens [start, end) to the run of letters around it.
func wordAround(s string, start, end int) (int, int) {
	for start > 0 {
		r, sz := utf8.DecodeLastRuneInString(s[:start])
		if !unicode.IsLetter(r) {
			break
		}
		start -= sz
	}
	for end < len(s) {
		r, sz := utf8.DecodeRuneInString(s[end:])
		if !unicode.IsLetter(r) {
			break
		}
		end += sz
	}
	return start, end
}
