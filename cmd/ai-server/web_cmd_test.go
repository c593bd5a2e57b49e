package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

// ddgFixtureServer serves the saved html results fixture on /html/.
func ddgFixtureServer(t *testing.T) *httptest.Server {
	t.Helper()
	page, err := os.ReadFile("../../websearch/testdata/ddg/html-caffeine-sleep.html")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/html/":
			_, _ = w.Write(page)
		case "/limited/":
			w.WriteHeader(http.StatusTooManyRequests)
		case "/article":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_, _ = w.Write([]byte("Plain words about tides and sandbanks."))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestSearchAndReadCommands(t *testing.T) {
	srv := ddgFixtureServer(t)
	tests := []struct {
		name       string
		env        map[string]string
		args       []string
		wantCode   int
		wantOut    []string
		wantErr    string
		wantJSONOf string // a key the --json output must hold
	}{
		{
			name:     "search prints the listing",
			env:      map[string]string{"AILAB_WEB_SEARCH_ENDPOINT": srv.URL + "/html/"},
			args:     []string{"search", "does caffeine affect sleep", "--max", "2"},
			wantCode: exitOK,
			wantOut:  []string{`2 result(s) for "does caffeine affect sleep"`, `<search_results source="duckduckgo" query="does caffeine affect sleep">`, "1. Caffeine and Sleep Problems", "https://www.sleepfoundation.org/nutrition/caffeine-and-sleep"},
		},
		{
			name:       "search --json before the query",
			env:        map[string]string{"AILAB_WEB_SEARCH_ENDPOINT": srv.URL + "/html/"},
			args:       []string{"search", "--json", "caffeine"},
			wantCode:   exitOK,
			wantJSONOf: "results",
		},
		{
			name:     "search --max at its ceiling",
			env:      map[string]string{"AILAB_WEB_SEARCH_ENDPOINT": srv.URL + "/html/"},
			args:     []string{"search", "caffeine", "--max", "10"},
			wantCode: exitOK,
			wantOut:  []string{`result(s) for "caffeine"`},
		},
		{
			name:     "search --max at its floor",
			env:      map[string]string{"AILAB_WEB_SEARCH_ENDPOINT": srv.URL + "/html/"},
			args:     []string{"search", "caffeine", "--max=1"},
			wantCode: exitOK,
			wantOut:  []string{`1 result(s) for "caffeine"`},
		},
		{
			name:     "search rate limited is a runtime failure",
			env:      map[string]string{"AILAB_WEB_SEARCH_ENDPOINT": srv.URL + "/limited/"},
			args:     []string{"search", "caffeine"},
			wantCode: exitFailure,
			wantErr:  "DuckDuckGo is rate limiting this address; try again in a minute",
		},
		{
			name:     "search without a query",
			args:     []string{"search"},
			wantCode: exitUsage,
			wantErr:  "search takes one quoted query",
		},
		{
			name:     "search with a blank query",
			args:     []string{"search", "  "},
			wantCode: exitUsage,
			wantErr:  "search needs words to look for",
		},
		{
			name:     "search with an unknown flag",
			args:     []string{"search", "x", "--bogus"},
			wantCode: exitUsage,
		},
		{
			name:     "read prints title, length and content",
			env:      map[string]string{"AILAB_WEB_ALLOW_PRIVATE_ADDRESSES": "true"},
			args:     []string{"read", srv.URL + "/article", "--max-chars", "11"},
			wantCode: exitOK,
			wantOut:  []string{"38 characters (cut; --max-chars shows more)", `<webpage_content source="` + srv.URL + `/article">Plain words</webpage_content>`},
		},
		{
			name:     "read --max-chars at its ceiling",
			env:      map[string]string{"AILAB_WEB_ALLOW_PRIVATE_ADDRESSES": "true"},
			args:     []string{"read", srv.URL + "/article", "--max-chars", "100000"},
			wantCode: exitOK,
			wantOut:  []string{"38 characters\n"},
		},
		{
			name:       "read --json",
			env:        map[string]string{"AILAB_WEB_ALLOW_PRIVATE_ADDRESSES": "1"},
			args:       []string{"read", "--json", srv.URL + "/article"},
			wantCode:   exitOK,
			wantJSONOf: "security_note",
		},
		{
			name:     "read refuses loopback by default",
			args:     []string{"read", srv.URL + "/article"},
			wantCode: exitFailure,
			wantErr:  "private or local network address",
		},
		{
			name:     "read with a bad env value",
			env:      map[string]string{"AILAB_WEB_ALLOW_PRIVATE_ADDRESSES": "maybe"},
			args:     []string{"read", srv.URL + "/article"},
			wantCode: exitUsage,
			wantErr:  "AILAB_WEB_ALLOW_PRIVATE_ADDRESSES",
		},
		{
			name:     "read with two URLs",
			args:     []string{"read", "https://a.example/", "https://b.example/"},
			wantCode: exitUsage,
			wantErr:  "read takes one URL",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, k := range []string{"AILAB_WEB_SEARCH_ENDPOINT", "AILAB_WEB_SEARCH_LITE_ENDPOINT", "AILAB_WEB_ALLOW_PRIVATE_ADDRESSES"} {
				t.Setenv(k, tt.env[k])
			}
			// The lite fallback must never reach the internet from a test.
			t.Setenv("AILAB_WEB_SEARCH_LITE_ENDPOINT", srv.URL+"/lite-missing/")
			// Nor may a config file of the person running the tests change the outcome.
			t.Setenv("AILAB_CONFIG", "")
			t.Setenv("XDG_CONFIG_HOME", t.TempDir())
			var stdout, stderr bytes.Buffer
			code := run(tt.args, strings.NewReader(""), &stdout, &stderr)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr %q", code, tt.wantCode, stderr.String())
			}
			t.Log(stdout.String())
			for _, s := range tt.wantOut {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout.String())
				}
			}
			if !strings.Contains(stderr.String(), tt.wantErr) {
				t.Errorf("stderr %q lacks %q", stderr.String(), tt.wantErr)
			}
			if tt.wantJSONOf != "" {
				var m map[string]any
				if err := json.Unmarshal(stdout.Bytes(), &m); err != nil {
					t.Fatalf("--json output is not JSON: %v\n%s", err, stdout.String())
				}
				if _, ok := m[tt.wantJSONOf]; !ok {
					t.Errorf("--json output lacks %q: %s", tt.wantJSONOf, stdout.String())
				}
			}
		})
	}
}

// nxdomain is a DNS server on a pipe that answers every question "no such
// name", so a lookup fails at once and the same way on any machine, online or
// not, and no packet leaves the process.
func nxdomain(context.Context, string, string) (net.Conn, error) {
	client, server := net.Pipe()
	go func() {
		defer server.Close()
		for {
			// The resolver speaks DNS over a stream here: a 2-byte length, then the message.
			var size [2]byte
			if _, err := io.ReadFull(server, size[:]); err != nil {
				return
			}
			query := make([]byte, binary.BigEndian.Uint16(size[:]))
			if _, err := io.ReadFull(server, query); err != nil {
				return
			}
			var p dnsmessage.Parser
			h, err := p.Start(query)
			if err != nil {
				return
			}
			questions, err := p.AllQuestions()
			if err != nil {
				return
			}
			answer, err := (&dnsmessage.Message{
				Header:    dnsmessage.Header{ID: h.ID, Response: true, RecursionDesired: h.RecursionDesired, RecursionAvailable: true, RCode: dnsmessage.RCodeNameError},
				Questions: questions,
			}).Pack()
			if err != nil {
				return
			}
			if _, err := server.Write(append(binary.BigEndian.AppendUint16(nil, uint16(len(answer))), answer...)); err != nil {
				return
			}
		}
	}()
	return client, nil
}

// noNetwork is a DNS server the machine has no route to, as when it is offline.
func noNetwork(_ context.Context, network, address string) (net.Conn, error) {
	return nil, &net.OpError{Op: "dial", Net: network, Err: os.NewSyscallError("connect", syscall.ENETUNREACH)}
}

// useResolver points every lookup of the test, the read_webpage fetcher's
// included, at dial instead of the machine's DNS servers.
func useResolver(t *testing.T, dial func(ctx context.Context, network, address string) (net.Conn, error)) {
	old := net.DefaultResolver
	net.DefaultResolver = &net.Resolver{PreferGo: true, Dial: dial}
	t.Cleanup(func() { net.DefaultResolver = old })
}

// TestReadUnreachable: when the page's host cannot be reached at all, the line
// says so and points at the network connection, not only at the address: the
// likeliest cause at a terminal is a machine that is offline.
func TestReadUnreachable(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	closedHost := strings.TrimPrefix(closed.URL, "http://")
	tests := []struct {
		name     string
		resolver func(context.Context, string, string) (net.Conn, error)
		url      string
		want     []string
	}{
		{
			name: "connection refused",
			url:  closed.URL + "/page",
			want: []string{"could not reach " + closedHost + ": the connection was refused", "check the address and port, and your network connection"},
		},
		{
			name:     "no such host",
			resolver: nxdomain,
			url:      "https://nosuch.invalid/page",
			want:     []string{"could not reach nosuch.invalid: no such host", "check your network connection, then the address for typos"},
		},
		{
			name:     "DNS server unreachable",
			resolver: noNetwork,
			url:      "https://nosuch.invalid/page",
			want:     []string{"could not reach nosuch.invalid: the network is unreachable", "check your network connection"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			isolate(t)
			t.Setenv("AILAB_WEB_ALLOW_PRIVATE_ADDRESSES", "true")
			if tt.resolver != nil {
				useResolver(t, tt.resolver)
			}
			var stdout, stderr bytes.Buffer
			if code := run([]string{"read", tt.url}, strings.NewReader(""), &stdout, &stderr); code != exitFailure {
				t.Fatalf("exit %d, want %d; stderr %q", code, exitFailure, stderr.String())
			}
			msg := stderr.String()
			if strings.Count(msg, "\n") != 1 || !strings.HasPrefix(msg, "ai-server: read_webpage: ") {
				t.Errorf("want one line naming the tool, got %q", msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("stderr %q lacks %q", msg, w)
				}
			}
		})
	}
}

// TestUnreachableWording covers the errors a test cannot make happen on
// purpose: a route or a network that is down when connecting.
func TestUnreachableWording(t *testing.T) {
	dialErr := func(errno syscall.Errno) error {
		return &url.Error{Op: "Get", URL: "https://go.dev/doc/", Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", errno)}}
	}
	tests := []struct {
		name string
		err  error
		want string // "" means the tool's own sentence stands
	}{
		{"network unreachable", dialErr(syscall.ENETUNREACH), "could not reach go.dev: the network is unreachable; check your network connection"},
		{"no route to host", dialErr(syscall.EHOSTUNREACH), "could not reach go.dev: there is no route to the host; check your network connection, then the address"},
		{"refused", dialErr(syscall.ECONNREFUSED), "could not reach go.dev: the connection was refused"},
		{"lookup timed out", &url.Error{Op: "Get", URL: "https://go.dev/", Err: &net.DNSError{Err: "i/o timeout", Name: "go.dev", IsTimeout: true}}, "could not reach go.dev: its name could not be looked up (i/o timeout); check your network connection, then the address"},
		{"not a network failure", errors.New("go.dev answered 404 Not Found"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := unreachable(tt.err)
			if ok != (tt.want != "") || !strings.HasPrefix(got, tt.want) {
				t.Errorf("unreachable = %q, %v; want %q", got, ok, tt.want)
			}
		})
	}
}
