package server

import (
	"reflect"
	"sync"
	"time"

	"github.com/ailab/ai-lab/config"
	"github.com/ailab/ai-lab/llm"
	"github.com/ailab/ai-lab/tools"
	"github.com/ailab/ai-lab/websearch"
)

// NewToolbox returns the Toolbox ai-server uses: the file tools on tools.workspace
// and the web tools on web.* and sanitize.*. It builds anew only when one of those
// sections changed, so a preset change keeps the web caches warm. The closer it
// returns with a new registry closes that registry's workspace; the server calls
// it once no request uses the registry any more.
func NewToolbox() Toolbox {
	var mu sync.Mutex
	var last struct {
		tools    config.ToolsConfig
		web      config.WebConfig
		sanitize config.SanitizeConfig
		reg      *tools.Registry
	}
	return func(cfg *config.Config) (*tools.Registry, func() error, error) {
		mu.Lock()
		defer mu.Unlock()
		if last.reg != nil && reflect.DeepEqual(last.tools, cfg.Tools) && reflect.DeepEqual(last.web, cfg.Web) && last.sanitize == cfg.Sanitize {
			return last.reg, nil, nil
		}
		ws, err := tools.OpenWorkspace(cfg.Tools.Workspace)
		if err != nil {
			return nil, nil, err
		}
		all := append(tools.FileTools(ws), WebTools(cfg)...)
		reg, err := tools.NewRegistry(all...)
		if err != nil {
			ws.Close()
			return nil, nil, err
		}
		last.tools, last.web, last.sanitize, last.reg = cfg.Tools, cfg.Web, cfg.Sanitize, reg
		return reg, ws.Close, nil
	}
}

// A toolset is one registry in use, with what every model round needs of it
// computed once, and a count of the requests using it so the workspace it holds
// is closed when it has been replaced and the last of them ends.
type toolset struct {
	reg   *tools.Registry
	names []string
	specs []llm.ToolSpec
	close func() error // nil: nothing to close (shared with the previous toolset)

	mu      sync.Mutex
	users   int
	retired bool
}

func newToolset(reg *tools.Registry, closer func() error) *toolset {
	ts := &toolset{reg: reg, names: reg.Names(), close: closer}
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
	if ts.close != nil {
		_ = ts.close()
	}
}

// WebTools builds web_search and read_webpage from cfg's web.* and sanitize.* keys.
func WebTools(cfg *config.Config) []tools.Tool {
	w := cfg.Web
	opts := tools.WebOptions{MaxResults: w.MaxResults, MaxChars: w.MaxChars, SanitizeOff: !cfg.Sanitize.Enabled, Mild: !cfg.Sanitize.Aggressive}
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
