package classifier

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// articles returns the text of the real web articles in data/readability.jsonl.
func articles(tb testing.TB) []string {
	f, err := os.Open("data/readability.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var r struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			tb.Fatal(err)
		}
		out = append(out, r.Text)
	}
	if len(out) == 0 {
		tb.Fatal("no articles")
	}
	return out
}

// articleText returns about n bytes of real article text, articles one after another.
func articleText(tb testing.TB, n int) string {
	var b strings.Builder
	for i, docs := 0, articles(tb); b.Len() < n; i++ {
		b.WriteString(docs[i%len(docs)])
		b.WriteString("\n\n")
	}
	return b.String()[:n]
}

func BenchmarkScore(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"20KB", 20 << 10}, {"1MB", 1 << 20}} {
		text := articleText(b, size.n)
		b.Run(size.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				Score(text)
			}
		})
	}
}
