package server

import (
	"encoding/json"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/ailab/ai-lab/config"
	"github.com/ailab/ai-lab/llm"
	"github.com/ailab/ai-lab/tools"
	"github.com/ailab/ai-lab/websearch"
)

// NewToolbox returns the Toolbox ai-server uses: the file tools on tools.workspace,
// the web tools on web.* and sanitize.*, and the outside tools extra lists (the
// MCP servers' tools; nil: none). The built-in tools are built anew only when
// one of those sections changed, so a preset change keeps the web caches warm;
// the closer it returns with a new workspace closes it, and the server calls it
// once no request uses that workspace any more.
func NewToolbox(extra func() []tools.Tool) Toolbox {
	var mu sync.Mutex
	var last struct {
		tools    config.ToolsConfig
		web      config.WebConfig
		sanitize config.SanitizeConfig
		builtin  []tools.Tool
	}
	return func(cfg *config.Config) (*tools.Registry, func() error, error) {
		mu.Lock()
		defer mu.Unlock()
		var closer func() error
		if last.builtin == nil || !reflect.DeepEqual(last.tools, cfg.Tools) || !reflect.DeepEqual(last.web, cfg.Web) || last.sanitize != cfg.Sanitize {
			ws, err := tools.OpenWorkspace(cfg.Tools.Workspace)
			if err != nil {
				return nil, nil, err
			}
			last.tools, last.web, last.sanitize = cfg.Tools, cfg.Web, cfg.Sanitize
			last.builtin = append(tools.FileTools(ws), WebTools(cfg)...)
			closer = ws.Close
		}
		all := slices.Clone(last.builtin)
		if extra != nil {
			all = append(all, extra()...)
		}
		reg, err := tools.NewRegistry(all...)
		if err != nil {
			if closer != nil {
				closer()
				last.builtin = nil
			}
			return nil, nil, err
		}
		return reg, closer, nil
	}
}

// A toolset is one registry in use, with what every model round needs of it
// computed once, and a count of the requests using it so the workspace it holds
// is closed when it has been replaced and the last of them ends.
type toolset struct {
	reg   *tools.Registry
	names []string
	specs []llm.ToolSpec
	// identities are the registered tools' identity records, by name, for
	// the reply validator.
	identities map[string]tools.Identity
	// defsSize is the characters the tool definitions take in every model
	// request (names, descriptions, schemas): they count against
	// llm.context_chars like the conversation does.
	defsSize int
	close    func() error // nil: nothing to close (shared with the previous toolset)

	mu      sync.Mutex
	users   int
	retired bool
}

func newToolset(reg *tools.Registry, closer func() error) *toolset {
	ts := &toolset{reg: reg, names: reg.Names(), close: closer, identities: map[string]tools.Identity{}}
	for _, name := range ts.names {
		t, _ := reg.Get(name)
		ts.identities[name] = tools.IdentityOf(t)
		schema, _ := json.Marshal(t.Parameters())
		ts.defsSize += len(name) + len(t.Description()) + len(schema)
	}
	for _, sp := range reg.Specs() {
		ts.specs = append(ts.specs, llm.ToolSpec{Name: sp.Name, Description: sp.Description, Parameters: sp.Parameters})
	}
	return ts
}

// use counts one more request on the toolset; it reports false when the
// toolset was already retired and closed.
func (ts *toolset) use() bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.retired && ts.users == 0 {
		return false
	}
	ts.users++
	return true
}

// done ends one request's use; the last use of a retired toolset closes it.
func (ts *toolset) done() {
	ts.mu.Lock()
	ts.users--
	last := ts.retired && ts.users == 0
	ts.mu.Unlock()
	if last {
		ts.closeNow()
	}
}

// takeClose hands the toolset's closer to its successor, which keeps using
// the same workspace: retiring this toolset must not close it.
func (ts *toolset) takeClose() func() error {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	c := ts.close
	ts.close = nil
	return c
}

// retire marks the toolset replaced; it is closed now if no request uses it.
func (ts *toolset) retire() {
	ts.mu.Lock()
	ts.retired = true
	idle := ts.users == 0
	ts.mu.Unlock()
	if idle {
		ts.closeNow()
	}
}

func (ts *toolset) closeNow() {
	if c := ts.takeClose(); c != nil {
		_ = c()
	}
}

// WebTools builds web_search and read_webpage from cfg's web.* and sanitize.* keys.
func WebTools(cfg *config.Config) []tools.Tool {
	w := cfg.Web
	opts := tools.WebOptions{MaxResults: w.MaxResults, MaxChars: w.MaxChars, SanitizeOff: !cfg.Sanitize.Enabled, Mild: !cfg.Sanitize.Aggressive,
		NoClassifier: !cfg.Sanitize.Classifier, Datamark: cfg.Sanitize.Datamark}
	searcher := websearch.NewSearcher(websearch.SearchOptions{
		Endpoint:     w.SearchEndpoint,
		LiteEndpoint: w.SearchLiteEndpoint,
		Region:       w.Region,
		SafeSearch:   w.SafeSearch,
		MaxResults:   w.MaxResults,
		CacheTTL:     offWhenZero(w.CacheTTL),
		Timeout:      w.FetchTimeout,
		MinInterval:  offWhenZero(w.SearchInterval),
	})
	fetcher := websearch.NewFetcher(websearch.FetchOptions{
		Timeout:      w.FetchTimeout,
		MaxPageBytes: w.MaxPageBytes,
		CacheTTL:     offWhenZero(w.CacheTTL),
		AllowPrivate: w.AllowPrivateAddresses,
		AllowDomains: w.AllowDomains,
		BlockDomains: w.BlockDomains,
	})
	return []tools.Tool{tools.NewWebSearch(searcher, opts), tools.NewReadWebpage(fetcher, opts)}
}

// offWhenZero maps config's 0 ("off", as config.yaml documents) to websearch's
// negative "off"; websearch reads 0 as "use the default".
func offWhenZero(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}
