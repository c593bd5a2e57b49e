package websearch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"code.dny.dev/ssrf"
)

// Fetch defaults (CONTRACT section 2, web.*).
const (
	DefaultFetchTimeout = 10 * time.Second
	DefaultMaxPageBytes = 5 << 20
	// MaxRedirects is how many redirects one fetch follows; each is checked again.
	MaxRedirects = 5
)

// Errors a fetch can end with; test them with errors.Is. The returned error's
// text is a full sentence naming the URL.
var (
	// ErrBadURL means the address is not an absolute http or https URL.
	ErrBadURL = errors.New("not an http or https URL")
	// ErrBlocked means the address (or a redirect) leads to a private or local
	// network address, or to a domain the configuration does not allow.
	ErrBlocked = errors.New("address not allowed")
	// ErrHTTPStatus means the server answered with an HTTP error status.
	ErrHTTPStatus = errors.New("HTTP error status")
	// ErrDNS means the host name could not be resolved.
	ErrDNS = errors.New("host not found")
	// ErrTLS means the secure connection could not be set up.
	ErrTLS = errors.New("TLS failure")
	// ErrTimeout means the page did not arrive within the fetch timeout.
	ErrTimeout = errors.New("timed out")
	// ErrTooManyRedirects means the page redirected more than MaxRedirects times.
	ErrTooManyRedirects = errors.New("too many redirects")
	// ErrUnsupportedContent means the page is a PDF, an image or another binary format.
	ErrUnsupportedContent = errors.New("unsupported content type")
	// ErrJavaScriptOnly means the page shows almost no text without JavaScript.
	ErrJavaScriptOnly = errors.New("the page shows almost no text without JavaScript")
	// ErrNoText means the page has no readable text at all.
	ErrNoText = errors.New("no readable text")
	// ErrFetchFailed is any other failure to get the page.
	ErrFetchFailed = errors.New("fetch failed")
)

// FetchOptions configure a Fetcher. Zero fields take the defaults above.
type FetchOptions struct {
	Timeout      time.Duration // web.fetch_timeout
	MaxPageBytes int64         // web.max_page_bytes: the body is read up to this size, no further
	CacheTTL     time.Duration // web.cache_ttl; negative disables the cache
	// CacheBytes bounds the memory the cached pages hold, least recently used
	// evicted first; 0 means DefaultPageCacheBytes, negative disables the cache.
	CacheBytes int64
	// AllowPrivate lets fetches reach loopback, private and other local
	// addresses (web.allow_private_addresses).
	AllowPrivate bool
	// AllowDomains, when not empty, are the only domains (and their subdomains)
	// that may be fetched (web.allow_domains).
	AllowDomains []string
	// BlockDomains are never fetched, nor their subdomains (web.block_domains).
	BlockDomains []string
	// Now replaces the clock (tests).
	Now func() time.Time

	// allowPrefixes lets tests reach one loopback test server while every other
	// private address stays refused.
	allowPrefixes []netip.Prefix
}

// A Page is what read_webpage gets from one URL.
type Page struct {
	URL         string // as asked for
	FinalURL    string // after redirects
	Title       string
	Text        string // the main content as plain markdown-like text
	ContentType string // media type the server declared (or that was sniffed)
	// BodyTruncated says the body was longer than MaxPageBytes and only that
	// much was read; Notes says so in words.
	BodyTruncated bool
	Notes         []string
}

// A fetchError carries a full sentence for people while errors.Is sees its kind.
type fetchError struct {
	kind  error
	msg   string
	cause error
}

func (e *fetchError) Error() string { return e.msg }
func (e *fetchError) Unwrap() []error {
	if e.cause != nil {
		return []error{e.kind, e.cause}
	}
	return []error{e.kind}
}

func fetchErr(kind error, format string, a ...any) error {
	return &fetchError{kind: kind, msg: fmt.Sprintf(format, a...)}
}

// A Fetcher gets web pages through an SSRF-safe client and extracts their text.
// It is safe for concurrent use.
type Fetcher struct {
	opts   FetchOptions
	client *http.Client
	cache  *byteCache[Page]
}

// NewFetcher returns a Fetcher with opts, defaults filled in.
func NewFetcher(opts FetchOptions) *Fetcher {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultFetchTimeout
	}
	if opts.MaxPageBytes <= 0 {
		opts.MaxPageBytes = DefaultMaxPageBytes
	}
	if opts.CacheTTL == 0 {
		opts.CacheTTL = DefaultCacheTTL
	}
	if opts.CacheBytes == 0 {
		opts.CacheBytes = DefaultPageCacheBytes
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	f := &Fetcher{opts: opts, cache: newByteCache(opts.CacheTTL, opts.CacheBytes, pageSize, opts.Now)}
	dialer := &net.Dialer{Timeout: opts.Timeout, KeepAlive: 30 * time.Second}
	if !opts.AllowPrivate {
		// The check runs on the address actually being dialled, after DNS, so a
		// name that resolves (or re-resolves) to a private address is refused.
		dialer.Control = ssrf.New(
			// Any port: pages on :8080 are ordinary; the address is what matters.
			ssrf.WithAnyPort(),
			ssrf.WithAllowedV4Prefixes(v4Only(opts.allowPrefixes)...),
			ssrf.WithAllowedV6Prefixes(v6Only(opts.allowPrefixes)...),
		).Safe
	}
	transport := &http.Transport{
		// No proxy: a proxy would be dialled instead of the page's address and
		// defeat the check above.
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          20,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   opts.Timeout,
		ResponseHeaderTimeout: opts.Timeout,
	}
	f.client = &http.Client{
		Transport: transport,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > MaxRedirects {
				return fetchErr(ErrTooManyRedirects, "%s redirected more than %d times; try the final address directly", via[0].URL, MaxRedirects)
			}
			return f.checkURL(req.URL)
		},
	}
	return f
}

func v4Only(ps []netip.Prefix) []netip.Prefix {
	var out []netip.Prefix
	for _, p := range ps {
		if p.Addr().Is4() {
			out = append(out, p)
		}
	}
	return out
}

func v6Only(ps []netip.Prefix) []netip.Prefix {
	var out []netip.Prefix
	for _, p := range ps {
		if p.Addr().Is6() {
			out = append(out, p)
		}
	}
	return out
}

// checkURL refuses schemes other than http(s) and domains the lists rule out.
func (f *Fetcher) checkURL(u *url.URL) error {
	shown := plainURL(u.String())
	if (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return fetchErr(ErrBadURL, "%s is not an http or https URL; give a full address such as https://example.com/page", shown)
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	for _, d := range f.opts.BlockDomains {
		if domainMatches(host, d) {
			return fetchErr(ErrBlocked, "%s is on a blocked domain (web.block_domains); choose another source", shown)
		}
	}
	if len(f.opts.AllowDomains) > 0 {
		for _, d := range f.opts.AllowDomains {
			if domainMatches(host, d) {
				return nil
			}
		}
		return fetchErr(ErrBlocked, "%s is not on an allowed domain (web.allow_domains); only %s may be read", shown, strings.Join(f.opts.AllowDomains, ", "))
	}
	return nil
}

// domainMatches reports whether host is domain or one of its subdomains.
func domainMatches(host, domain string) bool {
	domain = strings.TrimPrefix(strings.TrimSuffix(strings.ToLower(strings.TrimSpace(domain)), "."), ".")
	return domain != "" && (host == domain || strings.HasSuffix(host, "."+domain))
}

// Fetch gets rawURL and returns its main text. Answers are cached by URL,
// within FetchOptions.CacheBytes; a cached Page is shared by every caller that
// gets it, so change its Notes only in a copy.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string) (Page, error) {
	rawURL = strings.TrimSpace(rawURL)
	u, err := url.Parse(rawURL)
	if err != nil || !u.IsAbs() {
		return Page{}, fetchErr(ErrBadURL, "%q is not an http or https URL; give a full address such as https://example.com/page", rawURL)
	}
	if err := f.checkURL(u); err != nil {
		return Page{}, err
	}
	if p, ok := f.cache.get(rawURL); ok {
		return p, nil
	}
	p, err := f.fetch(ctx, u)
	if err != nil {
		return Page{}, err
	}
	p.URL = rawURL
	f.cache.put(rawURL, p)
	return p, nil
}

func (f *Fetcher) fetch(ctx context.Context, u *url.URL) (Page, error) {
	ctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Page{}, fetchErr(ErrBadURL, "%s is not a usable URL; check it and try again", u)
	}
	req.Header.Set("User-Agent", BrowserUserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,text/markdown;q=0.9,application/json;q=0.8,*/*;q=0.5")
	req.Header.Set("Accept-Language", "en-US,en;q=0.9")
	resp, err := f.client.Do(req)
	if err != nil {
		return Page{}, f.describe(u, err)
	}
	defer resp.Body.Close()
	final := resp.Request.URL
	// A redirect target is chosen by the site; shown is how it appears in the
	// result and in error sentences (see plainURL).
	shown := plainURL(final.String())
	if resp.StatusCode >= 400 {
		return Page{}, fetchErr(ErrHTTPStatus, "%s answered HTTP %d %s; check the address or try another page", shown, resp.StatusCode, http.StatusText(resp.StatusCode))
	}

	body, err := io.ReadAll(io.LimitReader(resp.Body, f.opts.MaxPageBytes+1))
	if err != nil {
		return Page{}, f.describe(final, err)
	}
	p := Page{FinalURL: shown}
	if int64(len(body)) > f.opts.MaxPageBytes {
		body = body[:f.opts.MaxPageBytes]
		p.BodyTruncated = true
		p.Notes = append(p.Notes, fmt.Sprintf("the page is larger than %d bytes; only the first %d bytes were read", f.opts.MaxPageBytes, f.opts.MaxPageBytes))
	}

	declared := resp.Header.Get("Content-Type")
	media, _, _ := mime.ParseMediaType(declared)
	if media == "" {
		// Only the sniffed media type is kept: DetectContentType always claims
		// charset=utf-8 for text, which would hide a <meta charset> from toUTF8.
		media, _, _ = mime.ParseMediaType(http.DetectContentType(body))
		declared = media
	}
	p.ContentType = media
	kind := contentKind(media)
	if kind == kindUnsupported {
		return Page{}, fetchErr(ErrUnsupportedContent, "unsupported content type %s at %s; read_webpage reads HTML pages, plain text, markdown and JSON only", media, shown)
	}

	text := toUTF8(body, declared)
	if kind == kindText {
		p.Text = strings.TrimSpace(text)
		if p.Text == "" {
			return Page{}, fetchErr(ErrNoText, "%s is empty; try another page", shown)
		}
		return p, nil
	}
	a := extractArticle([]byte(text), final)
	if a.isJavaScriptShell() {
		return Page{}, fetchErr(ErrJavaScriptOnly, "%s: the page shows almost no text without JavaScript; try another source for the same information", shown)
	}
	if a.text == "" {
		return Page{}, fetchErr(ErrNoText, "%s has no readable text; try another page", shown)
	}
	p.Title, p.Text = a.title, a.text
	return p, nil
}

type bodyKind int

const (
	kindUnsupported bodyKind = iota
	kindHTML
	kindText
)

func contentKind(media string) bodyKind {
	switch {
	case media == "text/html" || media == "application/xhtml+xml":
		return kindHTML
	case strings.HasPrefix(media, "text/"),
		media == "application/json", strings.HasSuffix(media, "+json"),
		media == "application/xml", strings.HasSuffix(media, "+xml"),
		media == "application/markdown", media == "application/x-ndjson":
		return kindText
	}
	return kindUnsupported
}

// describe turns a transport error into one sentence naming the URL.
func (f *Fetcher) describe(u *url.URL, err error) error {
	var fe *fetchError
	if errors.As(err, &fe) {
		return fe
	}
	shown := plainURL(u.String())
	var (
		dnsErr  *net.DNSError
		certErr *tls.CertificateVerificationError
		recErr  tls.RecordHeaderError
		unkAuth x509.UnknownAuthorityError
		hostErr x509.HostnameError
		invErr  x509.CertificateInvalidError
		alert   tls.AlertError
	)
	switch {
	case errors.Is(err, ssrf.ErrProhibitedIP), errors.Is(err, ssrf.ErrProhibitedNetwork), errors.Is(err, ssrf.ErrProhibitedPort):
		return &fetchError{kind: ErrBlocked, cause: err, msg: fmt.Sprintf("refused to fetch %s: it leads to a private or local network address, which read_webpage may not reach (web.allow_private_addresses is off)", shown)}
	case errors.As(err, &dnsErr):
		return &fetchError{kind: ErrDNS, cause: err, msg: fmt.Sprintf("could not find the host of %s (DNS lookup failed); check the address for typos", shown)}
	case errors.As(err, &certErr), errors.As(err, &recErr), errors.As(err, &unkAuth), errors.As(err, &hostErr), errors.As(err, &invErr), errors.As(err, &alert):
		return &fetchError{kind: ErrTLS, cause: err, msg: fmt.Sprintf("the secure connection to %s failed (%s); the site's certificate or TLS setup is broken", shown, shortNetErr(err))}
	case errors.Is(err, context.DeadlineExceeded), isTimeout(err):
		return &fetchError{kind: ErrTimeout, cause: err, msg: fmt.Sprintf("%s did not answer within %s; try again later or another page", shown, f.opts.Timeout)}
	case errors.Is(err, context.Canceled):
		return &fetchError{kind: ErrFetchFailed, cause: err, msg: fmt.Sprintf("fetching %s was cancelled", shown)}
	}
	return &fetchError{kind: ErrFetchFailed, cause: err, msg: fmt.Sprintf("could not fetch %s (%s); check the address or try again later", shown, shortNetErr(err))}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// shortNetErr is the innermost cause of a transport error, without the
// repeated "Get URL:" prefixes.
func shortNetErr(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		err = op.Err
	}
	return err.Error()
}
