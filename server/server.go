// Package server is ai-server's HTTP API: routes, auth, sessions, the tool loop,
// approvals, reply validation against the execution ledger, and call-chain traces.
// It reaches the model only through llm.Provider, tools only through tools.Registry,
// and state only through its Store interface; it never renders UI or reads flags.
package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/ailab/ai-lab/api"
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

// A Store keeps sessions, pending approvals, the execution ledger and traces.
// *store.Store implements it.
type Store interface {
	CreateSession(ctx context.Context, id, title string, at time.Time) error
	Session(ctx context.Context, id string) (store.Session, error)
	Sessions(ctx context.Context) ([]store.Session, error)
	DeleteSession(ctx context.Context, id string) error
	Messages(ctx context.Context, sessionID string) ([]json.RawMessage, error)
	Pending(ctx context.Context, sessionID string) (json.RawMessage, error)
	SaveTurn(ctx context.Context, sessionID string, appended []json.RawMessage, pending json.RawMessage, at time.Time) error
	RecordExecution(ctx context.Context, e api.Execution) error
	Execution(ctx context.Context, id string) (api.Execution, error)
	SaveTrace(ctx context.Context, t api.Trace) error
	Trace(ctx context.Context, id string) (api.Trace, error)
	Traces(ctx context.Context, f store.TraceFilter) ([]api.Trace, error)
	PruneTraces(ctx context.Context, olderThan time.Time, keep int) (int, error)
}

var _ Store = (*store.Store)(nil)

// A Toolbox builds the tool registry for a configuration. The server calls it again
// when the configuration changes, so tools.workspace and web.* apply without restart.
type Toolbox func(cfg *config.Config) (*tools.Registry, error)

// Options are what a Server is built from.
type Options struct {
	Config   *config.Config
	Provider llm.Provider
	Store    Store
	Toolbox  Toolbox
	Token    string            // the bearer token every endpoint but /health requires
	Logger   *slog.Logger      // nil: slog.Default()
	Now      func() time.Time  // nil: time.Now
	Exporter *tracing.Exporter // nil: no OTLP export
}

// A Server answers the API of CONTRACT section 4.
type Server struct {
	provider llm.Provider
	store    Store
	toolbox  Toolbox
	token    string
	log      *slog.Logger
	now      func() time.Time
	exporter *tracing.Exporter

	cfg      atomic.Pointer[config.Config]
	registry atomic.Pointer[registryFor]

	locks sessionLocks
}

// registryFor remembers which configuration a registry was built from.
type registryFor struct {
	cfg *config.Config
	reg *tools.Registry
}

// New returns a Server; it builds the tool registry once to fail early on a bad workspace.
func New(opts Options) (*Server, error) {
	s := &Server{
		provider: opts.Provider,
		store:    opts.Store,
		toolbox:  opts.Toolbox,
		token:    opts.Token,
		log:      opts.Logger,
		now:      opts.Now,
		exporter: opts.Exporter,
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.cfg.Store(opts.Config)
	if _, err := s.tools(); err != nil {
		return nil, err
	}
	return s, nil
}

// SetConfig puts a new configuration in force (a change of config.yaml on disk).
func (s *Server) SetConfig(cfg *config.Config) {
	s.cfg.Store(cfg)
	s.log.Info("configuration applied", "preset", cfg.Safety.Preset)
}

// Config returns the configuration in force.
func (s *Server) Config() *config.Config { return s.cfg.Load() }

// tools returns the registry for the configuration in force, rebuilding it after a change.
func (s *Server) tools() (*tools.Registry, error) {
	cfg := s.cfg.Load()
	if r := s.registry.Load(); r != nil && r.cfg == cfg {
		return r.reg, nil
	}
	reg, err := s.toolbox(cfg)
	if err != nil {
		return nil, err
	}
	s.registry.Store(&registryFor{cfg: cfg, reg: reg})
	return reg, nil
}

// Handler returns the HTTP handler with every route. All routes are listed here.
func (s *Server) Handler() http.Handler {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.HandleMethodNotAllowed = true
	r.Use(s.requestLog(), s.recover())
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
	a.GET("/config", s.config)
	a.PUT("/config/safety", s.putSafety)
	a.GET("/executions/:id", s.execution)
	a.GET("/traces/:id", s.trace)
	a.GET("/traces", s.traces)
	return r
}

// sessionLocks serializes requests on one session; different sessions run concurrently.
type sessionLocks struct {
	mu    sync.Mutex
	locks map[string]*sessionLock
}

type sessionLock struct {
	sync.Mutex
	users int
}

// lock takes the session's lock and returns its release.
func (l *sessionLocks) lock(id string) (unlock func()) {
	l.mu.Lock()
	if l.locks == nil {
		l.locks = map[string]*sessionLock{}
	}
	sl := l.locks[id]
	if sl == nil {
		sl = &sessionLock{}
		l.locks[id] = sl
	}
	sl.users++
	l.mu.Unlock()
	sl.Lock()
	return func() {
		sl.Unlock()
		l.mu.Lock()
		sl.users--
		if sl.users == 0 {
			delete(l.locks, id)
		}
		l.mu.Unlock()
	}
}

// RunRetention prunes old traces now and then every interval until ctx ends.
func (s *Server) RunRetention(ctx context.Context, interval time.Duration) {
	for {
		cfg := s.cfg.Load()
		n, err := s.store.PruneTraces(ctx, s.now().Add(-cfg.Tracing.RetentionAge), cfg.Tracing.RetentionCount)
		if err != nil && ctx.Err() == nil {
			s.log.Warn("trace retention failed", "err", err)
		} else if n > 0 {
			s.log.Info("trace retention", "removed", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
	}
}
