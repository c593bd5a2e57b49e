package holdback

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// longProse is a 20 KB answer with nothing to hold: the case where the filter
// must keep up with the model and add no delay.
func longProse() string {
	sentences := []string{
		"Go 1.26 was released in February 2026 with several improvements. ",
		"The compiler now inlines more aggressively, so hot loops run faster.\n",
		"Builds of large modules take about 10% less time than with Go 1.25! ",
		"Does the new garbage collector help latency? ",
		"In most services it cuts pause times roughly in half. ",
		"You can read the release notes at https://go.dev/doc/go1.26 for details.\n",
		"- Iterators in the standard library gained new helpers.\n",
		"Upgrading is usually a one-line change to go.mod, followed by go mod tidy. ",
	}
	var b strings.Builder
	for i := 0; b.Len() < 20<<10; i++ {
		b.WriteString(sentences[i%len(sentences)])
	}
	return b.String()
}

// BenchmarkFilterProse4B streams the answer in 4-byte pieces, as a model
// writes tokens, and reports the throughput.
func BenchmarkFilterProse4B(b *testing.B) {
	text := longProse()
	if f, _ := stream(text, 4); strings.Contains(f.Held(), ". ") {
		b.Fatalf("the benchmark answer must stream, but it holds %q", f.Held())
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		f := New(registered)
		for i := 0; i < len(text); i += 4 {
			f.Write(text[i:min(i+4, len(text))])
		}
	}
}

// BenchmarkFilterRelease measures the delay the filter adds, streaming the
// same answer in 4-byte pieces: release-ns and p99-release-ns are the mean and
// 99th percentile of the time from a piece arriving to its release, for the
// pieces that end a sentence and so pay for judging it; first-ns is a new
// Filter fed until its first release, the filter's share of the time from the
// model's first token to the user's first shown token. The clock is read
// around every piece, so ns/op here is no throughput figure.
func BenchmarkFilterRelease(b *testing.B) {
	text := longProse()
	var releases []time.Duration
	var first time.Duration
	for b.Loop() {
		start := time.Now()
		f := New(registered)
		waiting := true
		for i := 0; i < len(text); i += 4 {
			t0 := time.Now()
			out := f.Write(text[i:min(i+4, len(text))])
			if out == "" {
				continue
			}
			releases = append(releases, time.Since(t0))
			if waiting {
				waiting = false
				first += time.Since(start)
			}
		}
	}
	slices.Sort(releases)
	var sum time.Duration
	for _, d := range releases {
		sum += d
	}
	b.ReportMetric(float64(sum.Nanoseconds())/float64(len(releases)), "release-ns")
	b.ReportMetric(float64(releases[len(releases)*99/100].Nanoseconds()), "p99-release-ns")
	b.ReportMetric(float64(first.Nanoseconds())/float64(b.N), "first-ns")
}

// BenchmarkFilterHeld4B streams the same answer after a claim in its first
// sentence: everything is held, so each piece should cost only its copy.
func BenchmarkFilterHeld4B(b *testing.B) {
	text := "I searched the web. " + longProse()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		f := New(registered)
		for i := 0; i < len(text); i += 4 {
			if f.Write(text[i:min(i+4, len(text))]) != "" {
				b.Fatal("text after a claim was released")
			}
		}
	}
}
