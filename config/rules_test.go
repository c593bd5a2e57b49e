package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// rulesHead configures two MCP servers and opens safety.rules: the first
// rule written after it is on line 8.
const rulesHead = `mcp:
  servers:
    - {name: files, command: [x]}
    - {name: gh_2, url: 'https://h/mcp'}
safety:
  preset: moderate
  rules:
`

func TestRulesLoad(t *testing.T) {
	clearEnv(t)
	path := writeFile(t, t.TempDir(), "config.yaml", rulesHead+`    - {deny: read_file, path: "secrets/"}  # a workspace folder
    - {allow: write_file, path: notes}
    - {allow: read_webpage, host: "GO.dev"}
    - {ask: "files__*"}
    # block style
    - allow: copy_file
      path: ./a/b/../c
    - deny: read_webpage
      host: "*.ＥＸＡＭＰＬＥ.org"
    - {allow: list_directory, path: .}
    - {allow: list_directory, path: ./}
    - {allow: web_search}
    - {allow: gh_2__search_issues}
    - {allow: read_webpage, host: "[::ffff:127.0.0.1]"}
    - {ask: read_webpage, host: "bücher.de."}
    - path: "0123"
      deny: delete_file
`)
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Rule{
		{Effect: RuleDeny, Tool: "read_file", Path: "secrets/", Line: 8},
		{Effect: RuleAllow, Tool: "write_file", Path: "notes/", Line: 9},
		{Effect: RuleAllow, Tool: "read_webpage", Host: "go.dev", Line: 10},
		{Effect: RuleAsk, Tool: "files__*", Line: 11},
		{Effect: RuleAllow, Tool: "copy_file", Path: "a/c/", Line: 13},
		{Effect: RuleDeny, Tool: "read_webpage", Host: "*.example.org", Line: 15},
		{Effect: RuleAllow, Tool: "list_directory", Path: "./", Line: 17},
		{Effect: RuleAllow, Tool: "list_directory", Path: "./", Line: 18},
		{Effect: RuleAllow, Tool: "web_search", Line: 19},
		{Effect: RuleAllow, Tool: "gh_2__search_issues", Line: 20},
		{Effect: RuleAllow, Tool: "read_webpage", Host: "127.0.0.1", Line: 21},
		{Effect: RuleAsk, Tool: "read_webpage", Host: "xn--bcher-kva.de", Line: 22},
		{Effect: RuleDeny, Tool: "delete_file", Path: "0123/", Line: 23},
	}
	if !reflect.DeepEqual(c.Safety.Rules, want) {
		t.Fatalf("rules\n got %+v\nwant %+v", c.Safety.Rules, want)
	}
	// Rules apply live.
	next := *c
	next.Safety.Rules = want[:1]
	if got := RestartRequired(c, &next); len(got) != 0 {
		t.Errorf("a change of rules waits for a restart: %v", got)
	}
}

func TestRulesFromTheEnvironment(t *testing.T) {
	clearEnv(t)
	file := writeFile(t, t.TempDir(), "config.yaml", rulesHead+"    - {allow: web_search}\n")
	t.Setenv("AILAB_SAFETY_RULES", `[{"deny":"read_file","path":"secrets"}, {"ask": "files__*"}, {"allow": "read_webpage", "host": "Go.Dev"}]`)
	c, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	want := []Rule{
		{Effect: RuleDeny, Tool: "read_file", Path: "secrets/"},
		{Effect: RuleAsk, Tool: "files__*"},
		{Effect: RuleAllow, Tool: "read_webpage", Host: "go.dev"},
	}
	if !reflect.DeepEqual(c.Safety.Rules, want) {
		t.Fatalf("rules\n got %+v\nwant %+v", c.Safety.Rules, want)
	}
	t.Setenv("AILAB_SAFETY_RULES", "[]")
	if c, err := Load(file); err != nil || c.Safety.Rules == nil || len(c.Safety.Rules) != 0 {
		t.Fatalf("[] from the environment: %+v, %v; want no rules", c, err)
	}

	for _, tt := range []struct {
		name, env, wantKey, wantText string
	}{
		{"not JSON", `deny read_file`, "safety.rules", `must be a JSON list of rules in the environment, e.g. [{"deny": "read_file", "path": "secrets/"}]`},
		{"not a list", `{"deny": "read_file"}`, "safety.rules", "must be a list of rules"},
		{"bad path", `[{"allow": "web_search"}, {"allow": "write_file", "path": "/etc"}]`, "safety.rules[1]", `"/etc" is not relative to the workspace`},
		{"a number", `[{"allow": 5}]`, "safety.rules[0]", "allow must be one text value"},
		{"null", `[{"allow": null}]`, "safety.rules[0]", "allow has no value"},
		{"unconfigured server", `[{"ask": "slack__*"}]`, "safety.rules[0]", `"slack__*" names MCP server slack, which is not in mcp.servers (it has files, gh_2)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("AILAB_SAFETY_RULES", tt.env)
			_, err := Load(file)
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("Load = %v, want *Error", err)
			}
			if ce.Key != tt.wantKey || ce.Path != "env AILAB_SAFETY_RULES" || ce.Line != 0 {
				t.Errorf("Key %q Path %q Line %d, want %q, env AILAB_SAFETY_RULES, 0", ce.Key, ce.Path, ce.Line, tt.wantKey)
			}
			if want := "env AILAB_SAFETY_RULES: " + tt.wantKey + ": "; !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("message %q, want it to start with %q and hold %q", err, want, tt.wantText)
			}
		})
	}
}

// TestRulesRefused: every refusal names the rule (safety.rules[i]) and the
// line to fix, the entry's or that of the bad key inside it.
func TestRulesRefused(t *testing.T) {
	const literally = "is not a folder: paths are folders matched literally; write notes/ for the folder and everything below it"
	for _, tt := range []struct {
		name, rules string
		wantKey     string
		wantLine    int
		wantText    string
	}{
		{"unknown key", "    - {allow: write_file, paht: notes/}\n", "safety.rules[0]", 8, `"paht" is not a key of a rule; a rule takes allow, ask or deny, and optionally path or host`},
		{"unknown key on its own line", "    - {allow: web_search}\n    - allow: write_file\n      paht: notes/\n", "safety.rules[1]", 10, `"paht" is not a key of a rule`},
		{"empty key", "    - {allow: write_file, '': notes/}\n", "safety.rules[0]", 8, "safety.rules[0]: has an empty key; a rule takes allow, ask or deny, and optionally path or host"},
		{"an alias of a bad rule", "    - &bad {allow: rm_rf}\n    - *bad\n", "safety.rules[0]", 8, `"rm_rf" is not a tool name`},
		{"key twice", "    - allow: write_file\n      allow: read_file\n", "safety.rules[0]", 9, `"allow" appears twice in this rule (first on line 8); keep one`},
		{"no effect", "    - {path: notes/}\n", "safety.rules[0]", 8, "names no tool; give exactly one of allow, ask or deny, like {allow: write_file, path: notes/}"},
		{"two effects", "    - allow: write_file\n      deny: write_file\n", "safety.rules[0]", 9, "has both allow and deny; give exactly one of allow, ask or deny (write one rule for each)"},
		{"not a mapping", "    - {allow: web_search}\n    - write_file\n", "safety.rules[1]", 9, `"write_file" is not a rule; write each rule as a mapping like {allow: write_file, path: notes/}`},
		{"not a list", "    allow: write_file\n", "safety.rules", 7, "must be a list of rules"},
		{"tool is a list", "    - {allow: [write_file, read_file]}\n", "safety.rules[0]", 8, "allow must be one text value, not a number, list or mapping; name one tool, like allow: write_file"},
		{"tool missing", "    - {allow: }\n", "safety.rules[0]", 8, "allow has no value; name one tool, like allow: write_file"},
		{"tool empty", "    - {allow: ''}\n", "safety.rules[0]", 8, "is empty; name one tool"},
		{"invisible character in a tool", "    - {allow: \"write_file\\u200b\"}\n", "safety.rules[0]", 8, `safety.rules[0]: allow holds a control or invisible character (write_file\u200b); name one tool, like write_file`},
		{"invisible character in a key", "    - {allow: write_file, \"path\\u200b\": notes/}\n", "safety.rules[0]", 8, `safety.rules[0]: has the key path\u200b, which holds a control or invisible character; a rule takes allow, ask or deny, and optionally path or host`},
		{"unknown tool", "    - {allow: web_search}\n    - {deny: rm_rf}\n", "safety.rules[1]", 9, `"rm_rf" is not a tool name (use web_search, read_webpage, read_file, write_file, delete_file, move_file, copy_file, create_directory, list_directory, or SERVER__TOOL for a tool of an MCP server)`},
		{"bare star", "    - {allow: '*'}\n", "safety.rules[0]", 8, `"*" is a pattern, which a rule does not read; name one tool, or SERVER__* for every tool of the MCP server SERVER`},
		{"glob", "    - {allow: 'write_*'}\n", "safety.rules[0]", 8, "is a pattern"},
		{"glob in an MCP tool", "    - {allow: 'files__read_*'}\n", "safety.rules[0]", 8, "is a pattern"},
		{"glob for a server", "    - {allow: '*__read'}\n", "safety.rules[0]", 8, "is a pattern"},
		{"bad server name", "    - {allow: 'Files__read'}\n", "safety.rules[0]", 8, "does not start with an MCP server's name"},
		{"bad MCP tool name", "    - {allow: 'files__read text'}\n", "safety.rules[0]", 8, "is no tool an MCP server can offer"},
		{"server not configured", "    - {allow: web_search}\n    - {ask: 'slack__*'}\n", "safety.rules[1]", 9, `"slack__*" names MCP server slack, which is not in mcp.servers (it has files, gh_2); add the server there or fix the name`},
		{"server not configured, key on the next line", "    - {\n        ask: slack__post}\n", "safety.rules[0]", 9, "names MCP server slack"},
		{"path for a web tool", "    - {allow: web_search, path: notes/}\n", "safety.rules[0]", 8, `"notes/" is a path, but web_search takes none; path limits only the file tools (read_file, write_file, delete_file, move_file, copy_file, create_directory, list_directory)`},
		{"path for read_webpage", "    - allow: read_webpage\n      path: notes/\n", "safety.rules[0]", 9, "read_webpage takes host instead (like host: go.dev)"},
		{"path for every tool of a server", "    - {ask: 'files__*', path: notes/}\n", "safety.rules[0]", 8, "an MCP server's tools take none"},
		{"path for an MCP tool", "    - {ask: files__write, path: notes/}\n", "safety.rules[0]", 8, "an MCP server's tools take none"},
		{"absolute path", "    - {deny: read_file, path: /etc}\n", "safety.rules[0]", 8, `"/etc" is not relative to the workspace; write the folder as it is inside tools.workspace, like notes/`},
		{"home path", "    - {deny: read_file, path: ~/x}\n", "safety.rules[0]", 8, "is not relative to the workspace"},
		{"drive path", "    - {deny: read_file, path: 'C:/x'}\n", "safety.rules[0]", 8, "is not relative to the workspace"},
		{"climbing out", "    - {deny: read_file, path: a/../../x}\n", "safety.rules[0]", 8, `"a/../../x" climbs out of the workspace with ..; write a folder inside it, like notes/`},
		{"climbing out, block", "    - deny: read_file\n      path: ..\n", "safety.rules[0]", 9, "climbs out of the workspace"},
		{"star in a path", "    - {allow: write_file, path: 'notes/*'}\n", "safety.rules[0]", 8, `"notes/*" ` + literally},
		{"question mark in a path", "    - {allow: write_file, path: 'note?'}\n", "safety.rules[0]", 8, literally},
		{"bracket in a path", "    - {allow: write_file, path: '[ab]/'}\n", "safety.rules[0]", 8, literally},
		{"backslash in a path", "    - {allow: write_file, path: 'notes\\sub'}\n", "safety.rules[0]", 8, literally},
		{"invisible character in a path", "    - {allow: write_file, path: \"notes\\u200b/\"}\n", "safety.rules[0]", 8, `safety.rules[0]: path holds a control or invisible character (notes\u200b/); write the folder name in plain characters`},
		{"control character in a path", "    - {allow: write_file, path: \"no\\ttes\"}\n", "safety.rules[0]", 8, `safety.rules[0]: path holds a control or invisible character (no\ttes)`},
		{"empty path", "    - {allow: write_file, path: ''}\n", "safety.rules[0]", 8, "is empty; write ./ for the whole workspace, or leave path out"},
		{"host for a file tool", "    - {allow: write_file, host: go.dev}\n", "safety.rules[0]", 8, `"go.dev" is a host, but write_file takes path instead (like path: notes/); host limits only read_webpage`},
		{"host for web_search", "    - allow: web_search\n      host: go.dev\n", "safety.rules[0]", 9, "is a host, but web_search takes none; host limits only read_webpage"},
		{"host with a scheme", "    - {allow: read_webpage, host: 'https://go.dev'}\n", "safety.rules[0]", 8, `"https://go.dev" has a scheme; write the bare host, like go.dev`},
		{"host with a port", "    - {allow: read_webpage, host: 'go.dev:443'}\n", "safety.rules[0]", 8, "has a port; write the bare host, like go.dev (a rule covers every port)"},
		{"IPv6 host with a port", "    - {allow: read_webpage, host: '[::1]:8080'}\n", "safety.rules[0]", 8, "has a port"},
		{"host with a path", "    - {allow: read_webpage, host: go.dev/doc}\n", "safety.rules[0]", 8, "has a path; write the bare host, like go.dev"},
		{"host with a user", "    - {allow: read_webpage, host: me@go.dev}\n", "safety.rules[0]", 8, "has a user name"},
		{"star inside a host", "    - {allow: read_webpage, host: 'go.*.dev'}\n", "safety.rules[0]", 8, "has a * that does not start it; write the bare host, like go.dev, or *.go.dev for its subdomains"},
		{"star host", "    - {allow: read_webpage, host: '*'}\n", "safety.rules[0]", 8, "would match every host"},
		{"star without a dot", "    - {allow: read_webpage, host: '*go.dev'}\n", "safety.rules[0]", 8, "has a * that does not start it"},
		{"leading dot", "    - {allow: read_webpage, host: .go.dev}\n", "safety.rules[0]", 8, "starts with a dot; write the bare host, like go.dev, or *.go.dev for its subdomains"},
		{"not a host", "    - {allow: read_webpage, host: 'go dev'}\n", "safety.rules[0]", 8, `"go dev" is not a host name; write the bare host, like go.dev`},
		{"invisible character in a host", "    - {allow: read_webpage, host: \"go.dev\\u200b\"}\n", "safety.rules[0]", 8, `safety.rules[0]: host holds a control or invisible character (go.dev\u200b); write the bare host, like go.dev`},
		{"subdomains of an address", "    - {allow: read_webpage, host: '*.127.0.0.1'}\n", "safety.rules[0]", 8, "puts *. before an address"},
		{"empty host", "    - {allow: read_webpage, host: ''}\n", "safety.rules[0]", 8, "is empty; write the bare host, like go.dev, or leave host out"},
		{"path and host", "    - allow: read_webpage\n      path: notes/\n      host: go.dev\n", "safety.rules[0]", 10, "gives both path and host; a rule is limited to a folder (file tools) or to a host (read_webpage), so keep one"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			path := writeFile(t, t.TempDir(), "config.yaml", rulesHead+tt.rules)
			c, err := Load(path)
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("Load = %+v, %v; want *Error", c, err)
			}
			msg := err.Error()
			if ce.Key != tt.wantKey || ce.Line != tt.wantLine || ce.Path != path {
				t.Errorf("Key %q Line %d Path %q, want %q %d %q (%s)", ce.Key, ce.Line, ce.Path, tt.wantKey, tt.wantLine, path, msg)
			}
			if want := fmt.Sprintf("%s:%d: %s: ", path, tt.wantLine, tt.wantKey); !strings.HasPrefix(msg, want) {
				t.Errorf("message %q does not start with %q", msg, want)
			}
			if !strings.Contains(msg, tt.wantText) {
				t.Errorf("message %q does not hold %q", msg, tt.wantText)
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("message is not one line: %q", msg)
			}
		})
	}
}

func TestRuleWords(t *testing.T) {
	for _, tt := range []struct {
		rule       Rule
		words, yml string
	}{
		{Rule{Effect: RuleAllow, Tool: "write_file", Path: "notes/"}, "allow write_file in notes/", `{allow: write_file, path: "notes/"}`},
		{Rule{Effect: RuleDeny, Tool: "read_file", Path: "secrets/"}, "deny read_file in secrets/", `{deny: read_file, path: "secrets/"}`},
		{Rule{Effect: RuleAllow, Tool: "list_directory", Path: "./"}, "allow list_directory anywhere in the workspace", `{allow: list_directory, path: "./"}`},
		{Rule{Effect: RuleAllow, Tool: "read_webpage", Host: "go.dev"}, "allow read_webpage on go.dev", `{allow: read_webpage, host: "go.dev"}`},
		{Rule{Effect: RuleDeny, Tool: "read_webpage", Host: "*.go.dev"}, "deny read_webpage on *.go.dev", `{deny: read_webpage, host: "*.go.dev"}`},
		{Rule{Effect: RuleAsk, Tool: "files__*", Line: 4}, "ask every tool of MCP server files", `{ask: "files__*"}`},
		{Rule{Effect: RuleAllow, Tool: "files__read_text_file"}, "allow files__read_text_file", `{allow: files__read_text_file}`},
		{Rule{Effect: RuleAllow, Tool: "web_search"}, "allow web_search", `{allow: web_search}`},
		{Rule{Effect: RuleAllow, Tool: "write_file", Path: `say "hi"/`}, `allow write_file in say "hi"/`, `{allow: write_file, path: "say \"hi\"/"}`},
	} {
		if got := tt.rule.String(); got != tt.words {
			t.Errorf("String() = %q, want %q", got, tt.words)
		}
		if got := tt.rule.YAML(); got != tt.yml {
			t.Errorf("YAML() = %q, want %q", got, tt.yml)
		}
	}
}

// TestRuleYAMLLoadsBack: what YAML writes is read as the same rule.
func TestRuleYAMLLoadsBack(t *testing.T) {
	clearEnv(t)
	for _, r := range []Rule{
		{Effect: RuleAllow, Tool: "write_file", Path: "notes/"},
		{Effect: RuleAllow, Tool: "write_file", Path: `a "b" #c: d/`},
		{Effect: RuleAllow, Tool: "write_file", Path: "true/"},
		{Effect: RuleDeny, Tool: "read_webpage", Host: "*.go.dev"},
		{Effect: RuleAsk, Tool: "files__*"},
		{Effect: RuleAsk, Tool: "gh_2__a-b"},
	} {
		path := writeFile(t, t.TempDir(), "config.yaml", rulesHead+"    - "+r.YAML()+"\n")
		c, err := Load(path)
		if err != nil {
			t.Fatalf("%s: %v", r.YAML(), err)
		}
		r.Line = 8
		if len(c.Safety.Rules) != 1 || c.Safety.Rules[0] != r {
			t.Errorf("%s loads as %+v", r.YAML(), c.Safety.Rules)
		}
	}
}

func TestPublicShowsRules(t *testing.T) {
	clearEnv(t)
	path := writeFile(t, t.TempDir(), "config.yaml", rulesHead+"    - {deny: read_file, path: secrets}\n    - allow: read_webpage\n      host: go.dev\n    - {ask: 'files__*'}\n")
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	got := c.Public()["safety"].(map[string]any)["rules"]
	want := []map[string]any{
		{"deny": "read_file", "path": "secrets/", "line": 8},
		{"allow": "read_webpage", "host": "go.dev", "line": 9},
		{"ask": "files__*", "line": 11},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Public safety.rules = %#v, want %#v", got, want)
	}

	t.Setenv("AILAB_SAFETY_RULES", `[{"allow": "write_file", "path": "notes/"}]`)
	c, err = Load(path)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(c.Public()["safety"].(map[string]any)["rules"])
	if string(raw) != `[{"allow":"write_file","path":"notes/"}]` {
		t.Errorf("a rule from the environment is shown as %s", raw)
	}

	raw, _ = json.Marshal(Default().Public()["safety"].(map[string]any)["rules"])
	if string(raw) != "[]" {
		t.Errorf("no rules are shown as %s, want []", raw)
	}
	bare := Default()
	bare.Safety.Rules = nil
	raw, _ = json.Marshal(bare.Public()["safety"].(map[string]any)["rules"])
	if string(raw) != "[]" {
		t.Errorf("nil rules are shown as %s, want []", raw)
	}
}

func TestStrictWithAServerThatNeverAsksLoads(t *testing.T) {
	clearEnv(t)
	path := writeFile(t, t.TempDir(), "config.yaml", "safety:\n  preset: strict\nmcp:\n  servers:\n    - {name: calc, command: [calc], approval: never}\n")
	c, err := Load(path)
	if err != nil {
		t.Fatalf("strict with approval: never is refused: %v", err)
	}
	if c.MCP.Servers[0].Approval.Mode != ApprovalNever || c.Safety.Preset != "strict" {
		t.Fatalf("%+v", c)
	}
}
