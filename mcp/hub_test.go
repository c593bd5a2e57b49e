package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ailab/ai-lab/tools"
)

func TestStartReturnsAtOnce(t *testing.T) {
	// A server that never answers must not hold Start up.
	hang := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read the body, or the server would not notice the client leave.
		_, _ = io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	})
	ts := newTestServer(t, func(http.Handler) http.Handler { return hang })
	began := time.Now()
	h := startHub(t, []ServerConfig{{Name: "slow", URL: ts.url + "/mcp", Timeout: time.Second}}, Options{})
	if d := time.Since(began); d > 500*time.Millisecond {
		t.Errorf("Start took %s", d)
	}
	if st := serverInfo(h, "slow").State; st != StateStarting {
		t.Errorf("state right after Start = %s, want starting", st)
	}
	if err := h.WaitStarted(context.Background()); err != nil {
		t.Fatal(err)
	}
	info := serverInfo(h, "slow")
	if info.State != StateRestarting || !strings.Contains(info.Reason, "did not finish starting within 1s") {
		t.Errorf("after a start that timed out: %+v", info)
	}
}

func TestToolsListedWithSchemaAsGiven(t *testing.T) {
	ts := newTestServer(t, nil)
	h := startHub(t, []ServerConfig{{Name: "t", URL: ts.url}}, Options{})
	info := waitReady(t, h, "t")
	want := []string{"t__echo", "t__fail", "t__inject", "t__media", "t__refuse", "t__schema", "t__sleep", "t__structured"}
	got := slices.Sorted(slices.Values(info.Tools))
	if !slices.Equal(got, want) {
		t.Errorf("tools %v, want %v", got, want)
	}
	if len(info.Skipped) != 1 || !strings.Contains(info.Skipped[0], `"t__read.file"`) {
		t.Errorf("skipped %q, want read.file left out for its name", info.Skipped)
	}
	tool := mustTool(t, h, "t__schema")
	if !reflect.DeepEqual(tool.Parameters(), calledSchema) {
		t.Errorf("parameters\n got %#v\nwant %#v", tool.Parameters(), calledSchema)
	}
	desc := tool.Description()
	if !strings.HasPrefix(desc, "Tool of the MCP server t: Reads files.") || strings.Contains(strings.ToLower(desc), "ignore all previous") {
		t.Errorf("description not prefixed and sanitized: %q", desc)
	}
	if tool.Source() != "mcp:t" || tool.Server() != "t" || tool.Status() != "ready" || tool.IDPrefix() != "t__schema" {
		t.Errorf("source %q server %q status %q id prefix %q", tool.Source(), tool.Server(), tool.Status(), tool.IDPrefix())
	}
	var _ tools.Tool = tool
	if _, err := tools.NewRegistry(tool); err != nil {
		t.Errorf("the tools registry refuses an MCP tool: %v", err)
	}
}

func TestRunPassesArgumentsAsGiven(t *testing.T) {
	ts := newTestServer(t, nil)
	h := startHub(t, []ServerConfig{{Name: "t", URL: ts.url}}, Options{})
	waitReady(t, h, "t")
	echo := mustTool(t, h, "t__echo")
	args := `{"path":"a/b","depth":3,"nested":{"x":[1,"two",null]}}`
	res, err := run(t, echo, args)
	if err != nil {
		t.Fatal(err)
	}
	checkWrapped(t, res.Content, "mcp:t/echo")
	inner := strings.TrimSuffix(strings.TrimPrefix(res.Content, `<tool_output source="mcp:t/echo">`), "</tool_output>")
	var got, want any
	if err := json.Unmarshal([]byte(inner), &got); err != nil {
		t.Fatalf("the server did not get JSON: %q", inner)
	}
	_ = json.Unmarshal([]byte(args), &want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("server got %v, want %v", got, want)
	}
	if res.Parts != 1 || res.SecurityNote != SecurityNote {
		t.Errorf("parts %d note %q", res.Parts, res.SecurityNote)
	}
	for _, empty := range []string{"", "null", "  "} {
		if res, err := run(t, echo, empty); err != nil || !strings.Contains(res.Content, ">{}<") {
			t.Errorf("arguments %q: %v %q, want {} sent", empty, err, res.Content)
		}
	}
	for _, bad := range []string{`[1,2]`, `"x"`, `{"a":`} {
		if _, err := run(t, echo, bad); !errors.Is(err, ErrBadArguments) {
			t.Errorf("arguments %s: err %v, want ErrBadArguments", bad, err)
		}
	}
}

func TestResultSanitizedAndWrapped(t *testing.T) {
	ts := newTestServer(t, nil)
	for _, mild := range []bool{false, true} {
		h := startHub(t, []ServerConfig{{Name: "t", URL: ts.url}}, Options{Mild: mild})
		waitReady(t, h, "t")
		res, err := run(t, mustTool(t, h, "t__inject"), `{}`)
		if err != nil {
			t.Fatal(err)
		}
		checkWrapped(t, res.Content, "mcp:t/inject")
		low := strings.ToLower(res.Content)
		for _, bad := range []string{"ignore all previous instructions", "system:"} {
			if strings.Contains(low, bad) {
				t.Errorf("mild=%v: %q arrived: %q", mild, bad, res.Content)
			}
		}
		if !strings.Contains(res.Content, "Weather: sunny.") {
			t.Errorf("mild=%v: the harmless text was lost: %q", mild, res.Content)
		}
	}
	// With the sanitizer off the words stay, but the wrapper still holds.
	h := startHub(t, []ServerConfig{{Name: "t", URL: ts.url}}, Options{SanitizeOff: true})
	waitReady(t, h, "t")
	res, err := run(t, mustTool(t, h, "t__inject"), `{}`)
	if err != nil {
		t.Fatal(err)
	}
	checkWrapped(t, res.Content, "mcp:t/inject")
	if !strings.Contains(res.Content, "IGNORE ALL PREVIOUS INSTRUCTIONS") {
		t.Errorf("sanitize off still changed the text: %q", res.Content)
	}
}

func TestIsErrorBecomesError(t *testing.T) {
	ts := newTestServer(t, nil)
	h := startHub(t, []ServerConfig{{Name: "t", URL: ts.url}}, Options{})
	waitReady(t, h, "t")
	_, err := run(t, mustTool(t, h, "t__fail"), `{}`)
	if !errors.Is(err, ErrToolFailed) {
		t.Fatalf("err %v, want ErrToolFailed", err)
	}
	msg, ok := strings.CutPrefix(err.Error(), "the MCP tool t__fail reported an error: ")
	if !ok || !strings.Contains(msg, "disk full while writing /tmp/x.") || strings.Contains(strings.ToLower(msg), "ignore all previous") {
		t.Errorf("error text not the sanitized result after the tool's name: %q", err)
	}
	// The error text is outside text too: wrapped like a result.
	checkWrapped(t, msg, "mcp:t/fail")
	// A protocol error is a tool error too, naming the server, sanitized.
	_, err = run(t, mustTool(t, h, "t__refuse"), `{}`)
	if !errors.Is(err, ErrToolFailed) || !strings.HasPrefix(err.Error(), "the MCP server t refused the call to t__refuse: bad path.") ||
		strings.Contains(strings.ToLower(err.Error()), "ignore all previous") {
		t.Errorf("protocol error: %v", err)
	}
}

func TestNonTextPartsDescribed(t *testing.T) {
	ts := newTestServer(t, nil)
	h := startHub(t, []ServerConfig{{Name: "t", URL: ts.url}}, Options{})
	waitReady(t, h, "t")
	res, err := run(t, mustTool(t, h, "t__media"), `{}`)
	if err != nil {
		t.Fatal(err)
	}
	checkWrapped(t, res.Content, "mcp:t/media")
	for _, want := range []string{"a chart follows", "[image/png, 12 KB]", "[audio/wav, 3 KB]",
		"[resource: file:///data/a.txt (text/plain)]", "embedded words",
		"[resource: file:///data/c.bin (application/octet-stream), 2 KB]"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("%q missing from %q", want, res.Content)
		}
	}
	if res.Parts != 6 {
		t.Errorf("parts %d, want 6", res.Parts)
	}
	res, err = run(t, mustTool(t, h, "t__structured"), `{}`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Content, `{"temperature":21.5}`) {
		t.Errorf("structured content missing: %q", res.Content)
	}
}

func TestTimeout(t *testing.T) {
	ts := newTestServer(t, nil)
	const timeout = 300 * time.Millisecond
	h := startHub(t, []ServerConfig{{Name: "t", URL: ts.url, Timeout: timeout}}, Options{})
	waitReady(t, h, "t")
	began := time.Now()
	_, err := run(t, mustTool(t, h, "t__sleep"), `{}`)
	took := time.Since(began)
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "t__sleep did not answer within 300ms") {
		t.Fatalf("err %v, want a clear ErrTimeout", err)
	}
	if took < timeout || took > timeout+time.Second {
		t.Errorf("the call ended after %s, want about %s", took, timeout)
	}
	select {
	case <-ts.sleepEnded:
	case <-time.After(5 * time.Second):
		t.Error("the server's handler was not cancelled after the timeout")
	}
}

func TestCancelCancelsTheCall(t *testing.T) {
	ts := newTestServer(t, nil)
	h := startHub(t, []ServerConfig{{Name: "t", URL: ts.url}}, Options{})
	waitReady(t, h, "t")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := mustTool(t, h, "t__sleep").Run(ctx, json.RawMessage(`{}`))
		done <- err
	}()
	select {
	case <-ts.sleepStarted:
	case <-time.After(5 * time.Second):
		t.Fatal("sleep never started")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "t__sleep was cancelled") {
			t.Errorf("err %v, want a cancellation", err)
		}
	case <-time.After(time.Second):
		t.Fatal("Run did not return within 1 s of the cancel")
	}
	select {
	case err := <-ts.sleepEnded:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the server's handler ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the server never heard of the cancel (notifications/cancelled)")
	}
}

func TestListChangedUpdatesTools(t *testing.T) {
	ts := newTestServer(t, nil)
	var changes atomic.Int32
	h := startHub(t, []ServerConfig{{Name: "t", URL: ts.url}}, Options{OnChange: func() { changes.Add(1) }})
	waitReady(t, h, "t")
	old := mustTool(t, h, "t__echo")
	before := changes.Load()
	ts.srv.AddTool(&sdk.Tool{Name: "added", Description: "New.", InputSchema: objectSchema()},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return textResult("fresh"), nil
		})
	waitFor(t, 5*time.Second, "the added tool never appeared", func() bool { _, ok := h.Tool("t__added"); return ok })
	if changes.Load() == before {
		t.Error("OnChange was not called")
	}
	if res, err := run(t, mustTool(t, h, "t__added"), `{}`); err != nil || !strings.Contains(res.Content, "fresh") {
		t.Errorf("the added tool: %v %q", err, res.Content)
	}
	ts.srv.RemoveTools("echo")
	waitFor(t, 5*time.Second, "the removed tool stayed", func() bool { _, ok := h.Tool("t__echo"); return !ok })
	if _, err := run(t, old, `{}`); !errors.Is(err, ErrUnknownTool) || !strings.Contains(err.Error(), "no longer offers the tool echo") {
		t.Errorf("a call of a removed tool: %v", err)
	}
}

func TestHeadersReachTheServer(t *testing.T) {
	ts := newTestServer(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer s3cret" {
				http.Error(w, "no token", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	h := startHub(t, []ServerConfig{
		{Name: "with", URL: ts.url, Headers: map[string]string{"Authorization": "Bearer s3cret"}},
		{Name: "without", URL: ts.url},
	}, Options{Backoff: func(int) time.Duration { return time.Hour }})
	waitReady(t, h, "with")
	if err := h.WaitStarted(context.Background()); err != nil {
		t.Fatal(err)
	}
	if info := serverInfo(h, "without"); info.State != StateRestarting || !strings.Contains(info.Reason, "Unauthorized") {
		t.Errorf("a server refusing the call: %+v", info)
	}
}

func TestIdentity(t *testing.T) {
	ts := newTestServer(t, nil)
	h := startHub(t, []ServerConfig{{Name: "srv", URL: ts.url}}, Options{})
	waitReady(t, h, "srv")
	id := tools.IdentityOf(mustTool(t, h, "srv__echo"))
	if id.Name != "srv__echo" || id.Source != "mcp:srv" || id.Server != "srv" || id.Object != tools.ObjectNone {
		t.Errorf("identity of srv__echo: %+v", id)
	}

	no, yes := false, true
	cases := []struct {
		name   string
		tool   string
		ann    *sdk.ToolAnnotations
		action tools.Action
		destr  bool
		open   bool
	}{
		{"no annotations: may change anything", "do_thing", nil, tools.ActionCall, true, true},
		{"name says delete", "delete_file", nil, tools.ActionDelete, true, true},
		{"camel words are one word: no guess", "deleteFile", nil, tools.ActionCall, true, true},
		{"read-only hint on a reading name", "read_text_file", &sdk.ToolAnnotations{ReadOnlyHint: true}, tools.ActionRead, false, true},
		{"read-only hint on an unknown name", "status", &sdk.ToolAnnotations{ReadOnlyHint: true}, tools.ActionReadOnly, false, true},
		{"a read-only hint cannot make a deleting name harmless", "remove_all", &sdk.ToolAnnotations{ReadOnlyHint: true}, tools.ActionDelete, true, true},
		{"closed world, not destructive", "write_note", &sdk.ToolAnnotations{DestructiveHint: &no, OpenWorldHint: &no}, tools.ActionWrite, false, false},
		{"destructive hint kept", "move_file", &sdk.ToolAnnotations{DestructiveHint: &yes}, tools.ActionMove, true, true},
		{"name says send", "send_email", nil, tools.ActionSend, true, true},
		{"money is sent", "send_money", nil, tools.ActionSend, true, true},
		{"a post is sent", "post_message", nil, tools.ActionSend, true, true},
		{"reserving books", "reserve_hotel", nil, tools.ActionBook, true, true},
		{"adding a user invites", "add_user_to_channel", nil, tools.ActionInvite, true, true},
		{"name says invite", "invite_user_to_slack", nil, tools.ActionInvite, true, true},
		{"name says schedule", "schedule_transaction", nil, tools.ActionSchedule, true, true},
		{"an event is created", "create_calendar_event", nil, tools.ActionCreateDir, true, true},
		{"a file is created with its content", "create_file", nil, tools.ActionWrite, true, true},
		{"appending writes", "append_to_file", nil, tools.ActionWrite, true, true},
		{"updating writes", "update_scheduled_transaction", nil, tools.ActionWrite, true, true},
		{"a web page is fetched, not read", "get_webpage", nil, tools.ActionFetch, true, true},
		{"other gets read", "get_balance", nil, tools.ActionRead, true, true},
		{"a read-only hint cannot make a sending name harmless", "send_email", &sdk.ToolAnnotations{ReadOnlyHint: true}, tools.ActionSend, true, true},
		{"a read-only hint on a fetching name", "get_webpage", &sdk.ToolAnnotations{ReadOnlyHint: true}, tools.ActionFetch, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := identify("files", "files__"+c.tool, c.tool, c.ann)
			if id.Action != c.action || id.Destructive != c.destr || id.OpenWorld != c.open || id.Source != "mcp:files" || id.Server != "files" {
				t.Errorf("identify(%s) = %+v, want action %s destructive %v open %v", c.tool, id, c.action, c.destr, c.open)
			}
		})
	}
}

func TestIDPrefix(t *testing.T) {
	for in, want := range map[string]string{
		"files__read_text_file": "files__read_text_file",
		"Files__Read-Text.v2":   "files__read_text_v2",
		"everything__get-env":   "everything__get_env",
	} {
		if got := IDPrefix(in); got != want {
			t.Errorf("IDPrefix(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestServerInfoStatus(t *testing.T) {
	tests := []struct {
		info ServerInfo
		want string
	}{
		{ServerInfo{State: StateStarting}, "starting"},
		{ServerInfo{State: StateReady}, "ready"},
		{ServerInfo{State: StateRestarting, RetryIn: 3200 * time.Millisecond, Reason: "it stopped"}, "restarting in 4 s: it stopped"},
		{ServerInfo{State: StateRestarting, RetryIn: 20 * time.Millisecond}, "restarting in 1 s"},
		{ServerInfo{State: StateFailed, Reason: `exec: "nope": executable file not found in $PATH`}, `failed: exec: "nope": executable file not found in $PATH`},
	}
	for _, tc := range tests {
		if got := tc.info.Status(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.info, got, tc.want)
		}
	}
}

func TestDefaultBackoff(t *testing.T) {
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second, 30 * time.Second}
	for i, w := range want {
		if got := DefaultBackoff(i + 1); got != w {
			t.Errorf("DefaultBackoff(%d) = %s, want %s", i+1, got, w)
		}
	}
	if got := DefaultBackoff(1000); got != MaxBackoff {
		t.Errorf("DefaultBackoff(1000) = %s", got)
	}
}

func TestNameClashBetweenServers(t *testing.T) {
	ts := newTestServer(t, nil)
	// "a" + "__" + "_echo" would read like "a_" + "__" + "echo": names are
	// compared whole, and the earlier server keeps its tool.
	ts.srv.AddTool(&sdk.Tool{Name: "_echo", Description: "Underscored.", InputSchema: objectSchema()},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return textResult("a's"), nil
		})
	h := startHub(t, []ServerConfig{{Name: "a", URL: ts.url}, {Name: "a_", URL: ts.url}}, Options{})
	waitReady(t, h, "a")
	waitReady(t, h, "a_")
	var owners []string
	for _, tool := range h.Tools() {
		if tool.Name() == "a___echo" {
			owners = append(owners, tool.Server())
		}
	}
	if !slices.Equal(owners, []string{"a"}) {
		t.Errorf("a___echo offered by %v, want only by a", owners)
	}
	info := serverInfo(h, "a_")
	if slices.Contains(info.Tools, "a___echo") || !slices.ContainsFunc(info.Skipped, func(s string) bool { return strings.HasPrefix(s, "a___echo: an earlier server") }) {
		t.Errorf("a_ shows %v, skipped %v", info.Tools, info.Skipped)
	}
}

func TestUnreachableURLServerReconnects(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "flaky", Version: "1"}, nil)
	addEcho(srv)
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	serve := func(addr string) (*http.Server, string) {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		hs := &http.Server{Handler: handler}
		go hs.Serve(l)
		t.Cleanup(func() { hs.Close() })
		return hs, l.Addr().String()
	}
	first, addr := serve("127.0.0.1:0")
	h := startHub(t, []ServerConfig{{Name: "x", URL: "http://" + addr}}, Options{Backoff: func(int) time.Duration { return 50 * time.Millisecond }})
	waitReady(t, h, "x")
	echo := mustTool(t, h, "x__echo")
	first.Close()
	// The SDK alone takes some 20 s to give up on a server that went away;
	// the first call that cannot reach it starts the reconnection.
	_, err := run(t, echo, `{}`)
	if !errors.Is(err, ErrNotRunning) {
		t.Fatalf("a call to a server that went away: %v", err)
	}
	waitFor(t, 2*time.Second, "the server that went away still shows ready", func() bool { return serverInfo(h, "x").State != StateReady })
	serve(addr)
	waitReady(t, h, "x")
	if res, err := run(t, echo, `{"back":true}`); err != nil || !strings.Contains(res.Content, `{"back":true}`) {
		t.Errorf("echo after the server came back: %v %q", err, res.Content)
	}
}

func TestToolListBounds(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "big", Version: "1"}, nil)
	for i := range maxTools + 40 {
		desc := "Short."
		if i == 0 {
			desc = longText
		}
		srv.AddTool(&sdk.Tool{Name: fmt.Sprintf("t%03d", i), Description: desc, InputSchema: objectSchema()},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return textResult("x"), nil })
	}
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	h := startHub(t, []ServerConfig{{Name: "big", URL: hs.URL}}, Options{})
	info := waitReady(t, h, "big")
	if len(info.Tools) != maxTools || len(info.Skipped) != 1 || !strings.Contains(info.Skipped[0], fmt.Sprintf("after the first %d", maxTools)) {
		t.Errorf("%d tools kept, skipped %q", len(info.Tools), info.Skipped)
	}
	desc := mustTool(t, h, "big__t000").Description()
	if n := utf8.RuneCountInString(desc); n != len("Tool of the MCP server big: ")+maxDescription || !strings.HasSuffix(desc, "…") {
		t.Errorf("a 5,000-character description became %d characters", n)
	}
}
