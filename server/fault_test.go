package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/config"
	"github.com/ailab/ai-lab/llm"
	"github.com/ailab/ai-lab/llm/llmtest"
	"github.com/ailab/ai-lab/server"
	"github.com/ailab/ai-lab/store"
	"github.com/ailab/ai-lab/store/sqlite"
	"github.com/ailab/ai-lab/tools"
)

// A countingTool stands in for a catalog tool and counts its runs; its runs are
// also appended to a file when one is set, so they survive a SIGKILL.
type countingTool struct {
	name  string
	runs  *atomic.Int32
	file  string
	block chan struct{} // when set, a run waits here after it counted itself
	hook  func()        // when set, called as the run starts
}

func (c *countingTool) Name() string               { return c.name }
func (c *countingTool) Description() string        { return "counts its runs" }
func (c *countingTool) Parameters() map[string]any { return map[string]any{"type": "object"} }
func (c *countingTool) Run(ctx context.Context, args json.RawMessage) (any, error) {
	c.runs.Add(1)
	if c.file != "" {
		f, err := os.OpenFile(c.file, os.O_APPEND|os.O_CREATE|os.O_WRONLY|os.O_SYNC, 0o600)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(f, "%s %s\n", c.name, args)
		f.Close()
	}
	if c.hook != nil {
		c.hook()
	}
	if c.block != nil {
		<-c.block
	}
	return map[string]any{"done": c.name}, nil
}

// A faultStore is the real store with chosen writes made to fail or block.
type faultStore struct {
	*sqlite.Store
	mu     sync.Mutex
	saves  int
	failAt map[string]int // method -> the call number (1-based) that fails
	calls  map[string]int
	blocks map[string]func() // method -> called instead of the write (it may block forever)
}

var errInjected = errors.New("injected fault: disk I/O error")

func (f *faultStore) hit(method string) error {
	f.mu.Lock()
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	f.calls[method]++
	n := f.calls[method]
	fail := f.failAt[method] == n
	block := f.blocks[method]
	f.mu.Unlock()
	if block != nil {
		block()
	}
	if fail {
		return errInjected
	}
	return nil
}

func (f *faultStore) Save(ctx context.Context, sv store.Save) (int64, error) {
	// A save carrying end records is where a round's last run ends.
	if len(sv.Finished) > 0 {
		_ = f.hit("SaveWithEnds")
	}
	if err := f.hit("Save"); err != nil {
		return 0, err
	}
	return f.Store.Save(ctx, sv)
}

func (f *faultStore) StartExecution(ctx context.Context, st store.Start) error {
	if err := f.hit("StartExecution"); err != nil {
		return err
	}
	return f.Store.StartExecution(ctx, st)
}

func (f *faultStore) FinishExecution(ctx context.Context, o store.Owner, e api.Execution, outcome string) error {
	if err := f.hit("FinishExecution"); err != nil {
		return err
	}
	return f.Store.FinishExecution(ctx, o, e, outcome)
}

func (f *faultStore) PutUndoRecord(ctx context.Context, rec store.UndoRecord, blobs []store.UndoBlob) error {
	if err := f.hit("PutUndoRecord"); err != nil {
		return err
	}
	return f.Store.PutUndoRecord(ctx, rec, blobs)
}

func (f *faultStore) DeleteUndoRecord(ctx context.Context, seq int64, blobs []string) error {
	if err := f.hit("DeleteUndoRecord"); err != nil {
		return err
	}
	return f.Store.DeleteUndoRecord(ctx, seq, blobs)
}

func (f *faultStore) Renew(ctx context.Context, id string, o store.Owner, until time.Time) error {
	if err := f.hit("Renew"); err != nil {
		return err
	}
	return f.Store.Renew(ctx, id, o, until)
}

func (f *faultStore) Release(ctx context.Context, id string, o store.Owner) error {
	if err := f.hit("Release"); err != nil {
		return err
	}
	return f.Store.Release(ctx, id, o)
}

// A rig is a server built from parts, so a test can put a faulty store or a
// counting tool in: the real router, loop and database underneath.
type rig struct {
	t     *testing.T
	dir   string
	cfg   *config.Config
	db    *sqlite.Store
	st    server.Store
	srv   *server.Server
	http  *httptest.Server
	token string
}

// rigConfig writes a config for preset in dir and loads it.
func rigConfig(t *testing.T, dir, preset, modelURL string) *config.Config {
	t.Helper()
	path := filepath.Join(dir, "config.yaml")
	yaml := fmt.Sprintf("server:\n  state_dir: %q\nllm:\n  base_url: %q\n  model: fake\nsafety:\n  preset: %s\ntools:\n  workspace: %q\nweb:\n  search_endpoint: http://127.0.0.1:9/html/\n  search_lite_endpoint: http://127.0.0.1:9/lite/\n",
		filepath.Join(dir, "state"), modelURL, preset, filepath.Join(dir, "ws"))
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// newRig starts a server on dir's state with the given tools standing in for
// the catalog tools of the same names, and wrap around the store.
func newRig(t *testing.T, dir string, cfg *config.Config, models server.Models, wrap func(*sqlite.Store) server.Store, fakes ...tools.Tool) *rig {
	t.Helper()
	db, err := sqlite.Open(filepath.Join(dir, "state", server.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	var st server.Store = db
	if wrap != nil {
		st = wrap(db)
	}
	toolbox := func(*config.Config) (*tools.Registry, func() error, error) {
		reg, err := tools.NewRegistry(fakes...)
		return reg, nil, err
	}
	r := &rig{t: t, dir: dir, cfg: cfg, db: db, st: st, token: "rig-token"}
	r.srv, err = server.New(server.Options{Config: cfg, Models: models, Store: st, Toolbox: toolbox, Token: r.token,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	r.http = httptest.NewServer(r.srv.Handler())
	t.Cleanup(func() { r.http.Close(); r.srv.Close(); db.Close() })
	return r
}

// call sends a request and decodes the answer into out; it returns the status.
func (r *rig) call(method, path string, in, out any) int {
	r.t.Helper()
	return doJSON(r.t, r.http.URL, r.token, method, path, in, out)
}

func doJSON(t *testing.T, base, token, method, path string, in, out any) int {
	t.Helper()
	var body io.Reader
	if in != nil {
		b, _ := json.Marshal(in)
		body = strings.NewReader(string(b))
	}
	req, _ := http.NewRequest(method, base+path, body)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, data)
		}
	}
	return resp.StatusCode
}

// checkTranscript fails the test unless every assistant tool call of the
// session is answered by exactly one tool message right after it, and no tool
// message answers anything else: what real OpenAI endpoints require of every
// later request.
func checkTranscript(t *testing.T, base, token, session string) []api.Message {
	t.Helper()
	var d api.SessionDetail
	if code := doJSON(t, base, token, "GET", "/sessions/"+session, nil, &d); code != 200 {
		t.Fatalf("GET /sessions/%s: %d", session, code)
	}
	msgs := d.Messages
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == llm.RoleTool && m.ToolCallID != "" {
			t.Fatalf("message %d: a tool message for %s follows no call: %+v", i, m.ToolCallID, msgs)
		}
		if m.Role != llm.RoleAssistant || len(m.ToolCalls) == 0 || m.ToolCalls[0].ID == "" {
			continue
		}
		want := map[string]bool{}
		for _, c := range m.ToolCalls {
			want[c.ID] = true
		}
		j := i + 1
		for ; j < len(msgs) && msgs[j].Role == llm.RoleTool && msgs[j].ToolCallID != ""; j++ {
			if !want[msgs[j].ToolCallID] {
				t.Fatalf("message %d answers %s, which is not a call of message %d (or answers it twice): %+v", j, msgs[j].ToolCallID, i, msgs)
			}
			delete(want, msgs[j].ToolCallID)
		}
		if len(want) > 0 {
			t.Fatalf("calls %v of message %d have no tool message: %+v", want, i, msgs)
		}
		i = j - 1
	}
	return msgs
}

// honestResults is a model step that reports each run of the request as it
// went: done, or failed with its error.
func honestResults() llmtest.Step {
	return llmtest.Func(func(req llmtest.Request) llmtest.Step {
		var parts []string
		for _, m := range toolMessages(req) {
			var tm struct {
				ExecutionID string `json:"execution_id"`
				Error       string `json:"error"`
			}
			json.Unmarshal([]byte(m.Content), &tm)
			if tm.Error != "" {
				parts = append(parts, fmt.Sprintf("The run failed: %s (execution_id: %s).", tm.Error, tm.ExecutionID))
			} else {
				parts = append(parts, fmt.Sprintf("Done (execution_id: %s).", tm.ExecutionID))
			}
		}
		return llmtest.Text(strings.Join(parts, " "))
	})
}

func writeFileCall(id string) llmtest.Step {
	return llmtest.Calls(llmtest.Call(id, "write_file", `{"path": "notes.txt", "content": "hi"}`))
}

// TestAFailedSaveAfterTheRunNeverRunsTheCallTwice: the save that follows an
// approved run fails (a disk error); the retried approval reports the recorded
// outcome instead of running the call again, and the transcript stays valid.
func TestAFailedSaveAfterTheRunNeverRunsTheCallTwice(t *testing.T) {
	for _, tc := range []struct {
		name   string
		failAt map[string]int
		want   string // what the model is told of the run on the retry
		answer string // how the model words it
	}{
		{"save fails", map[string]int{"Save": 2}, `"result":{"done":"write_file"}`, "Wrote it"},
		{"end record and save fail", map[string]int{"FinishExecution": 1, "Save": 2}, store.Interrupted, "Writing the file failed: it was interrupted"},
		{"save and release fail", map[string]int{"Save": 2, "Release": 1}, `"result":{"done":"write_file"}`, "Wrote it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var runs atomic.Int32
			model := llmtest.NewProvider(t, writeFileCall("call_w"), citeResults(tc.answer))
			fs := &faultStore{failAt: tc.failAt}
			r := newRig(t, dir, rigConfig(t, dir, "strict", "http://127.0.0.1:9/v1"), server.Fixed(model),
				func(db *sqlite.Store) server.Store { fs.Store = db; return fs },
				&countingTool{name: "write_file", runs: &runs})
			var p api.TurnReply
			r.call("POST", "/chat", api.ChatRequest{Message: "write notes"}, &p)
			if !p.ApprovalRequired {
				t.Fatalf("no approval asked: %+v", p)
			}
			var e api.ErrorBody
			if code := r.call("POST", "/chat/approve", api.ApproveRequest{SessionID: p.SessionID, Decisions: []api.Decision{approved("call_w")}}, &e); code != 500 {
				t.Fatalf("approve with a failing save: %d %+v", code, e)
			}
			if runs.Load() != 1 {
				t.Fatalf("runs after the first approve: %d", runs.Load())
			}
			var reply api.TurnReply
			if code := r.call("POST", "/chat/approve", api.ApproveRequest{SessionID: p.SessionID, Decisions: []api.Decision{approved("call_w")}}, &reply); code != 200 {
				t.Fatalf("retried approve: %d", code)
			}
			if runs.Load() != 1 {
				t.Fatalf("the call ran %d times", runs.Load())
			}
			if len(reply.ToolsUsed) != 1 || reply.ToolsUsed[0].ExecutionID == "" {
				t.Fatalf("tools used: %+v", reply.ToolsUsed)
			}
			reqs := model.Requests()
			tm := toolMessages(reqs[len(reqs)-1])
			if len(tm) != 1 || !strings.Contains(tm[0].Content, tc.want) || !strings.Contains(tm[0].Content, reply.ToolsUsed[0].ExecutionID) {
				t.Fatalf("the model was told %+v, want the recorded outcome %q", tm, tc.want)
			}
			checkTranscript(t, r.http.URL, r.token, p.SessionID)
			if !reply.Validation.Valid {
				t.Errorf("validation %+v", reply.Validation)
			}
		})
	}
}

// TestAFailedStartRecordRunsNothing: a call whose ledger start record cannot
// be committed does not run; the approval can be retried.
func TestAFailedStartRecordRunsNothing(t *testing.T) {
	dir := t.TempDir()
	var runs atomic.Int32
	model := llmtest.NewProvider(t, writeFileCall("call_w"), citeResults("Wrote it"))
	fs := &faultStore{failAt: map[string]int{"StartExecution": 1}}
	r := newRig(t, dir, rigConfig(t, dir, "strict", "http://127.0.0.1:9/v1"), server.Fixed(model),
		func(db *sqlite.Store) server.Store { fs.Store = db; return fs },
		&countingTool{name: "write_file", runs: &runs})
	var p api.TurnReply
	r.call("POST", "/chat", api.ChatRequest{Message: "write notes"}, &p)
	if code := r.call("POST", "/chat/approve", api.ApproveRequest{SessionID: p.SessionID, Decisions: []api.Decision{approved("call_w")}}, nil); code != 500 || runs.Load() != 0 {
		t.Fatalf("status %d, runs %d; want 500 and no run", code, runs.Load())
	}
	var reply api.TurnReply
	if code := r.call("POST", "/chat/approve", api.ApproveRequest{SessionID: p.SessionID, Decisions: []api.Decision{approved("call_w")}}, &reply); code != 200 || runs.Load() != 1 {
		t.Fatalf("retry: status %d, runs %d", code, runs.Load())
	}
	checkTranscript(t, r.http.URL, r.token, p.SessionID)
}

// TestTwoServersOnOneStateDirApproveAtOnce: two ai-server processes (two
// servers with their own database handles) get the same approval at the same
// moment; one runs it, the other answers no_pending_approval, the call runs
// once and the transcript holds one tool message for it.
func TestTwoServersOnOneStateDirApproveAtOnce(t *testing.T) {
	for round := range 5 {
		dir := t.TempDir()
		var runs atomic.Int32
		model := llmtest.NewProvider(t, writeFileCall("call_w"), citeResults("Wrote it"), citeResults("Wrote it"))
		slow := &countingTool{name: "write_file", runs: &runs, hook: func() { time.Sleep(50 * time.Millisecond) }}
		cfg := rigConfig(t, dir, "strict", "http://127.0.0.1:9/v1")
		a := newRig(t, dir, cfg, server.Fixed(model), nil, slow)
		b := newRig(t, dir, cfg, server.Fixed(model), nil, slow)
		var p api.TurnReply
		a.call("POST", "/chat", api.ChatRequest{Message: "write notes"}, &p)
		if !p.ApprovalRequired {
			t.Fatalf("no approval asked: %+v", p)
		}
		codes := make([]int, 2)
		var errs [2]api.ErrorBody
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, r := range []*rig{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				codes[i] = doJSON(t, r.http.URL, r.token, "POST", "/chat/approve",
					api.ApproveRequest{SessionID: p.SessionID, Decisions: []api.Decision{approved("call_w")}}, &errs[i])
			}()
		}
		close(start)
		wg.Wait()
		ok, refused := 0, 0
		for i, c := range codes {
			switch {
			case c == 200:
				ok++
			case c == 409 && errs[i].Error.Code == api.CodeNoPendingApproval:
				refused++
			}
		}
		if ok != 1 || refused != 1 || runs.Load() != 1 {
			t.Fatalf("round %d: statuses %v (%+v), runs %d; want one 200, one 409 no_pending_approval, one run", round, codes, errs, runs.Load())
		}
		checkTranscript(t, a.http.URL, a.token, p.SessionID)
	}
}

// TestAStricterPresetTurnsAnUndecidedCallIntoAPendingOne: under moderate a
// round asks for write_file (needs approval) and web_search (does not); while
// it waits the preset becomes strict. Approving write_file must not run
// web_search without a decision: it becomes the next pending call.
func TestAStricterPresetTurnsAnUndecidedCallIntoAPendingOne(t *testing.T) {
	dir := t.TempDir()
	var writes, searches atomic.Int32
	model := llmtest.NewProvider(t,
		llmtest.Calls(llmtest.Call("call_w", "write_file", `{"path":"a.txt","content":"x"}`), llmtest.Call("call_s", "web_search", `{"query":"go"}`)),
		citeResults("Done"))
	r := newRig(t, dir, rigConfig(t, dir, "moderate", "http://127.0.0.1:9/v1"), server.Fixed(model), nil,
		&countingTool{name: "write_file", runs: &writes}, &countingTool{name: "web_search", runs: &searches})
	var p api.TurnReply
	r.call("POST", "/chat", api.ChatRequest{Message: "write and search"}, &p)
	if !p.ApprovalRequired || len(p.ToolsPending) != 1 || p.ToolsPending[0].ToolCallID != "call_w" {
		t.Fatalf("pending %+v", p)
	}
	r.srv.SetConfig(rigConfig(t, t.TempDir(), "strict", "http://127.0.0.1:9/v1"))
	var next api.TurnReply
	if code := r.call("POST", "/chat/approve", api.ApproveRequest{SessionID: p.SessionID, Decisions: []api.Decision{approved("call_w")}}, &next); code != 200 {
		t.Fatalf("approve: %d", code)
	}
	if !next.ApprovalRequired || len(next.ToolsPending) != 1 || next.ToolsPending[0].ToolCallID != "call_s" {
		t.Fatalf("after the stricter preset: %+v", next)
	}
	if writes.Load() != 0 || searches.Load() != 0 {
		t.Fatalf("ran before every decision was in: writes %d, searches %d", writes.Load(), searches.Load())
	}
	var reply api.TurnReply
	if code := r.call("POST", "/chat/approve", api.ApproveRequest{SessionID: p.SessionID, Decisions: []api.Decision{approved("call_s")}}, &reply); code != 200 || reply.ApprovalRequired {
		t.Fatalf("second approve: %d %+v", code, reply)
	}
	if writes.Load() != 1 || searches.Load() != 1 || len(reply.ToolsUsed) != 2 {
		t.Fatalf("writes %d, searches %d, used %+v", writes.Load(), searches.Load(), reply.ToolsUsed)
	}
	for _, u := range reply.ToolsUsed {
		var e api.Execution
		r.call("GET", "/executions/"+u.ExecutionID, nil, &e)
		if e.Decision != api.DecisionUser {
			t.Errorf("%s: decision %q, want user", u.ToolName, e.Decision)
		}
	}
	checkTranscript(t, r.http.URL, r.token, p.SessionID)
}

// TestAPresetMadeStricterWhileTheModelThinks: under minimal nothing needs
// approval, but the preset becomes strict while the model is writing its call:
// the call waits for a decision instead of running.
func TestAPresetMadeStricterWhileTheModelThinks(t *testing.T) {
	dir := t.TempDir()
	var writes atomic.Int32
	var r *rig
	strict := rigConfig(t, t.TempDir(), "strict", "http://127.0.0.1:9/v1")
	model := llmtest.NewProvider(t, llmtest.Func(func(llmtest.Request) llmtest.Step {
		r.srv.SetConfig(strict)
		return writeFileCall("call_w")
	}), citeResults("Done"))
	r = newRig(t, dir, rigConfig(t, dir, "minimal", "http://127.0.0.1:9/v1"), server.Fixed(model), nil,
		&countingTool{name: "write_file", runs: &writes})
	var p api.TurnReply
	r.call("POST", "/chat", api.ChatRequest{Message: "write"}, &p)
	if !p.ApprovalRequired || writes.Load() != 0 {
		t.Fatalf("ran without a decision after the preset became strict: %+v, runs %d", p, writes.Load())
	}
}

// TestDecisionsAreRecorded: a run the preset allowed says auto, one the user
// approved says user.
func TestDecisionsAreRecorded(t *testing.T) {
	dir := t.TempDir()
	var writes, lists atomic.Int32
	model := llmtest.NewProvider(t,
		llmtest.Calls(llmtest.Call("call_l", "list_directory", `{"path":"."}`), llmtest.Call("call_w", "write_file", `{"path":"a","content":"b"}`)),
		citeResults("Done"))
	r := newRig(t, dir, rigConfig(t, dir, "moderate", "http://127.0.0.1:9/v1"), server.Fixed(model), nil,
		&countingTool{name: "write_file", runs: &writes}, &countingTool{name: "list_directory", runs: &lists})
	var p, reply api.TurnReply
	r.call("POST", "/chat", api.ChatRequest{Message: "go"}, &p)
	r.call("POST", "/chat/approve", api.ApproveRequest{SessionID: p.SessionID, Decisions: []api.Decision{approved("call_w")}}, &reply)
	want := map[string]string{"list_directory": api.DecisionAuto, "write_file": api.DecisionUser}
	if len(reply.ToolsUsed) != 2 {
		t.Fatalf("used %+v", reply.ToolsUsed)
	}
	for _, u := range reply.ToolsUsed {
		var e api.Execution
		r.call("GET", "/executions/"+u.ExecutionID, nil, &e)
		if e.Decision != want[u.ToolName] {
			t.Errorf("%s: decision %q, want %q", u.ToolName, e.Decision, want[u.ToolName])
		}
	}
}

// faultChildEnv makes the test binary a server process for
// TestKilledAtEachStepOfAnApproval: it serves the rig on a loopback port,
// prints its address, and, when a step is named, blocks there and says so.
const faultChildEnv = "AILAB_FAULT_TEST_CHILD"

type faultChildSpec struct {
	Dir, ModelURL, Step, RunsFile string
}

// TestKilledAtEachStepOfAnApproval kills a real server process with SIGKILL at
// each step of carrying out an approval, starts a new one on the same state,
// and retries the approval: the call has run exactly once in the end, the
// retry never waits for the dead process's lease, and the transcript is one a
// real endpoint accepts.
func TestKilledAtEachStepOfAnApproval(t *testing.T) {
	if spec := os.Getenv(faultChildEnv); spec != "" {
		runFaultChild(t, spec)
		return
	}
	for _, step := range []string{"before-start", "running", "before-save"} {
		t.Run(step, func(t *testing.T) {
			dir := t.TempDir()
			runsFile := filepath.Join(dir, "runs.log")
			model := llmtest.NewServer(t, writeFileCall("call_w"), honestResults())
			spec := faultChildSpec{Dir: dir, ModelURL: model.URL(), RunsFile: runsFile}

			first := startFaultChild(t, spec)
			var p api.TurnReply
			doJSON(t, first.url, "rig-token", "POST", "/chat", api.ChatRequest{Message: "write notes"}, &p)
			if !p.ApprovalRequired {
				t.Fatalf("no approval asked: %+v", p)
			}
			first.kill()

			spec.Step = step
			dying := startFaultChild(t, spec)
			go func() {
				// Its answer never comes: the process dies first.
				b, _ := json.Marshal(api.ApproveRequest{SessionID: p.SessionID, Decisions: []api.Decision{approved("call_w")}})
				req, _ := http.NewRequest("POST", dying.url+"/chat/approve", strings.NewReader(string(b)))
				req.Header.Set("Authorization", "Bearer rig-token")
				if resp, err := http.DefaultClient.Do(req); err == nil {
					resp.Body.Close()
				}
			}()
			dying.waitFor("at " + step)
			dying.kill()

			spec.Step = ""
			next := startFaultChild(t, spec)
			defer next.kill()
			var reply api.TurnReply
			code := doJSON(t, next.url, "rig-token", "POST", "/chat/approve", api.ApproveRequest{SessionID: p.SessionID, Decisions: []api.Decision{approved("call_w")}}, &reply)
			if code != 200 || reply.ApprovalRequired || len(reply.ToolsUsed) != 1 {
				t.Fatalf("retried approve: %d %+v", code, reply)
			}
			data, _ := os.ReadFile(runsFile)
			if n := strings.Count(string(data), "write_file"); n != 1 {
				t.Fatalf("the call ran %d times:\n%s", n, data)
			}
			checkTranscript(t, next.url, "rig-token", p.SessionID)
		})
	}
}

type faultChild struct {
	t     *testing.T
	cmd   *exec.Cmd
	url   string
	lines chan string
}

func startFaultChild(t *testing.T, spec faultChildSpec) *faultChild {
	t.Helper()
	b, _ := json.Marshal(spec)
	return startChildWith(t, "-test.run=^TestKilledAtEachStepOfAnApproval$", faultChildEnv+"="+string(b))
}

// startChildWith starts the test binary running one test, with env added,
// and waits for it to say where it listens.
func startChildWith(t *testing.T, run, env string) *faultChild {
	t.Helper()
	cmd := exec.Command(os.Args[0], run)
	cmd.Env = append(os.Environ(), env)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &faultChild{t: t, cmd: cmd, lines: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	addr := c.waitFor("listening on ")
	c.url = "http://" + strings.TrimPrefix(addr, "listening on ")
	return c
}

// waitFor returns the first line of the child's output that starts with prefix.
func (c *faultChild) waitFor(prefix string) string {
	c.t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				c.t.Fatalf("the child exited before saying %q", prefix)
			}
			if strings.HasPrefix(line, prefix) {
				return line
			}
		case <-deadline:
			c.kill()
			c.t.Fatalf("the child did not say %q within 60 s", prefix)
		}
	}
}

func (c *faultChild) kill() {
	_ = c.cmd.Process.Kill() // SIGKILL: no deferred function, no Close, no release
	_ = c.cmd.Wait()
}

// runFaultChild is the child process's side.
func runFaultChild(t *testing.T, specJSON string) {
	var spec faultChildSpec
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		t.Fatal(err)
	}
	at := func(step string) func() {
		return func() {
			fmt.Printf("at %s\n", step)
			select {} // wait for the SIGKILL
		}
	}
	fs := &faultStore{blocks: map[string]func(){}}
	tool := &countingTool{name: "write_file", runs: new(atomic.Int32), file: spec.RunsFile}
	switch spec.Step {
	case "before-start":
		fs.blocks["StartExecution"] = at(spec.Step)
	case "running":
		tool.hook = at(spec.Step)
	case "before-save":
		// The run's end record is written with the round's save: one step.
		fs.blocks["SaveWithEnds"] = at(spec.Step)
	}
	cfg := rigConfig(t, spec.Dir, "strict", spec.ModelURL)
	models := wireModels(30 * time.Second)
	r := newRig(t, spec.Dir, cfg, models, func(db *sqlite.Store) server.Store { fs.Store = db; return fs }, tool)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("listening on %s\n", ln.Addr())
	_ = http.Serve(ln, r.srv.Handler())
}

// TestAToolResultEventMeansTheLedgerHasTheRun: a run's end record is written
// with the round's save, so its tool_result event waits for that save. The
// store here is slow to save (a busy disk); as soon as the stream shows the
// result, the ledger must show the run completed, with its outcome.
func TestAToolResultEventMeansTheLedgerHasTheRun(t *testing.T) {
	dir := t.TempDir()
	var runs atomic.Int32
	model := llmtest.NewProvider(t, writeFileCall("call_w"), citeResults("Wrote it"))
	fs := &faultStore{blocks: map[string]func(){"SaveWithEnds": func() { time.Sleep(300 * time.Millisecond) }}}
	r := newRig(t, dir, rigConfig(t, dir, "minimal", "http://127.0.0.1:9/v1"), server.Fixed(model),
		func(db *sqlite.Store) server.Store { fs.Store = db; return fs },
		&countingTool{name: "write_file", runs: &runs})
	b, _ := json.Marshal(api.ChatRequest{Message: "write notes", Stream: true})
	req, _ := http.NewRequest("POST", r.http.URL+"/chat", bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+r.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body := bufio.NewReader(resp.Body)
	checked := 0
	for name := ""; ; {
		line, err := body.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: ") && name == api.EventToolResult:
			var use api.ToolUse
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &use); err != nil {
				t.Fatal(err)
			}
			var e api.Execution
			if code := r.call("GET", "/executions/"+use.ExecutionID, nil, &e); code != 200 || !e.Completed {
				t.Fatalf("the stream showed %s's result, but the ledger has %d %+v", use.ExecutionID, code, e)
			}
			checked++
		}
		if err != nil {
			break
		}
	}
	if checked != 1 || runs.Load() != 1 {
		t.Fatalf("%d tool results checked, %d runs", checked, runs.Load())
	}
}
