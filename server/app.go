package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/ailab/ai-lab/config"
	"github.com/ailab/ai-lab/mcp"
	"github.com/ailab/ai-lab/store/sqlite"
	"github.com/ailab/ai-lab/tools"
	"github.com/ailab/ai-lab/tracing"
)

// DBFile is the name of the database under the state directory.
const DBFile = "ai-lab.db"

// An App is a Server with the state it owns: the database, the token and the exporter.
type App struct {
	*Server
	// Token is the bearer token at start; CurrentToken is the one in force.
	Token     string
	db        *sqlite.Store
	exp       *tracing.Exporter
	hub       *mcp.Hub // nil without mcp.servers
	stopWatch func()
}

// MCPServers is cfg's mcp.servers as the mcp package takes them.
func MCPServers(cfg *config.Config) []mcp.ServerConfig {
	out := make([]mcp.ServerConfig, 0, len(cfg.MCP.Servers))
	for _, s := range cfg.MCP.Servers {
		out = append(out, mcp.ServerConfig{Name: s.Name, Command: s.Command, URL: s.URL, Env: s.Env, Headers: s.Headers,
			Timeout: s.Timeout})
	}
	return out
}

// Open wires a Server from cfg: it creates the state directory, the token, the
// database and (when tracing.otlp_endpoint is set) the OTLP exporter. models
// builds the model provider, again whenever llm.* changes.
func Open(ctx context.Context, cfg *config.Config, models Models, log *slog.Logger) (*App, error) {
	dir := cfg.StateDir()
	_, tokenErr := os.Stat(filepath.Join(dir, TokenFile))
	hadToken := tokenErr == nil && cfg.Server.AuthToken == ""
	tok, err := LoadOrCreateToken(cfg.Server.AuthToken, dir)
	if err != nil {
		return nil, err
	}
	db, err := sqlite.Open(filepath.Join(dir, DBFile))
	if err != nil {
		return nil, err // store's sentence names the file and the fix
	}
	if db.Fresh() && hadToken {
		// The token file says this state_dir was used before, yet the database
		// is empty: it was lost, truncated or replaced.
		log.Warn("THE STATE DATABASE IS EMPTY, but this state_dir was used before (it has a token file): sessions, pending approvals and the execution ledger start empty. If that is not what you meant, stop ai-server and restore the file from a backup.",
			"path", db.Path())
	}
	var exp *tracing.Exporter
	if cfg.Tracing.OTLPEndpoint != "" {
		if exp, err = tracing.New(ctx, cfg.Tracing.OTLPEndpoint); err != nil {
			db.Close()
			return nil, fmt.Errorf("cannot export traces to %s: %w", cfg.Tracing.OTLPEndpoint, err)
		}
	}
	if !cfg.Sanitize.Enabled {
		log.Warn("web content sanitization is disabled (sanitize.enabled: false): pages reach the model only wrapped, not cleaned")
	}
	tokens := func(c *config.Config) (string, error) { return LoadOrCreateToken(c.Server.AuthToken, dir) }
	var hub atomic.Pointer[mcp.Hub]
	outside := func() []tools.Tool {
		h := hub.Load()
		if h == nil {
			return nil
		}
		var out []tools.Tool
		for _, t := range h.Tools() {
			out = append(out, t)
		}
		return out
	}
	s, err := New(Options{Config: cfg, Models: models, Store: db, Toolbox: NewToolbox(outside), Token: tok, Tokens: tokens,
		Logger: log, Exporter: exp})
	if err != nil {
		db.Close()
		return nil, err
	}
	a := &App{Server: s, Token: tok, db: db, exp: exp}
	if len(cfg.MCP.Servers) > 0 {
		// The servers start in the background: ai-server answers at once, and
		// their tools join the registry as each one is ready.
		opts := mcpOptions(cfg)
		opts.Logger, opts.OnChange = log.With("component", "mcp"), s.ToolsChanged
		h, err := mcp.Start(context.WithoutCancel(ctx), MCPServers(cfg), opts)
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("mcp.servers: %w", err)
		}
		hub.Store(h)
		a.hub = h
		s.ToolsChanged()
	}
	if cfg.Path != "" {
		sanitizing := cfg.Sanitize
		apply := func(next *config.Config) {
			s.SetConfig(next)
			// MCP results are outside text too: a change of sanitize.* reaches
			// them live, as it reaches the web tools.
			if h := hub.Load(); h != nil && next.Sanitize != sanitizing {
				sanitizing = next.Sanitize
				h.SetOptions(mcpOptions(next))
			}
		}
		stop, err := config.Watch(cfg.Path, apply, func(err error) {
			log.Error("config change refused; the previous config stays in force", "err", err)
		})
		if err != nil {
			log.Warn("cannot watch the config file; changes need a restart", "path", cfg.Path, "err", err)
		} else {
			a.stopWatch = stop
		}
	}
	return a, nil
}

// mcpOptions are the sanitizer settings of cfg as the MCP hub takes them.
func mcpOptions(cfg *config.Config) mcp.Options {
	return mcp.Options{SanitizeOff: !cfg.Sanitize.Enabled, Mild: !cfg.Sanitize.Aggressive,
		NoClassifier: !cfg.Sanitize.Classifier, Datamark: cfg.Sanitize.Datamark}
}

// WALBytes is the state database's write-ahead log size now and its
// high-water mark since the database was opened, in bytes.
func (a *App) WALBytes() (now, peak int64) { return a.db.WALBytes() }

// Close flushes the exporter and closes the database.
func (a *App) Close() error {
	var errs []error
	if a.stopWatch != nil {
		a.stopWatch()
	}
	a.Server.Close()
	if a.hub != nil {
		errs = append(errs, a.hub.Close())
	}
	if a.exp != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		errs = append(errs, a.exp.Shutdown(ctx))
		cancel()
	}
	errs = append(errs, a.db.Close())
	return errors.Join(errs...)
}

// Serve answers on ln until ctx ends, then drains in-flight requests (up to drain)
// and returns. Trace retention runs alongside.
func (a *App) Serve(ctx context.Context, ln net.Listener, drain time.Duration) error {
	hs := &http.Server{
		Handler:           a.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		// No ReadTimeout or WriteTimeout: a turn runs for minutes. Bodies get
		// their own deadline (bodyLimits).
	}
	rctx, stopRetention := context.WithCancel(ctx)
	defer stopRetention()
	go a.RunRetention(rctx, time.Hour)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	a.log.Info("shutting down: draining in-flight requests")
	sctx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return fmt.Errorf("draining requests: %w", err)
	}
	return nil
}
