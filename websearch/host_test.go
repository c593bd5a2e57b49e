package websearch

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	"golang.org/x/net/idna"
)

// canonicalHostCases are spellings and the host the dialer reaches for each;
// want "" means CanonicalHost refuses the spelling.
var canonicalHostCases = []struct {
	name, host, want string
}{
	{"plain name", "example.com", "example.com"},
	{"upper case and a trailing dot", "WWW.Example.COM.", "www.example.com"},
	{"surrounding ASCII space from a config file", " example.com\t", "example.com"},
	{"underscore", "a_b.example", "a_b.example"},
	{"full-width letters and full stop", "ｇｏ．ｄｅｖ", "go.dev"},
	{"ideographic full stop", "go。dev", "go.dev"},
	{"halfwidth ideographic full stop", "go｡dev", "go.dev"},
	{"ignored soft hyphen", "go\u00ad.dev", "go.dev"},
	{"zero-width space", "g\u200bo.dev", "go.dev"},
	{"Unicode label", "Bücher.example", "xn--bcher-kva.example"},
	{"punycode label", "XN--BCHER-KVA.example", "xn--bcher-kva.example"},
	{"non-transitional sharp s", "ß.de", "xn--zca.de"},
	{"IPv4", "127.0.0.1", "127.0.0.1"},
	{"IPv4 with a trailing dot", "127.0.0.1.", "127.0.0.1"},
	{"full-width digits", "１２７.０.０.１", "127.0.0.1"},
	{"ideographic full stops between digits", "127。0。0。1", "127.0.0.1"},
	{"IPv4-mapped IPv6", "::ffff:127.0.0.1", "127.0.0.1"},
	{"IPv4-mapped IPv6 in brackets", "[::ffff:127.0.0.1]", "127.0.0.1"},
	{"IPv4-mapped IPv6 in hex", "[::FFFF:7f00:1]", "127.0.0.1"},
	{"IPv6 long form", "[0:0:0:0:0:0:0:1]", "::1"},
	{"IPv6 zone dropped", "fe80::1%eth0", "fe80::1"},
	{"IPv4-compatible IPv6 is another address", "::127.0.0.1", "::7f00:1"},
	{"two-part legacy IPv4", "127.1", "127.0.0.1"},
	{"hex legacy IPv4", "0x7F.0.0.1", "127.0.0.1"},
	{"one-number legacy IPv4", "2130706433", "127.0.0.1"},
	{"octal legacy IPv4", "0177.0.0.1", "127.0.0.1"},
	{"octal number", "017700000001", "127.0.0.1"},
	{"leading zeros", "127.000.000.001", "127.0.0.1"},
	{"three-part legacy IPv4", "10.1.258", "10.1.1.2"},
	{"not octal is a name", "08", "08"},
	{"too big for IPv4 is a name", "4294967296", "4294967296"},
	{"five parts is a name", "1.2.3.4.5", "1.2.3.4.5"},
	{"empty", "", ""},
	{"only space", "  ", ""},
	{"star", "*", ""},
	{"wildcard", "*.example.com", ""},
	{"empty label", "a..b", ""},
	{"leading dot", ".example.com", ""},
	{"two trailing dots", "example.com..", ""},
	{"only a dot", ".", ""},
	{"inner space", "exa mple.com", ""},
	{"ideographic space", "\u3000example.com", ""},
	{"slash", "example.com/x", ""},
	{"full-width solidus", "evil.com／.go.dev", ""},
	{"at sign", "user@example.com", ""},
	{"percent", "a%2eb", ""},
	{"port", "example.com:80", ""},
	{"full-width colon", "１２７.０.０.１：８０", ""},
	{"IPv4 in brackets", "[127.0.0.1]", ""},
	{"name in brackets", "[example.com]", ""},
	{"unclosed bracket", "[::1", ""},
	{"NUL", "a\x00b", ""},
	{"leading hyphen", "-a.example", ""},
	{"bad punycode", "xn--abc.example", ""},
	{"longest name", strings.Repeat("a.", 126) + "a", strings.Repeat("a.", 126) + "a"},
	{"longest name in full-width letters", strings.Repeat("ａ.", 126) + "ａ.", strings.Repeat("a.", 126) + "a"},
	{"name too long", strings.Repeat("a.", 126) + "ab", ""},
	{"input too long", strings.Repeat("\u00ad", 600) + "a", ""},
}

func TestCanonicalHost(t *testing.T) {
	for _, tt := range canonicalHostCases {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CanonicalHost(tt.host)
			if tt.want == "" {
				if err == nil || !errors.Is(err, ErrBadHost) {
					t.Fatalf("CanonicalHost(%q) = %q, %v; want an ErrBadHost refusal", tt.host, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("CanonicalHost(%q) = %q, %v; want %q", tt.host, got, err, tt.want)
			}
		})
	}
}

func TestHostOf(t *testing.T) {
	tests := []struct {
		hostport, want string
	}{
		{"example.com", "example.com"},
		{"Example.COM:8080", "example.com"},
		{"example.com:", "example.com"},
		{"[::1]:80", "::1"},
		{"[::ffff:127.0.0.1]:8080", "127.0.0.1"},
		{"[::1]", "::1"},
		{"::1", "::1"},
		{"１２７.０.０.１:80", "127.0.0.1"},
		{"127.1:80", "127.0.0.1"},
		{"[::1]junk", ""},
		{"[::1]x:80", ""},
		{"[::1", ""},
		{"example.com:http", ""},
		{"example.com:80x", ""},
		{"[127.0.0.1]:80", ""},
		{":80", ""},
	}
	for _, tt := range tests {
		got, err := HostOf(tt.hostport)
		if tt.want == "" {
			if !errors.Is(err, ErrBadHost) {
				t.Errorf("HostOf(%q) = %q, %v; want an ErrBadHost refusal", tt.hostport, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("HostOf(%q) = %q, %v; want %q", tt.hostport, got, err, tt.want)
		}
	}
}

// FuzzCanonicalHost checks that CanonicalHost never panics, that its answer
// is a fixed point and the host net/http would dial, and that an accepted
// host is plain lower-case ASCII, or an IP address in its canonical form.
func FuzzCanonicalHost(f *testing.F) {
	for _, tt := range canonicalHostCases {
		f.Add(tt.host)
	}
	f.Fuzz(func(t *testing.T, host string) {
		_, _ = HostOf(host)
		got, err := CanonicalHost(host)
		if err != nil {
			if !errors.Is(err, ErrBadHost) {
				t.Fatalf("CanonicalHost(%q) refused with %v, which is not ErrBadHost", host, err)
			}
			return
		}
		again, err := CanonicalHost(got)
		if err != nil || again != got {
			t.Fatalf("CanonicalHost(%q) = %q, but CanonicalHost(%q) = %q, %v", host, got, got, again, err)
		}
		// net/http dials what idna.Lookup makes of a host, when it can:
		// that must be the same host.
		if mapped, err := idna.Lookup.ToASCII(host); err == nil {
			if c, err := CanonicalHost(mapped); err != nil || c != got {
				t.Fatalf("CanonicalHost(%q) = %q, but net/http dials %q, whose canonical form is %q, %v", host, got, mapped, c, err)
			}
		}
		ip, ipErr := netip.ParseAddr(got)
		if i := strings.IndexFunc(got, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_' || r == ':' && ipErr == nil && ip.Is6())
		}); i >= 0 {
			t.Fatalf("CanonicalHost(%q) = %q, which holds %q", host, got, got[i:])
		}
		if ipErr == nil && (ip.Is4In6() || ip.Zone() != "" || ip.String() != got) {
			t.Fatalf("CanonicalHost(%q) = %q, not a canonical IP address (%s)", host, got, ip)
		}
	})
}
