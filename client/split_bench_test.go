package client_test

import (
	"strings"
	"testing"

	"github.com/ailab/ai-lab/client"
	"github.com/ailab/ai-lab/client/clienttest"
)

// A long argument, as a written file's content is, costs time in proportion to
// its length on the approval screen.
func BenchmarkScreenLongContent(b *testing.B) {
	content := strings.Repeat("word ", 40000)
	batch := client.NewBatch(clienttest.Pending("s", clienttest.Call("write_file", `{"content":"`+content+`","path":"a.txt"}`, "c")))
	for b.Loop() {
		batch.Screen(client.ScreenOptions{Width: 30, MaxArgLines: 3, Style: plainStyle()})
		batch.Table(client.ScreenOptions{Width: 30, MaxArgLines: 3, Compact: true, Style: plainStyle()})
	}
}
