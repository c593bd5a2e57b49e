package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/client"
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
	data, err := os.ReadFile(filepath.Join(dir, "state", "ai-lab", "demo-config.yaml"))
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
