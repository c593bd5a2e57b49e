package llm_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ailab/ai-lab/llm"
)

// stream runs s.Stream and returns what it delivered too.
func stream(ctx context.Context, s llm.Streamer, req llm.Request) (llm.Message, []string, error) {
	var pieces []string
	msg, err := s.Stream(ctx, req, func(text string) { pieces = append(pieces, text) })
	return msg, pieces, err
}

func TestDemoStream(t *testing.T) {
	const id = "write_file_1763769600123_0a1b2c3d"
	tests := []struct {
		name string
		msgs []llm.Message
	}{
		{"help", []llm.Message{{Role: llm.RoleUser, Content: "hello"}}},
		{"a call", []llm.Message{{Role: llm.RoleUser, Content: "create a file named a.txt with hi"}}},
		{"an answer from results", []llm.Message{
			{Role: llm.RoleUser, Content: "create a file named a.txt with hi"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "write_file", Arguments: `{"content":"hi","path":"a.txt"}`}}},
			{Role: llm.RoleTool, ToolCallID: "call_1", Content: `{"execution_id":"` + id + `","tool_name":"write_file","result":{"path":"a.txt","bytes":2}}`},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := llm.NewDemo()
			d.Pace = 0
			req := llm.Request{Messages: tc.msgs}
			want, err := d.Complete(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			got, pieces, err := stream(context.Background(), d, req)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) || strings.Join(pieces, "") != want.Content {
				t.Fatalf("Stream = %+v with pieces %q; want %+v", got, pieces, want)
			}
			if words := len(strings.Fields(want.Content)); len(pieces) != words {
				t.Errorf("%d pieces for %d words: %q", len(pieces), words, pieces)
			}
			_, again, _ := stream(context.Background(), d, req)
			if !reflect.DeepEqual(again, pieces) {
				t.Errorf("a second stream cut the answer differently: %q", again)
			}
		})
	}
}

func TestDemoStreamPaceAndCancel(t *testing.T) {
	d := llm.NewDemo()
	if d.Pace != llm.DefaultDemoPace || d.Pace <= 0 {
		t.Fatalf("NewDemo().Pace = %v, want DefaultDemoPace", d.Pace)
	}
	req := llm.Request{Messages: []llm.Message{
		{Role: llm.RoleUser, Content: "list files"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "list_directory", Arguments: `{"path":"."}`}}},
		{Role: llm.RoleTool, ToolCallID: "call_1", Content: `{"tool_name":"list_directory","result":{"path":".","entries":["a.txt","b.txt"]}}`},
	}}

	d.Pace = 10 * time.Millisecond
	var gaps []time.Duration
	last := time.Now()
	if _, err := d.Stream(context.Background(), req, func(string) {
		gaps = append(gaps, time.Since(last))
		last = time.Now()
	}); err != nil {
		t.Fatal(err)
	}
	if len(gaps) < 5 {
		t.Fatalf("only %d pieces", len(gaps))
	}
	for i, g := range gaps[1:] {
		if g < 9*time.Millisecond {
			t.Fatalf("piece %d came %v after the one before, want the pace of 10ms", i+1, g)
		}
	}

	d.Pace = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	var canceledAt time.Time
	_, err := d.Stream(ctx, req, func(string) {
		n++
		canceledAt = time.Now()
		cancel()
	})
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.KindCanceled || n != 1 {
		t.Fatalf("after a cancel: err %v after %d pieces, want a canceled *llm.Error after 1", err, n)
	}
	if took := time.Since(canceledAt); took > time.Second {
		t.Errorf("returned %v after the cancel", took)
	}
}
