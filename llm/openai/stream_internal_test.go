package openai

import (
	"reflect"
	"strings"
	"testing"
)

// filterPieces writes pieces to a thinkFilter and returns what it passed on,
// before and after the flush at the end of the reply.
func filterPieces(pieces []string) (during, atEnd []string) {
	var out *[]string = &during
	f := thinkFilter{emit: func(s string) { *out = append(*out, s) }}
	for _, p := range pieces {
		f.write(p)
	}
	out = &atEnd
	f.flush()
	return during, atEnd
}

func TestThinkFilter(t *testing.T) {
	tests := []struct {
		name          string
		pieces        []string
		during, atEnd []string
	}{
		{"plain text passes at once", []string{"Hel", "lo"}, []string{"Hel", "lo"}, nil},
		{"leading blank space waits for a word", []string{"\n ", " Hi"}, []string{"\n  Hi"}, nil},
		{"a prefix of <think> waits", []string{"<th", "ree"}, []string{"<three"}, nil},
		{"the block and the blank after it are dropped", []string{"<think>", "plan", "</think>", "\n\n", "Answer", "!"}, []string{"Answer", "!"}, nil},
		{"tags cut anywhere", []string{" <", "thi", "nk>a</", "th", "ink", ">", " b"}, []string{"b"}, nil},
		{"a close tag cut over many pieces", []string{"<think>x<", "/", "t", "h", "i", "n", "k", ">y"}, []string{"y"}, nil},
		{"only a think block", []string{"<think>x</think>", "  "}, nil, nil},
		{"an unclosed block is the reply", []string{"<think>", "still"}, nil, []string{"<think>still"}},
		{"an unfinished start is the reply", []string{"  <thin"}, nil, []string{"  <thin"}},
		{"a later think tag is text", []string{"a <think>b</think>"}, []string{"a <think>b</think>"}, nil},
		{"a second block after the first is text", []string{"<think>a</think>", "<think>b</think>c"}, []string{"<think>b</think>c"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			during, atEnd := filterPieces(tc.pieces)
			if !reflect.DeepEqual(during, tc.during) || !reflect.DeepEqual(atEnd, tc.atEnd) {
				t.Errorf("passed %q while streaming and %q at the end; want %q and %q", during, atEnd, tc.during, tc.atEnd)
			}
			if all := strings.Join(append(during, atEnd...), ""); all != withoutThinking(strings.Join(tc.pieces, "")) {
				t.Errorf("joined %q, withoutThinking gives %q", all, withoutThinking(strings.Join(tc.pieces, "")))
			}
		})
	}
}

// FuzzThinkFilter: however a reply is cut into pieces, what the filter passes
// on joins to withoutThinking of the whole, and none of a closed think block
// is ever passed on.
func FuzzThinkFilter(f *testing.F) {
	f.Add("<think>plan</think>\n\nAnswer", []byte{1, 2, 3})
	f.Add(" \n<think>a</thin", []byte{7})
	f.Add("<thinker>", []byte{0, 0, 0})
	f.Add("</think><think>x</think>y", []byte{4, 1})
	f.Fuzz(func(t *testing.T, content string, cuts []byte) {
		var pieces []string
		rest := content
		for i := 0; rest != ""; i++ {
			n := len(rest)
			if len(cuts) > 0 {
				n = min(n, int(cuts[i%len(cuts)])%16+1)
			}
			pieces = append(pieces, rest[:n])
			rest = rest[n:]
		}
		during, atEnd := filterPieces(pieces)
		want := withoutThinking(content)
		if got := strings.Join(append(during, atEnd...), ""); got != want {
			t.Fatalf("pieces %q passed on %q + %q, want %q", pieces, during, atEnd, want)
		}
		if want != content && len(atEnd) > 0 {
			t.Fatalf("held %q to the end although the block closed", atEnd)
		}
		for _, p := range append(during, atEnd...) {
			if p == "" {
				t.Fatal("passed on an empty piece")
			}
		}
	})
}
