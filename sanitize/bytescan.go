package sanitize

// Eight bytes at a time ("SWAR"): the per-byte loops here run over every page, and
// testing a word per step makes them several times faster on ASCII text.
const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// load64 reads s[i:i+8] little-endian; the compiler turns it into one load.
func load64(s string, i int) uint64 {
	b := s[i : i+8] // one bounds check; the compiler then merges the loads
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// plainASCII8 reports whether all eight bytes of x are printable ASCII (0x20–0x7E).
// A byte below 0x20 borrows its high bit in x-0x20..20; a byte of 0x7F or more has
// its high bit set in x+0x01..01 or in x itself.
func plainASCII8(x uint64) bool {
	return ((x-0x20*lowBits)|(x+lowBits)|x)&highBits == 0
}

// hasZeroByte reports whether any byte of x is zero (it may also report a byte of 0x80
// following a zero one, which only costs the slow path a look).
func hasZeroByte(x uint64) bool { return (x-lowBits)&^x&highBits != 0 }

// A highByteSet holds a set of bytes of 0x80 or more as up to three ranges, so that
// eight bytes can be tested at once: text in other scripts is made of such bytes,
// and the scans that look for a few lead bytes among them skip a block that holds
// none. A set of more ranges is widened to three by filling the narrowest gaps, so
// a byte it holds may be outside the set: the callers look each one up.
type highByteSet struct {
	// The 7-bit bounds of each range; an empty range is lo 0x7F, hi 0, which no
	// byte passes.
	lo0, hi0, lo1, hi1, lo2, hi2 uint64
}

// newHighByteSet returns the ranges that hold the bytes of 0x80 or more that in
// marks.
func newHighByteSet(in *[256]bool) highByteSet {
	type span struct{ lo, hi uint64 }
	var spans []span
	for c := 0x80; c < 256; c++ {
		if in[c] && (c == 0x80 || !in[c-1]) {
			spans = append(spans, span{uint64(c - 0x80), uint64(c - 0x80)})
		}
		if in[c] {
			spans[len(spans)-1].hi = uint64(c - 0x80)
		}
	}
	for len(spans) > 3 {
		k := 0
		for j := range len(spans) - 1 {
			if spans[j+1].lo-spans[j].hi < spans[k+1].lo-spans[k].hi {
				k = j
			}
		}
		spans[k].hi = spans[k+1].hi
		spans = append(spans[:k+1], spans[k+2:]...)
	}
	for len(spans) < 3 {
		spans = append(spans, span{0x7F, 0})
	}
	return highByteSet{spans[0].lo, spans[0].hi, spans[1].lo, spans[1].hi, spans[2].lo, spans[2].hi}
}

// mask sets the high bit of every byte of x in the set. Each range is two sums on
// the low seven bits, which cannot carry into the next byte.
func (set *highByteSet) mask(x uint64) uint64 {
	v := x &^ highBits
	m := (v+(0x80-set.lo0)*lowBits)&^(v+(0x7F-set.hi0)*lowBits) |
		(v+(0x80-set.lo1)*lowBits)&^(v+(0x7F-set.hi1)*lowBits) |
		(v+(0x80-set.lo2)*lowBits)&^(v+(0x7F-set.hi2)*lowBits)
	return m & x & highBits
}

// asciiAlnumMask sets the high bit of every byte of x that is an ASCII letter or
// digit; unlike alnumMask, x may hold any bytes.
func asciiAlnumMask(x uint64) uint64 { return alnumMask(x&^highBits) &^ x }
