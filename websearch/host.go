package websearch

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// ErrBadHost is matched (errors.Is) by CanonicalHost's refusals.
var ErrBadHost = errors.New("not a host name")

// hostProfile maps a host the way a browser's address bar and net/http do
// (UTS #46, non-transitional): full-width letters and digits to ASCII, the
// ideographic full stop and its kin to ".", upper case to lower, characters
// UTS #46 ignores (soft hyphen, zero-width space) dropped, and Unicode labels
// to their xn-- form. It checks hyphens, joiners and xn-- labels as
// idna.Lookup does, but not the STD3 rules: "_" stays allowed, and a
// character that maps to one no host name has (a full-width solidus to "/")
// is refused by CanonicalHost itself, with a clearer message. The bidi rule
// is left out, since a page's host only has to match what the dialer will
// reach.
var hostProfile = idna.New(idna.MapForLookup(), idna.Transitional(false), idna.StrictDomainName(false))

// Host name lengths: a resolver looks up at most maxHostName characters (253,
// without the trailing dot), and CanonicalHost reads no more than
// maxHostInput bytes, room for any such name in full-width characters and
// then some, so a huge host costs no mapping work.
const (
	maxHostName  = 253
	maxHostInput = 1024
)

// CanonicalHost is host as the dialer will reach it, so a block list, a rule
// and a grant compare the one spelling of it: IDNA-mapped to lower-case
// ASCII (full-width characters and ideographic full stops folded), without a
// trailing dot, an IP address in its canonical form with IPv4-mapped IPv6
// folded to IPv4 ([::ffff:127.0.0.1] and [::ffff:7f00:1] are 127.0.0.1) and
// without an IPv6 zone, and the legacy IPv4 spellings a C resolver accepts
// (127.1, 0x7f.0.0.1, 2130706433, 0177.0.0.1) written as the dotted quad they
// mean. Brackets are optional around an IPv6 address and refused around
// anything else; a port is not part of a host. Surrounding ASCII white
// space, as a configuration file may leave, is ignored. A host that is empty,
// has an empty label (a..b, .a, a..), holds a character no host name has (a
// space, "*", "/", "@", or a ":" or "%" outside an IPv6 address), is not
// UTF-8, or is longer than a resolver looks up (253 characters once mapped)
// is refused with an error matching ErrBadHost.
func CanonicalHost(host string) (string, error) {
	h := strings.Trim(host, " \t\r\n")
	if h == "" {
		return "", fmt.Errorf("%w: the host is empty", ErrBadHost)
	}
	if len(h) > maxHostInput {
		return "", fmt.Errorf("%w: the host is %d bytes long, longer than any host name", ErrBadHost, len(h))
	}
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		ip, err := netip.ParseAddr(h[1 : len(h)-1])
		if err != nil || !ip.Is6() {
			return "", fmt.Errorf("%w: %q has brackets, which only an IPv6 address may have", ErrBadHost, host)
		}
		return canonicalIP(ip), nil
	}
	if ip, err := netip.ParseAddr(h); err == nil {
		return canonicalIP(ip), nil
	}
	if !utf8.ValidString(h) {
		// The mapping would turn the bad bytes into U+FFFD and its xn-- form,
		// which no name reads back as.
		return "", fmt.Errorf("%w: %q is not valid UTF-8", ErrBadHost, host)
	}
	ascii, err := hostProfile.ToASCII(h)
	if err != nil {
		return "", fmt.Errorf("%w: %q cannot be read as a host name (%v)", ErrBadHost, host, err)
	}
	ascii = strings.TrimSuffix(strings.ToLower(ascii), ".")
	if ascii == "" || strings.Contains(ascii, "..") || strings.HasPrefix(ascii, ".") || strings.HasSuffix(ascii, ".") {
		return "", fmt.Errorf("%w: %q has an empty label", ErrBadHost, host)
	}
	if i := strings.IndexFunc(ascii, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_')
	}); i >= 0 {
		return "", fmt.Errorf("%w: %q holds %q, which no host name has", ErrBadHost, host, ascii[i:i+1])
	}
	if len(ascii) > maxHostName {
		return "", fmt.Errorf("%w: %q is %d characters long as a host name, more than the %d a resolver looks up", ErrBadHost, host, len(ascii), maxHostName)
	}
	// Mapping may turn full-width digits into an address.
	if ip, err := netip.ParseAddr(ascii); err == nil {
		return canonicalIP(ip), nil
	}
	if ip, ok := legacyIPv4(ascii); ok {
		return ip.String(), nil
	}
	return ascii, nil
}

// canonicalIP is ip as CanonicalHost writes it: IPv4-mapped IPv6 as IPv4,
// without a zone.
func canonicalIP(ip netip.Addr) string {
	return ip.Unmap().WithZone("").String()
}

// legacyIPv4 reads the inet_aton spellings of an IPv4 address: one to four
// parts, each decimal, octal (leading 0) or hex (0x), the last part filling
// the remaining bytes. Go's own parser refuses them, but a resolver that
// hands the name to the C library dials them (and a browser reads them the
// same way), so a host that is one of them is compared as the address it
// means.
func legacyIPv4(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		if p == "" {
			return netip.Addr{}, false
		}
		base := 10
		switch {
		case strings.HasPrefix(p, "0x"):
			p, base = p[2:], 16
			if p == "" {
				p = "0"
			}
		case len(p) > 1 && p[0] == '0':
			p, base = p[1:], 8
		}
		v, err := strconv.ParseUint(p, base, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	var n uint64
	for i, v := range vals[:len(vals)-1] {
		if v > 255 {
			return netip.Addr{}, false
		}
		n |= v << (24 - 8*uint(i))
	}
	last := vals[len(vals)-1]
	if last >= 1<<(8*uint(5-len(vals))) {
		return netip.Addr{}, false
	}
	n |= last
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

// HostOf is the canonical host of an http or https URL's authority
// (host, host:port, [IPv6] or [IPv6]:port), as CanonicalHost gives it. A port
// is digits; anything else after the host is refused with ErrBadHost.
func HostOf(hostport string) (string, error) {
	h, port := hostport, ""
	if strings.HasPrefix(h, "[") {
		end := strings.Index(h, "]")
		if end < 0 {
			return "", fmt.Errorf("%w: %q opens a bracket it does not close", ErrBadHost, hostport)
		}
		h, port = h[:end+1], h[end+1:]
		if port != "" && port[0] != ':' {
			return "", fmt.Errorf("%w: %q has %q after the address, which is not a port", ErrBadHost, hostport, port)
		}
	} else if i := strings.LastIndex(h, ":"); i >= 0 && !strings.Contains(h[:i], ":") {
		h, port = h[:i], h[i:]
	}
	if strings.TrimLeft(strings.TrimPrefix(port, ":"), "0123456789") != "" {
		return "", fmt.Errorf("%w: %q has a port that is not a number", ErrBadHost, hostport)
	}
	return CanonicalHost(h)
}
