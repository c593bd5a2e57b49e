package sanitize

import (
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/unicode/norm"
)

// isZeroWidth reports the invisible joiners and separators that split a keyword
// without changing how it reads (layer zero_width).
func isZeroWidth(r rune) bool {
	switch r {
	case
		'\u200B',                               // zero-width space
		'\u200C',                               // zero-width non-joiner
		'\u200D',                               // zero-width joiner
		'\u2060',                               // word joiner
		'\uFEFF',                               // byte order mark, zero-width no-break space
		'\u00AD',                               // soft hyphen
		'\u180E',                               // Mongolian vowel separator, once a zero-width space
		'\u2061',                               // invisible function application
		'\u2062',                               // invisible times
		'\u2063',                               // invisible separator
		'\u2064',                               // invisible plus
		'\u034F',                               // combining grapheme joiner
		'\u115F', '\u1160', '\u3164', '\uFFA0', // Hangul fillers: blank "letters"
		'\u17B4', '\u17B5': // Khmer inherent vowels, drawn as nothing
		return true
	}
	// Musical-symbol and shorthand format controls: invisible too.
	return r >= 0x1D173 && r <= 0x1D17A || r >= 0x1BCA0 && r <= 0x1BCA3
}

// isVariationSelector reports the selectors and format controls that only shape the
// character before them: variation selectors, Mongolian free variation selectors and
// Egyptian hieroglyph format controls. After an emoji, a CJK ideograph or a letter of
// their own script they matter; after a letter of an alphabet they draw nothing and
// only split a keyword.
func isVariationSelector(r rune) bool {
	return r >= 0xFE00 && r <= 0xFE0F || r >= 0xE0100 && r <= 0xE01EF ||
		r >= 0x180B && r <= 0x180F && r != 0x180E || r >= 0x13430 && r <= 0x1343F
}

// afterAlphabetLetter reports whether the visible character before s[i] is a Latin,
// Greek or Cyrillic letter, the scripts where a variation selector is only a disguise.
func afterAlphabetLetter(s string, i int) bool {
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		if isZeroWidth(r) || isHidden(r) || isVariationSelector(r) {
			i -= size
			continue
		}
		return unicode.IsLetter(r) && unicode.In(r, unicode.Latin, unicode.Greek, unicode.Cyrillic)
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
	case r >= 0xE0000 && r <= 0xE0FFF && !isVariationSelector(r):
		// Tag characters and the rest of their block: default-ignorable, drawn as nothing.
		return true
	case r >= 0x2065 && r <= 0x206F, r >= 0xFFF0 && r <= 0xFFFB:
		// Deprecated format controls, interlinear annotation marks and unassigned
		// default-ignorable code points: drawn as nothing, no use in web text.
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
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if !plainASCII8(load64(s, i)) && !plainASCIIBytes(s[i:i+8]) {
			return false
		}
	}
	return plainASCIIBytes(s[i:])
}

// plainASCIIBytes is plainASCII a byte at a time, for blocks holding tabs or line
// breaks and for the tail.
func plainASCIIBytes(s string) bool {
	for i := 0; i < len(s); i++ {
		if mayChange[s[i]] || s[i] >= utf8.RuneSelf {
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
	return normalizePieces(s, normalizeCuts(s))
}

// normalizePieces is normalizeInvisible with the text cut into pieces at cuts
// (ascending; none for the whole text at once), each piece normalized on its own
// and written to the result: the three layers then read a piece the size of a
// cache where they would each copy the whole text, and on a long text two
// goroutines take the pieces one at a time.
//
// A cut before printable ASCII and after a line break changes nothing: no layer
// here reads across it. dropInvisible
// decides each character alone, looking back only past invisible ones to a visible
// character (the ASCII one after the cut); nfkcSpans reads stretches of non-ASCII
// text with the one character before them, which after the cut is ASCII;
// foldLookalikes reads words of letters, which the character before the cut ends.
// A round can change only the last ASCII character before a stretch, so the
// printable ASCII after the cut, one character longer than the rounds, keeps its
// first character through them all. And a piece that has reached its fixed point
// (no look-alike folded, no variation selector in a changed stretch) is left alone
// by more rounds, so each piece may stop when it gets there, as the rounds over the
// whole text leave it.
func normalizePieces(s string, cuts []int) (out string, zeroWidth, uni int) {
	if len(cuts) == 0 {
		return normalizeRounds(s)
	}
	counts := make([][2]int, len(cuts)+1)
	out = inPieces(s, cuts, func(k int, piece string, sp *scratchPair) string {
		out, zw, u := normalizeRoundsIn(piece, sp)
		counts[k] = [2]int{zw, u}
		return out
	})
	for _, c := range counts {
		zeroWidth += c[0]
		uni += c[1]
	}
	return out, zeroWidth, uni
}

// inPieces cuts s at cuts and calls do on every piece (k its place), on the
// caller's goroutine and, for a text of concurrentNormalize bytes or more, on a
// helper, each taking the next piece left, and returns what do made of the pieces,
// put together in order: s itself when do returned every piece as it was given.
// Each goroutine gives do its own scratchPair, the same for all its pieces, and
// what do returns may live in it: it is copied out before the goroutine's next
// piece. Halves given out in advance did worse: with the classifier on the other
// core, the helper waited for a core while the caller did its half, then did its
// own while the caller waited.
func inPieces(s string, cuts []int, do func(k int, piece string, sp *scratchPair) string) string {
	bounds := make([]int, 0, len(cuts)+2)
	bounds = append(append(append(bounds, 0), cuts...), len(s))
	j := &pieceJoin{s: s, bounds: bounds, early: make([]earlyPiece, len(bounds)-1)}
	var next atomic.Int64
	work := func() {
		var sp scratchPair
		for {
			k := int(next.Add(1) - 1)
			if k >= len(j.early) {
				return
			}
			j.place(k, do(k, s[bounds[k]:bounds[k+1]], &sp), &sp)
		}
	}
	var wg sync.WaitGroup
	if len(s) >= concurrentNormalize {
		wg.Go(work)
	}
	work()
	wg.Wait()
	if !j.changed {
		return s
	}
	return unsafe.String(unsafe.SliceData(j.out), len(j.out))
}

// A pieceJoin puts the pieces inPieces made together, in order, as they come: a
// piece whose predecessors are all placed is copied straight to the output from
// where it was built, and one done before them waits in a buffer reused from
// piece to piece. Where every piece was first copied out to fresh memory and the
// copies then joined, a tenth of the sanitizer's time on a long text in many
// scripts went to the two copies (memory bandwidth more than page faults: the
// heap keeps most of its pages mapped). The output is begun only at the first
// piece that changed, with the text before it, so a text that nothing changes is
// never copied.
type pieceJoin struct {
	mu      sync.Mutex
	s       string
	bounds  []int
	out     []byte
	changed bool
	placed  int          // pieces in out (or, until changed, found unchanged)
	early   []earlyPiece // pieces done before one before them
}

// An earlyPiece is a piece done before one before it: the piece itself when it
// does not live in a scratchPair, else a copy in buf.
type earlyPiece struct {
	done  bool
	piece string
	buf   *[]byte
}

// earlyBufs holds the buffers of early pieces: one is back as soon as the piece
// before it is placed, so a few of them serve a whole text, warm in the cache.
var earlyBufs = sync.Pool{New: func() any { return new([]byte) }}

// place takes piece k's output, which may live in sp. A piece done early is
// copied to an early buffer under the lock: a copy of one piece, which the
// other goroutine seldom waits for.
func (j *pieceJoin) place(k int, piece string, sp *scratchPair) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if k != j.placed {
		e := earlyPiece{done: true, piece: piece}
		if sp.has(piece) {
			e.buf = earlyBufs.Get().(*[]byte)
			*e.buf = append((*e.buf)[:0], piece...)
			e.piece = unsafe.String(unsafe.SliceData(*e.buf), len(piece))
		}
		j.early[k] = e
		return
	}
	j.put(k, piece)
	for j.placed < len(j.early) && j.early[j.placed].done {
		e := j.early[j.placed]
		j.put(j.placed, e.piece)
		if e.buf != nil {
			earlyBufs.Put(e.buf)
		}
	}
}

// put appends piece k to the output.
func (j *pieceJoin) put(k int, piece string) {
	j.placed++
	j.early[k] = earlyPiece{}
	if !j.changed {
		in := j.s[j.bounds[k]:j.bounds[k+1]]
		if len(piece) == len(in) && unsafe.StringData(piece) == unsafe.StringData(in) {
			return
		}
		j.changed = true
		// Normalizing seldom makes a text longer; a little room saves a copy
		// when it does.
		j.out = make([]byte, 0, len(j.s)+len(j.s)/64+64)
		j.out = append(j.out, j.s[:j.bounds[k]]...)
	}
	j.out = append(j.out, piece...)
}

// normalizeAndCollapse is normalizeInvisible followed by collapseRuns, what
// runLayers does first. A long text is read in the pieces of normalizePieces,
// each normalized and then its runs collapsed (all but the repeated lines) on the
// same goroutine while it is in the cache, and the pieces are put together once,
// where the run layers copied the whole normalized text again to a new buffer;
// the repeated lines are collapsed in the whole text last. It gives what the two
// calls give: a cut is made after a line break and before a character that is not
// whitespace, which normalization leaves in place (see normalizePieces) and no run
// but a run of lines reaches across (see collapseRunsInLines); and a run of lines
// is looked for in the whole text, after the words were collapsed, as
// collapseRuns does.
func normalizeAndCollapse(s string, aggressive bool) (out string, zeroWidth, uni, newlines, repetition, delimiter int) {
	return normalizeAndCollapseAt(s, aggressive, normalizeCuts(s))
}

// normalizeAndCollapseAt is normalizeAndCollapse with s cut at cuts (ascending,
// places isNormalizeCut allows).
func normalizeAndCollapseAt(s string, aggressive bool, cuts []int) (out string, zeroWidth, uni, newlines, repetition, delimiter int) {
	if len(cuts) == 0 {
		s, zeroWidth, uni = normalizeInvisible(s)
		s, newlines, repetition, delimiter = collapseRuns(s, aggressive)
		return s, zeroWidth, uni, newlines, repetition, delimiter
	}
	counts := make([][5]int, len(cuts)+1)
	out = inPieces(s, cuts, func(k int, piece string, sp *scratchPair) string {
		c := &counts[k]
		piece, c[0], c[1] = normalizeRoundsIn(piece, sp)
		piece, c[2], c[3], c[4] = collapseRunsInLinesIn(piece, aggressive, true, sp)
		return piece
	})
	for _, c := range counts {
		zeroWidth += c[0]
		uni += c[1]
		newlines += c[2]
		repetition += c[3]
		delimiter += c[4]
	}
	if aggressive {
		var l int
		out, l = collapseLines(out)
		repetition += l
	}
	return out, zeroWidth, uni, newlines, repetition, delimiter
}

// normalizeRounds runs the zero_width and unicode layers over s until it reaches
// their fixed point, at most maxNormalizeRounds times.
func normalizeRounds(s string) (out string, zeroWidth, uni int) {
	return normalizeRoundsIn(s, nil)
}

// normalizeRoundsIn is normalizeRounds with each layer building what it changes
// in the buffer of sp its input is not in, when sp is set; the result may then
// live in sp.
func normalizeRoundsIn(s string, sp *scratchPair) (out string, zeroWidth, uni int) {
	// Folding a look-alike can leave an ASCII letter that composes with the mark
	// after it, and NFKC can put a letter before a variation selector that is then
	// only a disguise, so a few rounds reach the fixed point. NFKC never yields a
	// character dropInvisible removes or maps (TestNFKCYieldsNothingInvisible), so
	// otherwise one round is the fixed point.
	for range maxNormalizeRounds {
		var zw, u, n, m int
		var selector bool
		s, zw, u = dropInvisibleIn(s, sp.other(s))
		zeroWidth += zw
		uni += u
		s, n, selector = nfkcSpansIn(s, sp.other(s))
		s, m = foldLookalikesIn(s, sp.other(s))
		uni += n + m
		if m == 0 && !selector {
			break
		}
	}
	return s, zeroWidth, uni
}

// maxNormalizeRounds bounds the rounds of normalizeRounds.
const maxNormalizeRounds = 4

// normalizePiece is the size of the pieces normalizeInvisible cuts a long text
// into: they stay in a core's cache from one layer to the next.
const normalizePiece = 64 << 10

// concurrentNormalize is the text size from which normalizeInvisible works on
// two goroutines: the unicode layers are most of the work on text in other
// scripts, and on a page this size the goroutine costs nothing that shows.
const concurrentNormalize = 1 << 20

// normalizeCuts returns where normalizeInvisible may cut s (see normalizePieces):
// the first place at or after every normalizePiece bytes where a line break is
// followed by more printable ASCII than there are rounds, a space not first. Text
// with no such place (in a script without spaces) makes longer pieces. The run
// layers may cut there too (see normalizeAndCollapse).
func normalizeCuts(s string) []int {
	if len(s) < 2*normalizePiece {
		return nil
	}
	var cuts []int
	for i := normalizePiece; i+maxNormalizeRounds+1 < len(s); {
		if isNormalizeCut(s, i) {
			cuts = append(cuts, i)
			i += normalizePiece
			continue
		}
		nl := strings.IndexByte(s[i:], '\n')
		if nl < 0 {
			break
		}
		i += nl + 1 // just past a line break: the only places a cut may be
	}
	return cuts
}

// isNormalizeCut reports whether s may be cut before i (see normalizePieces and
// normalizeAndCollapse).
func isNormalizeCut(s string, i int) bool {
	if i < 1 || i+maxNormalizeRounds+1 > len(s) || s[i-1] != '\n' || s[i] == ' ' {
		return false
	}
	for k := i; k < i+maxNormalizeRounds+1; k++ {
		if s[k] < 0x20 || s[k] > 0x7E {
			return false
		}
	}
	return true
}

// nfkcSpans puts s (valid UTF-8) in NFKC, counts the segments that changed and
// reports whether a changed stretch holds a variation selector. ASCII is inert
// under NFKC and never composes with what precedes it, so only the stretches that hold
// non-ASCII bytes (with the one ASCII character before them, which a combining mark
// may attach to) are checked. Within a stretch, the characters that NFKC leaves alone
// whatever surrounds them (see inertSet) are skipped by a table look-up, and only the
// runs of other characters, with the character before each, go to the normalizer:
// there is a normalization boundary before every inert character, so normalizing
// those runs alone gives the text, and the segment count, that normalizing the
// whole stretch gives.
func nfkcSpans(s string) (string, int, bool) { return nfkcSpansIn(s, nil) }

// nfkcSpansIn is nfkcSpans building its result in scratch, when set (see
// editor).
func nfkcSpansIn(s string, scratch *[]byte) (string, int, bool) {
	e := editor{src: s, scratch: scratch}
	n := 0
	selector := false
	// Pages repeat the same few unnormalized characters (full-width punctuation in
	// CJK text, ligatures), so short chunks are normalized once per call.
	type normalized struct {
		out   string
		count int
	}
	var cache map[string]normalized
	var fullWidth [128]struct {
		out   string
		count int
		state uint8 // 0 not seen yet, 1 in NFKC, 2 normalized to out
	}
	inert := nfkcInertTable()
	for i := 0; i < len(s); {
		p := nextNonASCII(s, i)
		if p == len(s) {
			break
		}
		start := p
		if p > i && s[p-1] < utf8.RuneSelf {
			start = p - 1 // the ASCII letter a combining mark may attach to
		}
		if isInertIdeograph(s[p]) {
			// Ideographs: inert like ASCII, and nothing composes with them; a run of
			// them is passed at once.
			for i = p + 3; i < len(s) && isInertIdeograph(s[i]); i += 3 {
			}
			continue
		}
		// The stretch is the characters from p up to the next ASCII byte or
		// ideograph, read one character at a time (its end found on the way).
		changed := false
		prev := start // start of the character before k
		k := start
		if start < p {
			prev, k = start, p
		}
		for k < len(s) && s[k] >= utf8.RuneSelf && !isInertIdeograph(s[k]) {
			// Most characters here are two or three bytes long and in a block of
			// the inert set already filled: decodeValid and has, written out,
			// since the calls would cost more than the work.
			if c := s[k]; c < 0xF0 && k+2 < len(s) {
				r, size := rune(c&0x1F)<<6|rune(s[k+1]&0x3F), 2
				if c >= 0xE0 {
					r, size = rune(c&0x0F)<<12|rune(s[k+1]&0x3F)<<6|rune(s[k+2]&0x3F), 3
				}
				if b := r >> 6; inert.filled[b].Load() && inert.bits[b].Load()&(1<<(r&63)) != 0 {
					prev, k = k, k+size
					continue
				}
			}
			r, size := decodeValid(s, k)
			if inert.has(r) {
				prev, k = k, k+size
				continue
			}
			// A run of characters that are not inert, with the one before it.
			rs, re := prev, k+size
			for re < len(s) && s[re] >= utf8.RuneSelf && !isInertIdeograph(s[re]) {
				r, size := decodeValid(s, re)
				if inert.has(r) {
					break
				}
				re += size
			}
			prev, k = re, re
			chunk := s[rs:re]
			if len(chunk) == 3 && chunk[0] == 0xEF && chunk[1]&0xFE == 0xBC {
				// One character of U+FF00–U+FF7F alone: full-width punctuation
				// between ideographs ("，" is 1,731 of the some 2,500 characters
				// NFKC changes in testdata/multilingual), decided once per call in
				// an array by its last six bits and the one of its middle byte,
				// where every occurrence took the quick check and a map look-up.
				w := &fullWidth[int(chunk[1]&1)<<6|int(chunk[2]&0x3F)]
				if w.state == 0 {
					w.state = 1 // in NFKC already
					if norm.NFKC.QuickSpanString(chunk) != len(chunk) {
						w.out, w.count = nfkcCount(chunk)
						w.state = 2
					}
				}
				if w.state == 2 {
					e.replace(rs, re, w.out)
					n += w.count
					changed = true
				}
				continue
			}
			if norm.NFKC.QuickSpanString(chunk) == len(chunk) {
				continue
			}
			done, ok := cache[chunk]
			if !ok {
				done.out, done.count = nfkcCount(chunk)
				if len(chunk) <= 16 {
					if cache == nil {
						cache = make(map[string]normalized)
					}
					cache[chunk] = done
				}
			}
			e.replace(rs, re, done.out)
			n += done.count
			changed = true
		}
		end := k
		i = end
		// As when the whole stretch was normalized: a changed stretch that holds a
		// variation selector asks for another round.
		selector = selector || changed && strings.IndexFunc(s[start:end], isVariationSelector) >= 0
	}
	return e.result(), n, selector
}

// decodeValid decodes the character at s[i] of valid UTF-8 (as dropInvisible
// leaves it): two- and three-byte sequences from their bits, without the checks
// utf8.DecodeRuneInString makes.
func decodeValid(s string, i int) (rune, int) {
	switch c := s[i]; {
	case c < utf8.RuneSelf:
		return rune(c), 1
	case c < 0xE0 && i+1 < len(s):
		return rune(c&0x1F)<<6 | rune(s[i+1]&0x3F), 2
	case c < 0xF0 && i+2 < len(s):
		return rune(c&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F), 3
	}
	return utf8.DecodeRuneInString(s[i:])
}

// An inertSet marks the characters of the Basic Multilingual Plane that NFKC leaves
// alone whatever surrounds them: their quick check is yes, their combining class is
// zero and nothing composes with what precedes them. A run of them is normalized
// text, and there is a normalization boundary before each of them.
//
// The set is filled in blocks of 64 characters, each the first time a text holds
// one of them: deciding all 63,000 at once costs about 8 ms, which a command
// sanitizing one short page would pay in full, while a page in one script touches
// a few dozen blocks. Blocks are filled with atomic stores, so concurrent calls
// may both fill a block (with the same bits) but never read a half-filled one.
type inertSet struct {
	bits   [0x10000 / 64]atomic.Uint64
	filled [0x10000 / 64]atomic.Bool
}

func (t *inertSet) has(r rune) bool {
	if r >= 0x10000 {
		return false
	}
	block := r >> 6
	if !t.filled[block].Load() {
		t.fill(block)
	}
	return t.bits[block].Load()&(1<<(r&63)) != 0
}

// fill decides the 64 characters of a block.
func (t *inertSet) fill(block rune) {
	var bits uint64
	var buf [utf8.UTFMax]byte
	for k := rune(0); k < 64; k++ {
		r := block<<6 | k
		if r < 0x80 || r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		if nfkcInert(string(buf[:utf8.EncodeRune(buf[:], r)])) {
			bits |= 1 << k
		}
	}
	t.bits[block].Store(bits)
	t.filled[block].Store(true)
}

// nfkcInertSet is the one inert set, filled as texts need it.
var nfkcInertSet inertSet

func nfkcInertTable() *inertSet { return &nfkcInertSet }

// nfkcInert reports whether the character c is inert under NFKC (see inertSet).
func nfkcInert(c string) bool {
	p := norm.NFKC.PropertiesString(c)
	return p.CCC() == 0 && p.BoundaryBefore() && norm.NFKC.QuickSpanString(c) == len(c) && norm.NFKC.String(c) == c
}

// isInertIdeograph reports lead bytes E4–E9, the CJK ideographs U+4000–U+9FFF:
// NFKC leaves them alone and they never compose with a neighbour, so Chinese and
// Japanese text can skip the normalizer like ASCII.
func isInertIdeograph(lead byte) bool { return lead >= 0xE4 && lead <= 0xE9 }

// nextNonASCII returns the index of the first byte at or after i that is not ASCII,
// or len(s), looking at eight bytes per step.
func nextNonASCII(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		if load64(s, i)&highBits != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return i
		}
	}
	return i
}

// nfkcCount normalizes s and counts the segments NFKC changed.
func nfkcCount(s string) (string, int) {
	var it norm.Iter
	it.InitString(norm.NFKC, s)
	var b strings.Builder
	b.Grow(len(s))
	n := 0
	for !it.Done() {
		start := it.Pos()
		seg := it.Next()
		if string(seg) != s[start:it.Pos()] {
			n++
		}
		b.Write(seg)
	}
	return b.String(), n
}

// dropInvisible removes zero-width and hidden characters, maps spaces, and replaces
// invalid UTF-8 with U+FFFD.
//
// It reads printable ASCII eight bytes at a time and every other character from its
// bytes alone: the length, the validity (the ranges of utf8.ValidString) and, from
// invisibleBits, whether it may change. Only those that may change are decoded, so
// text in other scripts costs a table look-up per character. From the first invalid
// byte on, every character is decoded (dropInvisibleCareful).
func dropInvisible(s string) (string, int, int) { return dropInvisibleIn(s, nil) }

// dropInvisibleIn is dropInvisible building its result in scratch, when set
// (see editor).
func dropInvisibleIn(s string, scratch *[]byte) (string, int, int) {
	e := editor{src: s, scratch: scratch}
	zw, uni := 0, 0
	i := 0
	for i < len(s) {
		for i+8 <= len(s) && plainASCII8(load64(s, i)) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		// Valid characters of two and three bytes that stay, in a loop of their
		// own (classifyRune written out, since the call would cost more than the
		// work); anything else goes on to classifyRune below.
		for i+2 < len(s) {
			c, c1 := s[i], s[i+1]
			if c < 0xC2 || c >= 0xF0 {
				break // ASCII, a four-byte character, or invalid
			}
			if c < 0xE0 {
				if c1&0xC0 != 0x80 || invisibleBits2[c&0x1F]>>(c1&0x3F)&1 != 0 {
					break
				}
				i += 2
				continue
			}
			if c2 := s[i+2]; c1 < secondLow[c&0x0F] || c1 > secondHigh[c&0x0F] || c2&0xC0 != 0x80 ||
				invisibleBits3[c&0x0F][c1&0x3F]>>(c2&0x3F)&1 != 0 {
				break
			}
			i += 3
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if mayChange[c] {
				e.replace(i, i+1, "")
				uni++
			}
			i++
			continue
		}
		size, changes := classifyRune(s, i)
		if size == 0 {
			break // invalid UTF-8
		}
		if changes {
			z, u := dropChar(&e, s, i)
			zw += z
			uni += u
		}
		i += size
	}
	return dropInvisibleCareful(&e, s, i, zw, uni)
}

// dropInvisibleCareful is dropInvisible from s[i] on, every character decoded, with
// the edits and counts made before i; from 0 it is the reference the fast path must
// match.
func dropInvisibleCareful(e *editor, s string, i, zw, uni int) (string, int, int) {
	for i < len(s) {
		z, u, size := dropCharSized(e, s, i)
		zw += z
		uni += u
		i += size
	}
	return e.result(), zw, uni
}

// dropChar removes or maps the character at s[i] when it is one dropInvisible
// changes, and returns what it counted under zero_width and unicode.
func dropChar(e *editor, s string, i int) (zw, uni int) {
	zw, uni, _ = dropCharSized(e, s, i)
	return zw, uni
}

func dropCharSized(e *editor, s string, i int) (zw, uni, size int) {
	if c := s[i]; c < utf8.RuneSelf {
		if mayChange[c] {
			e.replace(i, i+1, "")
			return 0, 1, 1
		}
		return 0, 0, 1
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	switch {
	case r == utf8.RuneError && size == 1:
		e.replace(i, i+1, "\uFFFD")
		uni++
	case isZeroWidth(r), isVariationSelector(r) && afterAlphabetLetter(s, i):
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
	return zw, uni, size
}

// classifyRune returns the length of the non-ASCII UTF-8 sequence at s[i], 0 when it
// is invalid, and whether its character is one dropInvisible may change
// (invisibleBits). Validity is decided as utf8.ValidString decides it: no overlong
// forms, no surrogates, nothing above U+10FFFF.
func classifyRune(s string, i int) (size int, changes bool) {
	c := s[i]
	switch {
	case c < 0xC2:
		return 0, false
	case c < 0xE0:
		if i+1 >= len(s) || s[i+1]&0xC0 != 0x80 {
			return 0, false
		}
		return 2, invisibleBits2[c&0x1F]>>(s[i+1]&0x3F)&1 != 0
	case c < 0xF0:
		if i+2 >= len(s) {
			return 0, false
		}
		c1, c2 := s[i+1], s[i+2]
		if c1 < secondLow[c&0x0F] || c1 > secondHigh[c&0x0F] || c2&0xC0 != 0x80 {
			return 0, false
		}
		return 3, invisibleBits3[c&0x0F][c1&0x3F]>>(c2&0x3F)&1 != 0
	case c < 0xF5:
		if i+3 >= len(s) {
			return 0, false
		}
		c1 := s[i+1]
		lo, hi := byte(0x80), byte(0xBF)
		switch c {
		case 0xF0:
			lo = 0x90
		case 0xF4:
			hi = 0x8F
		}
		if c1 < lo || c1 > hi || s[i+2]&0xC0 != 0x80 || s[i+3]&0xC0 != 0x80 {
			return 0, false
		}
		// The planes above the first hold few characters dropInvisible changes
		// (format controls, tags, variation selectors: F0 and F3); decode them.
		return 4, c == 0xF0 || c == 0xF3
	}
	return 0, false
}

// secondLow and secondHigh bound the second byte of a valid three-byte sequence, by
// the low nibble of its lead byte: E0 needs A0 or more (no overlong form), ED 9F or
// less (no surrogate).
var secondLow, secondHigh = func() (lo, hi [16]byte) {
	for k := range 16 {
		lo[k], hi[k] = 0x80, 0xBF
	}
	lo[0x0], hi[0xD] = 0xA0, 0x9F
	return lo, hi
}()

// invisibleBits2 and invisibleBits3 mark the characters of two and three bytes that
// dropInvisible may change (invisibleChanges), a bit per character: by the low bits
// of the lead byte, and for three bytes of the second byte, a 64-bit word per
// block of 64 characters. Every program that links this package fills them at
// start, so only the lead bytes of three-byte characters that dropInvisible changes
// are looked at (E1, E2, E3 and EF: invisibleLeads3; TestInvisibleBits checks
// every character).
var invisibleBits2, invisibleBits3 = func() (two [32]uint64, three [16][64]uint64) {
	for r := rune(0x80); r < 0x800; r++ {
		if invisibleChanges(r) {
			two[r>>6] |= 1 << (r & 63)
		}
	}
	for _, lead := range invisibleLeads3 {
		for r := rune(lead) << 12; r < rune(lead+1)<<12; r++ {
			if invisibleChanges(r) {
				three[r>>12][r>>6&63] |= 1 << (r & 63)
			}
		}
	}
	return two, three
}()

// invisibleLeads3 are the low nibbles of the lead bytes of the three-byte
// characters dropInvisible changes: U+1000–U+1FFF (Hangul fillers, Khmer vowels,
// the Ogham and Mongolian spaces), U+2000–U+2FFF (spaces, joiners, bidi controls),
// U+3000–U+3FFF (the ideographic space, the Hangul filler) and U+F000–U+FFFF
// (variation selectors, the byte order mark, the half-width filler, specials).
var invisibleLeads3 = []int{0x1, 0x2, 0x3, 0xF}

// invisibleChanges reports whether dropInvisible removes or maps r, whatever
// precedes it.
func invisibleChanges(r rune) bool {
	return isZeroWidth(r) || isHidden(r) || isVariationSelector(r) || r == '\u2028' || r == '\u2029' ||
		r == '\u0085' || unicode.Is(unicode.Zs, r)
}

// mayChange marks the ASCII bytes dropInvisible changes: the control characters
// other than tab and line breaks.
var mayChange = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = c != '\t' && c != '\n' && c != '\r'
	}
	t[0x7F] = true
	return t
}()

// runeLen returns the length of the UTF-8 sequence a valid lead byte starts.
func runeLen(lead byte) int {
	switch {
	case lead < 0xE0:
		return 2
	case lead < 0xF0:
		return 3
	}
	return 4
}
