package sanitize

import (
	"strings"
	"testing"
)

// pieceInTurn is what normalizeAndCollapseAt makes of one piece, every layer
// building a fresh copy (no scratchPair): the reference for the pieces built in
// reused buffers.
func pieceInTurn(piece string, aggressive bool) (string, [5]int) {
	var c [5]int
	piece, c[0], c[1] = normalizeRounds(piece)
	piece, c[2], c[3], c[4] = collapseRunsInLines(piece, aggressive, true)
	return piece, c
}

// checkScratchSame sends pieces one after the other through one scratchPair, as
// one goroutine of inPieces does, and compares each result with pieceInTurn; it
// then checks that the results kept (copied out of the buffers where they live
// there) are still what they were after the later pieces wrote over the buffers.
func checkScratchSame(t *testing.T, pieces []string) {
	t.Helper()
	for _, aggressive := range []bool{false, true} {
		var sp scratchPair
		kept := make([]string, len(pieces))
		wants := make([]string, len(pieces))
		for k, piece := range pieces {
			want, wc := pieceInTurn(piece, aggressive)
			var c [5]int
			got := piece
			got, c[0], c[1] = normalizeRoundsIn(got, &sp)
			got, c[2], c[3], c[4] = collapseRunsInLinesIn(got, aggressive, true, &sp)
			if sp.has(got) {
				got = strings.Clone(got) // as inPieces copies a piece out
			}
			if got != want || c != wc {
				t.Fatalf("aggressive %v, piece %d in reused buffers: %+.300q %v; in fresh copies %+.300q %v (piece %+.300q)",
					aggressive, k, got, c, want, wc, piece)
			}
			kept[k], wants[k] = got, strings.Clone(want)
		}
		for k := range kept {
			if kept[k] != wants[k] {
				t.Fatalf("aggressive %v: piece %d changed after the later pieces: %+.300q, was %+.300q", aggressive, k, kept[k], wants[k])
			}
		}
	}
}

// TestScratchPiecesSameAsFresh: the layers building each piece in the two
// reused buffers of a scratchPair give what they give building fresh copies:
// on the pieces runLayers cuts the multilingual corpus into, and on short
// texts that make every layer change something (so that each writes to a
// buffer), some longer than the buffers so far (so that they grow), in every
// order.
func TestScratchPiecesSameAsFresh(t *testing.T) {
	s := multilingualText(t, 1<<20)
	cuts := normalizeCuts(s)
	if len(cuts) < 4 {
		t.Fatalf("only %d cuts in %d bytes", len(cuts), len(s))
	}
	bounds := append(append([]int{0}, cuts...), len(s))
	var pieces []string
	for k := 0; k+1 < len(bounds); k++ {
		pieces = append(pieces, s[bounds[k]:bounds[k+1]])
	}
	checkScratchSame(t, pieces)

	changing := []string{
		"", "plain text\n", "zero\u200bwidth", "ｆｕｌｌ　ｗｉｄｔｈ，", "p\u0430ypal", "e\ufe0f\u0301",
		"\xff\xfe invalid", "==========\n\n\n\n\nx", "spam spam spam spam spam spam spam spam spam spam spam",
		"ﬁ\u0301ｅ\ufe0f \u0430\u0301", "\u3000\u2028\u0085",
		// Layers in a row that change the text, the later ones making it longer
		// (U+FFFD for an invalid byte, NFKC's 株式会社 for ㍿): written over its
		// own input, a layer would overtake what it has still to read.
		"\xff" + strings.Repeat("㍿ x\xfe", 50), strings.Repeat("\u200b㍿ﷺ", 30),
	}
	long := strings.Repeat("ｗｏｒｄ\u200b ", 3000) + strings.Repeat("ha ", 40)
	for _, a := range append(changing, long) {
		for _, b := range append(changing, long) {
			checkScratchSame(t, []string{a, b, a + b, b, long, a})
		}
	}
}

func FuzzScratchPieces(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, "ｆｕｌｌ\u200b "+s+" spam spam spam spam spam spam spam spam spam spam")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		checkScratchSame(t, []string{a, b, a + b, a, b + a + b})
	})
}
