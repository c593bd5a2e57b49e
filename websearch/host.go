package websearch

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// ErrBadHost is matched (errors.Is) by CanonicalHost's refusals.
var ErrBadHost = errors.New("not a host name")

// hostProfile maps a host the way a browser's address bar does (UTS #46):
// full-width letters and digits to ASCII, the ideographic full stop and its
// kin to ".", upper case to lower, and Unicode labels to their xn-- form.
// The Lookup profile refuses what could not be looked up; the registration
// rules (bidi, joiners) are left to the registries, since a page's host only
// has to match what the dialer will reach.
var hostProfile = idna.New(idna.MapForLookup(), idna.Transitional(false), idna.StrictDomainName(false))

// CanonicalHost is host as the dialer will reach it, so a block list, a rule
// and a grant compare the one spelling of it: IDNA-mapped to lower-case
// ASCII (full-width characters and ideographic full stops folded), without a
// trailing dot, an IP address in its canonical form with IPv4-mapped IPv6
// folded to IPv4 ([::ffff:127.0.0.1] and [::ffff:7f00:1] are 127.0.0.1), and
// the legacy IPv4 spellings a C resolver accepts (127.1, 0x7f.0.0.1,
// 2130706433) written as the dotted quad they mean. Brackets around an IPv6
// address are optional; a port is not part of a host.
func CanonicalHost(host string) (string, error) {
	h := strings.TrimSpace(host)
	if h == "" {
		return "", fmt.Errorf("%w: the host is empty", ErrBadHost)
	}
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	if ip, err := netip.ParseAddr(h); err == nil {
		return canonicalIP(ip), nil
	}
	ascii, err := hostProfile.ToASCII(h)
	if err != nil {
		return "", fmt.Errorf("%w: %q cannot be read as a host name (%v)", ErrBadHost, host, err)
	}
	ascii = strings.TrimSuffix(strings.ToLower(ascii), ".")
	if ascii == "" || strings.Contains(ascii, "..") || strings.HasPrefix(ascii, ".") {
		return "", fmt.Errorf("%w: %q has an empty label", ErrBadHost, host)
	}
	if i := strings.IndexFunc(ascii, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_')
	}); i >= 0 {
		return "", fmt.Errorf("%w: %q holds %q, which no host name has", ErrBadHost, host, ascii[i:i+1])
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

func canonicalIP(ip netip.Addr) string {
	return ip.Unmap().WithZone("").String()
}

// legacyIPv4 reads the inet_aton spellings of an IPv4 address: one to four
// parts, each decimal, octal (leading 0) or hex (0x), the last part filling
// the remaining bytes. Go's own parser refuses them, but a resolver that
// hands the name to the C library would dial them, so a host that is one of
// them is compared as the address it means.
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

// HostOf is the canonical host of an http or https URL's authority, as
// CanonicalHost gives it.
func HostOf(hostport string) (string, error) {
	h := hostport
	if strings.HasPrefix(h, "[") {
		if end := strings.Index(h, "]"); end > 0 {
			h = h[:end+1]
		}
	} else if i := strings.LastIndex(h, ":"); i >= 0 && !strings.Contains(h[:i], ":") {
		h = h[:i]
	}
	return CanonicalHost(h)
}
