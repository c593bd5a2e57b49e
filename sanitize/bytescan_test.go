package sanitize

import (
	"strings"
	"testing"
)

// TestWordAtATimeHelpers checks the eight-byte tests against their byte-by-byte
// meaning for every byte value in every position.
func TestWordAtATimeHelpers(t *testing.T) {
	for pos := 0; pos < 8; pos++ {
		for c := 0; c < 256; c++ {
			b := []byte("abcdefgh")
			b[pos] = byte(c)
			s := string(b)
			x := load64(s, 0)
			if got, want := plainASCII8(x), c >= 0x20 && c < 0x7F; got != want {
				t.Errorf("plainASCII8(%q) = %v, want %v", s, got, want)
			}
			if got, want := hasZeroByte(x), c == 0; got != want {
				t.Errorf("hasZeroByte(%q) = %v, want %v", s, got, want)
			}
		}
	}
	if got := nextNonASCII(strings.Repeat("a", 20)+"é", 0); got != 20 {
		t.Errorf("nextNonASCII = %d, want 20", got)
	}
}

// TestWordEnd compares wordEnd with a byte-at-a-time scan at every start of texts
// that put whitespace, control bytes and UTF-8 at every offset of a word.
func TestWordEnd(t *testing.T) {
	texts := []string{"", "a", "abcdefgh", "abcdefghi jk", "\x01\x02abc\x1f def\tg\nh\ri\fj\vk", "héllo wörld ✓✓✓✓ x",
		"12345678\x0012345678 ", strings.Repeat("ab\x7fcd ", 9)}
	for _, s := range texts {
		for i := 0; i <= len(s); i++ {
			want := i
			for want < len(s) && !isSpace[s[want]] {
				want++
			}
			if got := wordEnd(s, i); got != want {
				t.Errorf("wordEnd(%q, %d) = %d, want %d", s, i, got, want)
			}
		}
	}
}

// TestHighByteSet checks the eight-byte set test against the table it is built
// from, for the sets the scans use and for a few made up, with every byte value in
// every position.
func TestHighByteSet(t *testing.T) {
	_, anchors := breakoutIndex()
	var few, many, none [256]bool
	few[0xC3], few[0xE1], few[0xE2], few[0xFF] = true, true, true, true
	for c := 0x80; c < 256; c += 3 {
		many[c] = true
	}
	for _, in := range []*[256]bool{&lookalikeLead, &anchors.first, &few, &many, &none} {
		set := newHighByteSet(in)
		// The three ranges that hold the set, widened where it has more.
		var held [256]bool
		for c := 0x80; c < 256; c++ {
			v := uint64(c - 0x80)
			held[c] = set.lo0 <= v && v <= set.hi0 || set.lo1 <= v && v <= set.hi1 || set.lo2 <= v && v <= set.hi2
			if in[c] && !held[c] {
				t.Fatalf("the ranges %+v leave out %#x", set, c)
			}
		}
		if in == &few && held != few {
			t.Errorf("a set of three ranges is widened: %+v", set)
		}
		for pos := 0; pos < 8; pos++ {
			for c := 0; c < 256; c++ {
				b := []byte("ab\xd0\xb6\xe6\x97\xa5.")
				b[pos] = byte(c)
				x := load64(string(b), 0)
				m := set.mask(x)
				for k := 0; k < 8; k++ {
					got := m>>(8*k+7)&1 != 0
					if want := b[k] >= 0x80 && held[b[k]]; got != want {
						t.Fatalf("mask(%q) byte %d: %v, want %v", b, k, got, want)
					}
				}
				am := asciiAlnumMask(x)
				for k := 0; k < 8; k++ {
					if got, want := am>>(8*k+7)&1 != 0, b[k] < 0x80 && isASCIIAlnum(b[k]); got != want {
						t.Fatalf("asciiAlnumMask(%q) byte %d: %v, want %v", b, k, got, want)
					}
				}
			}
		}
	}
}
