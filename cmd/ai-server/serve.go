package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ailab/ai-lab/config"
	"github.com/ailab/ai-lab/llm"
	"github.com/ailab/ai-lab/llm/openai"
	"github.com/ailab/ai-lab/server"
	"github.com/ailab/ai-lab/tools"
	"github.com/ailab/ai-lab/tracing"
)

// restartScheduler, when set (by main), runs the serving process again with the
// scheduler setting of steadySysmon (server.steady_scheduler), once its config
// has loaded and before it opens anything.
var restartScheduler func(stderr func(format string, args ...any))

// runServe is `ai-server [--config PATH] [--addr HOST:PORT] [--demo]`.
func runServe(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ai-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgPath := fs.String("config", "", "config file (default: $AILAB_CONFIG, ./config.yaml, $XDG_CONFIG_HOME/ai-lab/config.yaml)")
	addr := fs.String("addr", "", "listen address HOST:PORT (default: server.addr)")
	demo := fs.Bool("demo", false, "use the built-in offline demo model instead of an LLM endpoint")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		return usageError(stderr, "unexpected argument %q; subcommands are preset, sanitize, search and read", fs.Arg(0))
	}
	cfg, code := loadConfig(*cfgPath, stderr)
	if cfg == nil {
		return code
	}
	if cfg.Server.SteadyScheduler && restartScheduler != nil {
		restartScheduler(func(format string, args ...any) { fmt.Fprintf(stderr, format, args...) })
	}
	// --addr is kept apart from the config, so a reload of config.yaml does not
	// see the flag's address as an edit that waits for a restart.
	listen := cfg.Server.Addr
	if *addr != "" {
		if _, _, err := net.SplitHostPort(*addr); err != nil {
			return usageError(stderr, "--addr %q is not HOST:PORT (for example 127.0.0.1:8080)", *addr)
		}
		listen = *addr
	}
	// A workspace that cannot be used is bad config (exit 2), found before anything starts.
	ws, err := tools.OpenWorkspace(cfg.Tools.Workspace)
	if err != nil {
		return usageError(stderr, "%v", err)
	}
	ws.Close()
	// Logs pass the masking handler: an error that quotes a URL with a password
	// or a key never reaches the terminal or a log file.
	log := slog.New(tracing.NewMaskingHandler(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo})))
	models := server.Fixed(llm.NewDemo())
	if !*demo {
		models = newProvider
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	app, err := server.Open(ctx, cfg, models, log)
	if err != nil {
		fmt.Fprintf(stderr, "ai-server: %v\n", err)
		return exitFailure
	}
	defer func() {
		if err := app.Close(); err != nil {
			log.Error("closing", "err", err)
		}
	}()
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		fmt.Fprintf(stderr, "ai-server: cannot listen on %s: %v; stop the other process or pass --addr\n", listen, unwrapOp(err))
		return exitFailure
	}
	fmt.Fprintf(stderr, "listening on http://%s\n", ln.Addr())
	// Asked in the background: a slow endpoint must not hold the start.
	go app.CheckModel(ctx)
	if err := app.Serve(ctx, ln, 30*time.Second); err != nil {
		fmt.Fprintf(stderr, "ai-server: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// loadConfig finds and loads the config; on failure it prints one line and returns
// the exit code.
func loadConfig(explicit string, stderr io.Writer) (*config.Config, int) {
	path, err := config.Find(explicit)
	if err != nil {
		return nil, usageError(stderr, "%v", err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		return nil, usageError(stderr, "%v", err)
	}
	return cfg, exitOK
}

// newProvider returns the OpenAI-compatible client of cfg's llm.* keys; the
// server calls it again when they change.
func newProvider(cfg *config.Config) llm.Provider {
	return openai.New(openai.Options{
		BaseURL:    cfg.LLM.BaseURL,
		Model:      cfg.LLM.Model,
		APIKey:     os.Getenv(cfg.LLM.APIKeyEnv),
		KeyEnvVar:  cfg.LLM.APIKeyEnv,
		Timeout:    cfg.LLM.Timeout,
		MaxRetries: openai.DefaultMaxRetries,
	})
}

// unwrapOp drops the "listen tcp ADDR:" prefix of a net.OpError.
func unwrapOp(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err
	}
	return err
}
