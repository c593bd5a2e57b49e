// Package mcp is AI Lab's client of outside tool servers spoken to over the Model
// Context Protocol (CONTRACT section 12). A Hub starts the configured servers in
// the background, keeps each one's tool list current, restarts a server that
// fails or dies, and offers every server tool as a tools.Tool named
// SERVER__TOOL, whose results are sanitized and wrapped in <tool_output> like any
// other outside text.
//
// It says what a server's approval setting asks for, but it must never decide
// that a call may run, record a run or retry one: the server does those (a call
// reaches an MCP server at most once, and a call cut short by a dying server is
// reported, not repeated). It must never let an MCP server's words reach the
// model unchecked: descriptions, every text of input schemas, results and
// error texts all pass the sanitizer (unless sanitize.enabled is off), and
// results and isError texts are always wrapped. A call that was sent and got
// no clear answer is reported as ErrOutcomeUnknown, never as not delivered.
// And it must never leave a process behind: a stdio server runs in its own
// process group, which is killed when it stops.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ailab/ai-lab/tools"
)

// Options are the settings a Hub takes beside the servers.
type Options struct {
	// SanitizeOff turns the sanitizer off (sanitize.enabled: false). The zero
	// value sanitizes, so a forgotten setting fails safe. Wrapping always applies.
	SanitizeOff bool
	// Mild selects the non-aggressive sanitizer (sanitize.aggressive: false).
	Mild bool
	// NoClassifier leaves the learned classifier out (sanitize.classifier: false).
	NoClassifier bool
	// Datamark marks outside text's word boundaries (sanitize.datamark).
	Datamark bool
	// MaxChars bounds the text of one result; 0 means DefaultMaxChars.
	MaxChars int
	// Backoff is how long to wait before the next start of a server that has
	// failed failures times in a row (1, 2, ...); nil means DefaultBackoff.
	Backoff func(failures int) time.Duration
	// Logger receives state changes and the servers' stderr (at debug level);
	// nil discards them.
	Logger *slog.Logger
	// OnChange, if set, is called after a server's state or tool list changed,
	// with no lock held, from the goroutine that watches that server. It must
	// not block for long.
	OnChange func()
}

// DefaultMaxChars is the most characters of text one result carries (as
// read_webpage's limit): a larger result is cut and says so.
const DefaultMaxChars = 100_000

// MaxBackoff caps DefaultBackoff.
const MaxBackoff = 30 * time.Second

// DefaultBackoff doubles from one second up to MaxBackoff.
func DefaultBackoff(failures int) time.Duration {
	if failures < 1 {
		failures = 1
	}
	if failures > 6 {
		return MaxBackoff
	}
	return min(time.Second<<(failures-1), MaxBackoff)
}

func (o Options) withDefaults() Options {
	if o.MaxChars <= 0 {
		o.MaxChars = DefaultMaxChars
	}
	if o.Backoff == nil {
		o.Backoff = DefaultBackoff
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// The errors a Tool's Run returns wrap one of these, so the server can tell
// them apart with errors.Is; their text is the sentence for the model.
var (
	// ErrNotRunning: the server is starting, restarting, failed, or stopped
	// during the call.
	ErrNotRunning = errors.New("the MCP server is not running")
	// ErrTimeout: the call took longer than the server's timeout and was cancelled.
	ErrTimeout = errors.New("the MCP call timed out")
	// ErrToolFailed: the server answered, with isError set or a protocol error.
	ErrToolFailed = errors.New("the MCP tool reported an error")
	// ErrUnknownTool: the server no longer offers the tool.
	ErrUnknownTool = errors.New("the MCP server does not offer this tool")
	// ErrBadArguments: the arguments are not a JSON object.
	ErrBadArguments = errors.New("the arguments are not a JSON object")
	// ErrOutcomeUnknown: the call was sent (or may have been) and no clear
	// answer came back: the server may or may not have run it. Such a call must
	// never be retried automatically; the model is told not to repeat it
	// without asking the user. An error that wraps it may wrap ErrNotRunning
	// too, when the server is also gone.
	ErrOutcomeUnknown = errors.New("the MCP call may or may not have run: do not repeat it without asking the user")
)

// A callError is the model's sentence with the sentinels it stands for.
type callError struct {
	msg   string
	kinds []error
}

func (e *callError) Error() string   { return e.msg }
func (e *callError) Unwrap() []error { return e.kinds }

func errorf(kind error, format string, args ...any) error {
	return &callError{msg: fmt.Sprintf(format, args...), kinds: []error{kind}}
}

// A State is where a server is in its life.
type State string

// The states of a server.
const (
	// StateStarting: the process is starting (or the URL is being reached)
	// and its tools are being listed.
	StateStarting State = "starting"
	// StateReady: the server answers calls.
	StateReady State = "ready"
	// StateRestarting: the server failed or died and starts again after a delay.
	StateRestarting State = "restarting"
	// StateFailed: the server will not be started again (its program does not
	// exist, or the Hub was closed).
	StateFailed State = "failed"
)

// A ServerInfo is one configured server as GET /tools and `ai-server mcp
// list` show it.
type ServerInfo struct {
	Name   string
	Source string // "mcp:NAME"
	State  State
	// Reason is the last error, one sanitized line, its URLs without query
	// strings, fragments or userinfo (no secret of a request URL shows); empty
	// while ready and before the first failure.
	Reason string
	// RetryIn is, while restarting, the time left before the next start.
	RetryIn time.Duration
	// Tools are the names the model sees, last known (kept while the server is
	// down, so the model's earlier calls still make sense).
	Tools []string
	// Skipped are the server's tools left out, each with why.
	Skipped []string
}

// Status is the state in one line: "starting", "ready", "restarting in 4 s:
// REASON" or "failed: REASON".
func (s ServerInfo) Status() string {
	switch s.State {
	case StateRestarting:
		line := fmt.Sprintf("restarting in %d s", int((s.RetryIn+time.Second-1)/time.Second))
		if s.Reason != "" {
			line += ": " + s.Reason
		}
		return line
	case StateFailed:
		return "failed: " + s.Reason
	default:
		return string(s.State)
	}
}

// A Hub holds the configured MCP servers and their tools. Its methods are safe
// for concurrent use.
type Hub struct {
	opts    Options                 // as given to Start, with defaults
	live    atomic.Pointer[Options] // opts with the latest SetOptions applied
	servers []*server               // config order
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	closed  sync.Once
}

// Start validates servers (see ValidateServers) and starts each in the
// background: it returns at once, before any server is ready, so ai-server's
// own start never waits for them. Tools lists a server's tools once it is
// ready. Cancelling ctx stops every server like Close, without waiting.
func Start(ctx context.Context, servers []ServerConfig, opts Options) (*Hub, error) {
	if err := ValidateServers(servers); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	h := &Hub{opts: opts.withDefaults(), cancel: cancel}
	h.live.Store(&h.opts)
	for _, c := range servers {
		h.servers = append(h.servers, newServer(h, c))
	}
	for _, s := range h.servers {
		h.wg.Go(func() { s.run(ctx) })
	}
	return h, nil
}

// options are the Options in force now: those of Start with the sanitizer
// settings and MaxChars of the latest SetOptions.
func (h *Hub) options() Options { return *h.live.Load() }

// SetOptions applies new sanitizer settings (SanitizeOff, Mild, NoClassifier,
// Datamark) and MaxChars to every later result and error text, and at once to
// the tool descriptions and input schemas, which are converted again from
// what the servers last listed; OnChange is called for each server whose tools
// were converted again. Backoff, Logger and OnChange stay as Start got them.
// It is for a live change of config.yaml's sanitize section.
func (h *Hub) SetOptions(opts Options) {
	next := h.opts
	next.SanitizeOff, next.Mild, next.NoClassifier, next.Datamark = opts.SanitizeOff, opts.Mild, opts.NoClassifier, opts.Datamark
	next.MaxChars = opts.MaxChars
	next = next.withDefaults()
	h.live.Store(&next)
	for _, s := range h.servers {
		s.reconvert()
	}
}

// Close stops every server and returns once their processes, children
// included, are gone. It is safe to call more than once.
func (h *Hub) Close() error {
	h.closed.Do(func() {
		h.cancel()
		h.wg.Wait()
	})
	return nil
}

// WaitStarted waits until every server has finished its first start, whether
// it is ready or not, or until ctx is done.
func (h *Hub) WaitStarted(ctx context.Context) error {
	for _, s := range h.servers {
		select {
		case <-s.started:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Tools lists every server's tools, in config order and then each server's
// order. A tool whose name an earlier server already took is left out (see
// ServerInfo.Skipped). A server that is down keeps its last known tools,
// which answer a clear error until it is back.
func (h *Hub) Tools() []*Tool {
	all, _ := h.catalog()
	return all
}

// Tool returns the tool the model knows as name.
func (h *Hub) Tool(name string) (*Tool, bool) {
	all, _ := h.catalog()
	for _, t := range all {
		if t.name == name {
			return t, true
		}
	}
	return nil, false
}

// DefinitionsSize is the size in bytes of the definitions of every tool that
// Tools lists (see Tool.DefinitionSize): what the tools add to each model
// request, to be counted against llm.context_chars.
func (h *Hub) DefinitionsSize() int {
	n := 0
	for _, t := range h.Tools() {
		n += t.DefinitionSize()
	}
	return n
}

// Servers describes every configured server, in config order.
func (h *Hub) Servers() []ServerInfo {
	_, clashes := h.catalog()
	out := make([]ServerInfo, len(h.servers))
	for i, s := range h.servers {
		info := s.info()
		for _, c := range clashes[s] {
			info.Tools = slices.DeleteFunc(info.Tools, func(name string) bool { return name == c })
			info.Skipped = append(info.Skipped, c+": an earlier server already has a tool of this name")
		}
		out[i] = info
	}
	return out
}

// catalog is every server's tools with the names that clash with an earlier
// server's left out, and those names by server.
func (h *Hub) catalog() ([]*Tool, map[*server][]string) {
	var all []*Tool
	var clashes map[*server][]string
	taken := make(map[string]bool)
	for _, s := range h.servers {
		for _, t := range s.toolList() {
			if taken[t.name] {
				if clashes == nil {
					clashes = make(map[*server][]string)
				}
				clashes[s] = append(clashes[s], t.name)
				continue
			}
			taken[t.name] = true
			all = append(all, t)
		}
	}
	return all, clashes
}

// IDPrefix is the tool part of an MCP tool's execution ids: its name
// lower-cased, every character outside [a-z0-9_] written _ (CONTRACT section
// 12). It is tools.IDPrefix, so ids and the reply validator agree.
func IDPrefix(name string) string { return tools.IDPrefix(name) }
