package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ailab/ai-lab/llm"
)

// TestHistoriesAreBoundedInCharacters: the decoded conversations kept in
// memory stay within maxHistoryChars, the least recently used going first,
// and the one just used stays even when it alone is over the bound.
func TestHistoriesAreBoundedInCharacters(t *testing.T) {
	defer func(old int) { maxHistoryChars = old }(maxHistoryChars)
	maxHistoryChars = 10_000
	var hs histories
	of := func(chars int) *history {
		return (&history{sums: []int{0}}).with(1, []llm.Message{{Role: llm.RoleUser, Content: strings.Repeat("x", chars)}})
	}
	for i := range 5 {
		hs.touch(fmt.Sprint("s", i), of(3_000))
	}
	if got := strings.Join(hs.order, " "); got != "s2 s3 s4" {
		t.Errorf("kept %q, want the three most recent (9,000 characters)", got)
	}
	hs.touch("s2", hs.byID["s2"]) // used again: now the most recent
	hs.touch("big", of(50_000))
	if got := strings.Join(hs.order, " "); got != "big" {
		t.Errorf("kept %q, want only the session just used", got)
	}
}
