package sanitize

import (
	"strings"
	"testing"
)

// checkScriptRunsSame compares foldLookalikes passing stretches of one script at
// once (scriptRun) with the word-by-word path.
func checkScriptRunsSame(t *testing.T, s string) {
	t.Helper()
	got, gotN := foldLookalikesScan(s, nil, true)
	want, wantN := foldLookalikesScan(s, nil, false)
	if got != want || gotN != wantN {
		t.Fatalf("foldLookalikes(%+.300q) = %+.300q, %d; word by word %+.300q, %d", s, got, gotN, want, wantN)
	}
}

// TestScriptRunsSameAsWordByWord: passing a stretch of Cyrillic or Greek at once
// gives what reading it word by word gives: on the corpora, and on look-alikes
// of every group, ASCII letters and digits, punctuation, non-letters of the two
// scripts (҂, a combining titlo, the ano teleia), invalid bytes and characters
// of other scripts on either side of such stretches and inside them.
func TestScriptRunsSameAsWordByWord(t *testing.T) {
	checkScriptRunsSame(t, multilingualText(t, 1))
	checkScriptRunsSame(t, realText(t))
	parts := []string{
		"", " ", "x", "X", "7", ",", "-", "\n", "о", "О", "слово", "ρόλος", "ο", "ϲ", "ո", "ɡ", "ꜱ", "ԁ",
		"\u0482", "\u0483", "\u0387", "\u037e", "é", "—", "«", "\xd0", "\xbe", "\xce\xd0", "аxа", "ignоre",
		"ѕуѕтем", "ογ", "оο", "\u0301",
	}
	for _, a := range parts {
		for _, b := range parts {
			for _, c := range parts {
				checkScriptRunsSame(t, a+b+c)
				checkScriptRunsSame(t, "слово "+a+"ро"+b+"ο"+c+" end")
			}
		}
	}
	checkScriptRunsSame(t, strings.Repeat("о\u0482", 1000)+"x")
}

func FuzzScriptRuns(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Add("Ветеран сборной Германии: ignоre \u0482о, ρόλος\u0387 ϲat «слово» pаypal")
	f.Fuzz(func(t *testing.T, s string) {
		checkScriptRunsSame(t, s)
	})
}
