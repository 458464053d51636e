package browser

import (
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/chromedp/cdproto/fetch"
)

// BlockedPrefixes are the addresses no request of a browser tab may reach:
// link-local ranges, where cloud metadata services answer (and hand out
// credentials), and the metadata services that live elsewhere. An IPv6
// address that embeds an IPv4 one (IPv4-mapped, IPv4-compatible, NAT64,
// SIIT, 6to4) is judged by the IPv4 address too.
var BlockedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("169.254.0.0/16"),     // IPv4 link-local: AWS, GCP, Azure, Oracle, DigitalOcean… metadata (169.254.169.254), ECS (169.254.170.2)
	netip.MustParsePrefix("fe80::/10"),          // IPv6 link-local
	netip.MustParsePrefix("224.0.0.0/24"),       // IPv4 link-local multicast
	netip.MustParsePrefix("ff02::/16"),          // IPv6 link-local multicast
	netip.MustParsePrefix("fd00:ec2::254/128"),  // AWS metadata over IPv6
	netip.MustParsePrefix("100.100.100.200/32"), // Alibaba Cloud metadata
}

// addressPolicy decides which addresses the browser may connect to.
type addressPolicy struct {
	blocked []netip.Prefix
}

// defaultPolicy blocks [BlockedPrefixes].
var defaultPolicy = newAddressPolicy(nil)

// newAddressPolicy blocks [BlockedPrefixes] and extra (tests add a loopback
// address here to stand in for a metadata service).
func newAddressPolicy(extra []netip.Prefix) *addressPolicy {
	p := &addressPolicy{blocked: append([]netip.Prefix{}, BlockedPrefixes...)}
	for _, e := range extra {
		p.blocked = append(p.blocked, e.Masked())
	}
	return p
}

// blocks reports whether a connection to a must be refused: a itself (its
// zone dropped) or the IPv4 address it embeds is in a blocked prefix.
func (p *addressPolicy) blocks(a netip.Addr) bool {
	if !a.IsValid() {
		return false
	}
	a = a.WithZone("")
	forms := []netip.Addr{a}
	if v4, ok := embeddedIPv4(a); ok {
		forms = append(forms, v4)
	}
	for _, f := range forms {
		for _, b := range p.blocked {
			if b.Contains(f) {
				return true
			}
		}
	}
	return false
}

// blocksHost reports whether a URL's host names a blocked address
// literally, in any form a browser reads as one (see [parseHostAddr]). A
// host name is not resolved here: the guard proxy judges what it resolves
// to when it connects.
func (p *addressPolicy) blocksHost(host string) bool {
	a, ok := parseHostAddr(host)
	return ok && p.blocks(a)
}

// blockedReason is what a refused URL or connection is told.
const blockedReason = "link-local addresses and cloud metadata services are blocked"

// checkURL returns a *URLError when an http(s) URL's host names a blocked
// address literally.
func (p *addressPolicy) checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return nil
	}
	if p.blocksHost(u.Hostname()) {
		return &URLError{URL: raw, Reason: blockedReason}
	}
	return nil
}

// fetchPatterns are the request URLs each tab's Fetch domain pauses for
// [Tab.screenRequest] to judge: every IPv6 literal, and the dotted IPv4
// prefixes of the blocked ranges (Chromium prints every IPv4 form dotted
// before a request). It is the tabs' first line, which names the refusal
// in the tab's console; the guard proxy judges every connection anyway.
func (p *addressPolicy) fetchPatterns() []*fetch.RequestPattern {
	out := []*fetch.RequestPattern{{URLPattern: "*://[*"}}
	seen := map[string]bool{}
	for _, b := range p.blocked {
		if !b.Addr().Is4() {
			continue
		}
		octets := b.Addr().As4()
		n := b.Bits() / 8
		parts := make([]string, 0, 4)
		for _, o := range octets[:n] {
			parts = append(parts, strconv.Itoa(int(o)))
		}
		pat := "*://" + strings.Join(parts, ".")
		if n < 4 {
			pat += "."
		}
		pat += "*"
		if n == 0 {
			pat = "*"
		}
		if !seen[pat] {
			seen[pat] = true
			out = append(out, &fetch.RequestPattern{URLPattern: pat})
		}
	}
	return out
}

// blocksLoopback reports whether any blocked prefix covers a loopback
// address (only tests block one): Chromium then must send loopback requests
// through the guard proxy too, not straight to the address.
func (p *addressPolicy) blocksLoopback() bool {
	for _, b := range p.blocked {
		if b.Addr().IsLoopback() || b.Contains(netip.MustParseAddr("127.0.0.1")) || b.Contains(netip.IPv6Loopback()) {
			return true
		}
	}
	return false
}

// Prefixes of the IPv6 ranges that embed an IPv4 address in their last 32
// bits (and 6to4, which embeds it in bits 16–47).
var (
	nat64WellKnown = netip.MustParsePrefix("64:ff9b::/96")    // RFC 6052
	nat64LocalUse  = netip.MustParsePrefix("64:ff9b:1::/48")  // RFC 8215 (as a /96)
	siitPrefix     = netip.MustParsePrefix("::ffff:0:0:0/96") // RFC 2765 IPv4-translated
	compatPrefix   = netip.MustParsePrefix("::/96")           // IPv4-compatible (deprecated)
	sixToFour      = netip.MustParsePrefix("2002::/16")       // RFC 3056
)

// embeddedIPv4 returns the IPv4 address an IPv6 address carries: mapped
// (::ffff:a.b.c.d), compatible (::a.b.c.d), NAT64 (64:ff9b::a.b.c.d and the
// local-use 64:ff9b:1::/48 as a /96), SIIT (::ffff:0:a.b.c.d) and 6to4
// (2002:aabb:ccdd::).
func embeddedIPv4(a netip.Addr) (netip.Addr, bool) {
	if !a.Is6() {
		return netip.Addr{}, false
	}
	a = a.WithZone("")
	b := a.As16()
	last := netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	switch {
	case a.Is4In6():
		return a.Unmap(), true
	case nat64WellKnown.Contains(a), nat64LocalUse.Contains(a), siitPrefix.Contains(a), compatPrefix.Contains(a):
		return last, true
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), true
	}
	return netip.Addr{}, false
}

// parseHostAddr reads a URL host as an IP address the way a browser does:
// an IPv6 literal (with or without brackets, a zone id allowed), or an IPv4
// address in any form the WHATWG URL standard accepts — dotted, one decimal
// number (2852039166), hexadecimal (0xa9fea9fe, 0xa9.0xfe.0xa9.0xfe), octal
// (0251.0376.0251.0376), shortened (169.254.43518) and mixed, with an
// optional trailing dot. ok is false for a host name.
func parseHostAddr(host string) (netip.Addr, bool) {
	h := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.Contains(h, ":") {
		if i := strings.IndexByte(h, '%'); i >= 0 {
			// A URL writes the zone's % as %25.
			h = h[:i] + "%" + strings.TrimPrefix(h[i+1:], "25")
		}
		a, err := netip.ParseAddr(h)
		return a, err == nil
	}
	return parseWHATWGIPv4(h)
}

// parseWHATWGIPv4 is the IPv4 parser of the WHATWG URL standard (what
// Chromium uses before it prints an address back as dotted decimal).
func parseWHATWGIPv4(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) == 0 || len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := parseIPv4Number(p)
		if !ok {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	var v uint64
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false
		}
		v |= n << (8 * (3 - i))
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	v |= last
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// parseIPv4Number reads one part of an IPv4 address: 0x… hexadecimal, 0…
// octal, else decimal.
func parseIPv4Number(p string) (uint64, bool) {
	if p == "" {
		return 0, false
	}
	base := 10
	switch {
	case len(p) >= 2 && (p[:2] == "0x" || p[:2] == "0X"):
		p, base = p[2:], 16
		if p == "" {
			return 0, true
		}
	case len(p) >= 2 && p[0] == '0':
		p, base = p[1:], 8
	}
	if len(p) > 32 {
		return 0, false
	}
	n, err := strconv.ParseUint(p, base, 64)
	if err != nil || n > 0xffffffff {
		return 0, false
	}
	return n, true
}
