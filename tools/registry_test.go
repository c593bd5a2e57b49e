package tools

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// namedTool is a Tool that only has a name, for registry tests.
type namedTool string

func (n namedTool) Name() string               { return string(n) }
func (n namedTool) Description() string        { return "the " + string(n) + " test tool" }
func (n namedTool) Parameters() map[string]any { return objectSchema(nil, map[string]any{}) }
func (n namedTool) Run(context.Context, json.RawMessage) (any, error) {
	return string(n), nil
}

func TestNewRegistry(t *testing.T) {
	cases := []struct {
		name      string
		tools     []Tool
		wantNames []string
		wantErr   string
	}{
		{"catalog order, not registration order", []Tool{namedTool(ListDirectory), namedTool(WebSearch), namedTool(ReadFile)},
			[]string{WebSearch, ReadFile, ListDirectory}, ""},
		{"none", nil, nil, ""},
		{"duplicate", []Tool{namedTool(ReadFile), namedTool(WriteFile), namedTool(ReadFile)}, nil, `tool "read_file" is registered twice`},
		{"unknown name", []Tool{namedTool("run_shell")}, nil, `tool "run_shell" is not in the catalog`},
		{"empty name", []Tool{namedTool("")}, nil, `tool "" is not in the catalog`},
		{"nil tool", []Tool{namedTool(ReadFile), nil}, nil, "tool 2 of 2 is nil"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := NewRegistry(c.tools...)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Names(); !slices.Equal(got, c.wantNames) {
				t.Errorf("Names() = %v, want %v", got, c.wantNames)
			}
			var specNames []string
			for _, s := range r.Specs() {
				specNames = append(specNames, s.Name)
				if s.Description == "" || s.Parameters["type"] != "object" {
					t.Errorf("spec %s is incomplete: %+v", s.Name, s)
				}
			}
			if !slices.Equal(specNames, c.wantNames) {
				t.Errorf("Specs() names = %v, want %v", specNames, c.wantNames)
			}
			for _, name := range c.wantNames {
				if tool, ok := r.Get(name); !ok || tool.Name() != name {
					t.Errorf("Get(%q) = %v, %v", name, tool, ok)
				}
			}
			if _, ok := r.Get(WriteFile); ok != slices.Contains(c.wantNames, WriteFile) {
				t.Errorf("Get(write_file) found = %v for a registry of %v", ok, c.wantNames)
			}
		})
	}
}

func TestRegistryNamesIsACopy(t *testing.T) {
	r, err := NewRegistry(namedTool(ReadFile), namedTool(WriteFile))
	if err != nil {
		t.Fatal(err)
	}
	r.Names()[0] = "changed"
	if r.Names()[0] != ReadFile {
		t.Fatal("changing the slice Names returned changed the registry")
	}
}

func TestRegistryWithFileTools(t *testing.T) {
	f := newFixture(t)
	r, err := NewRegistry(FileTools(f.ws)...)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{ReadFile, WriteFile, DeleteFile, MoveFile, CopyFile, CreateDirectory, ListDirectory}
	if got := r.Names(); !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	b, err := json.Marshal(r.Specs())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"name":"read_file","description":"Read a UTF-8 text file`) {
		t.Errorf("specs JSON lacks the read_file spec: %.200s", b)
	}
	tool, _ := r.Get(ReadFile)
	res, err := tool.Run(context.Background(), json.RawMessage(`{"path":"hello.txt"}`))
	if err != nil || res.(ReadFileResult).Content != "hello, world\n" {
		t.Fatalf("read_file through the registry: %+v, %v", res, err)
	}
}
