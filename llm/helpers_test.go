package llm_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ailab/ai-lab/llm"
)

func TestOneLine(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"  a\n\tb  c ", 10, "a b c"},
		{"héllo wörld", 5, "héllo…"},
		{"exactly", 7, "exactly"},
		{"", 3, ""},
	} {
		if got := llm.OneLine(c.in, c.n); got != c.want {
			t.Errorf("OneLine(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

func TestSleep(t *testing.T) {
	if err := llm.Sleep(context.Background(), time.Millisecond); err != nil {
		t.Errorf("a short sleep failed: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := llm.Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("a canceled sleep returned %v, want context.Canceled", err)
	}
	if err := llm.Sleep(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("a zero sleep on a canceled context returned %v", err)
	}
}
