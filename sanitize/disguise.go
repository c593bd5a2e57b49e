package sanitize

import "strings"

// A skeleton is what a disguised phrase reads as. The breakout rules match text as
// written first; where none matches after an anchor, they get one more try on the
// skeleton of the same window, which undoes the disguises a reader sees through:
//
//   - leetspeak: in a word that holds ASCII letters, 0 1 3 4 5 7 @ $ stand for
//     o i e a s t a s ("1gn0r3", "ign0re");
//   - letters spelled out: three or more single letters with the same separator
//     (" ", ".", "-", "_") between each two are one word ("i.g.n.o.r.e", "I G N O R E");
//   - words joined by one of "-_.+/" with no space read as separate words
//     ("ignore-all-previous-instructions", "ignore.all.previous");
//   - up to maxFillers filler words after a verb of the ignore family are dropped
//     ("ignore really really really all previous instructions"): adverbs and
//     politeness words only, never arbitrary words, since "ignore it and follow
//     the previous instructions" is advice.
//
// ASCII letters come out in lower case, except those of a word that was disguised
// (leet or spelled out), which come out in upper case, so that a rule can ask for a
// disguise (see the skeleton rules). The skeleton is only ever matched, never
// shown: the marker replaces the source text it maps back to.

// skeletonWordByte marks the bytes of a word for the skeleton: ASCII letters, digits
// and the leet symbols.
var skeletonWordByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isASCIIAlnum(byte(c))
	}
	t['@'], t['$'] = true, true
	return t
}()

// skeleton returns the skeleton of w, the source end of each of its bytes (the
// offset in w just after the source bytes it stands for), and whether any disguise
// was undone.
func skeleton(w string) (string, []int32, bool) {
	type word struct{ start, end int }
	var wordBuf [64]word // a window of 256 bytes rarely holds more words
	words := wordBuf[:0]
	for i := 0; i < len(w); {
		if !skeletonWordByte[w[i]] {
			i++
			continue
		}
		j := i
		for j < len(w) && skeletonWordByte[w[j]] {
			j++
		}
		words = append(words, word{i, j})
		i = j
	}
	out := make([]byte, 0, len(w))
	ends := make([]int32, 0, len(w))
	changed := false
	emit := func(c byte, end int) {
		out = append(out, c)
		ends = append(ends, int32(end))
	}
	// readWord writes the word w[a:b], undoing leetspeak, in upper case when it was
	// disguised: leet among letters, or a letter of a spelled-out word.
	readWord := func(a, b int, spelledOut bool) {
		letters, leet := spelledOut, false
		for k := a; k < b; k++ {
			letters = letters || isASCIILetter(w[k])
			leet = leet || leetLetters[w[k]] != 0
		}
		upper := spelledOut || letters && leet
		for k := a; k < b; k++ {
			c := lowerASCII(w[k])
			if l := leetLetters[c]; l != 0 && letters {
				c = l
			}
			if upper && c >= 'a' && c <= 'z' {
				c -= 'a' - 'A'
			}
			emit(c, k+1)
		}
		changed = changed || upper
	}
	pos := 0 // source bytes before pos are written
	for k := 0; k < len(words); {
		wd := words[k]
		for ; pos < wd.start; pos++ {
			emit(lowerASCII(w[pos]), pos+1)
		}
		// Letters spelled out: single-byte words with the same one-byte separator.
		n := 1
		if wd.end-wd.start == 1 {
			for k+n < len(words) {
				prev, next := words[k+n-1], words[k+n]
				if next.end-next.start != 1 || next.start-prev.end != 1 ||
					w[prev.end] != w[wd.end] || !isSpelledSeparator(w[prev.end]) {
					break
				}
				n++
			}
		}
		outStart := len(out)
		if n >= 3 {
			for m := 0; m < n; m++ {
				readWord(words[k+m].start, words[k+m].end, true)
			}
			// The separators vanish: each letter's source end covers the one before it.
			pos = words[k+n-1].end
			changed = true
			k += n
		} else {
			readWord(wd.start, wd.end, false)
			pos = wd.end
			k++
		}
		if isIgnoreVerb(out[outStart:]) {
			for f := 0; f < maxFillers && k < len(words) && isBlankRun(w[pos:words[k].start]) &&
				fillerWords[strings.ToLower(w[words[k].start:words[k].end])]; f++ {
				pos = words[k].end
				k++
				changed = true
			}
		}
		// Words joined by "-_.+/" alone read as two words.
		if k < len(words) {
			gap := w[pos:words[k].start]
			if gap != "" && isJoinerRun(gap) && !(len(gap) == 1 && words[k].end-words[k].start == 1 && words[k-1].end-words[k-1].start == 1) {
				emit(' ', words[k].start)
				pos = words[k].start
				changed = true
			}
		}
	}
	for ; pos < len(w); pos++ {
		emit(lowerASCII(w[pos]), pos+1)
	}
	return string(out), ends, changed
}

// maxFillers bounds the filler words dropped after a verb.
const maxFillers = 4

// isIgnoreVerb reports whether the skeleton word w (ASCII) is in ignoreVerbSet, in
// any case, without building a string.
func isIgnoreVerb(w []byte) bool {
	var buf [len("disregarding")]byte
	if len(w) < len("drop") || len(w) > len(buf) {
		return false
	}
	for k, c := range w {
		buf[k] = lowerASCII(c)
	}
	return ignoreVerbSet[string(buf[:len(w)])]
}

// ignoreVerbSet are the verbs after which filler words are dropped; isIgnoreVerb
// knows the length of the shortest and the longest.
var ignoreVerbSet = set("ignore", "ignoring", "disregard", "disregarding", "forget", "forgetting",
	"skip", "discard", "abandon", "drop")

// fillerWords pad a take-over phrase without changing it.
var fillerWords = set("really", "just", "simply", "now", "please", "kindly", "immediately",
	"completely", "totally", "entirely", "fully", "absolutely", "literally", "very", "so",
	"truly", "seriously", "actually", "basically", "honestly", "also", "quickly",
	"definitely", "utterly", "wholly", "altogether", "right", "promptly", "swiftly",
	"hereby", "thus", "then", "sincerely", "respectfully", "politely", "gently")

// isBlankRun reports a gap of whitespace and emphasis only.
func isBlankRun(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isSeparator[s[i]] || s[i] == '-' {
			return false
		}
	}
	return s != ""
}

func isSpelledSeparator(c byte) bool { return c == ' ' || c == '.' || c == '-' || c == '_' }

// isJoinerRun reports a run made only of the bytes that join words without a space.
func isJoinerRun(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '-', '_', '.', '+', '/':
		default:
			return false
		}
	}
	return true
}
