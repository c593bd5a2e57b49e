package sanitize

import (
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Thresholds of the run layers. Markdown needs up to six '#' (an h6 heading), three
// or four of '-', '`', '~' (front matter, rules, code fences) and table rules as wide
// as their column, so a delimiter run is trimmed from ten on, like any other
// character; fake boundaries ("==========") are longer.
const (
	maxNewlines      = 3  // newlines kept in a row
	delimiterRun     = 10 // a delimiter run this long is trimmed
	repeatRun        = 10 // any other character repeated this often is trimmed
	runKeep          = 3  // what a trimmed run keeps
	repeatedWordRun  = 10 // aggressive: a word repeated this often in a row
	repeatedLineRun  = 5  // aggressive: a line repeated this often in a row
	repeatedLineKeep = 3
)

func isDelimiter(c byte) bool {
	switch c {
	case '=', '-', '#', '*', '_', '~', '`':
		return true
	}
	return false
}

// collapseRuns runs the newlines, repetition and delimiter layers. Whitespace and
// digits are never trimmed by repetition: indentation is meaningful in code, and a
// shortened number would change a fact.
func collapseRuns(s string, aggressive bool) (out string, newlines, repetition, delimiter int) {
	return collapseRunsScan(s, aggressive, true)
}

// collapseRunsScan is collapseRuns; skip says whether blocks of eight bytes may be
// passed at once (see runStartCandidates), which the differential test turns off to
// compare with the byte-by-byte path.
func collapseRunsScan(s string, aggressive, skip bool) (out string, newlines, repetition, delimiter int) {
	out, newlines, repetition, delimiter = collapseRunsInLines(s, aggressive, skip)
	if aggressive {
		var l int
		out, l = collapseLines(out)
		repetition += l
	}
	return out, newlines, repetition, delimiter
}

// collapseRunsInLines is collapseRunsScan but for the repeated lines: runs of a
// character, of line breaks and (aggressive mode) of a word. None of them reaches
// across a line break followed by a character other than whitespace, so a text
// cut there may be read in pieces (see normalizeAndCollapse).
func collapseRunsInLines(s string, aggressive, skip bool) (out string, newlines, repetition, delimiter int) {
	return collapseRunsInLinesIn(s, aggressive, skip, nil)
}

// collapseRunsInLinesIn is collapseRunsInLines with each layer building what it
// changes in the buffer of sp its input is not in, when sp is set; the result
// may then live in sp.
func collapseRunsInLinesIn(s string, aggressive, skip bool, sp *scratchPair) (out string, newlines, repetition, delimiter int) {
	e := editor{src: s, scratch: sp.other(s)}
	for i := 0; i < len(s); {
		// Eight bytes at a time while they are ASCII, hold no newline and no byte
		// equals its successor: nothing there can start a run. In a block that
		// holds one, on to the first such byte: those before it start no run.
		for skip && i+9 <= len(s) {
			x, y := load64(s, i), load64(s, i+1)
			if x&highBits == 0 {
				m := zeroBytes(x^y) | zeroBytes(x^('\n'*lowBits))
				if m == 0 {
					i += 8
					continue
				}
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			if i+12 <= len(s) {
				m := runStartCandidates(s, i, x, y)
				if m == 0 {
					// Past the block, on to the start of the next character: the
					// one the block ends inside starts no run either.
					for i += 8; i < len(s) && s[i]&0xC0 == 0x80; i++ {
					}
					continue
				}
				// Past the characters that start before the first candidate byte
				// (and the one it is inside, if it is not a first byte): none of
				// them starts a run.
				for first := i + bits.TrailingZeros64(m)>>3; i < first; {
					if c := s[i]; c < utf8.RuneSelf {
						i++
					} else {
						i += runeLen(c)
					}
				}
			}
			break
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		// Fast path: a character unlike the next one starts no run.
		if c < utf8.RuneSelf && c != '\n' && (i+1 == len(s) || s[i+1] != c) {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			if size := runeLen(c); i+2*size > len(s) || s[i+size:i+2*size] != s[i:i+size] {
				i += size
				continue
			}
		}
		if c == '\n' {
			// A run is the whitespace from the first to the last newline, so trailing
			// spaces before it and the next line's indentation survive.
			j, count, lastNL := i, 0, i
			for j < len(s) && (s[j] == '\n' || s[j] == '\r' || s[j] == ' ' || s[j] == '\t') {
				if s[j] == '\n' {
					count++
					lastNL = j
				}
				j++
			}
			if count > maxNewlines {
				e.replace(i, lastNL+1, "\n\n\n")
				newlines++
			}
			i = lastNL + 1
			continue
		}
		size := 1
		r := rune(c)
		if c >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		j, n := i+size, 1
		if size == 1 {
			for j < len(s) && s[j] == c {
				j++
				n++
			}
		} else {
			unit := s[i : i+size]
			for j+size <= len(s) && s[j:j+size] == unit {
				j += size
				n++
			}
		}
		switch {
		case size == 1 && isDelimiter(c):
			if n >= delimiterRun {
				e.replace(i+runKeep, j, "")
				delimiter++
			}
		case n >= repeatRun && !unicode.IsSpace(r) && !(c >= '0' && c <= '9'):
			e.replace(i+runKeep*size, j, "")
			repetition++
		}
		i = j
	}
	out = e.result()
	if aggressive {
		// Words first (and lines after, in collapseRunsScan): collapsing words can
		// make lines identical, never the reverse.
		var w int
		out, w = collapseWordsIn(out, sp.other(out))
		repetition += w
	}
	return out, newlines, repetition, delimiter
}

// runStartCandidates marks, for the eight bytes x at s[i] (with y at s[i+1] and at
// least twelve bytes from i), the bytes where a run may start: a newline, or a
// character of one to four bytes that equals the character after it, as far as the
// block shows; a run's first byte is always marked. A run of a character of k bytes at p needs s[p:p+k] ==
// s[p+k:p+2k], so the bytes at distance k from its first k bytes are equal; a
// character that ends past the block is a candidate when its bytes in the block
// are equal at distance k. Text in other scripts (Cyrillic, Greek, Arabic, kana,
// Hangul, ideographs) passes eight bytes at a time.
func runStartCandidates(s string, i int, x, y uint64) uint64 {
	const top1, top2, top3 = 0x80 << 56, 0x8080 << 48, 0x808080 << 40
	z1 := zeroBytes(x ^ y)
	z2 := zeroBytes(x ^ load64(s, i+2))
	z3 := zeroBytes(x ^ load64(s, i+3))
	z4 := zeroBytes(x ^ load64(s, i+4))
	return z1 | zeroBytes(x^('\n'*lowBits)) |
		z2&(z2>>8|top1) |
		z3&(z3>>8|top1)&(z3>>16|top2) |
		z4&(z4>>8|top1)&(z4>>16|top2)&(z4>>24|top3)
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// collapseWords keeps three copies of a word repeated ten or more times in a row on
// one line (token exhaustion: "spam spam spam ...").
func collapseWords(s string) (string, int) { return collapseWordsIn(s, nil) }

// collapseWordsIn is collapseWords building its result in scratch, when set
// (see editor).
func collapseWordsIn(s string, scratch *[]byte) (string, int) {
	return collapseWordsScan(s, scratch, true)
}

// collapseWordsScan is collapseWordsIn; sample says whether words may be passed
// by testing every ninth only (see skipUnlinkedWords), which the differential
// test turns off to compare with the word-by-word loop.
func collapseWordsScan(s string, scratch *[]byte, sample bool) (string, int) {
	e := editor{src: s, scratch: scratch}
	n := 0
	wordByWord := 0 // sample: the word-by-word loop runs until i reaches here
	for i := 0; i < len(s); {
		// i is at the first word of a group (the words the loop below reads
		// together) or at the spaces before one.
		if sample && i >= wordByWord {
			var linked int
			i, linked = skipUnlinkedWords(s, i)
			if i >= len(s) {
				break
			}
			wordByWord = linked + 1
		}
		if isSpace[s[i]] {
			i++
			continue
		}
		we := wordEnd(s, i)
		w := s[i:we]
		count, k, thirdEnd := 1, we, -1
		for {
			p := k
			for p < len(s) && isBlank(s[p]) {
				p++
			}
			// The first-byte test settles almost every word before a full compare.
			if p == k || p+len(w) > len(s) || s[p] != w[0] || s[p:p+len(w)] != w ||
				(p+len(w) < len(s) && !isSpaceByte(s[p+len(w)])) {
				break
			}
			count++
			k = p + len(w)
			if count == runKeep {
				thirdEnd = k
			}
		}
		if count >= repeatedWordRun {
			e.replace(thirdEnd, k, "")
			n++
		}
		i = k
	}
	return e.result(), n
}

// skipUnlinkedWords passes the words from i (at the first word of a group, or at
// the spaces before one) that collapseWords would leave alone, eight bytes at a
// time. Call two words linked when the second is a copy of the first after blanks
// only, as collapseWords reads them: a run it trims is ten words or more, nine
// links in a row, and nine words in a row hold one whose place (counted from i)
// is a multiple of nine. So only those words have their link tested, and while
// none holds no run can be there. It returns len(s), len(s) when none holds to
// the end of s; else where the word-by-word loop must start, the end of the last
// word tested before (whose link did not hold, so the next word starts a group)
// or i, and the start of the word whose link holds, which that loop must pass.
// On text that repeats no word, most words are then found by counting the
// starts of words in a block, not read one by one.
func skipUnlinkedWords(s string, i int) (from, linked int) {
	from = i
	next := 0         // words before the next one tested
	prev := uint64(1) // 1 when the byte before is a space: at i it is, or i is 0
	test := func(start int) bool {
		end := wordEnd(s, start)
		if wordLinked(s, start, end) {
			return true
		}
		from, next = end, 8 // the words up to the next one tested
		return false
	}
	for ; i+8 <= len(s); i += 8 {
		x := load64(s, i)
		if prev == 0 && (x-0x21*lowBits)&^x&highBits == 0 {
			// Inside a word, and no byte under 0x21 (see wordEnd), so no space
			// and no word start: the words of scripts written without spaces
			// pass at this cost.
			continue
		}
		sp := spaceMask(x)
		starts := ^sp & (sp<<8 | prev<<7) & highBits
		prev = sp >> 63
		c := bits.OnesCount64(starts)
		if c <= next {
			next -= c
			continue
		}
		skip := next
		for range skip {
			starts &= starts - 1
		}
		// A block of eight bytes starts four words at most: one is tested.
		k := i + bits.TrailingZeros64(starts)>>3
		if test(k) {
			return from, k
		}
		next -= c - skip - 1 // the words of the block after the tested one
	}
	for ; i < len(s); i++ {
		if isSpace[s[i]] {
			prev = 1
			continue
		}
		if prev == 1 {
			if next > 0 {
				next--
			} else if test(i) {
				return from, i
			}
		}
		prev = 0
	}
	return len(s), len(s)
}

// wordLinked reports whether the word s[start:end] is followed, after blanks
// only, by a copy of it that is a whole word (see collapseWords).
func wordLinked(s string, start, end int) bool {
	w := s[start:end]
	p := end
	for p < len(s) && isBlank(s[p]) {
		p++
	}
	return p > end && p+len(w) <= len(s) && s[p] == w[0] && s[p:p+len(w)] == w &&
		(p+len(w) == len(s) || isSpaceByte(s[p+len(w)]))
}

// spaceMask sets the high bit of every byte of x that isSpace marks: 0x20 and
// 0x09–0x0D. The sums are on the low seven bits, which cannot carry into the next
// byte, and a byte of 0x80 or more is none.
func spaceMask(x uint64) uint64 {
	v := x &^ highBits
	controls := (v + (0x80-0x09)*lowBits) &^ (v + (0x7F-0x0D)*lowBits)
	return (controls | zeroBytes(v^0x20*lowBits)) &^ x & highBits
}

// collapseLines keeps three copies of a non-blank line repeated five or more times
// in a row.
func collapseLines(s string) (string, int) {
	e := editor{src: s}
	n := 0
	for i := 0; i < len(s); {
		end := lineEnd(s, i)
		line := s[i:end]
		if strings.TrimSpace(line) == "" {
			i = end + 1
			continue
		}
		count, k, keepEnd := 1, end, -1
		for k < len(s) {
			next := k + 1
			nend := lineEnd(s, next)
			if s[next:nend] != line {
				break
			}
			count++
			k = nend
			if count == repeatedLineKeep {
				keepEnd = k
			}
		}
		if count >= repeatedLineRun {
			e.replace(keepEnd, k, "")
			n++
		}
		i = k + 1
	}
	return e.result(), n
}

// lineEnd returns the index of the '\n' that ends the line starting at i, or len(s).
func lineEnd(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(s)
}

func isSpaceByte(c byte) bool { return isSpace[c] }

// wordEnd returns the index of the first whitespace byte at or after i, or len(s).
// It tests eight bytes at a time for one below 0x21, which every whitespace byte is:
// the lowest flagged byte of the test is exact, and a flagged byte that is not
// whitespace (a control character) is stepped over.
func wordEnd(s string, i int) int {
	for i+8 <= len(s) {
		x := load64(s, i)
		m := (x - 0x21*lowBits) &^ x & highBits
		if m == 0 {
			i += 8
			continue
		}
		j := i + bits.TrailingZeros64(m)/8
		if isSpace[s[j]] {
			return j
		}
		i = j + 1
	}
	for i < len(s) && !isSpace[s[i]] {
		i++
	}
	return i
}

// isSpace marks the ASCII whitespace bytes; a table beats a chain of compares in the
// per-byte loops.
var isSpace = [256]bool{' ': true, '\t': true, '\n': true, '\r': true, '\f': true, '\v': true}
