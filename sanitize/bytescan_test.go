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
