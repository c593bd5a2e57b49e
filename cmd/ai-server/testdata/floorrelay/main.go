// Command floorrelay is the least a server can do for BenchmarkServeUnderLoad's
// turns, so that the benchmark can measure what the machine itself costs: it
// answers POST /chat by asking the model, running the one tool call the model
// asks for (list_directory or write_file, in the workspace, with no policy,
// sanitizer, store, ledger or check), asking the model again with the result,
// and answering the client. It speaks only as much of ai-server's command line,
// state folder and API as the benchmark uses (--config, read by the config
// package; --addr; the token file; the "listening on" line; ChatResponse), and
// it is no product: it keeps no state and checks no token.
//
// The benchmark builds and runs it in place of ai-server when
// AILAB_BENCH_FLOOR=true. What it measures then is the overhead that loopback
// HTTP, Go's net/http and this machine's thread wake-ups add per model round
// with a server that does nothing else: a floor under the real server's figures.
package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/config"
)

type message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type toolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type completion struct {
	Choices []struct {
		Message message `json:"message"`
	} `json:"choices"`
}

func main() {
	cfgPath := flag.String("config", "", "the benchmark's config.yaml")
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	flag.Parse()
	cfg, err := config.Load(*cfgPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "floorrelay:", err)
		os.Exit(2)
	}
	state, baseURL, workspace := cfg.StateDir(), cfg.LLM.BaseURL, cfg.Tools.Workspace
	token := make([]byte, 16)
	_, _ = rand.Read(token)
	if err := os.MkdirAll(state, 0o700); err != nil {
		fmt.Fprintln(os.Stderr, "floorrelay:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(filepath.Join(state, "token"), []byte(hex.EncodeToString(token)+"\n"), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "floorrelay:", err)
		os.Exit(1)
	}
	var runs atomic.Int64
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 512, MaxIdleConns: 512}}
	ask := func(msgs []message) (message, error) {
		body, _ := json.Marshal(map[string]any{"model": "fake", "messages": msgs})
		resp, err := client.Post(baseURL+"/chat/completions", "application/json", bytes.NewReader(body))
		if err != nil {
			return message{}, err
		}
		defer resp.Body.Close()
		var c completion
		if err := json.NewDecoder(resp.Body).Decode(&c); err != nil || len(c.Choices) == 0 {
			return message{}, fmt.Errorf("model answered %s", resp.Status)
		}
		return c.Choices[0].Message, nil
	}
	http.HandleFunc("POST /chat", func(w http.ResponseWriter, r *http.Request) {
		var req api.ChatRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		msgs := []message{{Role: "user", Content: req.Message}}
		first, err := ask(msgs)
		if err != nil || len(first.ToolCalls) != 1 {
			http.Error(w, fmt.Sprintf("first round: %v", err), 502)
			return
		}
		call := first.ToolCalls[0]
		// The form of ai-server's execution ids, which the fake model cites.
		id := fmt.Sprintf("%s_%013d_%08x", call.Function.Name, time.Now().UnixMilli(), uint32(runs.Add(1)))
		result := run(workspace, call.Function.Name, call.Function.Arguments)
		msgs = append(msgs, first, message{Role: "tool", ToolCallID: call.ID, Content: result + " (execution_id: " + id + ")"})
		final, err := ask(msgs)
		if err != nil {
			http.Error(w, fmt.Sprintf("second round: %v", err), 502)
			return
		}
		session := req.SessionID
		if session == "" {
			session = id
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(api.ChatResponse{
			SessionID:  session,
			Response:   final.Content,
			ToolsUsed:  []api.ToolUse{{ToolName: call.Function.Name, ExecutionID: id}},
			Validation: api.Validation{Valid: true},
		})
	})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "floorrelay:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "floorrelay listening on http://%s\n", ln.Addr())
	fmt.Fprintln(os.Stderr, http.Serve(ln, nil))
}

// run does the benchmark's two tools in the workspace, nothing more.
func run(workspace, name, arguments string) string {
	var args struct{ Path, Content string }
	_ = json.Unmarshal([]byte(arguments), &args)
	path := filepath.Join(workspace, filepath.Clean("/"+args.Path))
	switch name {
	case "write_file":
		// Written over in place, as ai-server's write_file does: a file cut
		// to nothing first costs a write-back on ext4, which would raise the
		// floor above what the server pays.
		if err := overwrite(path, []byte(args.Content)); err != nil {
			return err.Error()
		}
		return fmt.Sprintf("wrote %d bytes", len(args.Content))
	default:
		entries, err := os.ReadDir(path)
		if err != nil {
			return err.Error()
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return strings.Join(names, "\n")
	}
}

// overwrite writes data over the file from its start and cuts it only where it
// was longer.
func overwrite(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if fi, serr := f.Stat(); err == nil && serr == nil && fi.Size() > int64(len(data)) {
		err = f.Truncate(int64(len(data)))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
