package browser

import (
	"encoding/json"
	"net/netip"
	"testing"
)

// hostForms are URL hosts a page can write for an address, with the
// address a browser reads (zero: a host name, not an address).
var hostForms = []struct {
	host string
	want string
}{
	{"169.254.169.254", "169.254.169.254"},
	{"2852039166", "169.254.169.254"},          // one decimal number
	{"0xa9fea9fe", "169.254.169.254"},          // hexadecimal
	{"0XA9FEA9FE", "169.254.169.254"},          // upper-case hexadecimal
	{"0xa9.0xfe.0xa9.0xfe", "169.254.169.254"}, // hexadecimal parts
	{"0251.0376.0251.0376", "169.254.169.254"}, // octal parts
	{"169.254.43518", "169.254.169.254"},       // shortened: the last part fills two bytes
	{"169.16689662", "169.254.169.254"},        // shortened: three bytes
	{"0251.254.0xa9.254", "169.254.169.254"},   // mixed
	{"169.254.169.254.", "169.254.169.254"},    // trailing dot
	{"0x", "0.0.0.0"},                          // hexadecimal with no digits is 0
	{"127.0.0.1", "127.0.0.1"},
	{"[::ffff:a9fe:a9fe]", "::ffff:169.254.169.254"},
	{"::ffff:169.254.169.254", "::ffff:169.254.169.254"},
	{"[fe80::1]", "fe80::1"},
	{"fe80::1%eth0", "fe80::1%eth0"},     // Go's URL.Hostname() of [fe80::1%25eth0]
	{"[fe80::1%25eth0]", "fe80::1%eth0"}, // a URL's host with the zone's % escaped
	{"example.com", ""},
	{"169.254.169.254.nip.io", ""}, // a name: the proxy judges what it resolves to
	{"256.1.1.1", ""},              // a part over 255: not an address
	{"1.2.3.4.5", ""},
	{"0x1g", ""},
	{"09", ""}, // not octal
	{"", ""},
}

func TestParseHostAddr(t *testing.T) {
	for _, tt := range hostForms {
		got, ok := parseHostAddr(tt.host)
		switch {
		case tt.want == "" && ok:
			t.Errorf("parseHostAddr(%q) = %v; want no address", tt.host, got)
		case tt.want != "" && (!ok || got != netip.MustParseAddr(tt.want)):
			t.Errorf("parseHostAddr(%q) = %v, %v; want %s", tt.host, got, ok, tt.want)
		}
	}
}

func TestAddressPolicyBlocks(t *testing.T) {
	tests := []struct {
		addr    string
		blocked bool
	}{
		{"169.254.169.254", true},
		{"169.254.0.1", true},
		{"169.254.170.2", true}, // ECS task metadata
		{"169.255.0.1", false},
		{"100.100.100.200", true},
		{"100.100.100.201", false},
		{"224.0.0.251", true},
		{"224.0.1.1", false},
		{"::ffff:169.254.169.254", true}, // IPv4-mapped
		{"::169.254.169.254", true},      // IPv4-compatible
		{"::ffff:0:a9fe:a9fe", true},     // SIIT IPv4-translated
		{"64:ff9b::a9fe:a9fe", true},     // NAT64 well-known prefix
		{"64:ff9b:1::a9fe:a9fe", true},   // NAT64 local-use prefix
		{"2002:a9fe:a9fe::1", true},      // 6to4
		{"fe80::1", true},
		{"fe80::1%eth0", true}, // a zone does not hide it
		{"febf:ffff::1", true}, // the top of fe80::/10
		{"fec0::1", false},
		{"ff02::1", true},
		{"fd00:ec2::254", true},
		{"fd00:ec2::253", false},
		{"::ffff:127.0.0.1", false},
		{"64:ff9b::808:808", false},
		{"127.0.0.1", false},
		{"::1", false},
		{"::", false},
		{"10.0.0.1", false},
		{"192.168.1.1", false},
		{"2606:4700::1111", false},
	}
	p := newAddressPolicy(nil)
	for _, tt := range tests {
		if got := p.blocks(netip.MustParseAddr(tt.addr)); got != tt.blocked {
			t.Errorf("blocks(%s) = %v, want %v", tt.addr, got, tt.blocked)
		}
	}
	if p.blocks(netip.Addr{}) {
		t.Error("blocks(invalid) = true")
	}
	// Every written form of a blocked address is blocked as a host.
	for _, tt := range hostForms {
		want := tt.want != "" && p.blocks(netip.MustParseAddr(tt.want))
		if got := p.blocksHost(tt.host); got != want {
			t.Errorf("blocksHost(%q) = %v, want %v", tt.host, got, want)
		}
	}
	// A test's extra prefix stands in for a metadata service; blocking a
	// loopback address makes loopback go through the proxy.
	withLoopback := newAddressPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")})
	for _, tt := range []struct {
		addr    string
		blocked bool
	}{{"127.0.0.2", true}, {"::ffff:127.0.0.2", true}, {"64:ff9b::7f00:2", true}, {"127.0.0.1", false}, {"169.254.169.254", true}} {
		if got := withLoopback.blocks(netip.MustParseAddr(tt.addr)); got != tt.blocked {
			t.Errorf("with 127.0.0.2/32 blocked: blocks(%s) = %v, want %v", tt.addr, got, tt.blocked)
		}
	}
	if p.blocksLoopback() || !withLoopback.blocksLoopback() {
		t.Errorf("blocksLoopback: default %v, with 127.0.0.2/32 %v; want false, true", p.blocksLoopback(), withLoopback.blocksLoopback())
	}
}

// chromiumHosts asks a real Chromium's URL parser for the host of
// http://<form>/ for every form in hostForms that it accepts.
func chromiumHosts(t *testing.T) map[string]string {
	t.Helper()
	m := manager(t)
	tab := open(t, m, "space:urlparse", "about:blank")
	forms := make([]string, 0, len(hostForms))
	for _, f := range hostForms {
		forms = append(forms, f.host)
	}
	q, _ := json.Marshal(forms)
	got, err := evalMain[map[string]string](ctxT(t), tab, `(() => { const out = {};
		for (const h of `+string(q)+`) { try { out[h] = new URL('http://' + h + '/').hostname } catch (e) {} }
		return out })()`)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestParseHostAddrAgreesWithChromium: every host form that Chromium reads
// as an address is the same address for parseHostAddr.
func TestParseHostAddrAgreesWithChromium(t *testing.T) {
	canonical := chromiumHosts(t)
	for _, tt := range hostForms {
		host, ok := canonical[tt.host]
		if !ok {
			if want, _ := parseHostAddr(tt.host); want.Is4() {
				t.Errorf("Chromium refuses http://%s/, which parseHostAddr reads as %v", tt.host, want)
			}
			continue // Chromium refuses the URL
		}
		want, isAddr := parseHostAddr(host)
		got, gotOK := parseHostAddr(tt.host)
		if isAddr != gotOK || (isAddr && got.WithZone("") != want.WithZone("")) {
			t.Errorf("host %q: Chromium reads %q (%v, %v); parseHostAddr reads %v, %v", tt.host, host, want, isAddr, got, gotOK)
		}
	}
}
