package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ailab/ai-lab/llm"
)

// keptIDs lists the sessions hs keeps, least recently used first.
func (hs *histories) keptIDs() string {
	var ids []string
	for e := hs.order.Front(); e != nil; e = e.Next() {
		ids = append(ids, e.Value.(*keptHistory).id)
	}
	return strings.Join(ids, " ")
}

func historyOf(chars int) *history {
	return (&history{sums: []int{0}}).with(1, []llm.Message{{Role: llm.RoleUser, Content: strings.Repeat("x", chars)}})
}

// TestHistoriesAreBoundedInCharacters: the decoded conversations kept in
// memory stay within maxHistoryChars, the least recently used going first,
// and the one just used stays even when it alone is over the bound.
func TestHistoriesAreBoundedInCharacters(t *testing.T) {
	defer func(old int) { maxHistoryChars = old }(maxHistoryChars)
	maxHistoryChars = 10_000
	var hs histories
	for i := range 5 {
		hs.touch(fmt.Sprint("s", i), historyOf(3_000))
	}
	if got := hs.keptIDs(); got != "s2 s3 s4" {
		t.Errorf("kept %q, want the three most recent (9,000 characters)", got)
	}
	hs.touch("s3", historyOf(1_000)) // used again, shorter: now the most recent
	hs.touch("s5", historyOf(3_500)) // 3,000 + 3,000 + 1,000 + 3,500 > 10,000
	if got := hs.keptIDs(); got != "s4 s3 s5" {
		t.Errorf("kept %q, want s4 s3 s5 (7,500 characters)", got)
	}
	hs.touch("big", historyOf(50_000))
	if got := hs.keptIDs(); got != "big" {
		t.Errorf("kept %q, want only the session just used", got)
	}
	if hs.total != 50_000 {
		t.Errorf("counted %d characters kept, want 50,000", hs.total)
	}
}

// TestForgottenHistoriesLeaveNoTrace: a deleted session's history goes from
// the order too, so that evicting past where it stood neither finds a
// missing entry nor counts its characters.
func TestForgottenHistoriesLeaveNoTrace(t *testing.T) {
	var hs histories
	hs.touch("gone", historyOf(100))
	hs.forget("gone")
	hs.forget("never-kept")
	if hs.total != 0 || hs.order.Len() != 0 || len(hs.byID) != 0 {
		t.Fatalf("after forget: %d characters, %d in order, %d by id; want none", hs.total, hs.order.Len(), len(hs.byID))
	}
	// Fill past maxHistories: the oldest go, and nothing refers to "gone".
	for i := range maxHistories + 10 {
		hs.touch(fmt.Sprint("s", i), historyOf(10))
	}
	if hs.order.Len() != maxHistories || hs.total != maxHistories*10 {
		t.Errorf("kept %d histories of %d characters, want %d of %d", hs.order.Len(), hs.total, maxHistories, maxHistories*10)
	}
}
