package sanitize

import (
	"strings"
	"testing"
)

// multilingualText returns the texts of testdata/multilingual (see its
// MANIFEST.md) joined by blank lines and repeated up to about size bytes: news
// and blog text in German, Spanish, French, Polish, Portuguese, Italian,
// Russian, Arabic, Greek, Chinese and Japanese, and literary texts in Japanese,
// Chinese, Korean and French.
func multilingualText(tb testing.TB, size int) string {
	one := corpus(tb, "multilingual", 10)
	var b strings.Builder
	b.Grow(size + len(one))
	for b.Len() < size {
		b.WriteString(one)
	}
	return b.String()
}

// BenchmarkSanitizeMultilingual is the sanitizer on 8 MB of real text in many
// scripts, every layer on: MB/s is the wall time (the classifier runs on a
// second core), MB/cpu-s the work of both.
func BenchmarkSanitizeMultilingual(b *testing.B) {
	page := multilingualText(b, 8<<20)
	for _, mode := range []struct {
		name string
		opts Options
	}{{"aggressive", Options{}}, {"aggressive-patterns", Options{NoClassifier: true}}, {"mild", Options{Mild: true}}} {
		b.Run(mode.name, func(b *testing.B) { benchSanitize(b, page, mode.opts) })
	}
}
