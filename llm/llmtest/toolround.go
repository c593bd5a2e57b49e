package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ailab/ai-lab/llm"
)

// A ToolRoundModel is an OpenAI-compatible endpoint on loopback for load
// benchmarks that plays a turn with one tool round, as real turns have: to
// the request of a turn's first round it answers one call of its tool (a
// write_file of a note of the session's, or a list_directory of "."), and to
// the request that carries that call's result a final answer citing its
// execution id. Each answer comes after a delay drawn uniformly from delay ±
// jitter. It reads requests without decoding them (the last "marker-S-T" of
// the conversation, and whether a tool message follows it), so what it costs
// is the model's, not the server's. Times records, by "marker-S-T/round",
// when a request had fully arrived and when its answer was written.
type ToolRoundModel struct {
	// URL is the base URL to configure as llm.base_url.
	URL   string
	Times sync.Map // "marker-S-T/round" -> [2]time.Time{arrived, answered}
}

// Tools a ToolRoundModel can call.
const (
	RoundWriteFile     = "write_file"
	RoundListDirectory = "list_directory"
)

var roundExecIDRe = regexp.MustCompile(`(write_file|list_directory)_[0-9]{13}_[0-9a-f]{8}`)

// NewToolRoundModel starts a ToolRoundModel calling tool (RoundWriteFile or
// RoundListDirectory) until tb ends.
func NewToolRoundModel(tb testing.TB, tool string, delay, jitter time.Duration) *ToolRoundModel {
	m := &ToolRoundModel{}
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, _ := io.ReadAll(r.Body)
		arrived := time.Now()
		i := bytes.LastIndex(req, []byte("marker-"))
		if i < 0 {
			http.Error(w, "no marker", 400)
			return
		}
		j := i + len("marker-")
		for j < len(req) && (req[j] >= '0' && req[j] <= '9' || req[j] == '-') {
			j++
		}
		marker := string(req[i:j])
		session := strings.SplitN(strings.TrimPrefix(marker, "marker-"), "-", 2)[0]
		var msg llm.Message
		round := 1
		if bytes.Contains(req[j:], []byte(`"role":"tool"`)) {
			round = 2
			id := roundExecIDRe.Find(req[j:])
			msg = llm.Message{Role: llm.RoleAssistant, Content: fmt.Sprintf("The workspace has a few files (execution_id: %s).", id)}
			if tool == RoundWriteFile {
				msg.Content = fmt.Sprintf("I saved the note in note-%s.txt (execution_id: %s).", session, id)
			}
		} else {
			call := llm.ToolCall{ID: "call_1", Name: RoundListDirectory, Arguments: `{"path":"."}`}
			if tool == RoundWriteFile {
				args, _ := json.Marshal(map[string]string{"path": "note-" + session + ".txt", "content": "A note of " + marker + "."})
				call = llm.ToolCall{ID: "call_1", Name: RoundWriteFile, Arguments: string(args)}
			}
			msg = llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call}}
		}
		body, _ := json.Marshal(EncodeReply("fake", int(n.Add(1)), msg))
		if d := delay; d > 0 || jitter > 0 {
			if jitter > 0 {
				d += time.Duration(rand.Int64N(int64(2*jitter)+1)) - jitter
			}
			time.Sleep(d)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
		m.Times.Store(fmt.Sprintf("%s/%d", marker, round), [2]time.Time{arrived, time.Now()})
	}))
	tb.Cleanup(srv.Close)
	m.URL = srv.URL + "/v1"
	return m
}
