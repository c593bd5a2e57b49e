package sanitize

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// nfkcSpansCareful is nfkcSpans as it was before the inert-character table: every
// stretch of non-ASCII bytes (with the ASCII character before it) is checked and,
// when it is not in NFKC, normalized whole. The fast path must give what it gives.
func nfkcSpansCareful(s string) (string, int, bool) {
	e := editor{src: s}
	n := 0
	selector := false
	for i := 0; i < len(s); {
		p := nextNonASCII(s, i)
		if p == len(s) {
			break
		}
		start := p
		if p > i && s[p-1] < utf8.RuneSelf {
			start = p - 1
		}
		end := p
		for end < len(s) && s[end] >= utf8.RuneSelf && !isInertIdeograph(s[end]) {
			end++
		}
		if end == p {
			i = p + 3
			continue
		}
		i = end
		chunk := s[start:end]
		if norm.NFKC.QuickSpanString(chunk) == len(chunk) {
			continue
		}
		out, count := nfkcCount(chunk)
		e.replace(start, end, out)
		n += count
		selector = selector || strings.IndexFunc(out, isVariationSelector) >= 0
	}
	return e.result(), n, selector
}

func checkNFKCSpansSame(t *testing.T, s string) {
	t.Helper()
	s = strings.ToValidUTF8(s, "\uFFFD")
	got, gotN, gotSel := nfkcSpans(s)
	want, wantN, wantSel := nfkcSpansCareful(s)
	if got != want || gotN != wantN || gotSel != wantSel {
		t.Errorf("nfkcSpans(%+q) = %+q, %d, %v; the careful path gives %+q, %d, %v", s, got, gotN, gotSel, want, wantN, wantSel)
	}
}

// TestNFKCSpansFastPathSameAsCareful runs both paths over the multilingual and
// real-text corpora, and over strings built to put the inert characters next to
// the ones that compose with them.
func TestNFKCSpansFastPathSameAsCareful(t *testing.T) {
	checkNFKCSpansSame(t, multilingualText(t, 1))
	checkNFKCSpansSame(t, realText(t))
	for _, s := range []string{
		"e\u0301", "\u0435\u0308 \u0438\u0306", "\u1100\u1161\u11a8", "\uac00\u11a8", "가\u11a8나",
		"ﬁne ﬂow", "Ａｂｃ，ｄｅｆ。", "é\u0301\u0323", "\u0301start", "x\ufe0f\u0301", "a\ufe0fb\uff21",
		"\u0928\u093c", "\u0915\u093c\u0937", "ｶﾞｷﾞ", "\u3099\u309a", "か\u3099", "ℌ\u0327", "①②③",
		"\u212b\u0301", "Å\u030a", "\u0f73\u0f71\u0f72", "\u1e9b\u0323", "日本\u3000語", "\ufdfa",
	} {
		checkNFKCSpansSame(t, s)
	}
}

func FuzzNFKCSpansFastPath(f *testing.F) {
	for _, s := range []string{"e\u0301", "가\u11a8", "Ａｂｃ，", "x\ufe0f\u0301", "ℌ\u0327 ①"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkNFKCSpansSame(t, s)
	})
}

// TestInertCharactersAreNormalized checks the table against the normalizer: every
// character it calls inert is in NFKC alone and after any of a few starters.
func TestInertCharactersAreNormalized(t *testing.T) {
	inert := nfkcInertTable()
	count := 0
	for r := rune(0x80); r < 0x10000; r++ {
		if !inert.has(r) {
			continue
		}
		count++
		for _, before := range []string{"", "a", "\u0438", "\uac00", "\u1100"} {
			if s := before + string(r); !norm.NFKC.IsNormalString(s) {
				t.Fatalf("U+%04X is marked inert but %+q is not in NFKC", r, s)
			}
		}
	}
	// Cyrillic, Greek, Arabic, Hangul and kana letters are most of it.
	if count < 40000 {
		t.Errorf("only %d inert characters", count)
	}
}

// TestDenseLookalikesAreTheMap checks the array look-up against the map it is
// built from, for every character.
func TestDenseLookalikesAreTheMap(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		want := lookalikes[r]
		if r < 0x200 {
			want = lookalikeEntry{}
		}
		if got := lookalikeEntryOf(r); got != want {
			t.Fatalf("lookalikeEntryOf(%U) = %+v, want %+v", r, got, want)
		}
	}
}

func checkCollapseRunsSame(t *testing.T, s string) {
	t.Helper()
	s, _, _ = normalizeInvisible(s) // the run layers see normalized text
	for _, aggressive := range []bool{false, true} {
		o1, n1, r1, d1 := collapseRunsScan(s, aggressive, true)
		o2, n2, r2, d2 := collapseRunsScan(s, aggressive, false)
		if o1 != o2 || n1 != n2 || r1 != r2 || d1 != d2 {
			t.Errorf("collapseRuns(%+q, %v): the wide skip gives %+q %d %d %d, the careful path %+q %d %d %d", s, aggressive, o1, n1, r1, d1, o2, n2, r2, d2)
		}
	}
}

// TestCollapseRunsWideSkipSameAsCareful compares the run layers with and without
// the skip over blocks of text outside ASCII, on the corpora and on runs of
// characters of every length placed at every offset of a block.
func TestCollapseRunsWideSkipSameAsCareful(t *testing.T) {
	checkCollapseRunsSame(t, multilingualText(t, 1))
	checkCollapseRunsSame(t, realText(t))
	for _, c := range []string{"a", "é", "ж", "日", "가", "😀", "\n", "-", "ж\n"} {
		for pad := 0; pad < 9; pad++ {
			for n := 2; n <= 12; n++ {
				checkCollapseRunsSame(t, strings.Repeat("ъ", pad)+strings.Repeat(c, n)+"日本語テキスト")
				checkCollapseRunsSame(t, strings.Repeat("x", pad)+"日"+strings.Repeat(c, n)+"é")
			}
		}
	}
}

func FuzzCollapseRunsWideSkip(f *testing.F) {
	for _, s := range []string{"日日日日日日日日日日日日", "жжжжжжжжжжжж x", "a\n\n\n\n\nb", "ёёёё----------"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkCollapseRunsSame(t, s)
	})
}

func TestZeroBytes(t *testing.T) {
	for _, x := range []uint64{0, ^uint64(0), 0x0080008000800080, 0x0100000000000001, 0x8000000000000000, 0x7F7F7F7F7F7F7F7F} {
		var want uint64
		for k := 0; k < 8; k++ {
			if byte(x>>(8*k)) == 0 {
				want |= 0x80 << (8 * k)
			}
		}
		if got := zeroBytes(x); got != want {
			t.Errorf("zeroBytes(%#x) = %#x, want %#x", x, got, want)
		}
	}
}
