package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func TestParseDemoRequest(t *testing.T) {
	call := func(name string, kv ...string) demoCall {
		args := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			args[kv[i]] = kv[i+1]
		}
		return demoCall{Name: name, Args: args}
	}
	one := func(c demoCall) demoPlan { return demoPlan{{c}} }
	tests := []struct {
		name string
		text string
		want demoPlan
	}{
		{"search the web", "search the web for golang generics", one(call("web_search", "query", "golang generics"))},
		{"search for", "Search for bubble tea", one(call("web_search", "query", "bubble tea"))},
		{"look up", "look up the weather in Paris", one(call("web_search", "query", "the weather in Paris"))},
		{"polite search", "Could you please search the internet for \"go 1.26 release notes\"?", one(call("web_search", "query", "go 1.26 release notes"))},
		{"read a url", "read https://go.dev/doc/.", one(call("read_webpage", "url", "https://go.dev/doc/"))},
		{"any url", "what does https://example.com/a?b=1 say?", one(call("read_webpage", "url", "https://example.com/a?b=1"))},
		{"create file named with", "create a file named a.txt with hello world", one(call("write_file", "path", "a.txt", "content", "hello world"))},
		{"create file called with content quoted", `create a file called "my notes.txt" with content "salt and pepper"`, one(call("write_file", "path", "my notes.txt", "content", "salt and pepper"))},
		{"and inside content stays", "create a file named a.txt with salt and pepper", one(call("write_file", "path", "a.txt", "content", "salt and pepper"))},
		{"create file without content", "create a new file named empty.txt", one(call("write_file", "path", "empty.txt", "content", ""))},
		{"write to", "write buy milk to todo.txt", one(call("write_file", "path", "todo.txt", "content", "buy milk"))},
		{"write to the file", "Write 'hello' into the file greeting.txt.", one(call("write_file", "path", "greeting.txt", "content", "hello"))},
		{"delete", "delete a.txt", one(call("delete_file", "path", "a.txt"))},
		{"remove the file", "please remove the file old/b.md", one(call("delete_file", "path", "old/b.md"))},
		{"question delete", "Can you delete notes.txt?", one(call("delete_file", "path", "notes.txt"))},
		{"read the file", "read the file notes.txt", one(call("read_file", "path", "notes.txt"))},
		{"show contents of", "show me the contents of notes.txt", one(call("read_file", "path", "notes.txt"))},
		{"list files", "list files", one(call("list_directory", "path", "."))},
		{"list files in", "list files in docs", one(call("list_directory", "path", "docs"))},
		{"show files in folder", "show me the files in the folder src", one(call("list_directory", "path", "src"))},
		{"list directory", "list the directory", one(call("list_directory", "path", "."))},
		{"move", "move a.txt to b.txt", one(call("move_file", "source", "a.txt", "destination", "b.txt"))},
		{"rename", "rename draft.md to final.md", one(call("move_file", "source", "draft.md", "destination", "final.md"))},
		{"copy", "copy the file a.txt to backup/a.txt", one(call("copy_file", "source", "a.txt", "destination", "backup/a.txt"))},
		{"make directory called", "make a directory called drafts", one(call("create_directory", "path", "drafts"))},
		{"create folder named", "create a new folder named notes/2026", one(call("create_directory", "path", "notes/2026"))},
		{"mkdir", "mkdir build", one(call("create_directory", "path", "build"))},
		{"then delete it", "create a file named a.txt with hi and then delete it", demoPlan{
			{call("write_file", "path", "a.txt", "content", "hi")},
			{call("delete_file", "path", "a.txt")},
		}},
		{"and runs in one round", "search the web for go and read https://go.dev", demoPlan{
			{call("web_search", "query", "go"), call("read_webpage", "url", "https://go.dev")},
		}},
		{"comma then", "list files, then read the file notes.txt", demoPlan{
			{call("list_directory", "path", ".")},
			{call("read_file", "path", "notes.txt")},
		}},
		{"three stages", "make a folder called d then write x to d/a.txt then copy d/a.txt to d/b.txt", demoPlan{
			{call("create_directory", "path", "d")},
			{call("write_file", "path", "d/a.txt", "content", "x")},
			{call("copy_file", "source", "d/a.txt", "destination", "d/b.txt")},
		}},
		{"quoted joint does not split", `write "read it and delete it" to todo.txt`, one(call("write_file", "path", "todo.txt", "content", "read it and delete it"))},
		{"unknown clause is skipped", "hello and delete a.txt", one(call("delete_file", "path", "a.txt"))},
		{"pronoun with nothing before", "delete it", nil},
		{"pronoun after a path", "read the file a.txt then copy it to b.txt", demoPlan{
			{call("read_file", "path", "a.txt")},
			{call("copy_file", "source", "a.txt", "destination", "b.txt")},
		}},
		{"greeting", "hello there", nil},
		{"question", "what is the meaning of life?", nil},
		{"empty", "   ", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := parseDemoRequest(tc.text)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("parseDemoRequest(%q) =\n  %+v\nwant\n  %+v", tc.text, got, tc.want)
			}
		})
	}
}

func user(s string) Message { return Message{Role: RoleUser, Content: s} }

func toolMsg(id, content string) Message {
	return Message{Role: RoleTool, ToolCallID: id, Content: content}
}

func calls(cs ...ToolCall) Message { return Message{Role: RoleAssistant, ToolCalls: cs} }

func TestDemoCalls(t *testing.T) {
	tests := []struct {
		name     string
		messages []Message
		want     []ToolCall
	}{
		{
			name:     "first stage",
			messages: []Message{{Role: RoleSystem, Content: "protocol"}, user("create a file named a.txt with hi and then delete it")},
			want:     []ToolCall{{ID: "call_1", Name: "write_file", Arguments: `{"content":"hi","path":"a.txt"}`}},
		},
		{
			name: "second stage after a successful first",
			messages: []Message{
				user("create a file named a.txt with hi and then delete it"),
				calls(ToolCall{ID: "call_1", Name: "write_file", Arguments: `{"content":"hi","path":"a.txt"}`}),
				toolMsg("call_1", `{"execution_id":"write_file_1763769600123_0a1b2c3d","tool_name":"write_file","executed_at":"2026-11-21T23:00:00.123Z","result":{"path":"a.txt","bytes":2}}`),
			},
			want: []ToolCall{{ID: "call_2", Name: "delete_file", Arguments: `{"path":"a.txt"}`}},
		},
		{
			name: "ids count over the whole conversation",
			messages: []Message{
				user("list files"),
				calls(ToolCall{ID: "call_1", Name: "list_directory", Arguments: `{"path":"."}`}),
				toolMsg("call_1", `{"execution_id":"list_directory_1763769600123_0a1b2c3d","tool_name":"list_directory","result":{"entries":[]}}`),
				{Role: RoleAssistant, Content: "empty"},
				user("search the web for go and read https://go.dev"),
			},
			want: []ToolCall{
				{ID: "call_2", Name: "web_search", Arguments: `{"query":"go"}`},
				{ID: "call_3", Name: "read_webpage", Arguments: `{"url":"https://go.dev"}`},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msg, err := NewDemo().Complete(context.Background(), Request{Messages: tc.messages})
			if err != nil {
				t.Fatal(err)
			}
			if msg.Role != RoleAssistant || !reflect.DeepEqual(msg.ToolCalls, tc.want) {
				t.Errorf("got %+v\nwant calls %+v", msg, tc.want)
			}
		})
	}
}

func TestDemoAnswers(t *testing.T) {
	const writeID = "write_file_1763769600123_0a1b2c3d"
	const deleteID = "delete_file_1763769600456_deadbeef"
	const searchID = "web_search_1763769600789_00ff00ff"
	tests := []struct {
		name     string
		messages []Message
		want     []string // substrings of the answer, in order
		never    []string
	}{
		{
			name:     "nothing understood gives help",
			messages: []Message{user("tell me a joke")},
			want:     []string{"**demo model**", "search the web for", "then"},
			never:    []string{"execution_id"},
		},
		{
			name:     "no user message gives help",
			messages: []Message{{Role: RoleSystem, Content: "protocol"}},
			want:     []string{"**demo model**"},
		},
		{
			name: "chained write and delete cite both runs",
			messages: []Message{
				user("create a file named a.txt with hi and then delete it"),
				calls(ToolCall{ID: "call_1", Name: "write_file", Arguments: `{"content":"hi","path":"a.txt"}`}),
				toolMsg("call_1", `{"execution_id":"`+writeID+`","tool_name":"write_file","executed_at":"2026-11-21T23:00:00.123Z","result":{"path":"a.txt","bytes":2}}`),
				calls(ToolCall{ID: "call_2", Name: "delete_file", Arguments: `{"path":"a.txt"}`}),
				toolMsg("call_2", `{"execution_id":"`+deleteID+`","tool_name":"delete_file","executed_at":"2026-11-21T23:00:01.000Z","result":{"path":"a.txt"}}`),
			},
			want:  []string{"demo model", "**write_file**: wrote `a.txt` (2 bytes) (execution_id: " + writeID + ").", "**delete_file**: deleted `a.txt` (execution_id: " + deleteID + ")."},
			never: []string{"did not go on"},
		},
		{
			name: "one byte is singular",
			messages: []Message{
				user("create a file named b.txt with x"),
				calls(ToolCall{ID: "call_1", Name: "write_file", Arguments: `{"content":"x","path":"b.txt"}`}),
				toolMsg("call_1", `{"execution_id":"`+writeID+`","tool_name":"write_file","executed_at":"2026-11-21T23:00:00.123Z","result":{"path":"b.txt","bytes_written":1}}`),
			},
			want:  []string{"wrote `b.txt` (1 byte) (execution_id: " + writeID + ")."},
			never: []string{"1 bytes"},
		},
		{
			name: "denied stops the chain and quotes the feedback",
			messages: []Message{
				user("create a file named a.txt with hi and then delete it"),
				calls(ToolCall{ID: "call_1", Name: "write_file", Arguments: `{"content":"hi","path":"a.txt"}`}),
				toolMsg("call_1", `{"tool_name":"write_file","status":"denied","message":"The user denied this tool call.","feedback":"not in this folder"}`),
			},
			want:  []string{"**write_file** on `a.txt`: the user denied this call. Their feedback: \"not in this folder\"", "did not go on with the rest"},
			never: []string{"execution_id", "wrote", "delete_file"},
		},
		{
			name: "tool error is reported with its id",
			messages: []Message{
				user("read the file missing.txt"),
				calls(ToolCall{ID: "call_1", Name: "read_file", Arguments: `{"path":"missing.txt"}`}),
				toolMsg("call_1", `{"execution_id":"read_file_1763769600123_0a1b2c3d","tool_name":"read_file","executed_at":"x","error":"missing.txt does not exist in the workspace"}`),
			},
			want: []string{"**read_file** on `missing.txt`: failed: missing.txt does not exist in the workspace (execution_id: read_file_1763769600123_0a1b2c3d)."},
		},
		{
			name: "web search lists top results",
			messages: []Message{
				user("search the web for go"),
				calls(ToolCall{ID: "call_1", Name: "web_search", Arguments: `{"query":"go"}`}),
				toolMsg("call_1", `{"execution_id":"`+searchID+`","tool_name":"web_search","result":{"query":"go","results":[`+
					`{"title":"The Go [Programming] Language","url":"https://go.dev/","snippet":"s"},`+
					`{"title":"Go (game)","url":"https://en.wikipedia.org/wiki/Go_(game)","snippet":"s"}]}}`),
			},
			want: []string{"2 results for \"go\" (execution_id: " + searchID + ")", "1. [The Go \\[Programming\\] Language](https://go.dev/)", "2. [Go (game)](https://en.wikipedia.org/wiki/Go_%28game%29)"},
		},
		{
			name: "web search with no results",
			messages: []Message{
				user("search the web for zzzz"),
				calls(ToolCall{ID: "call_1", Name: "web_search", Arguments: `{"query":"zzzz"}`}),
				toolMsg("call_1", `{"execution_id":"`+searchID+`","tool_name":"web_search","result":{"query":"zzzz","results":[]}}`),
			},
			want: []string{"no results for \"zzzz\" (execution_id: " + searchID + ")."},
		},
		{
			name: "webpage excerpt leaves out the wrapper",
			messages: []Message{
				user("read https://example.com"),
				calls(ToolCall{ID: "call_1", Name: "read_webpage", Arguments: `{"url":"https://example.com"}`}),
				toolMsg("call_1", `{"execution_id":"read_webpage_1763769600123_0a1b2c3d","tool_name":"read_webpage","result":{"url":"https://example.com","final_url":"https://example.com/","title":"Example Domain","content":"<webpage_content source=\"https://example.com/\">This domain is for examples.</webpage_content>","length":27,"truncated":false}}`),
			},
			want:  []string{"read [Example Domain](https://example.com/) (27 characters) (execution_id: read_webpage_1763769600123_0a1b2c3d).", "> This domain is for examples."},
			never: []string{"webpage_content"},
		},
		{
			name: "read file shows the content fenced",
			messages: []Message{
				user("read the file notes.txt"),
				calls(ToolCall{ID: "call_1", Name: "read_file", Arguments: `{"path":"notes.txt"}`}),
				toolMsg("call_1", "{\"execution_id\":\"read_file_1763769600123_0a1b2c3d\",\"tool_name\":\"read_file\",\"result\":{\"path\":\"notes.txt\",\"content\":\"line one\\n```\\nline two\\n\"}}"),
			},
			want: []string{"read `notes.txt` (execution_id: read_file_1763769600123_0a1b2c3d).", "````\n  line one\n  ```\n  line two\n  ````"},
		},
		{
			name: "list directory names entries and marks directories",
			messages: []Message{
				user("list files"),
				calls(ToolCall{ID: "call_1", Name: "list_directory", Arguments: `{"path":"."}`}),
				toolMsg("call_1", `{"execution_id":"list_directory_1763769600123_0a1b2c3d","tool_name":"list_directory","result":{"path":".","entries":[{"name":"a.txt","type":"file"},{"name":"docs","type":"dir"},"b.txt"]}}`),
			},
			want: []string{"`.` holds 3 entries (execution_id: list_directory_1763769600123_0a1b2c3d): `a.txt`, `docs/`, `b.txt`."},
		},
		{
			name: "move and copy in one round",
			messages: []Message{
				user("move a.txt to b.txt and copy c.txt to d.txt"),
				calls(ToolCall{ID: "call_1", Name: "move_file", Arguments: `{"destination":"b.txt","source":"a.txt"}`}, ToolCall{ID: "call_2", Name: "copy_file", Arguments: `{"destination":"d.txt","source":"c.txt"}`}),
				toolMsg("call_1", `{"execution_id":"move_file_1763769600123_0a1b2c3d","tool_name":"move_file","result":{}}`),
				toolMsg("call_2", `{"execution_id":"copy_file_1763769600123_0a1b2c3d","tool_name":"copy_file","result":{"source":"c.txt","destination":"d.txt"}}`),
			},
			want: []string{"moved `a.txt` to `b.txt` (execution_id: move_file_1763769600123_0a1b2c3d).", "copied `c.txt` to `d.txt` (execution_id: copy_file_1763769600123_0a1b2c3d)."},
		},
		{
			name: "a result without an id is never given one",
			messages: []Message{
				user("mkdir drafts"),
				calls(ToolCall{ID: "call_1", Name: "create_directory", Arguments: `{"path":"drafts"}`}),
				toolMsg("call_1", `{"tool_name":"create_directory","result":{"path":"drafts"}}`),
			},
			want:  []string{"created the directory `drafts`."},
			never: []string{"execution_id", "call_1"},
		},
		{
			name: "a malformed id is not cited",
			messages: []Message{
				user("delete a.txt"),
				calls(ToolCall{ID: "call_1", Name: "delete_file", Arguments: `{"path":"a.txt"}`}),
				toolMsg("call_1", `{"execution_id":"made up) and more","tool_name":"delete_file","result":{"path":"a.txt"}}`),
			},
			want:  []string{"**delete_file**: deleted `a.txt`."},
			never: []string{"execution_id", "made up"},
		},
		{
			name: "unreadable tool message",
			messages: []Message{
				user("delete a.txt"),
				calls(ToolCall{ID: "call_1", Name: "delete_file", Arguments: `{"path":"a.txt"}`}),
				toolMsg("call_1", `deleted!`),
			},
			want:  []string{"**delete_file**: returned something the demo could not read"},
			never: []string{"execution_id"},
		},
		{
			name: "a verification complaint gets the runs without their output",
			messages: []Message{
				user("read ids.txt and delete gone.txt"),
				calls(ToolCall{ID: "call_1", Name: "read_file", Arguments: `{"path":"ids.txt"}`}, ToolCall{ID: "call_2", Name: "delete_file", Arguments: `{"path":"gone.txt"}`}),
				toolMsg("call_1", `{"execution_id":"read_file_1763769600123_0a1b2c3d","tool_name":"read_file","result":{"path":"ids.txt","content":"web_search_1700000000000_deadbeef"}}`),
				toolMsg("call_2", `{"execution_id":"delete_file_1763769600124_0a1b2c3e","tool_name":"delete_file","error":"gone.txt does not exist"}`),
				{Role: RoleAssistant, Content: demoAnswerHead + "\n- **read_file**: read `ids.txt` ... web_search_1700000000000_deadbeef"},
				user("Your last reply was not shown to the user because it failed verification against the tool execution ledger:\n- execution id web_search_1700000000000_deadbeef is not in the ledger"),
			},
			want: []string{"their output is left out", "**read_file** on `ids.txt`: ran (execution_id: read_file_1763769600123_0a1b2c3d).",
				"**delete_file** on `gone.txt`: failed (execution_id: delete_file_1763769600124_0a1b2c3e)."},
			never: []string{"deadbeef", "demo model**: an offline"},
		},
		{
			name: "a new request after an answer is not a complaint",
			messages: []Message{
				user("list files"),
				calls(ToolCall{ID: "call_1", Name: "list_directory", Arguments: `{"path":"."}`}),
				toolMsg("call_1", `{"execution_id":"list_directory_1763769600123_0a1b2c3d","tool_name":"list_directory","result":{"entries":[]}}`),
				{Role: RoleAssistant, Content: demoAnswerHead + "\n- **list_directory**: `.` is empty."},
				user("thanks, that verifies it"),
			},
			want:  []string{"I am the **demo model**"},
			never: []string{"their output is left out"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msg, err := NewDemo().Complete(context.Background(), Request{Messages: tc.messages})
			if err != nil {
				t.Fatal(err)
			}
			if len(msg.ToolCalls) != 0 {
				t.Fatalf("got tool calls %+v, want an answer", msg.ToolCalls)
			}
			rest := msg.Content
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("answer lacks (in order) %q:\n%s", w, msg.Content)
				}
				rest = rest[i+len(w):]
			}
			for _, n := range tc.never {
				if strings.Contains(msg.Content, n) {
					t.Errorf("answer contains %q:\n%s", n, msg.Content)
				}
			}
		})
	}
}

func TestDemoCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := NewDemo().Complete(ctx, Request{Messages: []Message{user("list files")}})
	var le *Error
	if !errors.As(err, &le) || le.Kind != KindCanceled || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want a canceled *Error", err)
	}
	if NewDemo().Model() != "demo" {
		t.Error(`Model() is not "demo"`)
	}
}

func TestCount(t *testing.T) {
	tests := []struct {
		n    int
		noun string
		want string
	}{
		{1, "result", "1 result"},
		{2, "result", "2 results"},
		{1, "entry", "1 entry"},
		{0, "entry", "0 entries"},
	}
	for _, tc := range tests {
		if got := count(tc.n, tc.noun); got != tc.want {
			t.Errorf("count(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
		}
	}
}

var knownTools = map[string]bool{"web_search": true, "read_webpage": true, "read_file": true, "write_file": true, "delete_file": true, "move_file": true, "copy_file": true, "create_directory": true, "list_directory": true}

// FuzzParseDemoRequest: any user text gives either help or well-formed calls of
// known tools with numbered ids.
func FuzzParseDemoRequest(f *testing.F) {
	for _, s := range []string{
		"create a file named a.txt with hi and then delete it",
		"search the web for go and read https://go.dev",
		`write "a and delete b" to "c d.txt"`,
		"move `a` to 'b' then list files in it",
		"and then and then",
		"read https://",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		msg, err := NewDemo().Complete(context.Background(), Request{Messages: []Message{user(text)}})
		if err != nil {
			t.Fatal(err)
		}
		if len(msg.ToolCalls) == 0 && !strings.Contains(msg.Content, "demo model") {
			t.Fatalf("neither calls nor help: %q", msg.Content)
		}
		for i, c := range msg.ToolCalls {
			var args map[string]string
			if c.ID != fmt.Sprintf("call_%d", i+1) || !knownTools[c.Name] || json.Unmarshal([]byte(c.Arguments), &args) != nil {
				t.Fatalf("bad call %+v", c)
			}
		}
	})
}

// FuzzDemoAnswer: whatever a tool message holds, the answer cites no execution id
// that is not in the tool messages.
func FuzzDemoAnswer(f *testing.F) {
	f.Add("write_file", `{"execution_id":"write_file_1763769600123_0a1b2c3d","tool_name":"write_file","result":{"path":"a"}}`)
	f.Add("web_search", `{"execution_id":"web_search_1763769600123_0a1b2c3d)","tool_name":"web_search","result":{"results":[{"title":"[x](y)","url":"u"},3,null]}}`)
	f.Add("list_directory", `{"tool_name":"list_directory","result":{"entries":[1,{"name":5},"a"]}}`)
	f.Add("read_file", `{"tool_name":"read_file","status":"denied","feedback":"no"}`)
	f.Add("read_webpage", `{"result":{"length":1e300,"content":"<webpage_content>`+"`"+`</webpage_content>"}}`)
	citation := regexp.MustCompile(`execution_id: ([^)\s]*)`)
	f.Fuzz(func(t *testing.T, tool, content string) {
		msgs := []Message{
			user("list files"),
			calls(ToolCall{ID: "call_1", Name: tool, Arguments: `{"path":"."}`}),
			toolMsg("call_1", content),
		}
		msg, err := NewDemo().Complete(context.Background(), Request{Messages: msgs})
		if err != nil {
			t.Fatal(err)
		}
		if len(msg.ToolCalls) != 0 || msg.Content == "" {
			t.Fatalf("want an answer, got %+v", msg)
		}
		for _, m := range citation.FindAllStringSubmatch(msg.Content, -1) {
			var r struct {
				ExecutionID string `json:"execution_id"`
			}
			if json.Unmarshal([]byte(content), &r) != nil || r.ExecutionID != m[1] {
				t.Fatalf("cited %q, which the tool message does not carry", m[1])
			}
		}
	})
}

func BenchmarkParseDemoRequest(b *testing.B) {
	text := "please create a file named notes/today.txt with buy milk and eggs, then copy it to backup/today.txt and then list files in backup"
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if len(parseDemoRequest(text)) != 3 {
			b.Fatal("wrong plan")
		}
	}
}

func BenchmarkDemoAnswer(b *testing.B) {
	var results []string
	for i := range 10 {
		results = append(results, fmt.Sprintf(`{"title":"Result %d","url":"https://example.com/%d","snippet":"%s"}`, i, i, strings.Repeat("s", 100)))
	}
	content := `{"execution_id":"web_search_1763769600123_0a1b2c3d","tool_name":"web_search","result":{"query":"go","results":[` + strings.Join(results, ",") + `]}}`
	msgs := []Message{user("search the web for go"), calls(ToolCall{ID: "call_1", Name: "web_search", Arguments: `{"query":"go"}`}), toolMsg("call_1", content)}
	d := NewDemo()
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.Complete(context.Background(), Request{Messages: msgs}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseDemoRequestLong guards against quadratic splitting: MB/s on a long
// request full of joints must stay within a small factor of the short benchmark's.
func BenchmarkParseDemoRequestLong(b *testing.B) {
	text := strings.Repeat(`write "a and b" to a.txt and then `, 5000) + "list files"
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if got := len(parseDemoRequest(text)); got != 5001 {
			b.Fatalf("plan has %d stages", got)
		}
	}
}

func TestDemoPieces(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"", nil},
		{"one", []string{"one"}},
		{"a b\n\nc", []string{"a ", "b\n\n", "c"}},
		{"  lead and trail  ", []string{"  lead ", "and ", "trail  "}},
		{"- **x**: `a b`.\n- y", []string{"- ", "**x**: ", "`a ", "b`.\n", "- ", "y"}},
		{"日本 語", []string{"日本 ", "語"}},
	}
	for _, tc := range tests {
		if got := demoPieces(tc.text); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("demoPieces(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}
