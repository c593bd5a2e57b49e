package server

import (
	"reflect"
	"sync"
	"time"

	"github.com/ailab/ai-lab/config"
	"github.com/ailab/ai-lab/tools"
	"github.com/ailab/ai-lab/websearch"
)

// NewToolbox returns the Toolbox ai-server uses: the file tools on tools.workspace
// and the web tools on web.* and sanitize.*. It builds anew only when one of those
// sections changed, so a preset change keeps the web caches warm. A replaced
// workspace is not closed: a request may still be using it, and it is one handle.
func NewToolbox() Toolbox {
	var mu sync.Mutex
	var last struct {
		tools    config.ToolsConfig
		web      config.WebConfig
		sanitize config.SanitizeConfig
		reg      *tools.Registry
	}
	return func(cfg *config.Config) (*tools.Registry, error) {
		mu.Lock()
		defer mu.Unlock()
		if last.reg != nil && reflect.DeepEqual(last.tools, cfg.Tools) && reflect.DeepEqual(last.web, cfg.Web) && last.sanitize == cfg.Sanitize {
			return last.reg, nil
		}
		ws, err := tools.OpenWorkspace(cfg.Tools.Workspace)
		if err != nil {
			return nil, err
		}
		all := append(tools.FileTools(ws), WebTools(cfg)...)
		reg, err := tools.NewRegistry(all...)
		if err != nil {
			ws.Close()
			return nil, err
		}
		last.tools, last.web, last.sanitize, last.reg = cfg.Tools, cfg.Web, cfg.Sanitize, reg
		return reg, nil
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
