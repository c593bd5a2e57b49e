package config

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestMCPServersLoad(t *testing.T) {
	clearEnv(t)
	path := writeFile(t, t.TempDir(), "config.yaml", `safety:
  preset: moderate
mcp:
  servers:
    - name: files
      command: ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/data"]
      env: {NODE_OPTIONS: "--max-old-space-size=256"}
    - name: remote
      url: "https://mcp.example.com/mcp"
      headers: {Authorization: "Bearer sk-secret"}
      approval: always
      timeout: 5s
    - name: calc
      command: calc-server --stdio
      approval: never
`)
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []MCPServer{
		{Name: "files", Command: []string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "/data"},
			Env: map[string]string{"NODE_OPTIONS": "--max-old-space-size=256"}, Approval: MCPApproval{Mode: ApprovalAlways}},
		{Name: "remote", URL: "https://mcp.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer sk-secret"},
			Approval: MCPApproval{Mode: ApprovalAlways}, Timeout: 5 * time.Second},
		{Name: "calc", Command: []string{"calc-server", "--stdio"}, Approval: MCPApproval{Mode: ApprovalNever}},
	}
	if !reflect.DeepEqual(c.MCP.Servers, want) {
		t.Fatalf("servers\n got %+v\nwant %+v", c.MCP.Servers, want)
	}
	pub := c.Public()["mcp"].(map[string]any)["servers"].([]map[string]any)
	if s := strings.Join([]string{pub[1]["headers"].(map[string]string)["Authorization"], pub[0]["env"].(map[string]string)["NODE_OPTIONS"]}, " "); s != "*** ***" {
		t.Errorf("GET /config shows env or header values: %v", pub)
	}
	if pub[1]["approval"] != "always" || pub[2]["approval"] != "never" {
		t.Errorf("approval shown as %v", pub)
	}
	next := *c
	next.MCP.Servers = want[:1]
	if got := RestartRequired(c, &next); !slices.Equal(got, []string{"mcp.servers"}) {
		t.Errorf("RestartRequired = %v", got)
	}
}

func TestMCPServersRefused(t *testing.T) {
	for _, tt := range []struct {
		name, yaml, wantText string
		wantLine             int
	}{
		{"unknown key in an entry", "mcp:\n  servers:\n    - name: files\n      comand: [x]\n", "mcp.servers[0].comand: unknown key", 4},
		{"entry not a mapping", "mcp:\n  servers:\n    - files\n", "must be a mapping", 3},
		{"not a list", "mcp:\n  servers:\n    name: files\n", "must be a list of servers", 2},
		{"bad name", "mcp:\n  servers:\n    - {name: Files, command: [x]}\n", "name: must be lower-case", 0},
		{"same name twice", "mcp:\n  servers:\n    - {name: a, command: [x]}\n    - {name: a, command: [y]}\n", "used by two servers", 0},
		{"neither command nor url", "mcp:\n  servers:\n    - {name: a}\n", "give command (a local server) or url", 0},
		{"both", "mcp:\n  servers:\n    - {name: a, command: [x], url: 'http://h/mcp'}\n", "give one of the two", 0},
		{"bad url", "mcp:\n  servers:\n    - {name: a, url: 'ftp://h/mcp'}\n", "http or https URL", 0},
		{"bad approval", "mcp:\n  servers:\n    - {name: a, command: [x], approval: sometimes}\n", `approval "sometimes" must be always or never`, 0},
		{"approval list, flow", "mcp:\n  servers:\n    - {name: files, command: [x], approval: [write_file, move_file]}\n",
			"mcp.servers[0].approval: a list is no longer read (it named the tools that ask: write_file, move_file); write approval: always and, for each tool that may run without asking, a rule under safety.rules such as {allow: files__TOOL}", 3},
		{"approval list, block", "mcp:\n  servers:\n    - name: a\n      command: [x]\n    - name: gh\n      url: 'https://h/mcp'\n      approval:\n        - create_issue\n",
			"mcp.servers[1].approval: a list is no longer read (it named the tools that ask: create_issue); write approval: always and, for each tool that may run without asking, a rule under safety.rules such as {allow: gh__TOOL}", 7},
		{"timeout without unit", "mcp:\n  servers:\n    - {name: a, command: [x], timeout: 30}\n", "timeout has no unit", 0},
		{"env for a url", "mcp:\n  servers:\n    - {name: a, url: 'http://h/mcp', env: {A: b}}\n", "only applies to a server started with command", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			path := writeFile(t, t.TempDir(), "config.yaml", tt.yaml)
			_, err := Load(path)
			var ce *Error
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.wantText) || !strings.Contains(err.Error(), "mcp.servers") {
				t.Fatalf("error %v, want one about mcp.servers saying %q", err, tt.wantText)
			}
			if tt.wantLine != 0 && ce.Line != tt.wantLine {
				t.Errorf("line %d, want %d: %v", ce.Line, tt.wantLine, err)
			}
		})
	}
}

func TestMCPServersFromTheEnvironment(t *testing.T) {
	clearEnv(t)
	t.Setenv("AILAB_MCP_SERVERS", `[{"name": "files", "command": ["mcp-files"], "timeout": "10s"}]`)
	c, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.MCP.Servers) != 1 || c.MCP.Servers[0].Timeout != 10*time.Second || c.MCP.Servers[0].Approval.Mode != ApprovalAlways {
		t.Fatalf("%+v", c.MCP.Servers)
	}
	t.Setenv("AILAB_MCP_SERVERS", `[{"name": "files", "command": ["mcp-files"], "approval": ["write_file"]}]`)
	if _, err := Load(""); err == nil || !strings.HasPrefix(err.Error(), "env AILAB_MCP_SERVERS: mcp.servers: ") ||
		!strings.HasSuffix(err.Error(), "server files: approval: a list is no longer read (it named the tools that ask: write_file); write approval: always and, for each tool that may run without asking, a rule under safety.rules such as {allow: files__TOOL}") {
		t.Fatalf("the list form from the environment: %v", err)
	}
	t.Setenv("AILAB_MCP_SERVERS", `files`)
	if _, err := Load(""); err == nil || !strings.Contains(err.Error(), "AILAB_MCP_SERVERS") || !strings.Contains(err.Error(), "JSON list") {
		t.Fatalf("a non-JSON value: %v", err)
	}
}
