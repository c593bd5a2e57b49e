package websearch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Default endpoints and settings (CONTRACT section 2, web.*).
const (
	DefaultSearchEndpoint     = "https://html.duckduckgo.com/html/"
	DefaultSearchLiteEndpoint = "https://lite.duckduckgo.com/lite/"
	DefaultRegion             = "wt-wt"
	DefaultSafeSearch         = "moderate"
	DefaultMaxResults         = 5
	DefaultCacheTTL           = 15 * time.Minute
	DefaultMinInterval        = time.Second
	DefaultRetries            = 2
	// MaxResultsLimit is the most results one search returns.
	MaxResultsLimit = 10
)

// BrowserUserAgent is sent with every request: DuckDuckGo's HTML endpoints answer
// unknown clients with the bot check more often.
const BrowserUserAgent = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

// maxSearchPageBytes bounds how much of a DuckDuckGo answer is read; real pages are ~40 KB.
const maxSearchPageBytes = 2 << 20

// Errors a search can end with; test them with errors.Is. The text the user and
// the model see comes from the returned error, which wraps one of these.
var (
	// ErrNoResults means DuckDuckGo answered with a results page that holds no results.
	ErrNoResults = errors.New("no results")
	// ErrRateLimited means DuckDuckGo refused the request or showed its bot check.
	ErrRateLimited = errors.New("DuckDuckGo is rate limiting this address; try again in a minute")
	// ErrUnreadable means the answer was not a results page (JavaScript page, changed layout).
	ErrUnreadable = errors.New("could not read DuckDuckGo's answer")
	// ErrUnreachable means DuckDuckGo could not be reached at all (network, DNS, timeout).
	ErrUnreachable = errors.New("could not reach DuckDuckGo")
	// ErrEmptyQuery means the query had no words in it.
	ErrEmptyQuery = errors.New("the search query is empty; give a few words to search for")
)

// A searchError carries a full sentence for people while errors.Is sees its kind.
type searchError struct {
	kind error
	msg  string
}

func (e *searchError) Error() string { return e.msg }
func (e *searchError) Unwrap() error { return e.kind }

// SearchOptions configure a Searcher. Zero fields take the defaults above.
type SearchOptions struct {
	Endpoint     string        // web.search_endpoint
	LiteEndpoint string        // web.search_lite_endpoint; "-" disables the fallback
	Region       string        // web.region, sent as kl
	SafeSearch   string        // web.safesearch: strict, moderate or off
	TimeLimit    string        // optional df: d, w, m or y
	MaxResults   int           // web.max_results, used when Search is given max <= 0
	CacheTTL     time.Duration // web.cache_ttl; negative disables the cache
	CacheBytes   int64         // bound on the cached answers' memory; 0 means DefaultSearchCacheBytes, negative disables the cache
	Timeout      time.Duration // per request; default 10 s
	MinInterval  time.Duration // least time between two requests; negative disables
	Retries      int           // extra tries after a transient network error; negative disables

	// HTTPClient replaces the default client (tests). It must not have a cookie jar.
	HTTPClient *http.Client
	// Now and Sleep replace the clock (tests). Sleep must return early with
	// ctx.Err() when ctx ends.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

// Results is the answer to one search.
type Results struct {
	Query   string   `json:"query"`
	Results []Result `json:"results"`
	// Endpoint is "html" or "lite": which layout the results came from.
	Endpoint string `json:"-"`
}

// A Searcher asks DuckDuckGo's HTML endpoints. It is safe for concurrent use;
// all its requests share one pacing clock so the process stays polite.
type Searcher struct {
	opts   SearchOptions
	client *http.Client
	cache  *byteCache[Results]

	mu   sync.Mutex
	next time.Time // earliest time the next request may start
}

// NewSearcher returns a Searcher with opts, defaults filled in.
func NewSearcher(opts SearchOptions) *Searcher {
	if opts.Endpoint == "" {
		opts.Endpoint = DefaultSearchEndpoint
	}
	if opts.LiteEndpoint == "" {
		opts.LiteEndpoint = DefaultSearchLiteEndpoint
	}
	if opts.Region == "" {
		opts.Region = DefaultRegion
	}
	if opts.SafeSearch == "" {
		opts.SafeSearch = DefaultSafeSearch
	}
	if opts.MaxResults <= 0 {
		opts.MaxResults = DefaultMaxResults
	}
	if opts.CacheTTL == 0 {
		opts.CacheTTL = DefaultCacheTTL
	}
	if opts.CacheBytes == 0 {
		opts.CacheBytes = DefaultSearchCacheBytes
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.MinInterval == 0 {
		opts.MinInterval = DefaultMinInterval
	}
	if opts.Retries == 0 {
		opts.Retries = DefaultRetries
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Sleep == nil {
		opts.Sleep = sleepCtx
	}
	client := opts.HTTPClient
	if client == nil {
		// No Jar: nothing DuckDuckGo sets for one user's search reaches another's.
		client = &http.Client{Timeout: opts.Timeout}
	}
	return &Searcher{opts: opts, client: client, cache: newByteCache(opts.CacheTTL, opts.CacheBytes, resultsSize, opts.Now)}
}

// ClampMaxResults maps a requested count to 1..MaxResultsLimit; n <= 0 means def.
func ClampMaxResults(n, def int) int {
	if n <= 0 {
		n = def
	}
	return max(1, min(n, MaxResultsLimit))
}

// Search returns up to count organic results for query (count is clamped to
// 1..10; 0 means the configured default). It tries the html endpoint and falls back to
// the lite one unless DuckDuckGo is rate limiting. Answers are cached within
// SearchOptions.CacheBytes and shared, so change their Results only in a copy.
func (s *Searcher) Search(ctx context.Context, query string, count int) (Results, error) {
	query = strings.Join(strings.Fields(query), " ")
	if query == "" {
		return Results{}, ErrEmptyQuery
	}
	count = ClampMaxResults(count, s.opts.MaxResults)
	key := strings.Join([]string{query, s.opts.Region, s.opts.SafeSearch, s.opts.TimeLimit, strconv.Itoa(count)}, "\x00")
	if r, ok := s.cache.get(key); ok {
		return r, nil
	}

	results, err := s.searchEndpoint(ctx, s.opts.Endpoint, query, parseHTMLPage)
	endpoint := "html"
	if err != nil && s.opts.LiteEndpoint != "-" && !errors.Is(err, ErrRateLimited) && !errors.Is(err, ErrNoResults) && ctx.Err() == nil {
		var liteErr error
		results, liteErr = s.searchEndpoint(ctx, s.opts.LiteEndpoint, query, parseLitePage)
		endpoint = "lite"
		if liteErr == nil || errors.Is(liteErr, ErrRateLimited) || errors.Is(liteErr, ErrNoResults) {
			err = liteErr
		}
		// Otherwise both failed; the html endpoint's reason is the more useful one.
	}
	if err != nil {
		return Results{}, err
	}
	if len(results) > count {
		results = results[:count]
	}
	r := Results{Query: query, Results: results, Endpoint: endpoint}
	s.cache.put(key, r)
	return r, nil
}

type pageParser func([]byte) ([]Result, pageKind)

// searchEndpoint asks one endpoint, retrying transient network errors only.
func (s *Searcher) searchEndpoint(ctx context.Context, endpoint, query string, parse pageParser) ([]Result, error) {
	var lastErr error
	for attempt := 0; attempt <= max(s.opts.Retries, 0); attempt++ {
		if attempt > 0 {
			if err := s.opts.Sleep(ctx, backoff(attempt)); err != nil {
				return nil, unreachable(err)
			}
		}
		status, body, err := s.post(ctx, endpoint, query)
		if err != nil {
			lastErr = unreachable(err)
			if ctx.Err() != nil || !transient(err) {
				return nil, lastErr
			}
			continue
		}
		return classify(status, body, query, parse)
	}
	return nil, lastErr
}

// transient reports whether a failed request may succeed if tried again soon. A name
// that does not exist or a certificate that does not verify will not change in a
// second, so retrying them only makes the user wait.
func transient(err error) bool {
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	return !(errors.As(err, &dnsErr) && dnsErr.IsNotFound) && !errors.As(err, &certErr)
}

func unreachable(err error) error {
	return &searchError{kind: ErrUnreachable, msg: fmt.Sprintf("could not reach DuckDuckGo (%s); check the network connection and try again", shortNetErr(err))}
}

// classify turns one HTTP answer into results or the fitting error.
func classify(status int, body []byte, query string, parse pageParser) ([]Result, error) {
	switch status {
	case http.StatusAccepted, http.StatusForbidden, http.StatusTeapot, http.StatusTooManyRequests:
		return nil, ErrRateLimited
	case http.StatusOK:
	default:
		return nil, &searchError{kind: ErrUnreadable, msg: fmt.Sprintf("could not read DuckDuckGo's answer (HTTP %d %s); the service may be having trouble, try again later", status, http.StatusText(status))}
	}
	results, kind := parse(body)
	switch kind {
	case pageResults:
		return results, nil
	case pageNoResults:
		return nil, &searchError{kind: ErrNoResults, msg: fmt.Sprintf("no results for %q; try fewer or different words", query)}
	case pageBotCheck:
		return nil, ErrRateLimited
	default:
		return nil, &searchError{kind: ErrUnreadable, msg: "could not read DuckDuckGo's answer (HTTP 200, not a results page); its layout may have changed or it wants JavaScript, so check the search endpoint in config"}
	}
}

func (s *Searcher) post(ctx context.Context, endpoint, query string) (int, []byte, error) {
	if err := s.pace(ctx); err != nil {
		return 0, nil, err
	}
	form := url.Values{"q": {query}, "b": {""}, "kl": {s.opts.Region}}
	if kp := safeSearchParam(s.opts.SafeSearch); kp != "" {
		form.Set("kp", kp)
	}
	if s.opts.TimeLimit != "" {
		form.Set("df", s.opts.TimeLimit)
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("User-Agent", BrowserUserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8")
	req.Header.Set("Accept-Language", "en-US,en;q=0.9")
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxSearchPageBytes))
	if err != nil {
		return 0, nil, err
	}
	return resp.StatusCode, body, nil
}

// pace waits until MinInterval has passed since the previous request's start.
// The slot is reserved under the lock, so concurrent searches queue up.
func (s *Searcher) pace(ctx context.Context) error {
	if s.opts.MinInterval < 0 {
		return nil
	}
	s.mu.Lock()
	now := s.opts.Now()
	start := now
	if s.next.After(now) {
		start = s.next
	}
	s.next = start.Add(s.opts.MinInterval)
	s.mu.Unlock()
	if wait := start.Sub(now); wait > 0 {
		return s.opts.Sleep(ctx, wait)
	}
	return nil
}

func safeSearchParam(level string) string {
	switch strings.ToLower(level) {
	case "strict":
		return "1"
	case "off":
		return "-2"
	case "moderate":
		return "-1"
	}
	return ""
}

// backoff grows from ~0.5 s with ±50% jitter so retries from many users spread out.
func backoff(attempt int) time.Duration {
	base := 500 * time.Millisecond << (attempt - 1)
	return base/2 + rand.N(base)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
