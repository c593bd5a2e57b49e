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
