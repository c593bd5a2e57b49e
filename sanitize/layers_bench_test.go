package sanitize

import (
	"testing"

	"github.com/ailab/ai-lab/sanitize/classifier"
)

// BenchmarkLayerParts measures each part of Sanitize on its own over the real-text
// corpus and over 8 MB of the multilingual one (already normalized, as the later
// layers see it), to show where the time of BenchmarkSanitizeRealText and
// BenchmarkSanitizeMultilingual goes.
func BenchmarkLayerParts(b *testing.B) {
	b.Run("realtext", func(b *testing.B) { benchLayerParts(b, realText(b)) })
	b.Run("multilingual", func(b *testing.B) { benchLayerParts(b, multilingualText(b, 8<<20)) })
}

func benchLayerParts(b *testing.B, page string) {
	norm, _, _ := normalizeInvisible(page)
	noop := func(string, int) (bool, map[string]int) { return false, nil }
	parts := []struct {
		name string
		run  func()
	}{
		{"normalize", func() { normalizeInvisible(page) }},
		{"dropInvisible", func() { dropInvisible(page) }},
		{"nfkcSpans", func() { nfkcSpans(norm) }},
		{"foldLookalikes", func() { foldLookalikes(norm) }},
		{"reversed", func() { neutralizeReversed(page, 0, noop, map[string]int{}) }},
		{"collapseRunsMild", func() { collapseRuns(norm, false) }},
		{"collapseWords", func() { collapseWords(norm) }},
		{"collapseLines", func() { collapseLines(norm) }},
		{"wrapperTags", func() { neutralizeFoldedWrapperTags(norm) }},
		{"tokens", func() { neutralizeTokens(norm, true) }},
		{"lineStarts", func() { neutralizeLineStarts(norm, true) }},
		{"toolJSON", func() { neutralizeToolJSON(norm) }},
		{"exfilLinks", func() { neutralizeExfilLinks(norm, true) }},
		{"encoded", func() { neutralizeEncoded(norm, 0, noop, map[string]int{}) }},
		{"breakouts", func() { neutralizeBreakouts(norm, true) }},
		{"classifier", func() { classifier.Assess(page) }},
	}
	for _, p := range parts {
		b.Run(p.name, func(b *testing.B) {
			b.SetBytes(int64(len(page)))
			cpu := processCPUTime()
			n := 0
			for b.Loop() {
				p.run()
				n++
			}
			if used := processCPUTime() - cpu; used > 0 {
				b.ReportMetric(float64(n*len(page))/1e6/used.Seconds(), "MB/cpu-s")
			}
		})
	}
}
