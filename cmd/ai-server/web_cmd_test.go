package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
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
