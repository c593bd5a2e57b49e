package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/ailab/ai-lab/config"
	"github.com/ailab/ai-lab/llm"
	"github.com/ailab/ai-lab/server"
)

// EnvDemoPace sets the pause between the words the demo model streams (a Go
// duration; default llm.DefaultDemoPace), to watch the streaming slowly.
const EnvDemoPace = "AILAB_DEMO_PACE"

// demoStateName is the folder of the demo's own state inside the state
// directory ai-server uses: its sessions, grants, token and config copy, so that
// neither a real server's session list shows the demo's sessions nor the demo's
// the real ones.
const demoStateName = "demo"

// demoStateHelp says where the demo keeps its state, for --help.
const demoStateHelp = "<state dir>/" + demoStateName

// demoStateDir is the demo's own state directory under the one base names.
func demoStateDir(base *config.Config) string {
	return filepath.Join(base.StateDir(), demoStateName)
}

// startDemoServer runs ai-server in this process on a free loopback port with the
// offline demo model, the configured (or default ./workspace) workspace and its
// own state directory (demoStateDir), and returns its URL and token. stop drains
// it and closes its database.
func startDemoServer(ctx context.Context) (url, token string, stop func(), err error) {
	found, err := config.Find("")
	if err != nil {
		return "", "", nil, err
	}
	path, dir, err := demoConfig(found)
	if err != nil {
		return "", "", nil, err
	}
	cfg, err := config.Load(path)
	if err != nil {
		return "", "", nil, err
	}
	// The copy may name the real state directory; the demo keeps to its own.
	cfg.Server.StateDir = dir
	// The TUI owns the terminal: the server's log goes nowhere.
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	demo := llm.NewDemo()
	if v := os.Getenv(EnvDemoPace); v != "" {
		pace, err := time.ParseDuration(v)
		if err != nil || pace < 0 || pace > 10*time.Second {
			return "", "", nil, fmt.Errorf("%s=%q is not a pause between 0s and 10s such as 200ms", EnvDemoPace, v)
		}
		demo.Pace = pace
	}
	app, err := server.Open(ctx, cfg, server.Fixed(demo), log)
	if err != nil {
		return "", "", nil, fmt.Errorf("cannot start the demo server: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		app.Close()
		return "", "", nil, fmt.Errorf("cannot listen on a loopback port for the demo server: %w", err)
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		app.Serve(sctx, ln, 5*time.Second)
	}()
	stop = func() {
		cancel()
		<-done
		app.Close()
	}
	return "http://" + ln.Addr().String(), app.Token, stop, nil
}

// demoConfigText is the config the demo writes when it finds no config.yaml, so that
// /preset NAME has a file to rewrite; the defaults fill in every other key.
const demoConfigText = `# Configuration of ai-client --demo, made because no config.yaml was found.
# Every key not set here has its documented default (see config.yaml in the
# repository); ./workspace is relative to the folder you start the demo in.
safety:
  preset: strict   # strict | moderate | minimal | custom; /preset NAME rewrites it
`

// demoConfigName is the demo's own config file in its state directory.
const demoConfigName = "demo-config.yaml"

// demoConfig returns the demo's own config file and state directory (see
// demoStateDir), making the file on first use: a copy of found (the config.yaml
// the demo would otherwise read), or a small default when there is none. The
// demo never rewrites a file it did not make: /preset in the demo changes this
// copy, so a real ai-server started later on found still runs with the preset
// found says.
func demoConfig(found string) (path, dir string, err error) {
	base, err := config.Load(found)
	if err != nil {
		return "", "", err
	}
	dir = demoStateDir(base)
	path = filepath.Join(dir, demoConfigName)
	if _, err := os.Stat(path); err == nil {
		return path, dir, nil
	}
	text := []byte(demoConfigText)
	if found != "" {
		orig, err := os.ReadFile(found)
		if err != nil {
			return "", "", fmt.Errorf("cannot read %s for the demo's copy: %w", found, err)
		}
		text = append([]byte("# A copy of "+found+" made by ai-client --demo: /preset in the demo rewrites\n"+
			"# this copy, never the original. Delete it to copy the original again.\n"), orig...)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", fmt.Errorf("cannot create the demo's state directory %s: %w", dir, err)
	}
	if err := os.WriteFile(path, text, 0o600); err != nil {
		return "", "", fmt.Errorf("cannot write the demo's config %s: %w", path, err)
	}
	return path, dir, nil
}
