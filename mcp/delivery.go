package mcp

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"syscall"
)

// deliveryKey is the context key of a call's *delivery: the SDK sends a
// Streamable HTTP request with the context of the call, so headerTransport
// can note what became of it.
type deliveryKey struct{}

// A delivery is what became of the HTTP requests of one tool call to a URL
// server. The SDK reports every transport failure alike (JSON-RPC -32005,
// "rejected by transport"), whether the request never left or an HTTP 500,
// 502 or 504 came back after the server may have run it; this tells them
// apart.
type delivery struct {
	mu     sync.Mutex
	sent   bool // some request may have reached the server
	status int  // the last HTTP status received, 0 if none
}

func withDelivery(ctx context.Context, d *delivery) context.Context {
	return context.WithValue(ctx, deliveryKey{}, d)
}

// wrote notes that a request's headers went out on a connection: from then
// on the server may have it.
func (d *delivery) wrote() {
	d.mu.Lock()
	d.sent = true
	d.mu.Unlock()
}

// done notes how a RoundTrip ended.
func (d *delivery) done(resp *http.Response, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case resp != nil:
		d.sent, d.status = true, resp.StatusCode
	case d.status == 0 && notSent(err):
		// net/http retries a POST on a new connection only when nothing of
		// it reached the server, so a last attempt that could not even
		// connect means none did. (After a response, a failed request is
		// the SDK reconnecting the call's event stream: the call was sent.)
		d.sent = false
	}
}

// outcome says whether the call may have reached the server, and the last
// HTTP status that came back (0 if none).
func (d *delivery) outcome() (sent bool, status int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.sent, d.status
}

// notSent says err is known to have happened before a request left: the
// connection could not be made (refused, unreachable, DNS failure).
func notSent(err error) bool {
	if err == nil {
		return false
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) || errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	var opErr *net.OpError
	return errors.As(err, &opErr) && opErr.Op == "dial"
}

// urlRe finds URLs in outside text.
var urlRe = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s"'<>` + "`" + `]+`)

// redactURLs drops the query string, fragment and userinfo of every URL in
// text (https://u:p@x/mcp?api_key=SECRET becomes https://x/mcp): a server's
// raw error often quotes its request URL, with whatever secret was in it.
func redactURLs(text string) string {
	return urlRe.ReplaceAllStringFunc(text, func(raw string) string {
		// Punctuation after a URL ends the sentence, not the URL.
		trimmed := strings.TrimRight(raw, ".,;:!)]}")
		return redactURL(trimmed) + raw[len(trimmed):]
	})
}

// redactURL is raw without its query string, fragment and userinfo.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" {
		// Not a URL net/url reads: cut by hand.
		if i := strings.IndexAny(raw, "?#"); i >= 0 {
			raw = raw[:i]
		}
		if at := strings.LastIndexByte(raw, '@'); at >= 0 {
			if scheme := strings.Index(raw, "://"); scheme >= 0 && scheme < at {
				raw = raw[:scheme+3] + raw[at+1:]
			}
		}
		return raw
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return u.String()
}
