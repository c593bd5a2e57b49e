package sanitize

import (
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"
)

// TestInPiecesJoinsPiecesDoneInAnyOrder: inPieces puts the pieces together in
// order whichever goroutine finishes which piece first, although each piece is
// built in its goroutine's scratch buffers, which the goroutine's next piece
// writes over; a text whose pieces all come back as they were is returned
// itself; and a text whose first change comes late keeps the text before it.
func TestInPiecesJoinsPiecesDoneInAnyOrder(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < concurrentNormalize+(64<<10); i++ {
		b.WriteString("line ")
		b.WriteString(strings.Repeat("abcdefghij"[i%10:i%10+1], 1+i%37))
		b.WriteString("\n")
	}
	s := b.String()
	var cuts []int
	for i := 4000; i < len(s); i += 4000 + i%1777 {
		cuts = append(cuts, i)
	}
	bounds := append(append([]int{0}, cuts...), len(s))

	for _, tc := range []struct {
		name    string
		changed func(k int) bool
	}{
		{"every piece changed", func(int) bool { return true }},
		{"every third piece changed", func(k int) bool { return k%3 == 1 }},
		{"only the last piece changed", func(k int) bool { return k == len(bounds)-2 }},
		{"no piece changed", func(int) bool { return false }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var finished []int
			got := inPieces(s, cuts, func(k int, piece string, sp *scratchPair) string {
				// Some pieces take longer, so that the one after them is often
				// done first.
				if k%4 == 0 {
					time.Sleep(time.Duration(50+rand.IntN(200)) * time.Microsecond)
				}
				out := piece
				if tc.changed(k) {
					// Built in the scratch buffer, longer or shorter than the piece.
					buf := sp.other(piece)
					*buf = append((*buf)[:0], strings.ToUpper(piece)...)
					if k%2 == 0 {
						*buf = append(*buf, "<+>"...)
					} else {
						*buf = (*buf)[:len(*buf)-1]
					}
					out = unsafe.String(unsafe.SliceData(*buf), len(*buf))
				}
				mu.Lock()
				finished = append(finished, k)
				mu.Unlock()
				return out
			})
			var want strings.Builder
			anyChanged := false
			for k := 0; k+1 < len(bounds); k++ {
				piece := s[bounds[k]:bounds[k+1]]
				if !tc.changed(k) {
					want.WriteString(piece)
					continue
				}
				anyChanged = true
				up := strings.ToUpper(piece)
				if k%2 == 0 {
					want.WriteString(up + "<+>")
				} else {
					want.WriteString(up[:len(up)-1])
				}
			}
			if got != want.String() {
				t.Fatalf("the joined text differs from the pieces in order (%d bytes, want %d)", len(got), want.Len())
			}
			if !anyChanged && unsafe.StringData(got) != unsafe.StringData(s) {
				t.Error("nothing changed, but the text was copied")
			}
			outOfOrder := 0
			for i := 1; i < len(finished); i++ {
				if finished[i] < finished[i-1] {
					outOfOrder++
				}
			}
			if outOfOrder == 0 {
				t.Fatalf("the %d pieces were all done in order: the test did not try the join", len(finished))
			}
		})
	}
}
