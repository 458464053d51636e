package browser

import (
	"bufio"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// countingServer is a web server on one loopback address that counts every
// connection it accepts (before reading a byte of it) and answers plain
// pages and WebSocket handshakes.
type countingServer struct {
	ln    net.Listener
	conns atomic.Int64
	hits  chan string // request paths, as they arrive
}

// serveCounting starts a countingServer on ip (port chosen by the kernel).
func serveCounting(t *testing.T, ip string) *countingServer {
	t.Helper()
	return serveCountingOn(t, net.JoinHostPort(ip, "0"))
}

// serveCountingOn starts a countingServer on addr (host:port).
func serveCountingOn(t *testing.T, addr string) *countingServer {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	s := &countingServer{ln: ln, hits: make(chan string, 64)}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.conns.Add(1)
			go s.serve(c)
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return s
}

// port is the server's port.
func (s *countingServer) port() int { return s.ln.Addr().(*net.TCPAddr).Port }

// serve answers one connection: a WebSocket handshake on /ws (then holds
// the socket open), else a small HTML page naming the path.
func (s *countingServer) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		select {
		case s.hits <- req.URL.Path:
		default:
		}
		if strings.EqualFold(req.Header.Get("Upgrade"), "websocket") {
			sum := sha1.Sum([]byte(req.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
			fmt.Fprintf(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n",
				base64.StdEncoding.EncodeToString(sum[:]))
			buf := make([]byte, 512)
			for {
				if _, err := c.Read(buf); err != nil {
					return
				}
			}
		}
		body := fmt.Sprintf("<!doctype html><title>reached %s</title><p>secret of %s</p>", req.URL.Path, req.URL.Path)
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nAccess-Control-Allow-Origin: *\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	}
}

// guardedManager starts a Chromium of its own whose policy also blocks
// blocked (a loopback address standing in for a metadata service).
func guardedManager(t *testing.T, blocked netip.Prefix, popups chan string) *Manager {
	t.Helper()
	if _, err := FindChrome(); err != nil {
		t.Skipf("no Chromium: %v", err)
	}
	dir := t.TempDir()
	var n atomic.Int64
	m := New(Options{
		DataDir:      filepath.Join(dir, "browser"),
		NewTabID:     func() string { return fmt.Sprintf("btab_guardpop%d", n.Add(1)) },
		OnPopup:      func(_, id string, info PageInfo) { popups <- id + " " + info.URL },
		extraBlocked: []netip.Prefix{blocked},
	})
	t.Cleanup(func() { m.Shutdown(context.Background()) })
	return m
}

// TestLinkLocalBlocking: no request of a page reaches a blocked address —
// not in IPv4-mapped, NAT64 or decimal form, not by fetch, navigation,
// WebSocket or a popup's first request — while the same requests to an
// allowed address work. 127.0.0.2 stands in for 169.254.169.254 (tests
// talk to loopback only).
func TestLinkLocalBlocking(t *testing.T) {
	popups := make(chan string, 16)
	m := guardedManager(t, netip.MustParsePrefix("127.0.0.2/32"), popups)
	meta := serveCounting(t, "127.0.0.2")
	allowed := serveCounting(t, "127.0.0.1")
	mp := meta.port()
	blockedHosts := []string{
		fmt.Sprintf("127.0.0.2:%d", mp),
		fmt.Sprintf("[::ffff:7f00:2]:%d", mp),    // IPv4-mapped
		fmt.Sprintf("[::ffff:127.0.0.2]:%d", mp), // the same, dotted
		fmt.Sprintf("2130706434:%d", mp),         // decimal
		fmt.Sprintf("0x7f.0.0.2:%d", mp),         // hexadecimal part
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	tab := tryToReach(ctx, t, m, popups, allowed, blockedHosts)

	// The same requests to an allowed address work (through the guard).
	ap := allowed.port()
	if got, err := evalMain[string](ctx, tab, fmt.Sprintf(`fetch('http://127.0.0.1:%d/fetch-ok').then(r => r.text()).then(t => 'read', e => 'failed: ' + e)`, ap)); got != "read" {
		t.Errorf("fetch to the allowed server: %q, %v", got, err)
	}
	if got, err := evalMain[string](ctx, tab, wsProbe(fmt.Sprintf("ws://[::ffff:7f00:1]:%d/ws", ap))); got != "open" {
		t.Errorf("WebSocket to the allowed server (mapped form): %q, %v", got, err)
	}
	if _, err := evalMain[bool](ctx, tab, fmt.Sprintf(`!!window.open('http://127.0.0.1:%d/popup-ok')`, ap)); err != nil {
		t.Fatal(err)
	}
	if got := waitPopup(t, popups); !strings.HasSuffix(got, "/popup-ok") {
		t.Errorf("allowed popup: %s", got)
	}

	meta.expectNone(t)
	if m.guard == nil || m.guard.refused.Load() == 0 {
		t.Error("the guard proxy refused no connection: only the tab's Fetch screening acted")
	}
	if allowed.conns.Load() == 0 {
		t.Error("the allowed server got no connection: the control did not run")
	}
	blocked := false
	for _, c := range tab.Console(0) {
		blocked = blocked || strings.Contains(c.Text, "meith blocked")
	}
	if !blocked {
		t.Errorf("no console note of a blocked request: %+v", tab.Console(0))
	}
}

// openOn opens a tab of m at url in a context of its own.
func openOn(t *testing.T, m *Manager, url string) *Tab {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	id := fmt.Sprintf("btab_g%d", nextID.Add(1))
	tab, err := m.Open(ctx, Spec{ID: id, ContextKey: "space:guard", URL: url})
	if err != nil {
		t.Fatalf("Open(%s): %v", url, err)
	}
	return tab
}

// wsProbe is a script that opens a WebSocket and answers "open" or
// "failed".
func wsProbe(url string) string {
	return `new Promise(done => { const w = new WebSocket('` + url + `');
		w.onopen = () => { w.close(); done('open') }; w.onerror = () => done('failed'); w.onclose = () => done('failed') })`
}

// waitPopup returns the next popup adopted as a tab ("id url").
func waitPopup(t *testing.T, popups chan string) string {
	t.Helper()
	select {
	case p := <-popups:
		return p
	case <-time.After(30 * time.Second):
		t.Fatal("no popup within 30 s")
		return ""
	}
}

// waitNotLoading waits until tab has loaded a URL ending in suffix or
// failed to load.
func waitNotLoading(t *testing.T, tab *Tab, suffix string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		info := tab.Info()
		if (strings.HasSuffix(info.URL, suffix) && info.LoadState == LoadComplete) || info.LoadState == LoadFailed {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("tab did not settle on …%s: %+v", suffix, info)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// tryToReach opens a page on the allowed server and makes it try every way
// to reach each of hosts: fetch, WebSocket, window.open (the first two
// hosts), its own navigation and meith's Navigate (to hosts[1]). Each
// attempt must fail; it returns the page's tab.
func tryToReach(ctx context.Context, t *testing.T, m *Manager, popups chan string, allowed *countingServer, hosts []string) *Tab {
	t.Helper()
	tab := openOn(t, m, fmt.Sprintf("http://127.0.0.1:%d/start", allowed.port()))
	for _, h := range hosts {
		got, err := evalMain[string](ctx, tab, `fetch('http://`+h+`/fetch').then(r => r.text()).then(t => 'read: ' + t, e => 'failed')`)
		if err != nil || got != "failed" {
			t.Errorf("fetch http://%s/fetch from a page: %q, %v; want it to fail", h, got, err)
		}
		got, err = evalMain[string](ctx, tab, wsProbe("ws://"+h+"/ws"))
		if err != nil || got != "failed" {
			t.Errorf("WebSocket ws://%s/ws from a page: %q, %v; want it to fail", h, got, err)
		}
	}
	// Popups: window.open's first request leaves before meith attaches.
	for i, h := range hosts[:2] {
		if _, err := evalMain[bool](ctx, tab, fmt.Sprintf(`!!window.open('http://%s/popup%d')`, h, i)); err != nil {
			t.Fatal(err)
		}
		waitPopup(t, popups)
	}
	// The page navigates itself, and meith is asked to navigate.
	nav := openOn(t, m, fmt.Sprintf("http://127.0.0.1:%d/start2", allowed.port()))
	if _, err := evalMain[bool](ctx, nav, `(location.href = 'http://`+hosts[1]+`/nav', true)`); err != nil {
		t.Fatal(err)
	}
	waitNotLoading(t, nav, "/nav")
	if _, err := nav.Navigate(ctx, "http://"+hosts[1]+"/navigate"); !IsURL(err) {
		t.Errorf("Navigate to http://%s/navigate: %v, want a URLError", hosts[1], err)
	}
	if got := nav.Info(); strings.Contains(got.Title, "reached /nav") {
		t.Errorf("the page read the blocked server: %+v", got)
	}
	return tab
}

// expectNone fails the test if the server was reached at all.
func (s *countingServer) expectNone(t *testing.T) {
	t.Helper()
	if n := s.conns.Load(); n != 0 {
		var paths []string
		for len(s.hits) > 0 {
			paths = append(paths, <-s.hits)
		}
		t.Errorf("the blocked address %s got %d connections (requests %v), want none", s.ln.Addr(), n, paths)
	}
}
