package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"time"

	"github.com/ailab/ai-lab/config"
	"github.com/ailab/ai-lab/llm"
	"github.com/ailab/ai-lab/server"
)

// startDemoServer runs ai-server in this process on a free loopback port with the
// offline demo model, the configured (or default ./workspace) workspace and state
// directory, and returns its URL and token. stop drains it and closes its database.
func startDemoServer(ctx context.Context) (url, token string, stop func(), err error) {
	path, err := config.Find("")
	if err != nil {
		return "", "", nil, err
	}
	cfg, err := config.Load(path)
	if err != nil {
		return "", "", nil, err
	}
	// The TUI owns the terminal: the server's log goes nowhere.
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	app, err := server.Open(ctx, cfg, llm.NewDemo(), log)
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
