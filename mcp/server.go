package mcp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptrace"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ailab/ai-lab/sanitize"
	"github.com/ailab/ai-lab/secret"
)

// clientInfo is how AI Lab introduces itself to MCP servers.
var clientInfo = &sdk.Implementation{Name: "ai-lab", Version: "1"}

const (
	// terminateGrace is how long a stdio server has to exit after its stdin
	// closes, and again after SIGTERM, before it is killed.
	terminateGrace = 2 * time.Second
	// healthyUptime is how long a server must stay up for its failure count to
	// start again from one, so a server that dies now and then is restarted
	// quickly while one that dies at once backs off.
	healthyUptime = MaxBackoff
	// maxTools bounds one server's tool list, so a server cannot fill the
	// model's context with tool schemas (maxListBytes bounds their size).
	maxTools = 128
	// maxReason bounds a status reason in characters.
	maxReason = 300
)

// toolNameRe is what OpenAI-compatible endpoints accept as a function name: a
// tool named otherwise would make every chat request fail, not only its calls.
// It is compiled on first use: the {1,64} repetition makes 60 KB of program
// that commands without MCP servers would pay for at start-up.
var toolNameRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`) })

// A server watches one configured MCP server: it starts it, lists its tools,
// and restarts it when it fails.
type server struct {
	cfg     ServerConfig
	hub     *Hub
	refresh chan struct{} // a tools/list_changed arrived
	started chan struct{} // closed when the first start has ended
	stderr  *tail

	mu        sync.Mutex
	state     State
	reason    string
	retryAt   time.Time
	sess      *sdk.ClientSession // set while ready
	brokenBy  string             // why a call found sess unreachable
	tools     []*Tool
	offered   map[string]bool // the server's own names of tools
	skipped   []string
	startDone bool

	// listed is what tools/list last gave, as the server gave it, so that
	// SetOptions can convert it again; overList says it was cut at maxTools.
	listed    []*sdk.Tool
	overList  bool
	wasListed bool
	convMu    sync.Mutex // held while converting listed and storing the result
}

func newServer(h *Hub, c ServerConfig) *server {
	s := &server{
		cfg:     c,
		hub:     h,
		refresh: make(chan struct{}, 1),
		started: make(chan struct{}),
		state:   StateStarting,
	}
	s.stderr = &tail{log: func(line string) { h.opts.Logger.Debug("mcp server stderr", "server", c.Name, "line", line) }}
	return s
}

func (s *server) source() string { return "mcp:" + s.cfg.Name }

// run starts the server and starts it again whenever it fails or dies, until
// ctx is done.
func (s *server) run(ctx context.Context) {
	stopped := func() { s.setState(StateFailed, "the MCP servers were stopped", 0) }
	failures := 0
	for {
		s.setState(StateStarting, "", 0)
		uptime, err := s.session(ctx)
		if ctx.Err() != nil {
			stopped()
			return
		}
		if uptime >= healthyUptime {
			failures = 0
		}
		failures++
		var never *neverStarted
		if errors.As(err, &never) {
			s.setState(StateFailed, s.oneLine(err.Error()), 0)
			s.hub.opts.Logger.Error("mcp server cannot start", "server", s.cfg.Name, "error", redactURLs(err.Error()))
			return
		}
		delay := s.hub.opts.Backoff(failures)
		s.setState(StateRestarting, s.oneLine(err.Error()), delay)
		s.hub.opts.Logger.Warn("mcp server down", "server", s.cfg.Name, "error", redactURLs(err.Error()), "restart_in", delay)
		timer := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			timer.Stop()
			stopped()
			return
		case <-timer.C:
		}
	}
}

// A neverStarted error says a stdio server's program could not be run at all
// (it is missing, or not executable): no restart can mend that, only a change
// of the machine or the config.
type neverStarted struct{ err error }

func (e *neverStarted) Error() string { return e.err.Error() }
func (e *neverStarted) Unwrap() error { return e.err }

// session connects once, lists the tools and serves until the connection ends
// or ctx is done; it always leaves no process behind. It returns how long the
// server was ready and why it ended.
func (s *server) session(ctx context.Context) (time.Duration, error) {
	transport, cmd, cleanup := s.transport()
	defer cleanup()
	client := sdk.NewClient(clientInfo, &sdk.ClientOptions{
		Logger: s.hub.opts.Logger,
		// No roots: a server such as server-filesystem would otherwise swap
		// the directories of its command line for the client's roots.
		Capabilities: &sdk.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			select {
			case s.refresh <- struct{}{}:
			default:
			}
		},
	})
	startCtx, cancel := context.WithTimeout(ctx, s.cfg.timeout())
	sess, err := client.Connect(startCtx, transport, nil)
	cancel()
	if err != nil {
		if cmd != nil && cmd.Process == nil {
			return 0, &neverStarted{fmt.Errorf("starting: %w", err)}
		}
		if errors.Is(startCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			err = fmt.Errorf("it did not finish starting within %s", s.cfg.timeout())
		}
		return 0, s.withStderr(fmt.Errorf("starting: %w", err))
	}
	defer sess.Close() // runs before cleanup, so the server may exit by itself first
	ended := make(chan error, 1)
	go func() { ended <- sess.Wait() }()
	if err := s.listTools(ctx, sess); err != nil {
		return 0, s.withStderr(fmt.Errorf("listing its tools: %w", err))
	}
	s.setReady(sess)
	readyAt := time.Now()
	defer s.setReady(nil)
	for {
		select {
		case <-ctx.Done():
			return time.Since(readyAt), ctx.Err()
		case err := <-ended:
			s.mu.Lock()
			if s.brokenBy != "" {
				err = errors.New(s.brokenBy)
			}
			s.mu.Unlock()
			if err == nil {
				err = errors.New("the connection closed")
			}
			// Closing waits for the process, and so for the last of its stderr.
			sess.Close()
			return time.Since(readyAt), s.withStderr(fmt.Errorf("it stopped: %w", err))
		case <-s.refresh:
			if err := s.listTools(ctx, sess); err != nil {
				// A dead connection ends the loop through ended; anything else
				// keeps the old list rather than losing every tool.
				s.hub.opts.Logger.Warn("mcp tools/list failed", "server", s.cfg.Name, "error", redactURLs(err.Error()))
			}
		}
	}
}

// transport is how to reach the server; for a stdio server also the command
// that the transport starts. cleanup kills what is left of the command's
// processes, or drops a URL server's idle connections.
func (s *server) transport() (t sdk.Transport, cmd *exec.Cmd, cleanup func()) {
	if s.cfg.URL != "" {
		base := http.DefaultTransport.(*http.Transport).Clone()
		client := &http.Client{Transport: headerTransport{base: base, headers: s.cfg.Headers}}
		return &sdk.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: client}, nil, base.CloseIdleConnections
	}
	cmd = exec.Command(s.cfg.Command[0], s.cfg.Command[1:]...)
	cmd.Env = os.Environ()
	for _, k := range slices.Sorted(maps.Keys(s.cfg.Env)) {
		cmd.Env = append(cmd.Env, k+"="+s.cfg.Env[k])
	}
	s.stderr.reset()
	cmd.Stderr = s.stderr
	// A child that keeps the stderr pipe open must not hold up Wait; the
	// process group is killed right after anyway.
	cmd.WaitDelay = 250 * time.Millisecond
	ownProcessGroup(cmd)
	return &sdk.CommandTransport{Command: cmd, TerminateDuration: terminateGrace}, cmd, func() { killProcessGroup(cmd) }
}

// headerTransport adds a server's configured headers to every request, and
// notes in the call's delivery, if its context has one, whether the request
// may have reached the server.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range t.headers {
			r.Header.Set(k, v)
		}
	}
	d, _ := r.Context().Value(deliveryKey{}).(*delivery)
	if d == nil {
		return t.base.RoundTrip(r)
	}
	r = r.WithContext(httptrace.WithClientTrace(r.Context(), &httptrace.ClientTrace{
		WroteHeaders: d.wrote,
	}))
	resp, err := t.base.RoundTrip(r)
	d.done(resp, err)
	return resp, err
}

// withStderr adds the server's last stderr line to err: a server that exits
// at once usually says why there.
func (s *server) withStderr(err error) error {
	if line := s.stderr.lastLine(); line != "" {
		return fmt.Errorf("%w (its last output: %s)", err, line)
	}
	return err
}

// listTools asks the server for its tools and keeps the ones the model can take.
func (s *server) listTools(ctx context.Context, sess *sdk.ClientSession) error {
	var listed []*sdk.Tool
	over := false
	if res := sess.InitializeResult(); res != nil && res.Capabilities != nil && res.Capabilities.Tools != nil {
		ctx, cancel := context.WithTimeout(ctx, s.cfg.timeout())
		defer cancel()
		for t, err := range sess.Tools(ctx, nil) {
			if err != nil {
				return err
			}
			if len(listed) == maxTools {
				over = true
				break
			}
			listed = append(listed, t)
		}
	}
	s.mu.Lock()
	s.listed, s.overList, s.wasListed = listed, over, true
	s.mu.Unlock()
	s.reconvert()
	return nil
}

// reconvert turns what tools/list last gave into the tools the model sees,
// with the Hub's options of now; before the first list it does nothing.
func (s *server) reconvert() {
	s.convMu.Lock()
	defer s.convMu.Unlock()
	s.mu.Lock()
	listed, over, was := s.listed, s.overList, s.wasListed
	s.mu.Unlock()
	if !was {
		return
	}
	opts := s.hub.options()
	var skipped []string
	if over {
		skipped = append(skipped, fmt.Sprintf("every tool after the first %d: a server may offer at most %d", maxTools, maxTools))
	}
	var kept []*Tool
	offered := make(map[string]bool, len(listed))
	seen := make(map[string]bool, len(listed))
	total := 0
	for _, t := range listed {
		name := s.cfg.Name + "__" + t.Name
		switch {
		case !toolNameRe().MatchString(name):
			skipped = append(skipped, fmt.Sprintf("%s: the name %q is not 1 to 64 of a-z, A-Z, 0-9, _ and -, as model APIs require", s.oneLine(t.Name), s.oneLine(name)))
			continue
		case seen[name]:
			skipped = append(skipped, name+": listed twice")
			continue
		}
		seen[name] = true
		tool, why := s.newTool(opts, t)
		switch {
		case why != "":
			skipped = append(skipped, name+": "+why)
		case total+tool.size > maxListBytes:
			skipped = append(skipped, fmt.Sprintf("%s: its definition (%s) would take the server's tools past %d KB, the most one server may offer", name, byteSize(tool.size), maxListBytes/1024))
		default:
			total += tool.size
			offered[t.Name] = true
			kept = append(kept, tool)
		}
	}
	s.mu.Lock()
	s.tools, s.offered, s.skipped = kept, offered, skipped
	s.mu.Unlock()
	s.changed()
}

func (s *server) setState(st State, reason string, retryIn time.Duration) {
	s.mu.Lock()
	s.state = st
	if reason != "" || st == StateReady {
		s.reason = reason
	}
	s.retryAt = time.Now().Add(retryIn)
	first := !s.startDone && st != StateStarting
	if first {
		s.startDone = true
	}
	s.mu.Unlock()
	if first {
		close(s.started)
	}
	s.changed()
}

func (s *server) setReady(sess *sdk.ClientSession) {
	s.mu.Lock()
	s.sess, s.brokenBy = sess, ""
	s.mu.Unlock()
	if sess != nil {
		s.setState(StateReady, "", 0)
	}
}

// broken ends sess, if it is still the server's session, so that the server
// is reached anew; a reason becomes the status's reason.
func (s *server) broken(sess *sdk.ClientSession, reason string) {
	s.mu.Lock()
	current := s.sess == sess
	if current {
		s.sess = nil
		if reason != "" {
			s.brokenBy = "a call could not reach it: " + reason
		}
	}
	s.mu.Unlock()
	if current {
		// Close may wait for the server (an HTTP DELETE): not on the caller's time.
		s.hub.wg.Go(func() { sess.Close() })
	}
}

func (s *server) changed() {
	if f := s.hub.opts.OnChange; f != nil {
		f()
	}
}

func (s *server) info() ServerInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	info := ServerInfo{Name: s.cfg.Name, Source: s.source(), State: s.state, Reason: s.reason, Skipped: slices.Clone(s.skipped)}
	if s.state == StateRestarting {
		info.RetryIn = max(time.Until(s.retryAt), 0)
	}
	for _, t := range s.tools {
		info.Tools = append(info.Tools, t.name)
	}
	return info
}

func (s *server) toolList() []*Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools
}

// ready returns the session to call tool on, or the error the model gets.
func (s *server) ready(tool string) (*sdk.ClientSession, error) {
	s.mu.Lock()
	sess, offered := s.sess, s.offered[tool]
	s.mu.Unlock()
	if sess == nil {
		info := s.info()
		var msg string
		switch info.State {
		case StateRestarting:
			msg = fmt.Sprintf("the MCP server %s is not running (restarting in %d s): %s", s.cfg.Name, int((info.RetryIn+time.Second-1)/time.Second), info.Reason)
		case StateFailed:
			msg = fmt.Sprintf("the MCP server %s is not running (failed; it will not be restarted): %s", s.cfg.Name, info.Reason)
		default:
			msg = fmt.Sprintf("the MCP server %s is not running yet (starting); try again in a moment", s.cfg.Name)
			if info.Reason != "" {
				msg += "; it last stopped because " + info.Reason
			}
		}
		return nil, errorf(ErrNotRunning, "%s", msg)
	}
	if !offered {
		return nil, errorf(ErrUnknownTool, "the MCP server %s no longer offers the tool %s", s.cfg.Name, tool)
	}
	return sess, nil
}

// clean sanitizes outside text per the options.
func (o Options) clean(text string) string {
	if o.SanitizeOff {
		return strings.ToValidUTF8(text, "\uFFFD")
	}
	out, _ := sanitize.Sanitize(text, sanitize.Options{Mild: o.Mild, NoClassifier: o.NoClassifier, Datamark: o.Datamark})
	return out
}

// oneLine makes outside text (an error, a name) fit a status line: URLs
// without their query strings and userinfo (see redactURLs), other secrets
// masked (a token in the server's last output, an api_key=… it quotes),
// sanitized, on one line, at most maxReason characters. Masking comes before
// the cut, which could leave half a key unrecognised.
func (s *server) oneLine(text string) string {
	text = strings.Join(strings.Fields(s.hub.options().clean(secret.Mask(redactURLs(text)))), " ")
	if utf8.RuneCountInString(text) > maxReason {
		text = string([]rune(text)[:maxReason-1]) + "…"
	}
	return text
}

// A tail keeps the end of a server's stderr and logs it line by line.
type tail struct {
	log func(line string)

	mu      sync.Mutex
	partial []byte
	last    string
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.partial = append(t.partial, p...)
	for {
		i := slices.Index(t.partial, '\n')
		if i < 0 {
			break
		}
		t.line(string(t.partial[:i]))
		t.partial = t.partial[i+1:]
	}
	if len(t.partial) > 4096 { // a line without end is still worth a look
		t.line(string(t.partial))
		t.partial = t.partial[:0]
	}
	return len(p), nil
}

func (t *tail) line(l string) {
	if l = strings.TrimSpace(l); l != "" {
		t.last = l
		t.log(l)
	}
}

func (t *tail) reset() {
	t.mu.Lock()
	t.partial, t.last = nil, ""
	t.mu.Unlock()
}

func (t *tail) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if l := strings.TrimSpace(string(t.partial)); l != "" {
		return l
	}
	return t.last
}
