package mcpbridge

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/meith-dev/meith/backend/internal/buildinfo"
)

// How the bridge serves MCP:
//
//   - One go-sdk *mcp.Server per live token, picked by the getServer
//     callback from the request that serveHTTP authenticated. Its tools/list
//     and tools/call are answered by a receiving middleware (tools.go).
//   - Two go-sdk streamable handlers: the stateful one for requests that
//     carry an Mcp-Session-Id and for initialize (go-sdk client, Claude
//     Code, Codex: notifications/cancelled and progress work there), and a
//     stateless one for other POSTs without a session id (curl-style
//     callers that never echo the session header).
//   - serveHTTP checks Host, Origin, path, method, body size and the
//     bearer token, in that order, before the SDK sees anything.
//   - A tool call's context ends with notifications/cancelled (the SDK's
//     handler context), with its HTTP request (looked up through the
//     internal requestKeyHeader) or with its token (registration.ctx).

// ErrClosed is returned by Register once the bridge is closed.
var ErrClosed = errors.New("mcpbridge: bridge is closed")

// IsClosed reports whether err is (or wraps) [ErrClosed].
func IsClosed(err error) bool { return errors.Is(err, ErrClosed) }

// tokenBytes is the number of random bytes in a token (48 hex characters).
const tokenBytes = 24

// Why a call's context ended, for the tool's cause (context.Cause).
var (
	errRevoked      = errors.New("mcpbridge: the session's token was revoked")
	errRequestEnded = errors.New("mcpbridge: the HTTP request ended")
)

// bridge is the implementation behind [Bridge].
type bridge struct {
	logf func(format string, args ...any)
	ttl  time.Duration

	// stateful serves clients that keep an Mcp-Session-Id (the go-sdk
	// client, Claude Code, Codex); stateless serves plain POSTs that carry
	// no session id (curl-style). Both pick the server from the token.
	stateful, stateless http.Handler

	// inflight maps the internal request key (header requestKeyHeader) to
	// the HTTP request it came with, so a tool call can end with it.
	inflight sync.Map // string → *httpCall
	nextKey  atomic.Uint64

	// closing tracks the goroutines that close SDK sessions of dead tokens;
	// active counts the HTTP handlers running. Close waits for both.
	closing sync.WaitGroup
	active  activity

	mu       sync.Mutex
	closed   bool
	regs     map[string]*registration   // by session id
	byDigest map[[32]byte]*registration // by sha256 of the token
	gen      uint64                     // registration counter
	srv      *http.Server
	ln       net.Listener
	host     string // 127.0.0.1:<port>
	endpoint string // http://127.0.0.1:<port>/mcp
	stopJan  chan struct{}
	janDone  chan struct{}
}

// registration is one live token: a session's binding and its MCP server.
type registration struct {
	binding Binding
	digest  [32]byte
	// uid ties the go-sdk's own sessions to this token (auth.TokenInfo
	// UserID): a session id minted under one token is refused under another.
	uid    string
	server *mcp.Server

	// ctx ends when the token dies (Unregister, re-Register, expiry, Close),
	// cancelling the session's in-flight calls.
	ctx    context.Context
	cancel context.CancelCauseFunc

	listed     chan struct{}
	listedOnce sync.Once

	lastUsed atomic.Int64 // unix nanoseconds
	calls    atomic.Int64 // tool calls running
}

// httpCall is an HTTP request being served, as seen by the tool handlers.
type httpCall struct {
	ctx context.Context
	reg *registration
}

func newBridge(opts Options) *bridge {
	b := &bridge{
		logf:     opts.Logf,
		ttl:      opts.IdleTTL,
		regs:     make(map[string]*registration),
		byDigest: make(map[[32]byte]*registration),
	}
	if b.logf == nil {
		b.logf = func(string, ...any) {}
	}
	if b.ttl <= 0 {
		b.ttl = DefaultIdleTTL
	}
	getServer := func(r *http.Request) *mcp.Server {
		if hc, ok := r.Context().Value(callKey{}).(*httpCall); ok {
			return hc.reg.server
		}
		return nil
	}
	// The go-sdk's session hijacking check compares TokenInfo.UserID; the
	// verifier only reads what ServeHTTP has already authenticated.
	verify := func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		if hc, ok := ctx.Value(callKey{}).(*httpCall); ok {
			return &auth.TokenInfo{UserID: hc.reg.uid}, nil
		}
		return nil, auth.ErrInvalidToken
	}
	withUser := auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})
	sdkOpts := mcp.StreamableHTTPOptions{
		// ServeHTTP checks Host (exact loopback host and port) and Origin
		// before the SDK sees the request; the SDK's own check is looser.
		DisableLocalhostProtection: true,
		MaxRequestBodyBytes:        MaxBodyBytes,
		// No SessionTimeout: the SDK's sessions live as long as the token
		// (Touch keeps both alive) and are closed when it dies.
	}
	stateful := sdkOpts
	b.stateful = withUser(mcp.NewStreamableHTTPHandler(getServer, &stateful))
	stateless := sdkOpts
	stateless.Stateless = true
	b.stateless = withUser(mcp.NewStreamableHTTPHandler(getServer, &stateless))
	return b
}

func (b *bridge) register(ctx context.Context, binding Binding) (Endpoint, error) {
	if binding.SessionID == "" {
		return Endpoint{}, errors.New("mcpbridge: register: the binding has no session id")
	}
	if binding.List == nil || binding.Call == nil {
		return Endpoint{}, fmt.Errorf("mcpbridge: register %s: the binding needs List and Call", binding.SessionID)
	}
	raw := make([]byte, tokenBytes)
	if _, err := rand.Read(raw); err != nil {
		return Endpoint{}, fmt.Errorf("mcpbridge: register %s: token: %w", binding.SessionID, err)
	}
	token := hex.EncodeToString(raw)

	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return Endpoint{}, fmt.Errorf("mcpbridge: register %s: %w", binding.SessionID, ErrClosed)
	}
	if err := b.startLocked(ctx); err != nil {
		return Endpoint{}, fmt.Errorf("mcpbridge: register %s: %w", binding.SessionID, err)
	}
	if old := b.regs[binding.SessionID]; old != nil {
		b.dropLocked(old, errRevoked)
	}
	b.gen++
	reg := &registration{
		binding: binding,
		digest:  sha256.Sum256([]byte(token)),
		uid:     fmt.Sprintf("%s#%d", binding.SessionID, b.gen),
		listed:  make(chan struct{}),
	}
	reg.ctx, reg.cancel = context.WithCancelCause(context.Background())
	reg.lastUsed.Store(time.Now().UnixNano())
	reg.server = b.newServer(reg)
	b.regs[binding.SessionID] = reg
	b.byDigest[reg.digest] = reg
	return Endpoint{URL: b.endpoint, Token: token}, nil
}

// newServer builds the MCP server of one token. tools/list and tools/call
// are answered by a receiving middleware rather than registered tools, so
// the list is always the binding's current one and unknown names still
// reach binding.Call (which answers UNKNOWN_TOOL and audits the attempt).
func (b *bridge) newServer(reg *registration) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "meith", Version: buildinfo.Version}, &mcp.ServerOptions{
		Capabilities:              &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
		SupportedProtocolVersions: protocolVersions,
	})
	s.AddReceivingMiddleware(b.toolsMiddleware(reg))
	return s
}

// protocolVersions are the MCP versions the bridge speaks: those of the
// agents (Claude Code, Codex, Gemini CLI speak 2025-06-18 and 2025-11-25),
// with a session per agent. The sessionless 2026-07-28 revision is left
// out: the SDK serves it with an ephemeral session built and torn down for
// every request, which more than doubled the cost of a tool call.
var protocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// startLocked starts the listener on the first Register.
func (b *bridge) startLocked(ctx context.Context) error {
	if b.srv != nil {
		return nil
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp4", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	b.host = fmt.Sprintf("127.0.0.1:%d", port)
	b.endpoint = "http://" + b.host + mcpPath
	b.srv = &http.Server{
		Handler:           http.HandlerFunc(b.serveHTTP),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	b.ln = ln
	srv := b.srv
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
			b.logf("mcpbridge: server stopped: %v", err)
		}
	}()
	b.stopJan = make(chan struct{})
	b.janDone = make(chan struct{})
	go b.janitor(b.stopJan, b.janDone)
	return nil
}

// janitor drops the tokens that were idle for longer than the TTL.
func (b *bridge) janitor(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	every := min(max(b.ttl/4, 10*time.Millisecond), time.Minute)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			b.mu.Lock()
			for _, reg := range b.regs {
				if b.expired(reg, time.Now()) {
					b.logf("mcpbridge: session %s: token expired after %s idle", reg.binding.SessionID, b.ttl)
					b.dropLocked(reg, errRevoked)
				}
			}
			b.mu.Unlock()
		}
	}
}

// expired reports whether reg went unused for longer than the TTL. A token
// with a tool call running is in use.
func (b *bridge) expired(reg *registration, now time.Time) bool {
	return reg.calls.Load() == 0 && now.Sub(time.Unix(0, reg.lastUsed.Load())) > b.ttl
}

// dropLocked kills reg's token: it leaves the maps at once, its in-flight
// calls are cancelled and its SDK sessions closed in the background (Close
// waits for them).
func (b *bridge) dropLocked(reg *registration, cause error) {
	if b.regs[reg.binding.SessionID] == reg {
		delete(b.regs, reg.binding.SessionID)
	}
	if b.byDigest[reg.digest] == reg {
		delete(b.byDigest, reg.digest)
	}
	reg.cancel(cause)
	b.closing.Go(func() {
		// ServerSession.Close waits for the session's handlers, which end
		// now that reg.ctx is cancelled.
		for ss := range reg.server.Sessions() {
			_ = ss.Close()
		}
	})
}

func (b *bridge) unregister(sessionID string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if reg := b.regs[sessionID]; reg != nil {
		b.dropLocked(reg, errRevoked)
	}
}

// live returns the session's registration if its token is alive.
func (b *bridge) live(sessionID string) *registration {
	b.mu.Lock()
	defer b.mu.Unlock()
	reg := b.regs[sessionID]
	if reg == nil || b.expired(reg, time.Now()) {
		return nil
	}
	return reg
}

func (b *bridge) toolsListed(sessionID string) <-chan struct{} {
	if reg := b.live(sessionID); reg != nil {
		return reg.listed
	}
	return nil
}

func (b *bridge) touch(sessionID string) {
	if reg := b.live(sessionID); reg != nil {
		reg.touch()
	}
}

func (reg *registration) touch() { reg.lastUsed.Store(time.Now().UnixNano()) }

func (b *bridge) sessions() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	ids := make([]string, 0, len(b.regs))
	for id, reg := range b.regs {
		if !b.expired(reg, now) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

func (b *bridge) url() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.endpoint
}

func (b *bridge) close(ctx context.Context) error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	for _, reg := range b.regs {
		b.dropLocked(reg, errRevoked)
	}
	srv, ln, stop, janDone := b.srv, b.ln, b.stopJan, b.janDone
	b.mu.Unlock()

	if srv == nil {
		return nil
	}
	close(stop)
	<-janDone
	// No new connections; the calls were cancelled above and the closed SDK
	// sessions release their hanging SSE streams, so the handlers end.
	// (http.Server.Shutdown is not used: it waits up to 5 s for a
	// connection that was opened but never sent a request.)
	_ = ln.Close()
	closing := make(chan struct{})
	go func() { b.closing.Wait(); close(closing) }()
	var err error
	for _, ch := range []<-chan struct{}{closing, b.active.idle()} {
		select {
		case <-ch:
		case <-ctx.Done():
			err = ctx.Err()
		}
		if err != nil {
			break
		}
	}
	_ = srv.Close()
	if err != nil {
		return fmt.Errorf("mcpbridge: close: %w", err)
	}
	return nil
}

// activity counts the HTTP handlers running.
type activity struct {
	mu   sync.Mutex
	n    int
	done chan struct{} // closed when n drops to 0
}

func (a *activity) enter() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.n == 0 {
		a.done = make(chan struct{})
	}
	a.n++
}

func (a *activity) leave() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.n--
	if a.n == 0 {
		close(a.done)
	}
}

// idle returns a channel closed once no handler is running.
func (a *activity) idle() <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.n == 0 {
		done := make(chan struct{})
		close(done)
		return done
	}
	return a.done
}
