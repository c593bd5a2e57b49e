package verify

import (
	"strings"
	"testing"

	"github.com/ailab/ai-lab/tools"
)

func TestParseTextCalls(t *testing.T) {
	type call struct{ name, args, err string }
	cases := []struct {
		name    string
		text    string
		calls   []call
		visible string
	}{
		{
			name:    "tag syntax",
			text:    `Searching now. <tool:web_search>{"query": "go 1.26"}</tool>`,
			calls:   []call{{"web_search", `{"query":"go 1.26"}`, ""}},
			visible: "Searching now.",
		},
		{
			name:    "tag syntax fenced",
			text:    "Here goes:\n```\n<tool:read_file>{\"path\": \"a.txt\"}</tool>\n```\nDone.",
			calls:   []call{{"read_file", `{"path":"a.txt"}`, ""}},
			visible: "Here goes:\nDone.",
		},
		{
			name:    "tag with fenced body",
			text:    "<tool:read_file>\n```json\n{\"path\": \"a.txt\"}\n```\n</tool>",
			calls:   []call{{"read_file", `{"path":"a.txt"}`, ""}},
			visible: "",
		},
		{
			name:    "tag with empty body",
			text:    "<tool:list_directory></tool>",
			calls:   []call{{"list_directory", `{}`, ""}},
			visible: "",
		},
		{
			name:    "tag without closing tag",
			text:    `<tool:read_file>{"path": "b.txt"}`,
			calls:   []call{{"read_file", `{"path":"b.txt"}`, ""}},
			visible: "",
		},
		{
			name:    "closing tag inside a JSON string",
			text:    `<tool:write_file>{"path": "a.html", "content": "</tool>"}</tool> done`,
			calls:   []call{{"write_file", `{"path":"a.html","content":"</tool>"}`, ""}},
			visible: "done",
		},
		{
			name:    "JSON syntax with parameters",
			text:    `I will search. {"name": "web_search", "parameters": {"query": "weather", "max_results": 3}}`,
			calls:   []call{{"web_search", `{"query":"weather","max_results":3}`, ""}},
			visible: "I will search.",
		},
		{
			name:    "JSON syntax fenced with a language tag",
			text:    "Let me check.\n\n```json\n{\"name\": \"read_webpage\", \"arguments\": {\"url\": \"https://go.dev\"}}\n```\n\nOne moment.",
			calls:   []call{{"read_webpage", `{"url":"https://go.dev"}`, ""}},
			visible: "Let me check.\n\nOne moment.",
		},
		{
			name:    "arguments as a string holding JSON",
			text:    `{"name": "write_file", "arguments": "{\"path\": \"n.txt\", \"content\": \"hi\"}"}`,
			calls:   []call{{"write_file", `{"path":"n.txt","content":"hi"}`, ""}},
			visible: "",
		},
		{
			name:    "both syntaxes in order",
			text:    `<tool:read_file>{"path": "a"}</tool> then {"name": "delete_file", "parameters": {"path": "a"}}`,
			calls:   []call{{"read_file", `{"path":"a"}`, ""}, {"delete_file", `{"path":"a"}`, ""}},
			visible: "then",
		},
		{
			name:    "unknown tool in a tag",
			text:    `<tool:run_speed_test>{}</tool>`,
			calls:   []call{{"run_speed_test", `{}`, `unknown tool "run_speed_test"; available tools: web_search, read_webpage, read_file, write_file, delete_file, move_file, copy_file, create_directory, list_directory`}},
			visible: "",
		},
		{
			name:    "unknown tool in JSON with parameters",
			text:    `{"name": "run_speed_test", "parameters": {}}`,
			calls:   []call{{"run_speed_test", `{}`, `unknown tool "run_speed_test"`}},
			visible: "",
		},
		{
			name:    "bad JSON in a tag",
			text:    `<tool:web_search>{"query": go}</tool>`,
			calls:   []call{{"web_search", ``, "arguments of web_search are not valid JSON: invalid character 'g'"}},
			visible: "",
		},
		{
			name:    "bad JSON in an arguments string",
			text:    `{"name": "web_search", "arguments": "{query: 1}"}`,
			calls:   []call{{"web_search", ``, "arguments of web_search are not valid JSON: invalid character 'q'"}},
			visible: "",
		},
		{
			name:    "arguments that are not an object",
			text:    `{"name": "web_search", "parameters": ["go"]}`,
			calls:   []call{{"web_search", ``, "must be a JSON object"}},
			visible: "",
		},
		{
			name:    "ordinary JSON with a name is no call",
			text:    "Your profile: {\"name\": \"Ada\", \"age\": 36}",
			visible: "Your profile: {\"name\": \"Ada\", \"age\": 36}",
		},
		{
			name:    "unknown name without parameters is no call",
			text:    `{"name": "run_speed_test", "result": 3}`,
			visible: `{"name": "run_speed_test", "result": 3}`,
		},
		{
			name:    "fence with other content is kept",
			text:    "```\nsome code\n{\"name\": \"read_file\", \"parameters\": {\"path\": \"x\"}}\n```",
			calls:   []call{{"read_file", `{"path":"x"}`, ""}},
			visible: "```\nsome code\n\n```",
		},
		{
			name:    "bad JSON in the JSON syntax",
			text:    `{"name": "read_file", "parameters": {"path": }}`,
			calls:   []call{{"read_file", ``, "the call to read_file is not valid JSON: invalid character '}'"}},
			visible: "",
		},
		{
			name:    "JSON syntax whose braces never close",
			text:    "On it.\n{\"name\": \"web_search\", \"arguments\": {\"query\": \"go\"}\n\nMore soon.",
			calls:   []call{{"web_search", ``, "the call to web_search is not valid JSON: unexpected end of JSON input"}},
			visible: "On it.\n\nMore soon.",
		},
		{
			name:    "broken JSON naming no registered tool is left alone",
			text:    `{"name": "Ada", "arguments": [1,}`,
			visible: `{"name": "Ada", "arguments": [1,}`,
		},
		{
			name:    "OpenAI tool_calls shape",
			text:    `{"type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"a.txt\"}"}}`,
			calls:   []call{{"read_file", `{"path":"a.txt"}`, ""}},
			visible: "",
		},
		{
			name:    "tool key naming a registered tool",
			text:    `{"tool": "list_directory", "parameters": {"path": "."}}`,
			calls:   []call{{"list_directory", `{"path":"."}`, ""}},
			visible: "",
		},
		{
			name:    "tool key with a result is a claim, not a call",
			text:    `{"tool": "web_search", "parameters": {"query": "go"}, "result": "none"}`,
			visible: `{"tool": "web_search", "parameters": {"query": "go"}, "result": "none"}`,
		},
		{
			name:    "OpenAI shape with a result is a claim, not a call",
			text:    `{"function": {"name": "web_search", "arguments": {"query": "go"}}, "output": "3 results"}`,
			visible: `{"function": {"name": "web_search", "arguments": {"query": "go"}}, "output": "3 results"}`,
		},
		{
			name:    "package.json is no call",
			text:    `{"name": "@acme/app", "arguments": {"a": 1}} and {"name": "app", "arguments": ["--fast"]}`,
			visible: `{"name": "@acme/app", "arguments": {"a": 1}} and {"name": "app", "arguments": ["--fast"]}`,
		},
		{
			name:    "tag-like prose is no call",
			text:    "Use <tool:NAME> syntax like <tool:> or <tool:x y>.",
			visible: "Use <tool:NAME> syntax like <tool:> or <tool:x y>.",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			calls, visible := ParseTextCalls(tc.text, tools.Names)
			if len(calls) != len(tc.calls) {
				t.Fatalf("calls = %+v, want %d", calls, len(tc.calls))
			}
			for i, c := range calls {
				w := tc.calls[i]
				if c.Name != w.name || string(c.Arguments) != w.args || !strings.Contains(c.Err, w.err) || (w.err == "") != (c.Err == "") {
					t.Errorf("call %d = {%q %s %q}, want {%q %s %q}", i, c.Name, c.Arguments, c.Err, w.name, w.args, w.err)
				}
				if !strings.Contains(tc.text, c.Raw) || c.Raw == "" {
					t.Errorf("call %d Raw %q is not in the text", i, c.Raw)
				}
			}
			if visible != tc.visible {
				t.Errorf("visible = %q, want %q", visible, tc.visible)
			}
		})
	}
}

func FuzzParseTextCalls(f *testing.F) {
	f.Add(`<tool:web_search>{"query": "go"}</tool>`)
	f.Add("```json\n{\"name\": \"read_file\", \"arguments\": \"{\\\"path\\\": 1}\"}\n```")
	f.Add(`{"name": "x", "parameters": [1]} <tool:y>{</tool> <tool:z>{"a":{"b":"}"}}`)
	f.Add("```\n```\n```")
	f.Fuzz(func(t *testing.T, text string) {
		calls, visible := ParseTextCalls(text, tools.Names)
		if len(visible) > len(text) {
			t.Fatalf("visible text is longer than the input: %q", visible)
		}
		for _, c := range calls {
			if !strings.Contains(text, c.Raw) {
				t.Fatalf("call Raw %q is not in the text", c.Raw)
			}
			if c.Err == "" && len(c.Arguments) == 0 {
				t.Fatalf("call %+v has neither arguments nor error", c)
			}
		}
	})
}
