package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// guardDialTimeout bounds one connection attempt of the guard proxy.
const guardDialTimeout = 30 * time.Second

// BlockedAddressError says that the browser was about to connect to an
// address the policy blocks (see [BlockedPrefixes]).
type BlockedAddressError struct {
	// Addr is the address that was refused.
	Addr netip.Addr
}

// Error implements error.
func (e *BlockedAddressError) Error() string {
	return fmt.Sprintf("connection to %s refused: %s", e.Addr, blockedReason)
}

// IsBlockedAddress reports whether err says a connection was refused for
// its address.
func IsBlockedAddress(err error) bool { var e *BlockedAddressError; return errors.As(err, &e) }

// guardProxy is the HTTP proxy that Chromium sends its requests through
// (--proxy-server). It makes every connection itself and judges the address
// it is about to connect to, after name resolution, in the dialer's Control
// hook: whatever form a URL wrote the address in, a host name that resolves
// to it (or rebinds to it), a WebSocket (a CONNECT tunnel), a service
// worker's request or a popup's first request before meith attaches to it —
// none reaches a blocked address. Loopback requests skip the proxy
// (Chromium's own rule) unless the policy blocks a loopback address.
type guardProxy struct {
	policy  *addressPolicy
	logf    func(level, format string, args ...any)
	ln      net.Listener
	srv     *http.Server
	dialer  *net.Dialer
	forward *httputil.ReverseProxy
	self    netip.AddrPort

	refused atomic.Int64 // connections refused for their address

	mu       sync.Mutex
	tunnels  map[net.Conn]struct{} // open CONNECT tunnels (client side)
	failures map[string]string     // why the latest connection to host:port failed
}

// maxFailures bounds the failures the proxy remembers (all are dropped
// when it is reached).
const maxFailures = 256

// startGuardProxy listens on 127.0.0.1 (a port the kernel picks) and serves
// until close.
func startGuardProxy(policy *addressPolicy, logf func(level, format string, args ...any)) (*guardProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("browser: guard proxy: %w", err)
	}
	g := &guardProxy{policy: policy, logf: logf, ln: ln, tunnels: map[net.Conn]struct{}{}, failures: map[string]string{}}
	g.self = ln.Addr().(*net.TCPAddr).AddrPort()
	g.dialer = &net.Dialer{Timeout: guardDialTimeout, KeepAlive: 30 * time.Second, ControlContext: g.control}
	transport := &http.Transport{
		Proxy:                 nil, // the browser's requests go straight to their server
		DialContext:           g.dialer.DialContext,
		MaxIdleConns:          100,
		IdleConnTimeout:       90 * time.Second,
		ResponseHeaderTimeout: 0, // a page may wait for a slow server as long as it likes
	}
	g.forward = &httputil.ReverseProxy{
		// A proxy request carries its absolute URL and Host, which the
		// outgoing copy keeps as they are (the copy already lacks the
		// hop-by-hop and X-Forwarded headers).
		Rewrite:       func(*httputil.ProxyRequest) {},
		Transport:     transport,
		FlushInterval: -1, // stream (server-sent events, long polls)
		ErrorHandler:  g.forwardError,
	}
	g.srv = &http.Server{Handler: g, ReadHeaderTimeout: 30 * time.Second, MaxHeaderBytes: 1 << 20}
	go g.srv.Serve(ln)
	return g, nil
}

// url is the proxy's address for --proxy-server.
func (g *guardProxy) url() string { return "http://" + g.self.String() }

// close stops the proxy and ends its open tunnels.
func (g *guardProxy) close() {
	g.srv.Close()
	g.mu.Lock()
	for c := range g.tunnels {
		c.Close()
	}
	g.mu.Unlock()
	if t, ok := g.forward.Transport.(*http.Transport); ok {
		t.CloseIdleConnections()
	}
}

// control refuses a connection to a blocked address, or to the proxy
// itself. It runs for every address the dialer tries, after resolution.
func (g *guardProxy) control(_ context.Context, network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("browser: guard proxy: unexpected %s address to connect to", network)
	}
	if g.policy.blocks(ap.Addr()) {
		return &BlockedAddressError{Addr: ap.Addr().WithZone("")}
	}
	if ap.Addr().Unmap() == g.self.Addr() && ap.Port() == g.self.Port() {
		return errors.New("browser: guard proxy: a request to the proxy itself")
	}
	return nil
}

// ServeHTTP answers proxy requests only: CONNECT tunnels (https, wss, ws)
// and absolute-form http requests. A request made to the proxy as if it
// were a web server (a page that found its port) is refused.
func (g *guardProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodConnect:
		g.tunnel(w, r)
	case r.URL.IsAbs() && r.URL.Scheme == "http" && r.URL.Host != "":
		g.forward.ServeHTTP(w, r)
	default:
		http.Error(w, "this is meith's browser proxy; it takes only proxy requests", http.StatusBadRequest)
	}
}

// tunnel connects to a CONNECT request's host:port and relays bytes both
// ways until either side closes.
func (g *guardProxy) tunnel(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), guardDialTimeout)
	upstream, err := g.dialer.DialContext(ctx, "tcp", r.Host)
	cancel()
	if err != nil {
		g.refuse(w, r.Host, err)
		return
	}
	client, buffered, err := http.NewResponseController(w).Hijack()
	if err != nil {
		upstream.Close()
		return
	}
	g.mu.Lock()
	g.tunnels[client] = struct{}{}
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		delete(g.tunnels, client)
		g.mu.Unlock()
		client.Close()
		upstream.Close()
	}()
	if _, err := io.WriteString(client, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	done := make(chan struct{}, 2)
	go func() {
		// What the client sent after its request line may already be
		// buffered: relay the buffer first.
		io.Copy(upstream, buffered.Reader)
		closeWrite(upstream)
		done <- struct{}{}
	}()
	go func() {
		io.Copy(client, upstream)
		closeWrite(client)
		done <- struct{}{}
	}()
	<-done
	<-done
}

// closeWrite half-closes a TCP connection (the other direction may still
// carry the answer).
func closeWrite(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.CloseWrite()
		return
	}
	c.Close()
}

// forwardError answers an absolute-form request that could not be
// forwarded.
func (g *guardProxy) forwardError(w http.ResponseWriter, r *http.Request, err error) {
	g.refuse(w, r.URL.Host, err)
}

// refuse answers a request whose connection failed: 403 with a note for a
// blocked address (the page shows it), else 502. It remembers why, for
// [guardProxy.failure].
func (g *guardProxy) refuse(w http.ResponseWriter, hostport string, err error) {
	if !errors.Is(err, context.Canceled) {
		g.noteFailure(hostport, err)
	}
	var be *BlockedAddressError
	if errors.As(err, &be) {
		g.refused.Add(1)
		what := be.Addr.String()
		if h := hostOnly(hostport); h != what && "["+what+"]" != h {
			what += " (" + h + ")"
		}
		g.logf("warn", "blocked a browser connection to %s: %s", what, blockedReason)
		w.Header().Set("Cache-Control", "no-store")
		http.Error(w, "meith blocked this request: "+blockedReason+".", http.StatusForbidden)
		return
	}
	if errors.Is(err, context.Canceled) {
		return // the browser gave up on the request
	}
	http.Error(w, "meith's browser proxy could not connect: "+err.Error(), http.StatusBadGateway)
}

// hostOnly drops the port of host:port (a log line names the host, never a
// URL's path or query).
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}

// noteFailure remembers why a connection to hostport failed.
func (g *guardProxy) noteFailure(hostport string, err error) {
	why := err.Error()
	var be *BlockedAddressError
	if errors.As(err, &be) {
		why = be.Error()
	}
	if len(why) > 300 {
		why = why[:300] + "…"
	}
	g.mu.Lock()
	if len(g.failures) >= maxFailures {
		clear(g.failures)
	}
	g.failures[strings.ToLower(hostport)] = why
	g.mu.Unlock()
}

// failure says why the latest connection the proxy tried to hostport
// failed ("" when none did): Chromium reports every failed tunnel as
// net::ERR_TUNNEL_CONNECTION_FAILED, without the cause.
func (g *guardProxy) failure(hostport string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.failures[strings.ToLower(hostport)]
}
