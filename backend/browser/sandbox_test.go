package browser

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

func TestDecideSandbox(t *testing.T) {
	tests := []struct {
		env  sandboxEnv
		want string
	}{
		{sandboxEnv{UID: 0, UserNamespaces: true, SetuidHelper: true}, "off (running as root)"},
		{sandboxEnv{UID: 0}, "off (running as root)"},
		{sandboxEnv{UID: 1000, UserNamespaces: true}, "on"},
		{sandboxEnv{UID: 1000, SetuidHelper: true}, "on"},
		{sandboxEnv{UID: 1000, UserNamespaces: true, SetuidHelper: true}, "on"},
		{sandboxEnv{UID: 1000}, "off (user namespaces unavailable)"},
		{sandboxEnv{UID: -1, UserNamespaces: true}, "on"}, // Windows reports -1
	}
	for _, tt := range tests {
		if got := decideSandbox(tt.env).String(); got != tt.want {
			t.Errorf("decideSandbox(%+v) = %s, want %s", tt.env, got, tt.want)
		}
	}
}

func TestChromeFlags(t *testing.T) {
	g, err := startGuardProxy(newAddressPolicy(nil), func(string, string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	defer g.close()
	plain := New(Options{})
	loop := New(Options{extraBlocked: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}})
	tests := []struct {
		name      string
		m         *Manager
		sandbox   SandboxStatus
		noSandbox bool
		bypass    string
	}{
		{"sandboxed", plain, SandboxStatus{On: true}, false, loopbackBypass},
		{"root", plain, SandboxStatus{Reason: SandboxOffRoot}, true, loopbackBypass},
		{"no user namespaces", plain, SandboxStatus{Reason: SandboxOffNoUserNamespaces}, true, loopbackBypass},
		{"loopback blocked", loop, SandboxStatus{On: true}, false, "<-loopback>"}, // loopback through the proxy too
	}
	for _, tt := range tests {
		f := tt.m.chromeFlags(g, tt.sandbox)
		// Set either way: chromedp adds --no-sandbox for root unless it is.
		if v, set := f["no-sandbox"]; !set || v != tt.noSandbox {
			t.Errorf("%s: no-sandbox = %v (set %v), want %v", tt.name, v, set, tt.noSandbox)
		}
		if f["proxy-server"] != g.url() || f["force-webrtc-ip-handling-policy"] != "disable_non_proxied_udp" {
			t.Errorf("%s: proxy flags %v %v", tt.name, f["proxy-server"], f["force-webrtc-ip-handling-policy"])
		}
		// Chromium's implicit rules send link-local around the proxy
		// unless "<-loopback>" comes first.
		if f["proxy-bypass-list"] != tt.bypass || !strings.HasPrefix(fmt.Sprint(f["proxy-bypass-list"]), "<-loopback>") {
			t.Errorf("%s: proxy-bypass-list = %v, want %v", tt.name, f["proxy-bypass-list"], tt.bypass)
		}
	}
}
