package tools

import (
	"testing"
	"time"
)

func TestExecutionIDFormat(t *testing.T) {
	at := time.UnixMilli(1763769600123)
	id := NewExecutionID(WebSearch, at)
	m := ExecutionIDPattern.FindStringSubmatch(id)
	if m == nil || m[0] != id {
		t.Fatalf("id %q does not match the contract's format", id)
	}
	if m[1] != WebSearch || m[2] != "1763769600123" || len(m[3]) != 8 {
		t.Fatalf("id %q parsed as %q", id, m)
	}
	if NewExecutionID(WebSearch, at) == id {
		t.Fatal("two ids at the same millisecond are equal")
	}
}

func TestPresetNeedsApproval(t *testing.T) {
	cases := []struct {
		preset, tool string
		want         bool
	}{
		{PresetStrict, WebSearch, true},
		{PresetStrict, ReadFile, false},
		{PresetModerate, WebSearch, false},
		{PresetModerate, DeleteFile, true},
		{PresetMinimal, DeleteFile, false},
	}
	for _, c := range cases {
		if got := Presets[c.preset].NeedsApproval(c.tool); got != c.want {
			t.Errorf("%s.NeedsApproval(%s) = %v, want %v", c.preset, c.tool, got, c.want)
		}
	}
}
