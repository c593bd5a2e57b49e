package server

import (
	"testing"

	"github.com/ailab/ai-lab/llm"
)

// TestHistoryAppendsInPlaceOnlyAtItsEnd: the newest history of a session
// appends into its arrays' room, and an older history that appends (a stale
// copy) gets arrays of its own, so no history ever sees its messages change.
func TestHistoryAppendsInPlaceOnlyAtItsEnd(t *testing.T) {
	msg := func(s string) llm.Message { return llm.Message{Role: llm.RoleUser, Content: s} }
	h0 := (&history{sums: []int{0}}).with(1, []llm.Message{msg("a")})
	h1 := h0.with(2, []llm.Message{msg("bb")})
	h2 := h1.with(3, []llm.Message{msg("ccc")})
	if &h2.msgs[0] != &h0.msgs[0] {
		t.Error("the newest history did not append in place")
	}
	// h1 is stale now: appending to it must not overwrite h2's third message.
	h1b := h1.with(4, []llm.Message{msg("dddd")})
	if h2.msgs[2].Content != "ccc" || h1b.msgs[2].Content != "dddd" {
		t.Fatalf("a stale history appended over a newer one: %q, %q", h2.msgs[2].Content, h1b.msgs[2].Content)
	}
	if &h1b.msgs[0] == &h0.msgs[0] {
		t.Error("a stale history appended into shared arrays")
	}
	for _, c := range []struct {
		h    *history
		want []int
	}{{h0, []int{0, 1}}, {h1, []int{0, 1, 3}}, {h2, []int{0, 1, 3, 6}}, {h1b, []int{0, 1, 3, 7}}} {
		if len(c.h.sums) != len(c.want) {
			t.Fatalf("sums %v, want %v", c.h.sums, c.want)
		}
		for i := range c.want {
			if c.h.sums[i] != c.want[i] {
				t.Fatalf("sums %v, want %v", c.h.sums, c.want)
			}
		}
	}
	// Many appends stay correct across growth.
	h := h2
	for i := range 100 {
		h = h.with(int64(5+i), []llm.Message{msg("x")})
	}
	if h.len() != 103 || h.sums[103] != 6+100 {
		t.Errorf("after 100 appends: %d messages, size %d", h.len(), h.sums[h.len()])
	}
}
