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
