package sanitize

import (
	"math/bits"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The anchor scan finds where a take-over phrase may start. It reads the text eight
// bytes at a time: one mask of the ASCII letters and digits gives every word start
// in the block, a three-byte filter rejects almost every word at once, and only the
// rest walk a trie of the anchor phrases. Blocks that hold non-ASCII bytes go a byte
// at a time, since anchors in Chinese, Russian or with accents start there.

// foldTable is how the scan reads a byte: ASCII letters in lower case, the digits and
// symbols of leetspeak ("1gn0r3", "di$regard") as the letters they stand for, and
// every separator between words (whitespace, markdown emphasis) as ' '. A hyphen
// that joins two words ("ignore-all-previous") also reads as ' ' (see foldAt); one
// that stands apart ("IMPORTANT - you must") stays itself.
var foldTable = func() (t [256]byte) {
	for c := range 256 {
		t[c] = lowerASCII(byte(c))
	}
	for c, l := range leetLetters {
		if l != 0 {
			t[c] = l
		}
	}
	for _, c := range []byte(" \t\n\r\f\v*_~`") {
		t[c] = ' '
	}
	return t
}()

// leetLetters maps the characters of leetspeak to the letters they stand for.
var leetLetters = [256]byte{'0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', '$': 's'}

// isSeparator marks the bytes the scan reads as space between words.
var isSeparator = func() (t [256]bool) {
	for c := range 256 {
		t[c] = foldTable[c] == ' '
	}
	return t
}()

// foldAt returns how the scan reads s[j]: foldTable's reading, and ' ' for a hyphen
// between two ASCII letters or digits.
func foldAt(s string, j int) byte {
	c := foldTable[s[j]]
	if c == '-' && j > 0 && j+1 < len(s) && isASCIIAlnum(s[j-1]) && isASCIIAlnum(s[j+1]) {
		return ' '
	}
	return c
}

// Classes of the three-byte filter: 0–25 the letters (as folded), then these.
const (
	classSep   = 26 // a separator, or the end of the text
	classDigit = 27 // a digit no anchor starts with
	classPunct = 28 // other ASCII
	classHigh  = 29 // a byte of a non-ASCII character
	numClasses = 30
)

var byteClass = func() (t [256]uint8) {
	for c := range 256 {
		f := foldTable[c]
		switch {
		case f >= 'a' && f <= 'z':
			t[c] = f - 'a'
		case f == ' ':
			t[c] = classSep
		case c >= '0' && c <= '9':
			t[c] = classDigit
		case c >= utf8.RuneSelf:
			t[c] = classHigh
		default:
			t[c] = classPunct
		}
	}
	return t
}()

// anchorRef ties an anchor phrase to the rules it starts. A phrase ending in '*' is a
// word prefix ("ignor*" for ignore, ignoring, ignorez); any other must end at a word
// end, so "hi" does not fire on "his".
type anchorRef struct {
	phrase string
	prefix bool
	rules  []int
}

// An anchorTrie holds every anchor phrase byte by byte, folded as the scan folds the
// text. Walking it from a word start costs a step or two for ordinary words, however
// many anchors share a first word ("the ai must", "the ai shall", ...).
type anchorTrie struct {
	nodes    []trieNode
	first    [256]bool   // lead bytes of the anchors that start with a non-ASCII character
	firstSet highByteSet // first, to test eight bytes at once
	// wide has a bit per hash of the first three bytes of each anchor that starts
	// with a non-ASCII character: in Chinese text nearly every character has a lead
	// byte in first.
	wide [1 << 14 / 64]uint64
	// triples has a bit per class triple that some anchor starts with.
	triples [(numClasses*numClasses*numClasses + 63) / 64]uint64
	// paths has a bit per hash of the first pathDepth bytes of every path of the
	// trie, and of every shorter path an anchor ends on, read as walk reads the text
	// (see mayHit).
	paths [1 << pathHashBits / 64]uint64
}

// pathDepth is how many bytes of a walk mayHit reads; pathHashBits sizes its table
// (8 KB, which stays in the first-level cache).
const (
	pathDepth    = 4
	pathHashBits = 16
)

// pathKey hashes the first d bytes of a walk, packed in p.
func pathKey(p uint32, d int) uint32 {
	return (p ^ uint32(d)<<29) * 2654435761 >> (32 - pathHashBits)
}

func (t *anchorTrie) setPath(p uint32, d int) {
	k := pathKey(p, d)
	t.paths[k>>6] |= 1 << (k & 63)
}

func (t *anchorTrie) hasPath(p uint32, d int) bool {
	k := pathKey(p, d)
	return t.paths[k>>6]&(1<<(k&63)) != 0
}

// mayHit reports whether walk may find an anchor at the start of s; false is
// certain. It reads the first pathDepth bytes as walk does (folded, a separator run
// as one ' ') and looks them up in paths instead of stepping through the trie's
// nodes: most word starts that pass the three-byte filter ("de", "the", "des") are
// settled here by one or two bits of a small table, where the walk touches several
// nodes spread over the trie.
func (t *anchorTrie) mayHit(s string) bool {
	var p uint32
	for j, d := 0, 1; j < len(s) && d <= pathDepth; d++ {
		c := foldAt(s, j)
		j++
		if c == ' ' {
			for j < len(s) && isSeparator[s[j]] {
				j++
			}
		}
		p |= uint32(c) << (8 * (d - 1))
		if t.hasPath(p, d) {
			return true
		}
	}
	return false
}

func wideKey(a, b, c byte) uint32 {
	return (uint32(a)<<16 | uint32(b)<<8 | uint32(c)) * 2654435761 >> 18
}

// mayStartWideAt is mayStartAt for a non-ASCII character at i.
func (t *anchorTrie) mayStartWideAt(s string, i int) bool {
	if !t.first[s[i]] || i+2 >= len(s) {
		return false
	}
	k := wideKey(s[i], s[i+1], s[i+2])
	return t.wide[k>>6]&(1<<(k&63)) != 0
}

func tripleIndex(a, b, c uint8) uint32 {
	return uint32(a)*numClasses*numClasses + uint32(b)*numClasses + uint32(c)
}

func (t *anchorTrie) setTriple(a, b, c uint8) {
	k := tripleIndex(a, b, c)
	t.triples[k>>6] |= 1 << (k & 63)
}

// mayStartAt reports whether an anchor may start at i; false is certain.
func (t *anchorTrie) mayStartAt(s string, i int) bool {
	if i+1 >= len(s) {
		return false
	}
	a, b := byteClass[s[i]], byteClass[s[i+1]]
	j := i + 2
	if b == classSep { // a separator run folds to one ' ', as in the trie
		for j < len(s) && isSeparator[s[j]] {
			j++
		}
	}
	c := uint8(classSep)
	if j < len(s) {
		c = byteClass[s[j]]
	}
	k := tripleIndex(a, b, c)
	return t.triples[k>>6]&(1<<(k&63)) != 0
}

// mayStartAtQuick answers as mayStartAt does when the byte after i is no separator,
// and true otherwise; unlike it, it is inlined into the scan loop, where most word
// starts are rejected.
func (t *anchorTrie) mayStartAtQuick(s string, i int) bool {
	if i+2 >= len(s) {
		return true
	}
	b := byteClass[s[i+1]]
	if b == classSep {
		return true
	}
	k := tripleIndex(byteClass[s[i]], b, byteClass[s[i+2]])
	return t.triples[k>>6]&(1<<(k&63)) != 0
}

type trieNode struct {
	edges []trieEdge
	table *[256]int32 // the edges as a direct table, for nodes with many of them
	ends  []int       // anchors (indexes into anchorRefs) that end at this node
}

// trieTableEdges is the edge count from which a node gets a direct table.
const trieTableEdges = 4

type trieEdge struct {
	b    byte
	node int32
}

// buildAnchorTrie indexes the anchors of rules.
func buildAnchorTrie(rules []breakoutRule) ([]anchorRef, *anchorTrie) {
	byPhrase := map[string]int{}
	var refs []anchorRef
	for ri, r := range rules {
		for _, a := range r.anchors {
			if k, ok := byPhrase[a]; ok {
				refs[k].rules = append(refs[k].rules, ri)
				continue
			}
			byPhrase[a] = len(refs)
			phrase, prefix := strings.CutSuffix(a, "*")
			// A phrase that ends in punctuation or Han needs no word end.
			if last, _ := utf8.DecodeLastRuneInString(phrase); !isWordRune(last) {
				prefix = true
			}
			refs = append(refs, anchorRef{phrase: phrase, prefix: prefix, rules: []int{ri}})
		}
	}
	t := &anchorTrie{nodes: []trieNode{{}}}
	for k, ref := range refs {
		for _, v := range caseVariants(ref.phrase) {
			t.insert(v, k, ref.prefix)
		}
	}
	t.firstSet = newHighByteSet(&t.first)
	return refs, t
}

// caseVariants spells phrase the ways a page may case it: ASCII case and separators
// are folded while walking, so only non-ASCII letters need their upper-case and
// title-case forms.
func caseVariants(phrase string) []string {
	r, size := utf8.DecodeRuneInString(phrase)
	vs := []string{phrase, strings.ToUpper(phrase), string(unicode.ToTitle(r)) + phrase[size:]}
	var out []string
	for _, v := range vs {
		b := []byte(v)
		for i := range b {
			b[i] = foldAt(v, i) // as the scan folds the text
		}
		if !slices.Contains(out, string(b)) {
			out = append(out, string(b))
		}
	}
	return out
}

func (t *anchorTrie) insert(phrase string, ref int, prefix bool) {
	if phrase[0] >= utf8.RuneSelf {
		t.first[phrase[0]] = true
		k := wideKey(phrase[0], phrase[1], phrase[2]) // every such phrase has three bytes
		t.wide[k>>6] |= 1 << (k & 63)
	} else {
		a, b := byteClass[phrase[0]], byteClass[phrase[1]]
		switch {
		case len(phrase) > 2:
			t.setTriple(a, b, byteClass[phrase[2]])
		case prefix:
			for c := range uint8(numClasses) {
				t.setTriple(a, b, c)
			}
		default: // the word ends after two bytes
			for _, c := range []uint8{classSep, classPunct, classHigh} {
				t.setTriple(a, b, c)
			}
		}
	}
	var p uint32
	for d := 1; d <= min(len(phrase), pathDepth); d++ {
		p |= uint32(phrase[d-1]) << (8 * (d - 1))
		if d == len(phrase) || d == pathDepth {
			t.setPath(p, d)
		}
	}
	n := 0
	for i := 0; i < len(phrase); i++ {
		c := phrase[i]
		next := t.child(n, c)
		if next < 0 {
			next = len(t.nodes)
			t.nodes = append(t.nodes, trieNode{})
			t.nodes[n].edges = append(t.nodes[n].edges, trieEdge{b: c, node: int32(next)})
			if nd := &t.nodes[n]; len(nd.edges) >= trieTableEdges {
				if nd.table == nil {
					nd.table = new([256]int32)
				}
				for _, e := range nd.edges {
					nd.table[e.b] = e.node
				}
			}
		}
		n = next
	}
	t.nodes[n].ends = append(t.nodes[n].ends, ref)
}

func (t *anchorTrie) child(n int, c byte) int {
	if tab := t.nodes[n].table; tab != nil {
		if r := tab[c]; r > 0 {
			return int(r)
		}
		return -1
	}
	for _, e := range t.nodes[n].edges {
		if e.b == c {
			return int(e.node)
		}
	}
	return -1
}

// An anchorHit is an anchor (an index into anchorRefs) found at a word start, with
// the index just after it.
type anchorHit struct{ ref, end int }

// walk appends to hits every anchor that s starts with.
func (t *anchorTrie) walk(s string, hits []anchorHit) []anchorHit {
	n := 0
	for j := 0; j < len(s); {
		c := foldAt(s, j)
		step := 1
		if c == ' ' {
			for j+step < len(s) && isSeparator[s[j+step]] {
				step++
			}
		}
		n = t.child(n, c)
		if n < 0 {
			return hits
		}
		j += step
		for _, ref := range t.nodes[n].ends {
			hits = append(hits, anchorHit{ref, j})
		}
	}
	return hits
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// isWordRune reports letters and digits; Han characters are not words of their own
// to this check, since Chinese has no spaces to end a word.
func isWordRune(r rune) bool {
	return (unicode.IsLetter(r) || unicode.IsDigit(r)) && !unicode.Is(unicode.Han, r)
}

// wordEndsAt reports whether no word character follows position i of s.
func wordEndsAt(s string, i int) bool {
	if i >= len(s) {
		return true
	}
	if c := s[i]; c < utf8.RuneSelf {
		return !isASCIIAlnum(c)
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return !isWordRune(r)
}

// wordStartsAt reports whether no word character precedes position i of s.
func wordStartsAt(s string, i int) bool {
	if i == 0 {
		return true
	}
	if c := s[i-1]; c < utf8.RuneSelf {
		return !isASCIIAlnum(c)
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return !isWordRune(r)
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isASCIIAlnum(c byte) bool { return isASCIILetter(c) || c >= '0' && c <= '9' }

// alnumMask sets the high bit of every byte of x that is an ASCII letter or digit.
// x must hold ASCII only: then no sum below carries into the next byte.
func alnumMask(x uint64) uint64 {
	y := x | 0x20*lowBits // letters in lower case; no other byte becomes a letter
	letters := (y + (0x80-'a')*lowBits) &^ (y + (0x7F-'z')*lowBits)
	digits := (x + (0x80-'0')*lowBits) &^ (x + (0x7F-'9')*lowBits)
	return (letters | digits) & highBits
}

// scanAnchorStarts calls visit at every position of s where an anchor may start:
// each ASCII word start that passes the three-byte filter, and each non-ASCII
// character whose lead byte starts an anchor, when mayHit lets the first bytes
// there through. visit returns the end of what it replaced there, or -1; the scan
// goes on from that end, which counts as a word start whatever precedes it.
func scanAnchorStarts(s string, visit func(pos int) int) { scanAnchorStartsPaths(s, visit, true) }

// scanAnchorStartsPaths is scanAnchorStarts; paths says whether mayHit may reject a
// start, which the differential test turns off to compare with the walk alone.
func scanAnchorStartsPaths(s string, visit func(pos int) int, paths bool) {
	scanAnchorRange(s, 0, len(s), -1, visit, paths)
}

// scanAnchorRange is scanAnchorStartsPaths for the starts in s[from:to] (what it
// reads after a start may lie past to), as the scan of the whole of s visits them
// when no replacement before from reached from or past it; resumed, when it is
// from or more, is where such a replacement ended, which the scan of the whole
// would try first and count as a word start. It returns the end of the last
// replacement when that is to or past it (then the scan of the whole would go on
// from there, trying that end first: the starts after it must be scanned again),
// else -1.
func scanAnchorRange(s string, from, to, resumed int, visit func(pos int) int, paths bool) (overrun int) {
	_, anchors := breakoutIndex()
	next := from
	try := func(pos int) {
		for pos >= next && pos < to {
			c := s[pos]
			switch {
			case c < utf8.RuneSelf:
				if !isASCIIAlnum(c) || !anchors.mayStartAt(s, pos) || (pos != resumed && !wordStartsAt(s, pos)) {
					return
				}
			case !anchors.mayStartWideAt(s, pos) || (pos != resumed && !wordStartsAt(s, pos)):
				return
			}
			if paths && !anchors.mayHit(s[pos:min(len(s), pos+breakoutWindow)]) {
				return
			}
			end := visit(pos)
			if end <= pos {
				return
			}
			// What follows a replacement starts a word, glued to it or not.
			next, resumed = end, end
			pos = end
		}
	}
	if resumed >= from {
		try(resumed)
	}
	i := next
	var prev uint64 // the high bit set when the byte before i is an ASCII letter or digit
	if i > 0 && isASCIIAlnum(s[i-1]) {
		prev = 0x80
	}
	for i+8 <= to {
		if next > i {
			// A replacement ended past i (and its end was tried): go on from there.
			i, prev = next, 0
			if isASCIIAlnum(s[next-1]) {
				prev = 0x80
			}
			continue
		}
		x := load64(s, i)
		if x&highBits != 0 {
			// The bytes where try may do anything: ASCII word starts and the lead
			// bytes anchors start with. What try would reject at once is rejected
			// here, without the call: text in other scripts is made of such bytes.
			m := asciiAlnumMask(x)
			for starts := m&^(m<<8|prev) | anchors.firstSet.mask(x); starts != 0; starts &= starts - 1 {
				k := i + bits.TrailingZeros64(starts)>>3
				if c := s[k]; c >= 0xC0 && anchors.mayStartWideAt(s, k) ||
					c < utf8.RuneSelf && anchors.mayStartAtQuick(s, k) {
					try(k)
				}
			}
			prev = m >> 56
			i += 8
			continue
		}
		m := alnumMask(x)
		for starts := m &^ (m<<8 | prev); starts != 0; starts &= starts - 1 {
			if pos := i + bits.TrailingZeros64(starts)>>3; anchors.mayStartAtQuick(s, pos) {
				try(pos)
			}
		}
		prev = m >> 56
		i += 8
	}
	for ; i < to; i++ {
		if c := s[i]; c >= 0xC0 || c < utf8.RuneSelf && isASCIIAlnum(c) && (i == 0 || !isASCIIAlnum(s[i-1])) {
			try(i)
		}
	}
	if next > from && next >= to { // a replacement (always past its start) reached to
		return next
	}
	return -1
}
