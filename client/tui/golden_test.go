package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client/clienttest"
)

// stablePorts replaces the test server's port, which changes per run, with 9s of
// the same length (ephemeral ports have five digits), so widths stay.
func stablePorts(view string) string {
	return portDigits.ReplaceAllStringFunc(view, func(s string) string {
		return "127.0.0.1:" + strings.Repeat("9", len(s)-len("127.0.0.1:"))
	})
}

// A goldenScene is a screen kept as a golden file: setup brings a model of
// the given size to it.
type goldenScene struct {
	name  string
	setup func(t *testing.T, w, h int) *Model
}

// playGoldenScenes compares each scene, without colour, at 80x24 and 120x40
// with its golden file (go test -update rewrites them).
func playGoldenScenes(t *testing.T, scenes []goldenScene) {
	t.Helper()
	for _, sc := range scenes {
		for _, size := range [][2]int{{80, 24}, {120, 40}} {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, size[0], size[1]), func(t *testing.T) {
				m := sc.setup(t, size[0], size[1])
				m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				golden.RequireEqual(t, []byte(stablePorts(m.View())))
			})
		}
	}
}

// TestScreensGolden keeps the screens of the approval flow (the server's reason
// for asking among them), of a resumed session and of the notice of new
// messages, without colour, at 80x24 and 120x40.
func TestScreensGolden(t *testing.T) {
	scenes := []goldenScene{
		{"approval_scrolled", func(t *testing.T, w, h int) *Model {
			// A chained approval: the first batch's run and decision stay above a
			// table of 30 writes, five of them decided, scrolled to the current one.
			mkdir := clienttest.Call("create_directory", `{"path":"notes"}`, "c_dir")
			made := api.ToolUse{ToolName: "create_directory", Arguments: mkdir.Arguments, ToolCallID: "c_dir", ExecutionID: "create_directory_1795309180504_18544cab", Status: "ok", DurationMS: 1, Decision: api.DecisionUser}
			srv := clienttest.New(t, clienttest.Final("s_1", "The workspace is empty."), clienttest.Pending("s_1", mkdir), writes(30))
			srv.Stream(clienttest.Round(1), clienttest.Text("The workspace is empty."))
			srv.Stream(clienttest.Event(api.EventToolCall, api.ToolCallEvent{ToolCallID: "c_dir", ToolName: "create_directory", NeedsApproval: true}))
			srv.Stream(clienttest.Running("create_directory", `{"path":"notes"}`, "c_dir"), clienttest.Ran(made))
			m := newTestModel(t, srv, w, h)
			send(t, m, "what is in the workspace?")
			send(t, m, "make a notes folder, then write 30 notes in it")
			press(t, m, "y", "y", "y", "y", "n", "enter", "y", "y")
			return m
		}},
		{"overwrite_preview", func(t *testing.T, w, h int) *Model {
			srv := clienttest.New(t, clienttest.Pending("s_1", overwriteCall(), clienttest.Call("write_file", `{"path":"todo.txt","content":"buy milk"}`, "c2")))
			m := newTestModel(t, srv, w, h)
			send(t, m, "rewrite notes.txt and start a todo list")
			return m
		}},
		{"approval_why", func(t *testing.T, w, h int) *Model {
			// The server's reason for asking, under the current row's preview: cut
			// with … at 80 columns, whole at 120.
			over := overwriteCall()
			over.Reason = "preset moderate: write_file asks before it replaces a file that exists"
			mcp := clienttest.Call("files__write_file", `{"path":"todo.txt","content":"buy milk"}`, "c2")
			mcp.Reason = "rule 2 in config.yaml: ask every tool of MCP server files"
			mcp.NoGrant = "files__write_file is an MCP tool, which takes rules rather than grants (see /rules)"
			srv := clienttest.New(t, clienttest.Pending("s_1", over, mcp))
			m := newTestModel(t, srv, w, h)
			send(t, m, "rewrite notes.txt and start a todo list")
			return m
		}},
		{"overwrite_details", func(t *testing.T, w, h int) *Model {
			srv := clienttest.New(t, clienttest.Pending("s_1", overwriteCall()))
			m := newTestModel(t, srv, w, h)
			send(t, m, "rewrite notes.txt")
			press(t, m, "?")
			return m
		}},
		{"grant_confirmation", func(t *testing.T, w, h int) *Model {
			srv := clienttest.New(t, writes(3))
			m := newTestModel(t, srv, w, h)
			send(t, m, "write three notes")
			press(t, m, "s")
			return m
		}},
		{"resumed_session", func(t *testing.T, w, h int) *Model {
			_, stored := grantSession()
			srv := clienttest.New(t)
			srv.Details["s_1"] = api.SessionDetail{SessionID: "s_1", Messages: stored}
			m := newTestModel(t, srv, w, h)
			send(t, m, "/resume s_1")
			return m
		}},
		{"new_messages_below", func(t *testing.T, w, h int) *Model {
			srv := clienttest.New(t, clienttest.Final("s_1", "Here is the answer you asked for.",
				api.ToolUse{ToolName: "list_directory", Arguments: json.RawMessage(`{"path":"."}`), ExecutionID: "list_directory_1795309180504_18544cab", Status: "ok", DurationMS: 3}))
			m := withHistory(t, srv, w, h)
			press(t, m, "pgup")
			send(t, m, "list the files")
			return m
		}},
	}
	playGoldenScenes(t, scenes)
}
