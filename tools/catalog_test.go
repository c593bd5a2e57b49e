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
