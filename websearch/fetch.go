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
	"unicode/utf8"

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
	// hosts, when not nil, maps canonical host names to the addresses the
	// dialer uses for them instead of asking DNS, so tests can fetch a named
	// host from a loopback server; a name it lacks is not found, so a test
	// never reaches the network.
	hosts map[string]string
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
	// block and allow are opts.BlockDomains and opts.AllowDomains as
	// canonicalHostList gives them.
	block, allow []string
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
	f := &Fetcher{
		opts:  opts,
		cache: newByteCache(opts.CacheTTL, opts.CacheBytes, pageSize, opts.Now),
		block: canonicalHostList(opts.BlockDomains),
		allow: canonicalHostList(opts.AllowDomains),
	}
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
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			target, err := f.dialTarget(addr)
			if err != nil {
				return nil, err
			}
			return dialer.DialContext(ctx, network, target)
		},
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

// canonicalHostList is a domain list with each entry as CanonicalHost gives
// it, a leading dot (".example.com", which config accepts) dropped first. An
// entry CanonicalHost refuses is kept lower-cased as written: it matches no
// host, since every host compared with it is canonical.
func canonicalHostList(entries []string) []string {
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if c, err := CanonicalHost(strings.TrimPrefix(e, ".")); err == nil {
			e = c
		} else {
			e = strings.ToLower(e)
		}
		out = append(out, e)
	}
	return out
}

// checkURL refuses schemes other than http(s), hosts CanonicalHost refuses and
// hosts the domain lists rule out. The lists are compared with the canonical
// host, the one the dialer reaches (see dialTarget), so no spelling of a
// blocked host gets past them:
//
//   - [::ffff:127.0.0.1] and [::ffff:7f00:1]: Go dials them as 127.0.0.1
//     (IPv4-mapped addresses go out over IPv4); compared as 127.0.0.1.
//   - １２７.０.０.１ (full-width digits, also percent-encoded) and 127。0。0。1
//     (ideographic full stops): url.Parse keeps them, and net/http maps the
//     host with idna.Lookup before dialling, so it dials 127.0.0.1; compared
//     as 127.0.0.1.
//   - 127.1, 0x7f.0.0.1, 2130706433, 0177.0.0.1: Go's own resolver asks DNS
//     for them (and fails), the cgo resolver (macOS, some nsswitch setups)
//     hands them to inet_aton and dials 127.0.0.1; compared as 127.0.0.1,
//     and dialTarget dials 127.0.0.1 whatever the resolver.
//   - GO.DEV. and ｇｏ．ｄｅｖ: compared as go.dev, which is what DNS is asked.
//   - a host that is no host name (evil.com／.go.dev, whose full-width
//     solidus maps to "/"; a..b; *): refused here with ErrBadURL. net/http's
//     own mapping fails on it too and would dial the raw Unicode name.
func (f *Fetcher) checkURL(u *url.URL) error {
	shown := plainURL(u.String())
	if (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return fetchErr(ErrBadURL, "%s is not an http or https URL; give a full address such as https://example.com/page", shown)
	}
	host, err := CanonicalHost(u.Hostname())
	if err != nil {
		return &fetchError{kind: ErrBadURL, cause: err, msg: fmt.Sprintf("%s does not name a usable host (%v); check the address", shown, err)}
	}
	if why := f.refusal(host); why != "" {
		return fetchErr(ErrBlocked, "%s %s", shown, why)
	}
	return nil
}

// refusal is why the domain lists rule out host, a canonical host, as the
// end of a sentence that starts with the URL; it is "" when they allow it.
func (f *Fetcher) refusal(host string) string {
	for _, d := range f.block {
		if domainMatches(host, d) {
			return "is on a blocked domain (web.block_domains); choose another source"
		}
	}
	if len(f.allow) > 0 {
		for _, d := range f.allow {
			if domainMatches(host, d) {
				return ""
			}
		}
		return fmt.Sprintf("is not on an allowed domain (web.allow_domains); only %s may be read", strings.Join(f.opts.AllowDomains, ", "))
	}
	return ""
}

// domainMatches reports whether host is domain or one of its subdomains; both
// are canonical (CanonicalHost). An IP address matches only itself.
func domainMatches(host, domain string) bool {
	if domain == "" {
		return false
	}
	if host == domain {
		return true
	}
	if isIPAddr(host) || isIPAddr(domain) {
		return false
	}
	return strings.HasSuffix(host, "."+domain)
}

// isIPAddr reports whether s is an IP address.
func isIPAddr(s string) bool {
	_, err := netip.ParseAddr(s)
	return err == nil
}

// A dialRefusal is dialTarget's refusal; describe turns it into a sentence
// naming the URL.
type dialRefusal struct {
	kind  error
	why   string // the end of a sentence that starts with the URL
	cause error
}

func (e *dialRefusal) Error() string { return "refused to dial: " + e.why }
func (e *dialRefusal) Unwrap() []error {
	if e.cause != nil {
		return []error{e.kind, e.cause}
	}
	return []error{e.kind}
}

// dialTarget is the address the transport's host:port addr is dialled at:
// its canonical host, checked against the domain lists once more, so what is
// dialled is what checkURL compared even where net/http's own mapping of a
// host differs from CanonicalHost's. net/http passes the host through
// idna.Lookup first when that succeeds, and the raw Unicode name when it
// fails; either way the canonical name is dialled, never the raw one, whose
// fate would depend on the resolver. An IP address is dialled as such
// (IPv4-mapped as IPv4; an IPv6 zone kept), a legacy IPv4 spelling as its
// dotted quad, and a name with its trailing dot if it had one, so an
// absolute name stays absolute for the resolver.
func (f *Fetcher) dialTarget(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", &dialRefusal{kind: ErrBadURL, cause: err, why: "does not name a usable host and port; check the address"}
	}
	canon, err := CanonicalHost(host)
	if err != nil {
		return "", &dialRefusal{kind: ErrBadURL, cause: err, why: fmt.Sprintf("does not name a usable host (%v); check the address", err)}
	}
	if why := f.refusal(canon); why != "" {
		return "", &dialRefusal{kind: ErrBlocked, why: why}
	}
	target := canon
	if ip, err := netip.ParseAddr(host); err == nil {
		target = ip.Unmap().String()
	} else if !isIPAddr(canon) && hasFinalDot(host) {
		target += "."
	}
	if f.opts.hosts != nil && !isIPAddr(canon) {
		a, ok := f.opts.hosts[canon]
		if !ok {
			return "", &net.DNSError{Err: "no such host (not in the test's hosts)", Name: canon, IsNotFound: true}
		}
		target = a
	}
	return net.JoinHostPort(target, port), nil
}

// hasFinalDot reports whether host ends with a full stop UTS #46 maps to ".".
func hasFinalDot(host string) bool {
	r, _ := utf8.DecodeLastRuneInString(host)
	return r == '.' || r == '\u3002' || r == '\uff0e' || r == '\uff61'
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
	var refused *dialRefusal
	if errors.As(err, &refused) {
		// The refused address may be a redirect's; the url.Error names it.
		var ue *url.Error
		if errors.As(err, &ue) && ue.URL != "" {
			shown = plainURL(ue.URL)
		}
		return &fetchError{kind: refused.kind, cause: err, msg: fmt.Sprintf("%s %s", shown, refused.why)}
	}
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
