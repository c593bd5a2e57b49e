package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/llm/llmtest"
	"github.com/ailab/ai-lab/server"
	"github.com/ailab/ai-lab/store/sqlite"
	"github.com/ailab/ai-lab/tools"
)

// undoKillChildEnv makes the test binary a server process for
// TestUndoKilledMidwayIsWholeOrNothing.
const undoKillChildEnv = "UNDO_KILL_TEST_CHILD"

type undoKillSpec struct {
	Dir, ModelURL string
	// BlockAt is the 1-based PutUndoState call the child blocks in, waiting
	// for its SIGKILL (0: none): 1 writes the journal before any change, 2
	// marks it done after every change, 3 records the undo in the session's
	// log.
	BlockAt int
}

// An undoKillStore is the real store whose chosen undo-state write never
// returns: the process is killed there.
type undoKillStore struct {
	*sqlite.Store
	mu      sync.Mutex
	n       int
	blockAt int
}

func (s *undoKillStore) PutUndoState(ctx context.Context, key string, data []byte) error {
	s.mu.Lock()
	s.n++
	n := s.n
	s.mu.Unlock()
	if n == s.blockAt {
		fmt.Printf("at undo state write %d (%s)\n", n, key)
		select {} // wait for the SIGKILL
	}
	return s.Store.PutUndoState(ctx, key, data)
}

// TestUndoKilledMidwayIsWholeOrNothing kills a real server process with
// SIGKILL while it undoes a turn (after the journal is written, after every
// change is made but before the undo is marked done, and after it is marked
// done), starts a new one on the same state: the workspace is either as the
// turn left it (untouched) or fully restored, never a mix, and an undo asked
// again then restores it exactly.
func TestUndoKilledMidwayIsWholeOrNothing(t *testing.T) {
	if spec := os.Getenv(undoKillChildEnv); spec != "" {
		runUndoKillChild(t, spec)
		return
	}
	for _, tc := range []struct {
		blockAt  int
		restored bool // how the restart must find the workspace
	}{{1, false}, {2, false}, {3, true}} {
		t.Run(fmt.Sprint("kill at undo state write ", tc.blockAt), func(t *testing.T) {
			dir := t.TempDir()
			ws := filepath.Join(dir, "ws")
			if err := os.MkdirAll(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			for name, content := range map[string]string{"a.txt": "a0", "b.txt": "b0"} {
				if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			model := llmtest.NewServer(t, llmtest.Calls(
				llmtest.Call("c1", "write_file", `{"path": "a.txt", "content": "a1"}`),
				llmtest.Call("c2", "delete_file", `{"path": "b.txt"}`),
				llmtest.Call("c3", "write_file", `{"path": "sub/new.txt", "content": "n"}`),
			), honestResults())
			spec := undoKillSpec{Dir: dir, ModelURL: model.URL()}
			first := startUndoKillChild(t, spec)
			var reply api.TurnReply
			if code := doJSON(t, first.url, "rig-token", "POST", "/chat", api.ChatRequest{Message: "change the files"}, &reply); code != 200 || reply.ApprovalRequired || len(reply.ToolsUsed) != 3 {
				first.kill()
				t.Fatalf("the turn: %d %+v", code, reply)
			}
			first.kill()
			changed := treeOf(t, ws)
			if changed != "a.txt=a1\nsub/\nsub/new.txt=n" {
				t.Fatalf("the turn left:\n%s", changed)
			}

			spec.BlockAt = tc.blockAt
			dying := startUndoKillChild(t, spec)
			go func() {
				req, _ := http.NewRequest("POST", dying.url+"/sessions/"+reply.SessionID+"/undo", strings.NewReader(`{}`))
				req.Header.Set("Authorization", "Bearer rig-token")
				if resp, err := http.DefaultClient.Do(req); err == nil {
					resp.Body.Close()
				}
			}()
			dying.waitFor("at undo state write")
			dying.kill()

			spec.BlockAt = 0
			next := startUndoKillChild(t, spec)
			defer next.kill()
			// The restart settles the journal before its first request.
			var health map[string]any
			doJSON(t, next.url, "rig-token", "GET", "/health", nil, &health)
			want := changed
			if tc.restored {
				want = "a.txt=a0\nb.txt=b0"
			}
			if got := treeOf(t, ws); got != want {
				t.Fatalf("after the restart:\n%s\nwant:\n%s", got, want)
			}
			var out struct {
				api.UndoReply
				Error api.ErrorDetail `json:"error"`
			}
			code := doJSON(t, next.url, "rig-token", "POST", "/sessions/"+reply.SessionID+"/undo", map[string]any{}, &out)
			if tc.restored {
				if code != 409 || out.Error.Code != api.CodeNothingToUndo {
					t.Fatalf("undo after a finished undo: %d %+v", code, out)
				}
			} else if code != 200 {
				t.Fatalf("undo after the restart: %d %+v", code, out)
			}
			if got := treeOf(t, ws); got != "a.txt=a0\nb.txt=b0" {
				t.Fatalf("after the undo:\n%s", got)
			}
		})
	}
}

func startUndoKillChild(t *testing.T, spec undoKillSpec) *faultChild {
	t.Helper()
	b, _ := json.Marshal(spec)
	return startChildWith(t, "-test.run=^TestUndoKilledMidwayIsWholeOrNothing$", undoKillChildEnv+"="+string(b))
}

// runUndoKillChild is the child's side: a server with the real file tools
// under the minimal preset (writes run without asking).
func runUndoKillChild(t *testing.T, specJSON string) {
	var spec undoKillSpec
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		t.Fatal(err)
	}
	cfg := rigConfig(t, spec.Dir, "minimal", spec.ModelURL)
	ws, err := tools.OpenWorkspace(cfg.Tools.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	models := wireModels(30 * time.Second)
	r := newRig(t, spec.Dir, cfg, models, func(db *sqlite.Store) server.Store {
		return &undoKillStore{Store: db, blockAt: spec.BlockAt}
	}, tools.FileTools(ws)...)
	if err := r.srv.RecoverUndo(); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("listening on %s\n", ln.Addr())
	_ = http.Serve(ln, r.srv.Handler())
}

// treeOf is the folder as path=content lines (folders end in /), sorted.
func treeOf(t *testing.T, root string) string {
	t.Helper()
	var lines []string
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			lines = append(lines, rel+"/")
			return nil
		}
		data, _ := os.ReadFile(p)
		lines = append(lines, rel+"="+string(data))
		return nil
	})
	return strings.Join(lines, "\n")
}
