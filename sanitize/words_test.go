package sanitize

import (
	"strings"
	"testing"
)

// checkWordSamplingSame compares collapseWords testing every ninth word
// (skipUnlinkedWords) with the word-by-word loop.
func checkWordSamplingSame(t *testing.T, s string) {
	t.Helper()
	got, gotN := collapseWordsScan(s, nil, true)
	want, wantN := collapseWordsScan(s, nil, false)
	if got != want || gotN != wantN {
		t.Fatalf("collapseWords(%+.300q) = %+.300q, %d; word by word %+.300q, %d", s, got, gotN, want, wantN)
	}
}

// TestSpaceMask checks spaceMask against isSpace for every byte in every place
// of a block, beside bytes that may carry.
func TestSpaceMask(t *testing.T) {
	for c := range 256 {
		for place := range 8 {
			for _, fill := range []byte{0x00, 0x20, 0x7F, 0x80, 0xFF, 'a'} {
				b := []byte(strings.Repeat(string(rune(0)), 8))
				for k := range b {
					b[k] = fill
				}
				b[place] = byte(c)
				m := spaceMask(load64(string(b), 0))
				for k := range 8 {
					if got, want := m>>(8*k+7)&1 == 1, isSpace[b[k]]; got != want {
						t.Fatalf("spaceMask(% x): byte %d is %v, isSpace says %v", b, k, got, want)
					}
				}
			}
		}
	}
}

// TestWordSamplingSameAsWordByWord: testing every ninth word gives what reading
// every word gives: on the corpora, and on runs of every length around ten
// words, with the run starting at every place relative to the words tested,
// spaces of every kind between the words, words cut short or glued to the next,
// and runs near a block's end and the text's.
func TestWordSamplingSameAsWordByWord(t *testing.T) {
	checkWordSamplingSame(t, multilingualText(t, 1))
	checkWordSamplingSame(t, realText(t))
	for _, w := range []string{"a", "spam", "héllo", "x\x00y"} {
		for _, gap := range []string{" ", "  ", "\t", " \t ", "\n", "\r\n", "\v", "\f"} {
			for lead := range 11 {
				for count := 7; count <= 12; count++ {
					for _, tail := range []string{"", " ", "x", " spam", "\n" + w} {
						words := make([]string, 0, lead+count)
						for k := range lead {
							words = append(words, "w"+strings.Repeat("o", k))
						}
						for range count {
							words = append(words, w)
						}
						s := strings.Join(words, gap) + tail
						checkWordSamplingSame(t, s)
						checkWordSamplingSame(t, " "+s)
						checkWordSamplingSame(t, s+" "+s)
					}
				}
			}
		}
	}
	// Words of eight bytes and more that start a block, at the text's start
	// or after a space that ends the block before, before a run of exactly
	// ten words: each must be counted, or the words tested are one off.
	for _, long := range []string{"[instruction", "abcdefgh", "abcdefghijklmnopq", "日本語の文章です"} {
		for pad := range 9 {
			for lead := range 10 {
				words := []string{strings.Repeat("p", pad+1), long}
				for k := range lead {
					words = append(words, strings.Repeat("x", k+1))
				}
				words = append(words, long)
				for range 10 {
					words = append(words, "removed]")
				}
				checkWordSamplingSame(t, strings.Join(words, " "))
				checkWordSamplingSame(t, strings.Join(words[1:], " "))
			}
		}
	}
	checkWordSamplingSame(t, strings.Repeat("the the ", 100))
	checkWordSamplingSame(t, strings.Repeat("a ", 9)+"ab "+strings.Repeat("a ", 10))
}

func FuzzWordSampling(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Add(strings.Repeat("spam ", 12))
	f.Add("one two " + strings.Repeat("spam\t", 10) + "spamx")
	f.Add("[instruction token removed]" + strings.Repeat(" removed]", 9))
	f.Fuzz(func(t *testing.T, s string) {
		checkWordSamplingSame(t, s)
	})
}
