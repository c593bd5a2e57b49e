package server_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ailab/ai-lab/llm/llmtest"
)

// TestWebSearchNeedsApprovalAndComesBackWrapped runs web_search through the whole
// server against a saved DuckDuckGo results page served on loopback.
func TestWebSearchNeedsApprovalAndComesBackWrapped(t *testing.T) {
	page, err := os.ReadFile("../websearch/testdata/ddg/html-caffeine-sleep.html")
	if err != nil {
		t.Fatalf("%v", err)
	}
	var mu sync.Mutex
	var queries []string
	seen := func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), queries...) }
	ddg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		mu.Lock()
		queries = append(queries, r.PostForm.Get("q"))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	}))
	defer ddg.Close()
	h := startHarness(t, setup{searchEndpoint: ddg.URL + "/html/"}, nil, []llmtest.Step{
		llmtest.Calls(llmtest.Call("call_s", "web_search", `{"query": "does caffeine affect sleep", "max_results": 3}`)),
		replyWith("Caffeine affects sleep (execution_id: %s).")})
	r := h.chat("", "search the web for caffeine and sleep")
	if !r.ApprovalRequired || r.ToolsPending[0].ToolName != "web_search" || len(seen()) != 0 {
		t.Fatalf("web_search ran without approval under strict: %+v, %v", r, seen())
	}
	r = h.approve(r.SessionID, approved("call_s"))
	if !r.Validation.Valid || len(r.ToolsUsed) != 1 || r.ToolsUsed[0].Status != "ok" {
		t.Fatalf("reply %+v", r)
	}
	if q := seen(); len(q) != 1 || q[0] != "does caffeine affect sleep" {
		t.Fatalf("DuckDuckGo saw %v", q)
	}
	reqs := h.model.Requests()
	tm := toolMessages(reqs[len(reqs)-1])
	var msg struct {
		ExecutionID string          `json:"execution_id"`
		Result      json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(tm[0].Content), &msg); err != nil || msg.ExecutionID == "" {
		t.Fatalf("tool message %s", tm[0].Content)
	}
	res := string(msg.Result)
	if !strings.Contains(res, `<search_results source=\"duckduckgo\"`) || !strings.Contains(res, "sleepfoundation.org") {
		t.Fatalf("result not wrapped or missing the first hit: %s", res)
	}
}

func TestWebCacheFollowsCacheTTL(t *testing.T) {
	page, err := os.ReadFile("../websearch/testdata/ddg/html-caffeine-sleep.html")
	if err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int32
	ddg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	}))
	defer ddg.Close()
	search := llmtest.Calls(llmtest.Call("", "web_search", `{"query": "caffeine"}`))
	for _, c := range []struct {
		ttl  string
		hits int32
	}{{"15m", 1}, {"0s", 2}} {
		hits.Store(0)
		h := newLoopHarnessWith(t, setup{preset: "minimal", searchEndpoint: ddg.URL + "/html/", cacheTTL: c.ttl}, search, llmtest.Text("one"), search, llmtest.Text("two"))
		h.chat("", "a")
		h.chat("", "b")
		if n := hits.Load(); n != c.hits {
			t.Errorf("cache_ttl %s: DuckDuckGo asked %d times, want %d", c.ttl, n, c.hits)
		}
	}
}
