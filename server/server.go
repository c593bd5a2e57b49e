// Package server is ai-server's HTTP API: routes, auth, sessions, the tool loop,
// approvals, reply validation against the execution ledger, and call-chain traces.
// It reaches the model only through llm.Provider, tools only through tools.Registry,
// and state only through its Store interface; it never renders UI or reads flags.
package server

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/ailab/ai-lab/config"
	"github.com/ailab/ai-lab/llm"
	"github.com/ailab/ai-lab/store"
	"github.com/ailab/ai-lab/tools"
	"github.com/ailab/ai-lab/tracing"
)

// Version is the server's version as /health shows it.
var Version = "0.1.0"

// maxBodyBytes bounds every request body.
const maxBodyBytes = 1 << 20

// A Store keeps sessions, pending approvals, the execution ledger, grants and
// traces: any store.Backend (store/sqlite is the one ai-server opens). Claims on
// a session (its lease) and on a call (its ledger start record) are atomic in
// the backend, so several servers may share it.
type Store = store.Backend

// A Toolbox builds the tool registry for a configuration. The server calls it again
// when the configuration changes, so tools.workspace and web.* apply without
// restart. It returns the registry in force before when nothing it depends on
// changed; for a new one it also returns what closes it (nil: nothing).
type Toolbox func(cfg *config.Config) (*tools.Registry, func() error, error)

// Models builds the model provider for a configuration; the server calls it
// again when llm.* changes, so those keys apply without a restart.
type Models func(cfg *config.Config) llm.Provider

// Fixed is the Models of a provider that does not depend on the configuration
// (the demo model, test fakes).
func Fixed(p llm.Provider) Models { return func(*config.Config) llm.Provider { return p } }

// Options are what a Server is built from.
type Options struct {
	Config  *config.Config
	Models  Models
	Store   Store
	Toolbox Toolbox
	// Tokens returns the bearer token for a configuration: server.auth_token, or
	// the one in the state directory. Nil: Token stays in force.
	Tokens   func(cfg *config.Config) (string, error)
	Token    string            // the bearer token every endpoint but /health requires
	Logger   *slog.Logger      // nil: slog.Default()
	Now      func() time.Time  // nil: time.Now
	Exporter *tracing.Exporter // nil: no OTLP export
	// BodyTimeout bounds how long a client may take to send a request body;
	// zero means DefaultBodyTimeout.
	BodyTimeout time.Duration
	// PingInterval is how often an idle event stream gets a ": ping" line;
	// zero means every 15 s.
	PingInterval time.Duration
}

// DefaultBodyTimeout is how long a client may take to send a request body.
const DefaultBodyTimeout = 30 * time.Second

// A Server answers the API of CONTRACT section 4.
type Server struct {
	models    Models
	store     Store
	toolbox   Toolbox
	tokens    func(cfg *config.Config) (string, error)
	log       *slog.Logger
	now       func() time.Time
	exporter  *tracing.Exporter
	owner     store.Owner // this server's name on session leases and ledger starts
	started   *config.Config
	bodyWait  time.Duration
	pingEvery time.Duration

	cfg      atomic.Pointer[config.Config]
	token    atomic.Pointer[string]
	registry atomic.Pointer[registryFor]
	provider atomic.Pointer[providerFor]
	toolsMu  sync.Mutex // serializes rebuilding the registry

	locks     sessionLocks
	histories histories
	running   runningTurns
	// toolsGen counts changes of the outside tools (an MCP server came up,
	// went down or changed its list), so the registry is rebuilt.
	toolsGen atomic.Int64
	// modelCheck is the last start-up check of the model endpoint (CheckModel).
	modelCheck atomic.Pointer[modelCheck]
}

// ToolsChanged tells the server that the outside tools changed; the next
// request builds its registry anew.
func (s *Server) ToolsChanged() { s.toolsGen.Add(1) }

// registryFor remembers which configuration and which generation of the
// outside tools a toolset was built from.
type registryFor struct {
	cfg *config.Config
	gen int64
	ts  *toolset
}

// providerFor remembers which llm.* settings a provider was built from.
type providerFor struct {
	llm config.LLMConfig
	p   llm.Provider
}

// New returns a Server; it builds the tool registry once to fail early on a bad workspace.
func New(opts Options) (*Server, error) {
	s := &Server{
		models:    opts.Models,
		store:     opts.Store,
		toolbox:   opts.Toolbox,
		tokens:    opts.Tokens,
		log:       opts.Logger,
		now:       opts.Now,
		exporter:  opts.Exporter,
		owner:     store.NewOwner(),
		started:   opts.Config,
		bodyWait:  opts.BodyTimeout,
		pingEvery: opts.PingInterval,
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.bodyWait <= 0 {
		s.bodyWait = DefaultBodyTimeout
	}
	if s.pingEvery <= 0 {
		s.pingEvery = pingEvery
	}
	s.cfg.Store(opts.Config)
	tok := opts.Token
	s.token.Store(&tok)
	ts, err := s.tools()
	if err != nil {
		return nil, err
	}
	ts.done()
	return s, nil
}

// SetConfig puts a new configuration in force (a change of config.yaml on disk).
// Keys that cannot apply while the server runs are named in the log and in
// GET /config (restart_required).
func (s *Server) SetConfig(cfg *config.Config) {
	prev := s.cfg.Swap(cfg)
	if s.tokens != nil && (prev == nil || prev.Server.AuthToken != cfg.Server.AuthToken) {
		if tok, err := s.tokens(cfg); err != nil {
			s.log.Error("the new server.auth_token cannot be used; the previous token stays in force", "err", err)
		} else {
			s.token.Store(&tok)
		}
	}
	s.log.Info("configuration applied", "preset", cfg.Safety.Preset, "model", cfg.LLM.Model)
	if prev != nil && prev.LLM.BaseURL != cfg.LLM.BaseURL || prev != nil && prev.LLM.Model != cfg.LLM.Model {
		// A new endpoint or model is asked again, as at start.
		go s.CheckModel(context.Background())
	}
	if wait := config.RestartRequired(s.started, cfg); len(wait) > 0 {
		s.log.Warn("configuration changes that wait for a restart", "restart_required", wait)
	}
}

// Config returns the configuration in force.
func (s *Server) Config() *config.Config { return s.cfg.Load() }

// CurrentToken returns the bearer token in force.
func (s *Server) CurrentToken() string { return *s.token.Load() }

// model returns the provider for the llm.* settings in force, building a new
// one after they changed.
func (s *Server) model() llm.Provider {
	cfg := s.cfg.Load()
	if cur := s.provider.Load(); cur != nil && cur.llm == cfg.LLM {
		return cur.p
	}
	p := s.models(cfg)
	s.provider.Store(&providerFor{llm: cfg.LLM, p: p})
	return p
}

// tools returns the toolset for the configuration and outside tools in force,
// rebuilding it after a change, and counts the caller as one of its users:
// call done when finished.
func (s *Server) tools() (*toolset, error) {
	for {
		cfg, gen := s.cfg.Load(), s.toolsGen.Load()
		if r := s.registry.Load(); r != nil && r.cfg == cfg && r.gen == gen {
			if r.ts.use() {
				return r.ts, nil
			}
			continue // retired meanwhile; rebuilt below on the next pass
		}
		s.toolsMu.Lock()
		if r := s.registry.Load(); r != nil && r.cfg == cfg && r.gen == gen {
			s.toolsMu.Unlock()
			continue
		}
		reg, closer, err := s.toolbox(cfg)
		if err != nil {
			s.toolsMu.Unlock()
			return nil, err
		}
		old := s.registry.Load()
		ts := newToolset(reg, closer)
		if closer == nil && old != nil {
			// The same workspace under a new registry: the new toolset owns it.
			ts.close = old.ts.takeClose()
		}
		s.registry.Store(&registryFor{cfg: cfg, gen: gen, ts: ts})
		if old != nil {
			old.ts.retire()
		}
		s.toolsMu.Unlock()
	}
}

// Close releases the tools in force.
func (s *Server) Close() {
	if r := s.registry.Load(); r != nil {
		r.ts.retire()
	}
}

// Handler returns the HTTP handler with every route. All routes are listed here.
func (s *Server) Handler() http.Handler {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.HandleMethodNotAllowed = true
	r.Use(s.bodyLimits(), s.requestLog(), s.recover())
	r.NoRoute(func(c *gin.Context) {
		s.fail(c, failf(ErrNotFound, "no such endpoint: %s %s", c.Request.Method, c.Request.URL.Path))
	})
	r.NoMethod(func(c *gin.Context) {
		s.fail(c, failf(ErrNotFound, "%s is not allowed on %s", c.Request.Method, c.Request.URL.Path))
	})

	r.GET("/health", s.health)

	a := r.Group("/", s.auth())
	a.POST("/chat", s.chat)
	a.POST("/chat/approve", s.approve)
	a.GET("/sessions", s.sessions)
	a.GET("/sessions/:id", s.session)
	a.DELETE("/sessions/:id", s.deleteSession)
	a.POST("/sessions/:id/cancel", s.cancel)
	a.POST("/sessions/:id/undo", s.undo)
	a.POST("/sessions/:id/redo", s.redo)
	a.GET("/sessions/:id/grants", s.grants)
	a.DELETE("/sessions/:id/grants/:grant", s.revokeGrant)
	a.GET("/tools", s.toolList)
	a.GET("/policy", s.policyList)
	a.GET("/config", s.config)
	a.PUT("/config/safety", s.putSafety)
	a.GET("/executions/:id", s.execution)
	a.GET("/traces/:id", s.trace)
	a.GET("/traces", s.traces)
	return r
}

// RunRetention prunes old traces and ledger records now and then every interval
// until ctx ends. A ledger record goes once it is older than both
// tracking.window (it can no longer be cited) and tracing.retention_age (no kept
// trace points at it).
func (s *Server) RunRetention(ctx context.Context, interval time.Duration) {
	for {
		cfg := s.cfg.Load()
		n, err := s.store.PruneTraces(ctx, s.now().Add(-cfg.Tracing.RetentionAge), cfg.Tracing.RetentionCount)
		if err != nil && ctx.Err() == nil {
			s.log.Warn("trace retention failed", "err", err)
		} else if n > 0 {
			s.log.Info("trace retention", "removed", n)
		}
		keep := max(cfg.Tracking.Window, cfg.Tracing.RetentionAge)
		n, err = s.store.PruneExecutions(ctx, s.now().Add(-keep))
		if err != nil && ctx.Err() == nil {
			s.log.Warn("ledger retention failed", "err", err)
		} else if n > 0 {
			s.log.Info("ledger retention", "removed", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
	}
}
