package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client"
	"github.com/ailab/ai-lab/server"
)

// TestDemoWithoutConfigCanChangeThePreset: with no config.yaml anywhere, the demo
// writes its own in the state directory so /preset NAME has a file to rewrite.
func TestDemoWithoutConfigCanChangeThePreset(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("HOME", dir)
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("AILAB_CONFIG", "")
	url, token, stop, err := startDemoServer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	c := client.New(url, token, nil)
	got, err := c.SetSafety(context.Background(), api.SafetyUpdate{Preset: "moderate"})
	if err != nil || got.Safety.Preset != "moderate" {
		t.Fatalf("SetSafety: %+v, %v", got, err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "state", "ai-lab", "demo", "demo-config.yaml"))
	if err != nil || !strings.Contains(string(data), "preset: moderate") || !strings.Contains(string(data), "# Configuration of ai-client --demo") {
		t.Fatalf("demo config: %s, %v", data, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "workspace")); err != nil {
		t.Fatalf("the demo's workspace is not ./workspace: %v", err)
	}
}

// TestDemoPaceIsCheckedAndApplied: AILAB_DEMO_PACE slows the demo's streamed
// words; a value that is not a duration is refused with the variable's name.
func TestDemoPaceIsCheckedAndApplied(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("HOME", dir)
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("AILAB_CONFIG", "")
	t.Setenv(EnvDemoPace, "slow")
	if _, _, _, err := startDemoServer(context.Background()); err == nil || !strings.Contains(err.Error(), EnvDemoPace) {
		t.Fatalf("a bad pace: %v", err)
	}
	t.Setenv(EnvDemoPace, "40ms")
	url, token, stop, err := startDemoServer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	c := client.New(url, token, nil)
	var tokens []time.Time
	_, err = c.ChatStream(context.Background(), "hello", "", func(ev client.Event) {
		if ev.Name == api.EventToken {
			tokens = append(tokens, time.Now())
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(tokens) < 3 || tokens[len(tokens)-1].Sub(tokens[0]) < 200*time.Millisecond {
		t.Fatalf("%d tokens over %s: the pace did not apply", len(tokens), tokens[len(tokens)-1].Sub(tokens[0]))
	}
}

// TestDemoNeverRewritesAConfigItDidNotMake: with the repository's config.yaml
// in the working folder, a preset change in the demo rewrites the demo's own
// copy in the state directory and says so; the original keeps its bytes, so a
// real ai-server started there later still runs with approvals on.
func TestDemoNeverRewritesAConfigItDidNotMake(t *testing.T) {
	repoConfig, err := os.ReadFile("../../config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("HOME", dir)
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("AILAB_CONFIG", "")
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), repoConfig, 0o644); err != nil {
		t.Fatal(err)
	}
	url, token, stop, err := startDemoServer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	got, err := client.New(url, token, nil).SetSafety(context.Background(), api.SafetyUpdate{Preset: "minimal"})
	if err != nil || got.Safety.Preset != "minimal" {
		t.Fatalf("SetSafety: %+v, %v", got, err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "config.yaml")); string(after) != string(repoConfig) {
		t.Fatal("the demo rewrote the config.yaml of the working folder")
	}
	copyPath := filepath.Join(dir, "state", "ai-lab", demoStateName, demoConfigName)
	data, err := os.ReadFile(copyPath)
	if err != nil || !strings.Contains(string(data), "preset: minimal") || !strings.Contains(string(data), "A copy of "+filepath.Join(dir, "config.yaml")) {
		t.Fatalf("the demo's copy: %s, %v", data, err)
	}
	var raw map[string]any
	req, _ := http.NewRequest("PUT", url+"/config/safety", strings.NewReader(`{"preset": "moderate"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	json.NewDecoder(resp.Body).Decode(&raw)
	if raw["written"] != copyPath {
		t.Fatalf("PUT /config/safety says it wrote %v, want %s", raw["written"], copyPath)
	}
}

// TestDemoKeepsItsOwnState: the demo's sessions, token and config copy live in
// <state dir>/demo, so a real ai-server on the same state directory (here named
// by the config the demo copies) never lists the demo's sessions.
func TestDemoKeepsItsOwnState(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("HOME", dir)
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "xdg"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("AILAB_CONFIG", "")
	real := filepath.Join(dir, "real-state")
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("server:\n  state_dir: "+real+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	url, token, stop, err := startDemoServer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.New(url, token, nil).ChatStream(context.Background(), "hello", "", nil); err != nil {
		t.Fatal(err)
	}
	stop()
	for _, f := range []string{server.DBFile, server.TokenFile, demoConfigName} {
		if _, err := os.Stat(filepath.Join(real, demoStateName, f)); err != nil {
			t.Errorf("the demo's %s is not in %s: %v", f, filepath.Join(real, demoStateName), err)
		}
		if _, err := os.Stat(filepath.Join(real, f)); err == nil {
			t.Errorf("the demo wrote %s into the real state directory %s", f, real)
		}
	}
}
