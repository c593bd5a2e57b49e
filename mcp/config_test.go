package mcp

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestValidateServers(t *testing.T) {
	ok := ServerConfig{Name: "files", Command: []string{"mcp-server-filesystem", "/data"}}
	tests := []struct {
		name    string
		servers []ServerConfig
		want    []string // substrings of the error; none: valid
	}{
		{"command server", []ServerConfig{ok}, nil},
		{"url server with headers", []ServerConfig{{Name: "gh_2", URL: "https://example.org/mcp", Headers: map[string]string{"Authorization": "Bearer x"}, Timeout: time.Second}}, nil},
		{"none", nil, nil},
		{"no name", []ServerConfig{{Command: []string{"x"}}}, []string{"mcp.servers[0].name: is missing"}},
		{"bad name", []ServerConfig{{Name: "Files-1", Command: []string{"x"}}}, []string{`mcp.servers[0].name: "Files-1" may only hold`}},
		{"duplicate", []ServerConfig{ok, ok}, []string{`mcp.servers[1].name: "files" is already the name of mcp.servers[0]`}},
		{"neither", []ServerConfig{{Name: "a"}}, []string{"mcp.servers[0].command: neither command nor url"}},
		{"both", []ServerConfig{{Name: "a", Command: []string{"x"}, URL: "http://h/"}}, []string{"mcp.servers[0].url: both"}},
		{"empty program", []ServerConfig{{Name: "a", Command: []string{" "}}}, []string{"mcp.servers[0].command: the program"}},
		{"bad url", []ServerConfig{{Name: "a", URL: "ftp://h/x"}}, []string{`mcp.servers[0].url: "ftp://h/x" is not an http`}},
		{"env on url", []ServerConfig{{Name: "a", URL: "http://h/", Env: map[string]string{"K": "v"}}}, []string{"mcp.servers[0].env: is for a command server"}},
		{"bad env", []ServerConfig{{Name: "a", Command: []string{"x"}, Env: map[string]string{"A=B": "v"}}}, []string{`mcp.servers[0].env: "A=B"`}},
		{"headers on command", []ServerConfig{{Name: "a", Command: []string{"x"}, Headers: map[string]string{"K": "v"}}}, []string{"mcp.servers[0].headers: are for a url server"}},
		{"bad header", []ServerConfig{{Name: "a", URL: "http://h/", Headers: map[string]string{"Bad Name": "v"}}}, []string{`"Bad Name" is not a valid HTTP header`}},
		{"negative timeout", []ServerConfig{{Name: "a", Command: []string{"x"}, Timeout: -time.Second}}, []string{"mcp.servers[0].timeout: -1s is negative"}},
		{"every problem at once", []ServerConfig{{Name: "A"}, {Name: "b", URL: "x"}}, []string{"mcp.servers[0].name", "mcp.servers[0].command", "mcp.servers[1].url"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateServers(tc.servers)
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted, want %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestStartRefusesBadConfig(t *testing.T) {
	h, err := Start(context.Background(), []ServerConfig{{Name: "a"}}, Options{})
	if err == nil || h != nil {
		t.Fatalf("Start took a server with neither command nor url: %v", err)
	}
}
