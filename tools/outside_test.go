package tools

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"testing"
	"time"
)

// outsideTool stands in for a tool of an MCP server.
type outsideTool struct {
	name, source string
}

func (o outsideTool) Name() string               { return o.name }
func (o outsideTool) Description() string        { return "" }
func (o outsideTool) Parameters() map[string]any { return nil }
func (o outsideTool) Source() string             { return o.source }
func (o outsideTool) Run(context.Context, json.RawMessage) (any, error) {
	return nil, nil
}

func TestOutsideToolsRegisterBesideTheCatalog(t *testing.T) {
	ws, _ := OpenWorkspace(t.TempDir())
	defer ws.Close()
	all := append(FileTools(ws), outsideTool{name: "files__read_text", source: "mcp:files"}, outsideTool{name: "db__query", source: "mcp:db"})
	r, err := NewRegistry(all...)
	if err != nil {
		t.Fatal(err)
	}
	names := r.Names()
	if names[len(names)-2] != "db__query" || names[len(names)-1] != "files__read_text" || !slices.Contains(names, ReadFile) {
		t.Fatalf("names %v", names)
	}
	for _, bad := range []Tool{
		outsideTool{name: "read_text", source: "mcp:files"},        // no namespace
		outsideTool{name: "files__read_text", source: "builtin"},   // claims to be built in
		outsideTool{name: "files__read_text", source: "mcp:files"}, // twice
	} {
		if _, err := NewRegistry(append(all, bad)...); err == nil {
			t.Errorf("%+v was registered", bad)
		}
	}
}

func TestIDPrefix(t *testing.T) {
	for in, want := range map[string]string{
		"web_search":          "web_search",
		"files__read_text":    "files__read_text",
		"Files__Read-Text.v2": "files__read_text_v2",
		"gh__list issues":     "gh__list_issues",
		"9lives__x":           "t_9lives__x",
	} {
		if got := IDPrefix(in); got != want {
			t.Errorf("IDPrefix(%q) = %q, want %q", in, got, want)
		}
		id := NewExecutionID(in, time.UnixMilli(1763769600123))
		if !regexp.MustCompile(`^`+regexp.QuoteMeta(want)+`_1763769600123_[0-9a-f]{8}$`).MatchString(id) || !ExecutionIDPattern.MatchString(id) {
			t.Errorf("NewExecutionID(%q) = %q", in, id)
		}
	}
}
