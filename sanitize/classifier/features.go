package classifier

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strings"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// TableBits is the log2 of the number of hashed feature buckets. 2^18 16-bit weights
// (512 KB) fit in a core's L2 cache; a 4 MB table made Score five times slower (a
// random read per word that missed the cache) for a few points of recall.
const TableBits = 18

// MinNorm is the fewest features a window's sum is divided by the square root of.
// A text of one or two words has a handful of features, and without the floor a
// single word that is common in attacks ("hidden", "system") would carry a search
// title over the threshold on its own; with it, a short text needs several
// such words to score high.
const MinNorm = 16

// Norm is the value of each of n features in a window: 1/sqrt(max(n, MinNorm)).
func Norm(n int) float32 {
	return float32(1 / math.Sqrt(float64(max(n, MinNorm))))
}

// Window geometry: a window is two consecutive chunks, so windows are about
// 2*chunkWords words long and overlap by half. Sharing chunks is what makes the
// windows cheap: every feature is hashed and looked up once, and a window's sum is
// the sum of its two chunks. Twenty-word windows were chosen by their figures on
// the calibration split, against 24 and 32 words (the size before): an injected
// sentence fills more of a short window, so fewer are diluted by the page around
// them (task injections in web text 0.79 to 0.87 there), at a false-positive rate
// that stays under the goal.
const chunkWords = 10

// maxToken is how many bytes of a word the features see. Longer runs (base64,
// hashes, URLs glued together) are rarely informative past that and must not make
// per-token work unbounded.
const maxToken = 32

// Byte classes of the ASCII fast path.
const (
	clsSep     = iota // space, newline and punctuation that only separates words
	clsLower          // a-z
	clsUpper          // A-Z
	clsDigit          // 0-9
	clsSpecial        // < > | # [ ] { } : the punctuation of role prefixes and template tokens
)

var asciiClass = func() (t [128]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = clsLower
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = clsUpper
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = clsDigit
	}
	for _, c := range "<>|#[]{}:" {
		t[c] = clsSpecial
	}
	return t
}()

// leet undoes digit-for-letter spelling ("1gn0r3") in words that mix letters and
// digits and have no more digits than letters; words of digits alone are numbers,
// and words mostly of digits (w07734, SKU codes, hashes) are identifiers: they stay.
var leet = [10]byte{'o', 'i', 'z', 'e', 'a', 's', 'g', 't', 'b', 'g'}

// joinGap reports the single characters that may sit between the letters of a
// spelled-out word ("i.g.n.o.r.e", "i g n o r e", "i-g-n-o-r-e").
func joinGap(c byte) bool {
	return c == ' ' || c == '.' || c == '-' || c == '_' || c == '*' || c == '/' || c == '+'
}

// confusable folds the Cyrillic and Greek letters that look like Latin ones. It is
// applied only inside words that also have ASCII letters, as the sanitizer's unicode
// layer does, so Russian and Greek text keeps its own letters.
var confusable = map[rune]byte{
	'а': 'a', 'в': 'b', 'е': 'e', 'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p',
	'с': 'c', 'т': 't', 'у': 'y', 'х': 'x', 'і': 'i', 'ј': 'j', 'ѕ': 's', 'ԁ': 'd',
	'ɡ': 'g', 'ո': 'n', 'ı': 'i',
	'α': 'a', 'β': 'b', 'ε': 'e', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'ο': 'o', 'ρ': 'p',
	'τ': 't', 'υ': 'u', 'χ': 'x',
}

// A scanner turns text into hashed features and groups them into chunks. It runs in
// one of two modes: scoring (it adds up weights and keeps the best window's logit,
// allocating nothing) or collecting (it records every feature index, for training).
// Both modes share every line that decides what a feature is, so training and
// scoring cannot drift apart.
type scanner struct {
	w     []int16 // scoring mode: the quantized weights; nil when collecting
	bias  float32
	scale float32 // the weight of one quantum
	shift uint    // 64 - TableBits

	// The current and the previous chunk.
	sum, prevSum int32 // in quanta: integer sums do not depend on the order of adding
	n, prevN     int32
	words        int
	havePrev     bool
	scored       bool    // some window was scored
	best         float32 // best window logit so far
	hitLogit     float32 // scoring mode: the logit a window must reach to count in over
	over         int     // windows whose logit reached hitLogit
	windows      int     // windows scored
	chunkAt      int     // byte offset of the current chunk's first token
	limit        int     // scoring mode: no window that begins at this offset or after is read
	stopped      bool    // scoring mode: the window at limit was reached

	// Collecting mode.
	collect    bool
	naming     bool     // also record a readable form of each feature, in names
	names      []string // naming: one per feature in feats
	name       string   // naming: the readable form of the feature emit adds next
	prevTok    string   // naming: the token before, for bigrams
	feats      []uint32
	chunks     []chunkSpan
	chunkStart int // byte offset where the current chunk began
	chunkFeat  int // index in feats where the current chunk began
	pos        int // byte offset of the token being emitted

	// The word being read.
	tok        [maxToken]byte
	tlen       int
	tokStart   int
	tokHash    uint64
	hasLetter  bool
	hasDigit   bool
	hasASCII   bool // an ASCII letter, for the confusable fold
	hasForeign bool // a non-ASCII letter
	runes      int
	text       string // the text being scanned, for the gaps of spelled-out words

	// A pending run of single letters that may spell a word.
	run      [maxToken]byte
	runLen   int
	runCount int
	runEnd   int // byte offset just past the run's last letter
	runPos   int // byte offset of the run's first letter

	prevHash uint64 // hash of the previous token, for bigrams (0 at text start)

	// Scoring mode: word sums for the weights in cacheFor, allocated for scoring
	// only: collecting (training's Windows, one scanner per text) has no use for
	// its 256 KB.
	cache    *[wordCacheSize]wordSum
	cacheFor *int16
}

// A chunkSpan is one chunk's byte range and its features' range in scanner.feats.
type chunkSpan struct {
	start, end       int
	featFrom, featTo int
	first            int // byte offset of the chunk's first token
}

// reset readies the scanner for a new text, keeping its buffers and, while the
// weights are the same, its word cache.
func (s *scanner) reset() {
	if !s.collect && len(s.w) > 0 && s.cacheFor != &s.w[0] {
		if s.cache == nil {
			s.cache = new([wordCacheSize]wordSum)
		} else {
			*s.cache = [wordCacheSize]wordSum{}
		}
		s.cacheFor = &s.w[0]
	}
	s.sum, s.prevSum, s.n, s.prevN, s.words = 0, 0, 0, 0, 0
	s.havePrev, s.scored, s.best, s.over, s.windows = false, false, 0, 0, 0
	s.chunkAt, s.limit, s.stopped = 0, math.MaxInt, false
	s.feats, s.chunks = s.feats[:0], s.chunks[:0]
	s.chunkStart, s.chunkFeat, s.pos = 0, 0, 0
	s.tlen, s.tokStart, s.tokHash, s.runes = 0, 0, 0, 0
	s.hasLetter, s.hasDigit, s.hasASCII, s.hasForeign = false, false, false, false
	s.runLen, s.runCount, s.runEnd, s.runPos, s.prevHash = 0, 0, 0, 0, 0
	s.names, s.prevTok = s.names[:0], ""
}

// emit adds one feature given its 64-bit hash.
func (s *scanner) emit(h uint64) {
	idx := uint32((h * 0x9E3779B97F4A7C15) >> s.shift)
	if s.collect {
		s.feats = append(s.feats, idx)
		if s.naming {
			s.names = append(s.names, s.name)
		}
	} else {
		s.sum += int32(s.w[idx])
	}
	s.n++
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// emitToken emits the features of one normalized token: its unigram, its bigram with
// the token before, and (for words) its character 4-grams with word boundaries, which
// carry the features across inflections, typos and languages.
func (s *scanner) emitToken(tok []byte, word bool) {
	h := uint64(fnvOffset)
	for _, b := range tok {
		h ^= uint64(b)
		h *= fnvPrime
	}
	h ^= uint64(len(tok)) << 56
	if s.words == 0 {
		s.chunkAt = s.pos
	}
	if s.naming {
		s.name = s.prevTok + " " + string(tok)
		s.prevTok = string(tok)
	}
	s.emit((s.prevHash*0x100000001B3 ^ h) + 0xB16B00B5)
	s.prevHash = h
	if !word {
		if s.naming {
			s.name = string(tok)
		}
		s.emit(h ^ 0x5555555555555555)
		return
	}
	if s.naming {
		s.emitWordNamed(tok, h)
	} else if s.collect {
		s.emitWord(tok, h)
	} else {
		// A word's unigram and character features depend on the word alone, and
		// words repeat (Zipf): a small cache of their sums turns most of a page's
		// scattered table reads into one read of a hot line.
		c := &s.cache[h&(wordCacheSize-1)]
		if c.key != h || c.n == 0 {
			c.sum, c.n = s.wordWeights(tok, h)
			c.key = h
		}
		s.sum += c.sum
		s.n += c.n
	}
	s.words++
	if s.words == chunkWords {
		s.endChunk()
	}
}

// emitWord emits a word's unigram and its character 4-grams. A number or an
// identifier (more digits than letters: w07734, an order number, a hash) has
// no character 4-grams: the ones of its digits mean nothing, and on a page of
// thousands of identifiers their hashed buckets added up to a flag.
func (s *scanner) emitWord(tok []byte, h uint64) {
	s.emit(h ^ 0x5555555555555555)
	if len(tok) >= 2 && 2*digits(tok) <= len(tok) {
		x := uint64('<')
		for i, b := range tok {
			x = x<<8 | uint64(b)
			if i >= 2 {
				s.emit(x&0xFFFFFFFF | 4<<40)
			}
		}
		s.emit((x<<8|'>')&0xFFFFFFFF | 4<<40)
	}
}

// wordWeights is the sum of the weights of the features emitWord emits and their
// number, for scoring mode's word cache. It adds them up in locals, reading the
// table through an array pointer with a constant shift (no bounds checks), where
// emit adds each to the scanner's fields in memory. On a page in many languages
// the cache misses one word in six, and this made Score 3% faster there.
// emitWord stays the definition (FuzzScoreFastPaths compares Assess with
// collecting mode, which emits through it).
func (s *scanner) wordWeights(tok []byte, h uint64) (sum, n int32) {
	w := (*[1 << TableBits]int16)(s.w)
	const k = 0x9E3779B97F4A7C15
	sum, n = int32(w[((h^0x5555555555555555)*k)>>(64-TableBits)]), 1
	if len(tok) >= 2 && 2*digits(tok) <= len(tok) {
		x := uint64('<')
		for i, b := range tok {
			x = x<<8 | uint64(b)
			if i >= 2 {
				sum += int32(w[((x&0xFFFFFFFF|4<<40)*k)>>(64-TableBits)])
				n++
			}
		}
		sum += int32(w[(((x<<8|'>')&0xFFFFFFFF|4<<40)*k)>>(64-TableBits)])
		n++
	}
	return sum, n
}

// emitWordNamed is emitWord with each feature's readable form recorded, for
// Features; it is apart so that scoring's hot loop has no naming in it. A test
// checks that both give the same features.
func (s *scanner) emitWordNamed(tok []byte, h uint64) {
	s.name = string(tok)
	s.emit(h ^ 0x5555555555555555)
	if len(tok) >= 2 && 2*digits(tok) <= len(tok) {
		x := uint64('<')
		for i, b := range tok {
			x = x<<8 | uint64(b)
			if i >= 2 {
				s.name = gramName(x)
				s.emit(x&0xFFFFFFFF | 4<<40)
			}
		}
		s.name = gramName(x<<8 | '>')
		s.emit((x<<8|'>')&0xFFFFFFFF | 4<<40)
	}
}

// gramName is the readable form of the character 4-gram in the low bytes of x
// (a 4-gram of bytes, so a non-ASCII letter may show in part).
func gramName(x uint64) string {
	b := []byte{byte(x >> 24), byte(x >> 16), byte(x >> 8), byte(x)}
	return "[" + strings.ToValidUTF8(string(b), "·") + "]"
}

// wordCacheSize is the number of entries of the scoring mode's word cache (256
// KB). Text in a dozen languages has more distinct words than a page in one:
// with 4096 entries (64 KB) a twelfth of Score's time on the multilingual
// benchmark text went to re-reading the features of words the cache had lost,
// and 16384 read it 5 to 10% faster (measured against 8192 and 4096).
const wordCacheSize = 16384

// A wordSum is a cached word's unigram and character-feature weights and count.
type wordSum struct {
	key uint64
	sum int32
	n   int32
}

// endChunk closes the current chunk and scores the window it ends.
func (s *scanner) endChunk() {
	if s.n == 0 {
		return
	}
	if s.collect {
		s.chunks = append(s.chunks, chunkSpan{start: s.chunkStart, end: s.pos,
			featFrom: s.chunkFeat, featTo: len(s.feats), first: s.chunkAt})
		s.chunkStart, s.chunkFeat = s.pos, len(s.feats)
	} else if s.stopped {
		return
	} else if s.havePrev {
		s.window(s.prevSum+s.sum, s.prevN+s.n)
		// The next window begins with this chunk: past the limit, it belongs
		// to the next piece.
		if s.chunkAt >= s.limit {
			s.stopped = true
		}
	} else if s.chunkAt >= s.limit {
		// The first window begins past the limit (nothing but spaces and
		// marks came before it): it and all after it are the next piece's.
		s.stopped = true
	}
	s.prevSum, s.prevN, s.havePrev = s.sum, s.n, true
	s.sum, s.n, s.words = 0, 0, 0
}

func (s *scanner) window(sum, n int32) {
	logit := s.bias + s.scale*float32(sum)*Norm(int(n))
	s.windows++
	if !s.scored || logit > s.best {
		s.best, s.scored = logit, true
	}
	if logit >= s.hitLogit {
		s.over++
	}
}

// finish flushes the pending token and the last chunk.
func (s *scanner) finish(end int) {
	s.endWord(end)
	s.flushRun()
	s.pos = end
	if s.collect {
		if s.n > 0 {
			s.chunks = append(s.chunks, chunkSpan{start: s.chunkStart, end: end,
				featFrom: s.chunkFeat, featTo: len(s.feats), first: s.chunkAt})
		}
		return
	}
	switch {
	case s.stopped:
	case s.n > 0 && s.havePrev:
		s.window(s.prevSum+s.sum, s.prevN+s.n)
	case s.n > 0 && s.chunkAt < s.limit: // one chunk, begun before the limit
		s.window(s.sum, s.n)
	case !s.scored && s.havePrev:
		s.window(s.prevSum, s.prevN)
	}
}

// scan reads text; the caller has reset the scanner.
func (s *scanner) scan(text string) {
	s.text = text
	for i := 0; i < len(text) && !s.stopped; {
		c := text[i]
		if c < utf8.RuneSelf {
			switch asciiClass[c] {
			case clsLower, clsUpper, clsDigit:
				i = s.asciiWord(text, i)
				continue
			case clsSpecial:
				s.endWord(i)
				j := i + 1
				for j < len(text) && text[j] < utf8.RuneSelf && asciiClass[text[j]] == clsSpecial {
					j++
				}
				s.special(i, text[i:j])
				i = j
				continue
			default:
				s.endWord(i)
			}
			i++
			continue
		}
		r, size := decodeRune(text, i)
		s.addRune(i, r, text[i:i+size])
		i += size
	}
	s.finish(len(text))
}

// decodeRune is utf8.DecodeRuneInString(text[i:]) for text[i] >= 0x80, with
// the two- and three-byte forms (the letters of every script but a few
// historic ones, and CJK) decoded here: the standard function handles them
// out of line, which was a twentieth of Score's time on text in other
// scripts. Anything else, invalid bytes included, goes to the standard
// function, and so does everything under carefulRunes (tests compare both).
func decodeRune(text string, i int) (rune, int) {
	c := text[i]
	if !carefulRunes {
		switch {
		case c >= 0xC2 && c < 0xE0 && i+1 < len(text):
			if c1 := text[i+1]; c1&0xC0 == 0x80 {
				return rune(c&0x1F)<<6 | rune(c1&0x3F), 2
			}
		case c >= 0xE0 && c < 0xF0 && i+2 < len(text):
			c1, c2 := text[i+1], text[i+2]
			if c1&0xC0 == 0x80 && c2&0xC0 == 0x80 {
				r := rune(c&0x0F)<<12 | rune(c1&0x3F)<<6 | rune(c2&0x3F)
				// Overlong forms and surrogates are invalid: RuneError, 1.
				if r >= 0x800 && (r < 0xD800 || r > 0xDFFF) {
					return r, 3
				}
			}
		}
	}
	return utf8.DecodeRuneInString(text[i:])
}

// asciiWord appends the run of ASCII letters and digits at text[i:] to the current
// word and returns where the run ends. It is the hot loop of Score on English text.
func (s *scanner) asciiWord(text string, i int) int {
	if s.runes == 0 {
		s.tokStart = i
	}
	j := i
	var kinds byte
	if !carefulRunes {
		j, kinds = s.asciiWord8(text, i)
	}
	for ; j < len(text); j++ {
		c := text[j]
		if c >= utf8.RuneSelf {
			break
		}
		b := wordByte[c]
		if b == 0 {
			break
		}
		if s.tlen < maxToken {
			s.tok[s.tlen] = b
			s.tlen++
		}
		kinds |= b>>6 + 1 // 1 for a digit ('0'-'9' < 64), 2 for a letter
	}
	s.runes += j - i
	if kinds&2 != 0 {
		s.hasLetter, s.hasASCII = true, true
	}
	if kinds&1 != 0 {
		s.hasDigit = true
	}
	return j
}

// asciiWord8 is the start of asciiWord eight bytes at a time: it appends the
// letters (lower-cased) and digits at text[i:] while eight bytes are left and
// returns where it stopped (at the word's end, or where asciiWord's byte loop
// goes on) and the kinds it saw, as asciiWord counts them. Words in the
// languages of Latin script are mostly ASCII, and a byte at a time (a table
// look-up, a bounds test and a store each) was an eighth of Score's time.
func (s *scanner) asciiWord8(text string, i int) (int, byte) {
	j := i
	var kinds byte
	for j+8 <= len(text) {
		b := text[j : j+8]
		x := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		// A byte of 0x80 or more is no word byte; the sums of the range tests may
		// carry out of it, but only into the bytes after it, which are not read.
		digit := inRange8(x, '0', '9')
		letter := inRange8(x, 'A', 'Z') | inRange8(x, 'a', 'z')
		word := (digit | letter) &^ x & highBits
		n := bits.TrailingZeros64(^word&highBits) / 8 // word bytes at the start
		if n == 0 {
			break
		}
		// The bytes of the word, in the low n bytes (1<<64 is 0 in Go, so
		// n == 8 keeps all of them).
		m := uint64(1)<<(8*n) - 1
		if digit&m != 0 {
			kinds |= 1
		}
		if letter&m != 0 {
			kinds |= 2
		}
		lower := x | inRange8(x, 'A', 'Z')>>2 // 0x80>>2 is the case bit 0x20
		if s.tlen+8 <= maxToken {
			// Eight bytes go in; the ones past the word lie past tlen, unread.
			binary.LittleEndian.PutUint64(s.tok[s.tlen:], lower)
			s.tlen += n
		} else {
			for k := 0; k < n && s.tlen < maxToken; k++ {
				s.tok[s.tlen] = byte(lower >> (8 * k))
				s.tlen++
			}
		}
		j += n
		if n < 8 {
			break
		}
	}
	return j, kinds
}

const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// inRange8 has the high bit of each byte of x set where lo <= byte <= hi, for the
// bytes of x under 0x80 (1 <= lo <= hi < 0x80): adding 0x80-lo to such a byte
// sets its high bit when it is lo or more, adding 0x7F-hi when it is over hi,
// and neither sum carries into the next byte.
func inRange8(x uint64, lo, hi byte) uint64 {
	return (x + (0x80-uint64(lo))*lowBits) &^ (x + (0x7F-uint64(hi))*lowBits) & highBits
}

// wordByte maps an ASCII letter or digit to itself lower-cased, anything else to 0.
var wordByte = func() (t [128]byte) {
	for c := byte('0'); c <= '9'; c++ {
		t[c] = c
	}
	for c := byte('a'); c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = c, c
	}
	return t
}()

// addASCII appends an ASCII letter or digit to the current word.
func (s *scanner) addASCII(i int, c byte, letter bool) {
	if s.tlen == 0 && s.runes == 0 {
		s.tokStart = i
	}
	if s.tlen < maxToken {
		s.tok[s.tlen] = c
		s.tlen++
	}
	s.runes++
	if letter {
		s.hasLetter, s.hasASCII = true, true
	} else {
		s.hasDigit = true
	}
}

// addRune handles a non-ASCII character: invisible ones vanish, compatibility forms
// (full-width, ligatures, mathematical letters) and accented letters are decomposed
// with the accents dropped, and letters of scripts written without spaces are words
// of their own.
func (s *scanner) addRune(i int, r rune, raw string) {
	if r < bmp && !carefulRunes {
		// What the careful path below does with r, found once per rune.
		e := runeKinds[r].Load()
		if e == 0 {
			e = kindOf(r, raw)
			runeKinds[r].Store(e)
		}
		switch e >> 24 {
		case kindSkip:
			return
		case kindLetter:
			if rune(e&0xFFFFFF) == r {
				// Its own lower case (every letter of a script without
				// case): its bytes go in as they are, where addKind would
				// encode the rune again.
				s.addLetterBytes(i, raw)
				return
			}
			s.addKind(i, rune(e&0xFFFFFF), kindLetter)
			return
		case kindUnbroken, kindDigit, kindSeparator:
			s.addKind(i, rune(e&0xFFFFFF), e>>24)
			return
		case kindASCIILetter:
			s.addASCII(i, byte(e), true)
			return
		case kindASCIIDigit:
			s.addASCII(i, byte(e), false)
			return
		}
		// kindDecomposes: a Hangul syllable's NFKD is its jamo, worked out
		// by arithmetic (Unicode's algorithm); anything else takes the
		// careful path.
		if r >= hangulFirst && r <= hangulLast {
			si := r - hangulFirst
			s.addKind(i, hangulL+si/hangulNCount, kindLetter)
			s.addKind(i, hangulV+si%hangulNCount/hangulTCount, kindLetter)
			if t := si % hangulTCount; t != 0 {
				s.addKind(i, hangulT+t, kindLetter)
			}
			return
		}
	}
	s.addRuneCarefully(i, r, raw)
}

// The Hangul syllables and the jamo they decompose into (Unicode 3.12).
const (
	hangulFirst  = 0xAC00
	hangulLast   = 0xD7A3
	hangulL      = 0x1100
	hangulV      = 0x1161
	hangulT      = 0x11A7
	hangulTCount = 28
	hangulNCount = 21 * hangulTCount
)

// bmp is the end of the Basic Multilingual Plane: runeKinds covers the runes
// below it, which is nearly all text.
const bmp = 1 << 16

// runeKinds caches, per rune of the BMP, what addRune does with it: the kind
// in the top byte and, for a letter, its lower case in the rest; 0 is not
// looked up yet. Looking a rune up (its NFKD decomposition, its category, its
// case) costs much more than the scan of an ASCII byte, and text in one
// language uses a few thousand runes over and over. Entries are written once
// with the same value by whichever scanner meets the rune first.
var runeKinds [bmp]atomic.Uint32

// carefulRunes turns runeKinds and asciiWord8 off (tests compare both paths).
var carefulRunes = false

// Kinds of a rune, as runeKinds keeps them.
const (
	kindSkip       = iota + 1 // drawn as nothing: invisible, a combining mark, invalid
	kindDecomposes            // NFKD decomposes it: the careful path reads the parts
	kindLetter                // a letter of a word
	kindUnbroken              // a letter of a script without spaces: a token alone
	kindDigit                 // a digit of a word
	kindSeparator             // anything else: ends the word
	// NFKD decomposes it into one ASCII letter (kept in lower case) or digit
	// and combining marks: an accented Latin letter (é, ą, ñ), a full-width
	// one. Text in most languages written in Latin letters has one every few
	// words, and the careful path looks its decomposition up every time.
	kindASCIILetter
	kindASCIIDigit
)

// kindOf is the runeKinds entry of r (raw its UTF-8 bytes).
func kindOf(r rune, raw string) uint32 {
	switch {
	case r == utf8.RuneError || invisible(r) || unicode.Is(unicode.Mn, r):
		return kindSkip << 24
	case norm.NFKD.PropertiesString(raw).Decomposition() != nil:
		return decomposedKind(r, raw)
	case unicode.IsLetter(r):
		lower := unicode.ToLower(r)
		if unbroken(lower) {
			return kindUnbroken<<24 | uint32(lower)
		}
		return kindLetter<<24 | uint32(lower)
	case unicode.IsDigit(r):
		return kindDigit<<24 | uint32(r)
	}
	return kindSeparator << 24
}

// decomposedKind is the runeKinds entry of r, whose NFKD decomposition is not
// empty: what addRuneCarefully does with the decomposition when that is one
// character (with combining marks, which it drops), else kindDecomposes. It
// must stay the careful path's decisions, character for character: the fuzz
// test FuzzRuneCache and FuzzScoreFastPaths compare both.
func decomposedKind(r rune, raw string) uint32 {
	if r >= hangulFirst && r <= hangulLast {
		return kindDecomposes << 24 // addRune works the jamo out by arithmetic
	}
	d := norm.NFKD.PropertiesString(raw).Decomposition()
	base, parts := rune(0), 0
	for len(d) > 0 {
		dr, size := utf8.DecodeRune(d)
		d = d[size:]
		if dr >= utf8.RuneSelf && unicode.Is(unicode.Mn, dr) {
			continue // addRuneCarefully drops it
		}
		base = dr
		parts++
	}
	switch {
	case parts == 0:
		return kindSkip << 24
	case parts > 1:
		return kindDecomposes << 24
	case base < utf8.RuneSelf:
		switch asciiClass[base] {
		case clsLower, clsUpper:
			return kindASCIILetter<<24 | uint32(unicode.ToLower(base))
		case clsDigit:
			return kindASCIIDigit<<24 | uint32(base)
		}
		return kindSeparator << 24
	}
	// What addLetter does with base.
	switch {
	case unicode.IsLetter(base):
		lower := unicode.ToLower(base)
		if unbroken(lower) {
			return kindUnbroken<<24 | uint32(lower)
		}
		return kindLetter<<24 | uint32(lower)
	case unicode.IsDigit(base):
		return kindDigit<<24 | uint32(base)
	}
	return kindSeparator << 24
}

// addRuneCarefully is addRune without the cache.
func (s *scanner) addRuneCarefully(i int, r rune, raw string) {
	if r == utf8.RuneError || invisible(r) || unicode.Is(unicode.Mn, r) {
		return
	}
	if d := norm.NFKD.PropertiesString(raw).Decomposition(); d != nil {
		for len(d) > 0 {
			dr, size := utf8.DecodeRune(d)
			d = d[size:]
			if dr < utf8.RuneSelf {
				switch asciiClass[dr] {
				case clsLower, clsUpper:
					s.addASCII(i, byte(unicode.ToLower(dr)), true)
				case clsDigit:
					s.addASCII(i, byte(dr), false)
				default:
					// Full-width punctuation: a separator. Special characters count
					// as separators here, which only loses a rare bigram.
					s.endWord(i)
				}
				continue
			}
			if !unicode.Is(unicode.Mn, dr) {
				s.addLetter(i, dr)
			}
		}
		return
	}
	s.addLetter(i, r)
}

func (s *scanner) addLetter(i int, r rune) {
	switch {
	case unicode.IsLetter(r):
		r = unicode.ToLower(r)
		if unbroken(r) {
			s.addKind(i, r, kindUnbroken)
		} else {
			s.addKind(i, r, kindLetter)
		}
	case unicode.IsDigit(r):
		s.addKind(i, r, kindDigit)
	default:
		s.endWord(i)
	}
}

// addKind adds r, of the given kind, at byte i; a letter comes in lower case.
func (s *scanner) addKind(i int, r rune, kind uint32) {
	switch kind {
	case kindLetter, kindUnbroken:
		if kind == kindUnbroken {
			s.endWord(i)
			var b [utf8.UTFMax]byte
			n := utf8.EncodeRune(b[:], r)
			s.flushRun()
			s.pos = i
			s.emitToken(b[:n], true)
			return
		}
		var b [utf8.UTFMax]byte
		s.addLetterBytes(i, string(b[:utf8.EncodeRune(b[:], r)]))
	case kindDigit:
		var b [utf8.UTFMax]byte
		s.addChar(i, string(b[:utf8.EncodeRune(b[:], r)]))
		s.hasDigit = true
	default:
		s.endWord(i)
	}
}

// addLetterBytes adds a non-ASCII letter, in lower case, given its UTF-8 bytes.
func (s *scanner) addLetterBytes(i int, raw string) {
	s.addChar(i, raw)
	s.hasLetter, s.hasForeign = true, true
}

// addChar appends one character, given its UTF-8 bytes, to the current word
// (its bytes only while the word has room for all of them).
func (s *scanner) addChar(i int, raw string) {
	if s.tlen == 0 && s.runes == 0 {
		s.tokStart = i
	}
	if s.tlen+len(raw) <= maxToken {
		s.tlen += copy(s.tok[s.tlen:], raw)
	}
	s.runes++
}

// unbroken reports the scripts written without spaces between words, whose every
// letter is a token (a bag of character bigrams, in effect).
func unbroken(r rune) bool {
	switch {
	case r >= 0x0E00 && r <= 0x0EFF, // Thai, Lao
		r >= 0x1000 && r <= 0x109F, // Myanmar
		r >= 0x1780 && r <= 0x17FF: // Khmer
		return true
	case r >= 0x2E80:
		return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
	}
	return false
}

// invisible reports characters that draw nothing and only split words: format
// controls (zero-width spaces and joiners, bidi controls, soft hyphens, tags) and
// variation selectors.
func invisible(r rune) bool {
	return unicode.Is(unicode.Cf, r) || r >= 0xFE00 && r <= 0xFE0F ||
		r >= 0xE0100 && r <= 0xE01EF || r == 0x034F || r == 0x115F || r == 0x1160 ||
		r == 0x3164 || r == 0xFFA0 || r == 0x180E
}

// special emits a run of role-prefix punctuation ("<|", "###", "]:") as a token.
func (s *scanner) special(i int, run string) {
	s.flushRun()
	if len(run) > 4 {
		run = run[:4]
	}
	var b [4]byte
	n := copy(b[:], run)
	s.pos = i
	s.emitToken(b[:n], false)
}

// digits counts the ASCII digits of tok.
func digits(tok []byte) int {
	n := 0
	for _, b := range tok {
		if b >= '0' && b <= '9' {
			n++
		}
	}
	return n
}

// endWord finishes the word being read, if any, at byte offset end.
func (s *scanner) endWord(end int) {
	if s.runes == 0 {
		return
	}
	tok := s.tok[:s.tlen]
	if s.hasLetter && s.hasDigit && 2*digits(tok) <= len(tok) {
		for j, b := range tok {
			if b >= '0' && b <= '9' {
				tok[j] = leet[b-'0']
			}
		}
	}
	if s.hasForeign && s.hasASCII {
		tok = s.foldConfusables(tok)
	}
	single := s.runes == 1 && s.hasLetter
	start := s.tokStart
	s.runes, s.tlen = 0, 0
	s.hasLetter, s.hasDigit, s.hasASCII, s.hasForeign = false, false, false, false

	// A spelled-out word ("i.g.n.o.r.e") is read as the word it spells: single
	// letters separated by one gap character join a run; the run becomes one
	// word once it has three letters or more.
	if single {
		if s.runCount > 0 && start == s.runEnd+1 && joinGap(s.text[s.runEnd]) &&
			s.runLen+len(tok) <= maxToken {
			s.runLen += copy(s.run[s.runLen:], tok)
			s.runCount++
			s.runEnd = end
			return
		}
		s.flushRun()
		s.runLen = copy(s.run[:], tok)
		s.runCount = 1
		s.runEnd = end
		s.runPos = start
		return
	}
	s.flushRun()
	s.pos = start
	s.emitToken(tok, true)
}

// flushRun emits the pending single letters: as one word if they spell one, else
// one by one.
func (s *scanner) flushRun() {
	if s.runCount == 0 {
		return
	}
	s.pos = s.runPos
	if s.runCount >= 3 {
		s.emitToken(s.run[:s.runLen], true)
	} else {
		for j := 0; j < s.runLen; {
			_, size := utf8.DecodeRune(s.run[j:s.runLen])
			s.emitToken(s.run[j:j+size], true)
			j += size
		}
	}
	s.runCount, s.runLen = 0, 0
}

// foldConfusables rewrites tok with Cyrillic and Greek look-alikes folded to Latin.
func (s *scanner) foldConfusables(tok []byte) []byte {
	var out [maxToken]byte
	n := 0
	for j := 0; j < len(tok); {
		r, size := utf8.DecodeRune(tok[j:])
		j += size
		if l, ok := confusable[r]; ok {
			out[n] = l
			n++
			continue
		}
		n += copy(out[n:], tok[j-size:j])
	}
	copy(s.tok[:], out[:n])
	return s.tok[:n]
}
