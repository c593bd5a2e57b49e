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
// paragraph after an <i>, a list inside a table cell. It also takes in more
// around the article: a list of related stories, a gallery, share links, the
// next column on an opinion page. readability returns a piece of the page
// itself, so its text is whole, but it keeps more inside the article: share
// buttons, captions, sign-up boxes. So when most of readability's article is in
// trafilatura's text too, the text is readability's, line by line, where
// trafilatura kept that line too (the part both took), and inside that part
// also where trafilatura lost a line (see insideMinWords).

// coreShare is how much of readability's text (in shingles) trafilatura's must
// hold for the two to count as having found the same article. Below it
// readability took another block of the page, or much that trafilatura saw as
// boilerplate, and which of them is right is trafilatura's call (its own
// fallback rule), not ours. Any share from a half to four fifths scores the
// same on readability's and newspaper4k's pages, and on dragnet's, which took
// no part in choosing it, 0.5, 0.7 and 0.9 score within 0.0025 of each other;
// 0.9 demanded of both texts, as before, kept trafilatura's extra blocks.
const coreShare = 0.7

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

// readableWithin reports whether trafilatura's text holds at least coreShare of
// readability's (in shingles): both found that article, and whatever more
// trafilatura kept around it is the part they disagree on.
func readableWithin(readable, text string) bool {
	if readable == "" || text == "" {
		return false
	}
	return covered(textShingles(shingleWords(readable)), textShingles(shingleWords(text))) >= coreShare
}

// linesAlsoIn keeps the lines of text that other holds too, the lines
// between them, and long ones just before them. A line of fewer words than a
// shingle is held when it appears in other whole, as words in a row; a
// longer one when other has lineShare of its shingles. Where other lacks a
// line of at least insideMinWords words between the first and the last line
// it holds, the line stays all the same (see insideMinWords); so do the long
// lines just before the first line it holds (see leadMinWords). Blank lines
// stay, so blocks stay apart; runs of them left by dropped lines are
// squeezed.
func linesAlsoIn(text, other string) string {
	ow := shingleWords(other)
	otherShingles := textShingles(ow)
	joined := " " + strings.Join(ow, " ") + " "
	lines := strings.Split(text, "\n")
	words := make([][]string, len(lines))
	agreed := make([]bool, len(lines))
	first, last := -1, -1
	for i, line := range lines {
		ws := shingleWords(line)
		words[i] = ws
		switch {
		case len(ws) == 0:
			continue
		case len(ws) < agreeShingle:
			if !strings.Contains(joined, " "+strings.Join(ws, " ")+" ") {
				continue
			}
		case covered(textShingles(ws), otherShingles) < lineShare:
			continue
		}
		agreed[i] = true
		if first < 0 {
			first = i
		}
		last = i
	}
	// The long paragraphs right before the first line both hold stay too:
	// see leadMinWords.
	for i := first - 1; i >= 0; i-- {
		if len(words[i]) == 0 {
			continue
		}
		if len(words[i]) < leadMinWords {
			break
		}
		agreed[i], first = true, i
	}
	var b strings.Builder
	blank := false
	for i, line := range lines {
		ws := words[i]
		if len(ws) == 0 {
			blank = b.Len() > 0
			continue
		}
		if !agreed[i] && (i < first || i > last || len(ws) < insideMinWords) {
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

// insideMinWords is how many words a line of readability's that trafilatura
// lacks must have to stay when it lies inside the part both took, between the
// first and the last line trafilatura holds too. What readability keeps and
// trafilatura cuts at the edges of the article is mostly furniture: a byline,
// share buttons, a sign-up box, the next story. Inside it, it is mostly
// trafilatura's loss: a list, a table, a quote, a caption or a heading it
// dropped while rebuilding the page.
// A line of one or two words inside ("Advertisement", "Share") is still
// furniture more often than not. Keeping these lines raised the mean F1 on
// readability's pages from 0.9635 to 0.9738, on newspaper4k's from 0.9096
// to 0.9105 and on dragnet's from 0.8913 to 0.8921; any of 2, 3 or 4 words
// scores within 0.001 on each.
const insideMinWords = 3

// leadMinWords is how many words each of the lines of readability's that
// trafilatura lacks just before the first line both hold must have to stay.
// Such a run of long lines is mostly the article's standfirst or opening
// paragraph, which a page often sets in its header, where trafilatura takes
// it for page furniture; bylines, share buttons and captions above an
// article are shorter. Keeping them raised the mean F1 on readability's
// pages from 0.9738 to 0.9750, on newspaper4k's from 0.9105 to 0.9113 and
// on dragnet's from 0.8921 to 0.8931, with no page worse on the first two;
// 20 to 30 words score within 0.0003 on each of the first two.
const leadMinWords = 25

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
