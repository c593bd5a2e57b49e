package main

import (
	"bytes"
	"flag"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// isolate keeps a test away from the developer's config and the internet: no
// config file is found, and both search endpoints are a server that is gone.
func isolate(t *testing.T) {
	t.Helper()
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	t.Setenv("AILAB_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("AILAB_WEB_SEARCH_ENDPOINT", dead.URL+"/html/")
	t.Setenv("AILAB_WEB_SEARCH_LITE_ENDPOINT", dead.URL+"/lite/")
}

func flagNames(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}

// TestHelpListsEveryCommand: `ai-server --help` is how a new user finds the
// subcommands, so it must name each with its flags, on stdout, and succeed.
func TestHelpListsEveryCommand(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"-help"}, {"help"}, {"--demo", "--help"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			isolate(t)
			var stdout, stderr bytes.Buffer
			if code := run(args, strings.NewReader(""), &stdout, &stderr); code != exitOK {
				t.Fatalf("exit %d, want 0; stderr %q", code, stderr.String())
			}
			if stderr.Len() != 0 {
				t.Errorf("help went to stderr: %q", stderr.String())
			}
			out := stdout.String()
			for _, c := range commands() {
				if !strings.Contains(out, usageLine(c)+"\n      "+c.summary+"\n") {
					t.Errorf("help lacks %q with its summary:\n%s", usageLine(c), out)
				}
				for _, name := range flagNames(c.flags()) {
					if !regexp.MustCompile(`(?m)^      --` + regexp.QuoteMeta(name) + `\b`).MatchString(out) {
						t.Errorf("help lacks %s's flag --%s:\n%s", usageLine(c), name, out)
					}
				}
			}
			for _, name := range []string{"preset", "sanitize", "search", "read"} {
				if !strings.Contains(out, "ai-server "+name+" ") {
					t.Errorf("help does not name %s:\n%s", name, out)
				}
			}
		})
	}
}

// TestCommandHelp: each subcommand's --help (and -h, and `help NAME`) prints
// its own usage and every flag on stdout and exits 0, without running it.
func TestCommandHelp(t *testing.T) {
	for _, c := range commands() {
		if c.name == "" {
			continue
		}
		for _, args := range [][]string{{c.name, "--help"}, {c.name, "-h"}, {"help", c.name}, {c.name, "x", "--help"}} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				isolate(t)
				var stdout, stderr bytes.Buffer
				if code := run(args, strings.NewReader("text"), &stdout, &stderr); code != exitOK {
					t.Fatalf("exit %d, want 0; stderr %q", code, stderr.String())
				}
				if stderr.Len() != 0 {
					t.Errorf("help went to stderr: %q", stderr.String())
				}
				out := stdout.String()
				if !strings.HasPrefix(out, "usage: ai-server "+c.name+" ") {
					t.Errorf("help does not start with the usage line:\n%s", out)
				}
				for _, name := range flagNames(c.flags()) {
					if !strings.Contains(out, "  --"+name) {
						t.Errorf("help lacks --%s:\n%s", name, out)
					}
				}
			})
		}
	}
}

// TestUsageErrors: bad usage is exit 2 and one line on stderr that names what
// is wrong and where to look, never the flag package's whole usage dump.
func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want []string // substrings of the one line
	}{
		{[]string{"--bogus"}, []string{"unknown flag --bogus", "see ai-server --help"}},
		{[]string{"--addr"}, []string{"--addr needs a value", "see ai-server --help"}},
		{[]string{"--demo=maybe"}, []string{`--demo is on or off`, `"maybe"`}},
		{[]string{"serach", "go"}, []string{`unexpected argument "serach"`, "did you mean search?", "ai-server --help"}},
		{[]string{"frobnicate"}, []string{`unexpected argument "frobnicate"`, "preset, sanitize, search, read, policy or mcp", "see ai-server --help"}},
		{[]string{"serve"}, []string{`unexpected argument "serve"`, "leave it out"}},
		{[]string{"--demo", "search", "go"}, []string{`unexpected argument "search"`, "a command comes before any flag"}},
		{[]string{"help", "nope"}, []string{`unknown command "nope"`, "see ai-server --help"}},
		{[]string{"help", "a", "b"}, []string{"help takes one command name"}},
		{[]string{"search", "go", "--bogus"}, []string{"search: unknown flag --bogus", "see ai-server search --help"}},
		{[]string{"read", "https://example.com/", "--max-chars"}, []string{"read: --max-chars needs a value", "see ai-server read --help"}},
		{[]string{"preset", "--confg", "x", "moderate"}, []string{"preset: unknown flag --confg", "see ai-server preset --help"}},
		{[]string{"sanitize", "--loud"}, []string{"sanitize: unknown flag --loud", "see ai-server sanitize --help"}},
		// Every numeric flag refuses what is out of its range, with the range.
		{[]string{"search", "go", "--max", "50"}, []string{"search: --max must be between 1 and 10, not 50", "see ai-server search --help"}},
		{[]string{"search", "go", "--max", "0"}, []string{"--max must be between 1 and 10, not 0"}},
		{[]string{"search", "--max=-1", "go"}, []string{"--max must be between 1 and 10, not -1"}},
		{[]string{"search", "go", "--max", "11"}, []string{"--max must be between 1 and 10, not 11"}},
		{[]string{"search", "go", "--max", "three"}, []string{`--max must be a whole number between 1 and 10, not "three"`}},
		{[]string{"search", "go", "--max", "2.5"}, []string{`--max must be a whole number between 1 and 10, not "2.5"`}},
		{[]string{"search", "go", "--max", "0x5"}, []string{`--max must be a whole number between 1 and 10, not "0x5"`}},
		{[]string{"read", "https://example.com/", "--max-chars", "0"}, []string{"read: --max-chars must be between 1 and 100000, not 0"}},
		{[]string{"read", "https://example.com/", "--max-chars", "100001"}, []string{"--max-chars must be between 1 and 100000, not 100001"}},
		{[]string{"read", "--max-chars", "-5", "https://example.com/"}, []string{"--max-chars must be between 1 and 100000, not -5"}},
		{[]string{"read", "https://example.com/", "--max-chars", "99999999999999999999"}, []string{"--max-chars must be a whole number between 1 and 100000"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			isolate(t)
			var stdout, stderr bytes.Buffer
			if code := run(tt.args, strings.NewReader(""), &stdout, &stderr); code != exitUsage {
				t.Fatalf("exit %d, want %d; stderr %q", code, exitUsage, stderr.String())
			}
			msg := stderr.String()
			if strings.Count(msg, "\n") != 1 || !strings.HasPrefix(msg, "ai-server: ") {
				t.Errorf("want one line starting with ai-server:, got %q", msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("stderr %q lacks %q", msg, w)
				}
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout should be empty on bad usage, got %q", stdout.String())
			}
		})
	}
}

// TestServeFlagsMatchRunServe: main.go mirrors runServe's flags to list them
// and to refuse a wrong one in one line; a flag added to serve.go alone would
// be refused as unknown, so the two lists must stay the same.
func TestServeFlagsMatchRunServe(t *testing.T) {
	var usage bytes.Buffer
	if code := runServe([]string{"-h"}, &usage, &usage); code != exitOK {
		t.Fatalf("runServe -h: exit %d: %s", code, usage.String())
	}
	var real []string
	for _, m := range regexp.MustCompile(`(?m)^\s+-(\w[\w-]*)`).FindAllStringSubmatch(usage.String(), -1) {
		real = append(real, m[1])
	}
	slices.Sort(real)
	if mirror := flagNames(new(serveOptions).flagSet()); !slices.Equal(real, mirror) {
		t.Fatalf("runServe defines %v, serveOptions %v: add the flag to serveOptions in main.go", real, mirror)
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"read", "read", 0}, {"serach", "search", 2}, {"raed", "read", 2},
		{"preset", "presets", 1}, {"", "read", 4}, {"sanitise", "sanitize", 1},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
