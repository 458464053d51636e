package browser

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestGuardProxy drives the guard proxy as Chromium does (absolute-form
// GET, CONNECT) with real servers on loopback. The dialer's Control hook
// refuses before connect(2), so the link-local addresses below are never
// contacted.
func TestGuardProxy(t *testing.T) {
	meta := serveCounting(t, "127.0.0.2") // stands in for a metadata service
	allowed := serveCounting(t, "127.0.0.1")
	policy := newAddressPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")})
	g, err := startGuardProxy(policy, func(string, string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	defer g.close()
	proxyURL, _ := url.Parse(g.url())
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL)}, Timeout: 20 * time.Second}
	get := func(u string) (int, string) {
		t.Helper()
		res, err := client.Get(u)
		if err != nil {
			t.Fatalf("GET %s through the proxy: %v", u, err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
		return res.StatusCode, string(body)
	}
	mp, ap := meta.port(), allowed.port()

	tests := []struct {
		url    string
		status int
	}{
		{fmt.Sprintf("http://127.0.0.1:%d/ok", ap), http.StatusOK},
		{fmt.Sprintf("http://[::ffff:7f00:1]:%d/ok-mapped", ap), http.StatusOK},
		{fmt.Sprintf("http://127.0.0.2:%d/x", mp), http.StatusForbidden},
		{fmt.Sprintf("http://[::ffff:7f00:2]:%d/x", mp), http.StatusForbidden},
		{fmt.Sprintf("http://[64:ff9b::7f00:2]:%d/x", mp), http.StatusForbidden},
		{"http://169.254.169.254/latest/meta-data/", http.StatusForbidden},
		{"http://[::ffff:a9fe:a9fe]/latest/meta-data/", http.StatusForbidden},
		{"http://[fe80::1%25lo]/", http.StatusForbidden},
		{"http://[fd00:ec2::254]/", http.StatusForbidden},
		{g.url() + "/", http.StatusBadGateway}, // the proxy itself: no loop
	}
	for _, tt := range tests {
		status, body := get(tt.url)
		if status != tt.status {
			t.Errorf("GET %s through the proxy: %d %q, want %d", tt.url, status, body, tt.status)
		}
		if status == http.StatusForbidden && !strings.Contains(body, "meith blocked") {
			t.Errorf("GET %s: body %q does not say meith blocked it", tt.url, body)
		}
	}

	// CONNECT (https, ws and wss go this way).
	connect := func(hostport string) string {
		t.Helper()
		c, err := net.Dial("tcp", g.self.String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", hostport, hostport)
		br := bufio.NewReader(c)
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("CONNECT %s: %v", hostport, err)
		}
		if res.StatusCode != http.StatusOK {
			return res.Status
		}
		// Through the tunnel: a plain request to the server.
		fmt.Fprintf(c, "GET /tunneled HTTP/1.1\r\nHost: %s\r\n\r\n", hostport)
		inner, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("through the tunnel to %s: %v", hostport, err)
		}
		inner.Body.Close()
		return "tunnel " + inner.Status
	}
	for _, tt := range []struct{ hostport, want string }{
		{fmt.Sprintf("127.0.0.1:%d", ap), "tunnel 200 OK"},
		{fmt.Sprintf("127.0.0.2:%d", mp), "403 Forbidden"},
		{fmt.Sprintf("[::ffff:127.0.0.2]:%d", mp), "403 Forbidden"},
		{"169.254.169.254:80", "403 Forbidden"},
		{"[fe80::a9fe:a9fe]:80", "403 Forbidden"},
		{"[64:ff9b::a9fe:a9fe]:443", "403 Forbidden"},
	} {
		if got := connect(tt.hostport); got != tt.want {
			t.Errorf("CONNECT %s: %s, want %s", tt.hostport, got, tt.want)
		}
	}

	// A host name is judged by what it resolves to.
	names := newAddressPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")})
	gn, err := startGuardProxy(names, func(string, string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	defer gn.close()
	pu, _ := url.Parse(gn.url())
	nameClient := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}, Timeout: 20 * time.Second}
	before := allowed.conns.Load()
	res, err := nameClient.Get(fmt.Sprintf("http://localhost:%d/by-name", ap))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden || allowed.conns.Load() != before {
		t.Errorf("GET http://localhost/ with loopback blocked: %d (server connections %d → %d), want 403 and none",
			res.StatusCode, before, allowed.conns.Load())
	}

	// A request made to the proxy as to a web server is refused.
	res, err = http.Get(g.url() + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("a plain request to the proxy: %d, want 400", res.StatusCode)
	}

	if n := meta.conns.Load(); n != 0 {
		t.Errorf("the blocked address got %d connections, want none", n)
	}
	if g.refused.Load() == 0 {
		t.Error("the proxy counted no refusal")
	}
}
