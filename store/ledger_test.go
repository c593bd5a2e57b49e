package store

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
)

func sampleExecution(session string) api.Execution {
	return api.Execution{
		ExecutionID: "web_search_1763769600123_9f86d081", ToolName: "web_search",
		Arguments: json.RawMessage(`{"query":"go 1.26"}`), SessionID: session, StartedAt: t0,
	}
}

func TestRecordExecutionStartThenEnd(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	start := sampleExecution("s_1")
	end := start
	end.DurationMS, end.Completed = 812, true
	failed := start
	failed.DurationMS, failed.Error = 40, "the search endpoint answered 503"

	for _, c := range []struct {
		name   string
		record []api.Execution
		want   api.Execution
	}{
		{"started", []api.Execution{start}, start},
		{"started then completed", []api.Execution{start, end}, end},
		{"started then failed", []api.Execution{start, failed}, failed},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, e := range c.record {
				if err := s.RecordExecution(ctx, e); err != nil {
					t.Fatal(err)
				}
			}
			got, err := s.Execution(ctx, start.ExecutionID)
			if err != nil {
				t.Fatal(err)
			}
			want := c.want
			if !got.StartedAt.Equal(want.StartedAt.Truncate(time.Millisecond)) || got.StartedAt.Location() != time.UTC {
				t.Errorf("started_at = %v, want %v in UTC", got.StartedAt, want.StartedAt.Truncate(time.Millisecond))
			}
			if string(got.Arguments) != string(want.Arguments) {
				t.Errorf("arguments = %s, want %s", got.Arguments, want.Arguments)
			}
			got.Arguments, want.Arguments = nil, nil
			got.StartedAt, want.StartedAt = time.Time{}, time.Time{}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Execution = %+v\nwant        %+v", got, want)
			}
		})
	}
	if n := countRows(t, s, "executions"); n != 1 {
		t.Errorf("%d ledger rows for one execution id, want 1", n)
	}
}

func TestArgumentsAreStoredAsJSON(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	for i, c := range []struct {
		name string
		in   string
		want string
	}{
		{"object kept byte for byte", `{"path": "a.txt",  "n":1}`, `{"path": "a.txt",  "n":1}`},
		{"surrounding space trimmed", " \n{\"a\":1}\t", `{"a":1}`},
		{"empty becomes an object", ``, `{}`},
		{"null becomes an object", `null`, `{}`},
		{"invalid JSON kept as a string", `{"path": "a.txt"`, `"{\"path\": \"a.txt\""`},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := sampleExecution("s_1")
			e.ExecutionID = e.ExecutionID + string(rune('a'+i))
			e.Arguments = json.RawMessage(c.in)
			if err := s.RecordExecution(ctx, e); err != nil {
				t.Fatal(err)
			}
			got, err := s.Execution(ctx, e.ExecutionID)
			if err != nil {
				t.Fatal(err)
			}
			if string(got.Arguments) != c.want {
				t.Errorf("arguments = %s, want %s", got.Arguments, c.want)
			}
			if _, err := json.Marshal(got); err != nil {
				t.Errorf("the record no longer marshals: %v", err)
			}
		})
	}
}

// Whatever a model sends as arguments, the stored form is valid JSON, and valid
// JSON other than null is kept as sent (minus surrounding space).
func FuzzArgumentsText(f *testing.F) {
	for _, seed := range []string{``, `null`, `{}`, `{"path":"a.txt"}`, ` [1,2] `, `{"a":`, "\xff\xfe", `"x"`, `{"a":"<b>&"}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := argumentsText(json.RawMessage(in))
		if !json.Valid([]byte(got)) {
			t.Fatalf("argumentsText(%q) = %q, not valid JSON", in, got)
		}
		trimmed := strings.TrimSpace(in)
		if json.Valid([]byte(trimmed)) && trimmed != "null" && got != trimmed {
			t.Errorf("argumentsText(%q) = %q, want the input kept as %q", in, got, trimmed)
		}
	})
}
