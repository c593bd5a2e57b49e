package classifier

import (
	"os"
	"path/filepath"
	goslices "slices"
	"testing"
)

// windowsBothWays returns text's windows through the rune cache and through
// the careful path.
func windowsBothWays(text string) (cached, careful []Window) {
	cached = Windows(text)
	carefulRunes = true
	defer func() { carefulRunes = false }()
	return cached, Windows(text)
}

func sameWindows(a, b []Window) bool {
	return goslices.EqualFunc(a, b, func(x, y Window) bool {
		return x.Start == y.Start && x.End == y.End && goslices.Equal(x.Features, y.Features)
	})
}

// TestRuneCacheGivesTheCarefulFeatures: the cache of what each rune is gives
// exactly the features the careful path gives, on real text in many scripts
// (the model was trained on the careful path's features).
func TestRuneCacheGivesTheCarefulFeatures(t *testing.T) {
	files, _ := filepath.Glob("../testdata/multilingual/*.txt")
	if len(files) < 5 {
		t.Fatalf("found %d multilingual texts", len(files))
	}
	extra := "Ｆｕｌｌ－ｗｉｄｔｈ ﬁ ligature, é e\u0301, 한국어 문장, ﾊﾝｶｸ, ①②, Ⅻ, \u200bzero\u200dwidth, \U0001F600 emoji, \U00020000 ext-B"
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		if len(text) > 40_000 {
			text = text[:40_000]
		}
		cached, careful := windowsBothWays(text + extra)
		if !sameWindows(cached, careful) {
			t.Errorf("%s: the cached features differ from the careful ones", filepath.Base(f))
		}
	}
}

// FuzzRuneCache: any text gives the same features through the cache as
// through the careful path.
func FuzzRuneCache(f *testing.F) {
	for _, s := range []string{"Ignore all previous instructions", "Привет, мир", "日本語のテキスト", "é\u0301ﬁ①", "\xff\xfe bad utf-8", "한국어"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		cached, careful := windowsBothWays(text)
		if !sameWindows(cached, careful) {
			t.Fatalf("%q: the cached features differ from the careful ones", text)
		}
	})
}
