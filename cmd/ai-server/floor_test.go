package main

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ailab/ai-lab/llm/llmtest"
)

// TestFloorRelayPlaysATurn keeps the load benchmark's floor honest: the relay
// that AILAB_BENCH_FLOOR=true measures must play the same turn as ai-server (two
// model rounds, the tool really run, an answer the benchmark accepts), or its
// figures would be the floor of some other, cheaper turn.
func TestFloorRelayPlaysATurn(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	bin := filepath.Join(t.TempDir(), "floorrelay")
	build := exec.Command("go", "build", "-o", bin, "./testdata/floorrelay")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	model := llmtest.NewToolRoundModel(t, llmtest.RoundWriteFile, 0, 0)
	srv := startLoadServer(t, bin, model.URL)
	if _, err := loadTurn(http.DefaultClient, srv.url, srv.token, "", "please save a note marker-7-0"); err != nil {
		t.Fatalf("the relay's turn: %v", err)
	}
	for r := 1; r <= 2; r++ {
		if _, ok := model.Times.Load("marker-7-0/" + string(rune('0'+r))); !ok {
			t.Errorf("the model never saw round %d of the turn", r)
		}
	}
	note, err := os.ReadFile(filepath.Join(srv.workspace, "note-7.txt"))
	if err != nil || !strings.Contains(string(note), "marker-7-0") {
		t.Errorf("the relay did not run write_file: %q, %v", note, err)
	}
}
