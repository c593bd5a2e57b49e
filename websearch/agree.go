package websearch

import (
	"hash/maphash"
	"net/url"
	"strings"
	"unicode"

	readability "github.com/go-shiori/go-readability"
	"golang.org/x/net/html"
)

// trafilatura and readability find the main content in different ways, and
// where they agree the article is found; they fail differently, though.
// trafilatura rebuilds the page as its own tree and sometimes loses text on the
// way: a space after an emphasised word ("to crafta packet"), the rest of a
// paragraph after an <i>, a list inside a table cell. readability returns a
// piece of the page itself, so its text is whole, but it keeps more around the
// article: share buttons, captions, sign-up boxes. So when both found the same
// article, the text is readability's, line by line, where trafilatura kept that
// line too.

// agreeShare is how much of each extractor's text the other must hold (in
// shingles) for the two to count as having found the same article. Below it
// one of them took in a neighbouring block or missed part of the article, and
// which one did is trafilatura's call (its own fallback rule), not ours.
const agreeShare = 0.9

// lineShare is how much of a readability line (in shingles) trafilatura's text
// must hold for the line to stay: half, so that a line trafilatura garbled
// (two words run together break up to four shingles) still counts as kept.
const lineShare = 0.5

// runReadability finds the main content with readability, or nil. It works on
// a copy of doc. A panic on hostile markup costs the second opinion, not the
// page.
func runReadability(doc *html.Node, pageURL *url.URL) (n *html.Node) {
	defer func() {
		if r := recover(); r != nil {
			n = nil
		}
	}()
	a, err := readability.FromDocument(doc, pageURL)
	if err != nil {
		return nil
	}
	return a.Node
}

// sameArticle reports whether two extractions of a page are the same article:
// each holds at least agreeShare of the other's shingles.
func sameArticle(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	sa, sb := textShingles(shingleWords(a)), textShingles(shingleWords(b))
	return covered(sa, sb) >= agreeShare && covered(sb, sa) >= agreeShare
}

// linesAlsoIn keeps the lines of text that other holds too. A line of fewer
// words than a shingle must appear in other whole, as words in a row; a longer
// one must have lineShare of its shingles there. Blank lines stay, so blocks
// stay apart; runs of them left by dropped lines are squeezed.
func linesAlsoIn(text, other string) string {
	ow := shingleWords(other)
	otherShingles := textShingles(ow)
	joined := " " + strings.Join(ow, " ") + " "
	var b strings.Builder
	blank := false
	for line := range strings.SplitSeq(text, "\n") {
		ws := shingleWords(line)
		switch {
		case len(ws) == 0:
			blank = b.Len() > 0
			continue
		case len(ws) < agreeShingle:
			if !strings.Contains(joined, " "+strings.Join(ws, " ")+" ") {
				continue
			}
		case covered(textShingles(ws), otherShingles) < lineShare:
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
			if blank {
				b.WriteByte('\n')
			}
		}
		blank = false
		b.WriteString(line)
	}
	return b.String()
}

// agreeShingle is the length in words of the runs compared; four, as in the
// article-extraction benchmark, is long enough that common words alone do not
// match and short enough that a garbled word spoils few runs.
const agreeShingle = 4

// shingleWords splits text into lower-cased runs of letters and digits, so
// that markup the two renderings differ in (list markers, spacing,
// punctuation) never counts.
func shingleWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

var shingleSeed = maphash.MakeSeed()

// textShingles counts the runs of agreeShingle words, hashed: only equality
// matters, and hashing spares building a string for every run.
func textShingles(ws []string) map[uint64]int {
	m := make(map[uint64]int, max(len(ws)-agreeShingle+1, 1))
	var h maphash.Hash
	h.SetSeed(shingleSeed)
	for i := 0; i+agreeShingle <= len(ws); i++ {
		h.Reset()
		for _, w := range ws[i : i+agreeShingle] {
			h.WriteString(w)
			h.WriteByte(0)
		}
		m[h.Sum64()]++
	}
	return m
}

// covered is the share of a's shingles (with repeats) that b holds; 0 when a
// has none.
func covered(a, b map[uint64]int) float64 {
	n, common := 0, 0
	for s, k := range a {
		n += k
		common += min(k, b[s])
	}
	if n == 0 {
		return 0
	}
	return float64(common) / float64(n)
}
