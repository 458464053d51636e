package socket

import (
	"context"
	"errors"
	"fmt"
	"github.com/meith-dev/meith/backend/internal/workpool"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// DefaultWriteTimeout bounds one frame write when [Options.WriteTimeout] is
// zero. A peer that does not read for that long is disconnected.
const DefaultWriteTimeout = 10 * time.Second

// Options configures [Listen].
type Options struct {
	// Path is the socket path (see [discovery.SocketPath]); required. Its parent
	// directory is created 0700 and, when this user owns it, made 0700, so
	// it should be a directory dedicated to meith.
	Path string
	// Registry runs the calls; required.
	Registry *registry.Registry
	// Logf receives the server's log lines with key/value pairs; nil
	// discards them.
	Logf func(level protocol.LogLevel, msg string, kv ...any)
	// OnSessionEnd, if set, is called once for every accepted connection
	// when it closes, after its calls have resolved, so that the session's
	// grants can be revoked. caller is the effective caller of the
	// connection's last call (cli when it made none).
	OnSessionEnd func(caller protocol.Caller, sessionID string)
	// DefaultCwd is the cwd of calls whose client sent none and whose peer's
	// /proc cwd is unreadable; empty means the server's working directory.
	DefaultCwd string
	// WriteTimeout bounds each frame write; zero means
	// [DefaultWriteTimeout]. A failed write closes the connection.
	WriteTimeout time.Duration

	// ownerUID overrides the uid that peers must have (tests only; nil
	// means os.Getuid()).
	ownerUID *int
}

// Server is a listening tool socket. Create it with [Listen] and stop it
// with [Server.Close].
type Server struct {
	opts     Options
	reg      *registry.Registry
	logf     func(level protocol.LogLevel, msg string, kv ...any)
	ln       *net.UnixListener
	path     string
	id       fileID
	ownerUID int
	writeTO  time.Duration
	cwd      string

	// ctx is the parent of every connection's context; Close cancels it.
	ctx    context.Context
	cancel context.CancelCauseFunc

	mu      sync.Mutex
	conns   map[*conn]struct{}
	closing bool

	wg sync.WaitGroup // the accept loop and every connection goroutine

	// workers runs the per-call reader hand-offs on reused goroutines.
	workers workpool.Pool
	done    chan struct{} // closed when Close has finished its work

	closeOnce sync.Once
	closeErr  error

	// dispatched counts the calls handed to Registry.Call and answered the
	// calls whose tool_result write has returned (for tests).
	dispatched atomic.Int64
	answered   atomic.Int64
	// handOffs counts the readers handed to a new goroutine because a call
	// was about to wait (for tests).
	handOffs atomic.Int64
}

// shutdownGrace is how long Close lets calls resolve on their own after
// Registry.BeginShutdown before it cancels them.
const shutdownGrace = time.Second

// errServerClosed is the cancellation cause of calls stopped by Close.
var errServerClosed = errors.New("meith runtime socket closed")

// Listen creates the socket at opts.Path and starts serving it. ctx bounds
// only the set-up (the probe of an existing socket); the server runs until
// [Server.Close]. If a live runtime already listens on the path, Listen
// returns an *[InUseError] (see [IsInUse]) and leaves it alone; a stale
// socket file is replaced.
func Listen(ctx context.Context, opts Options) (*Server, error) {
	if opts.Path == "" {
		return nil, errors.New("socket listen: empty path")
	}
	if opts.Registry == nil {
		return nil, errors.New("socket listen: nil registry")
	}
	ln, id, err := bind(ctx, opts.Path)
	if err != nil {
		return nil, err
	}
	s := &Server{
		opts:     opts,
		reg:      opts.Registry,
		logf:     opts.Logf,
		ln:       ln,
		path:     opts.Path,
		id:       id,
		ownerUID: os.Getuid(),
		writeTO:  opts.WriteTimeout,
		cwd:      opts.DefaultCwd,
		conns:    map[*conn]struct{}{},
		done:     make(chan struct{}),
	}
	if opts.ownerUID != nil {
		s.ownerUID = *opts.ownerUID
	}
	if s.logf == nil {
		s.logf = func(protocol.LogLevel, string, ...any) {}
	}
	if s.writeTO <= 0 {
		s.writeTO = DefaultWriteTimeout
	}
	if s.cwd == "" {
		s.cwd, _ = os.Getwd()
	}
	s.ctx, s.cancel = context.WithCancelCause(context.Background())
	s.wg.Add(1)
	go s.acceptLoop()
	s.logf(protocol.LevelInfo, "tool socket listening", "path", s.path)
	return s, nil
}

// Path returns the socket path.
func (s *Server) Path() string { return s.path }

// Sessions returns the number of open connections.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

func (s *Server) acceptLoop() {
	defer s.wg.Done()
	var backoff time.Duration
	for {
		nc, err := s.ln.AcceptUnix()
		if err != nil {
			if s.isClosing() || errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of file descriptors and the like: back off and retry.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.logf(protocol.LevelError, "tool socket accept failed", "err", err, "retryIn", backoff)
			select {
			case <-time.After(backoff):
			case <-s.ctx.Done():
				return
			}
			continue
		}
		backoff = 0
		c := newConn(s, nc)
		s.mu.Lock()
		if s.closing {
			s.mu.Unlock()
			_ = nc.Close()
			continue
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go c.serve()
	}
}

func (s *Server) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

func (s *Server) removeConn(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// Close stops the server: it stops accepting, cancels every in-flight call
// and lets each write its tool_result (normally CANCELLED), closes the
// connections, waits for their goroutines and unlinks the socket file if it
// is still the one this server created. ctx bounds the waiting; when it ends
// first, the connections are closed at once and Close returns ctx's error
// (the socket is still unlinked). Close is idempotent; later calls wait for
// the first to finish (bounded by their own ctx).
//
// The owner should call [registry.Registry.BeginShutdown] first so calls
// arriving meanwhile get RUNTIME_SHUTTING_DOWN.
func (s *Server) Close(ctx context.Context) error {
	s.closeOnce.Do(func() {
		s.closeErr = s.close(ctx)
		close(s.done)
	})
	select {
	case <-s.done:
		return s.closeErr
	case <-ctx.Done():
		return fmt.Errorf("close tool socket: %w", ctx.Err())
	}
}

func (s *Server) close(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()

	_ = s.ln.Close()
	waitCalls := func() {
		for _, c := range conns {
			c.callWG.Wait()
		}
	}
	// No new calls from here on.
	for _, c := range conns {
		c.mu.Lock()
		c.closing = true
		c.mu.Unlock()
	}
	// After BeginShutdown the registry is already ending every call with
	// RUNTIME_SHUTTING_DOWN; let those results out before cancelling, so
	// clients see that code rather than CANCELLED.
	if s.reg.ShuttingDown() {
		graceCtx, cancel := context.WithTimeout(ctx, shutdownGrace)
		waitCtx(graceCtx, waitCalls)
		cancel()
	}
	// Cancel every call, then give each the chance to write its result.
	for _, c := range conns {
		c.stopCalls()
	}
	s.cancel(errServerClosed)
	var err error
	if !waitCtx(ctx, waitCalls) {
		err = fmt.Errorf("close tool socket: wait for calls: %w", ctx.Err())
	}
	for _, c := range conns {
		c.closeConn()
	}
	if !waitCtx(ctx, s.wg.Wait) && err == nil {
		err = fmt.Errorf("close tool socket: wait for connections: %w", ctx.Err())
	}
	s.workers.Close()
	if id, ok := statID(s.path); ok && id == s.id {
		if rerr := os.Remove(s.path); rerr != nil && err == nil {
			err = fmt.Errorf("close tool socket: unlink: %w", rerr)
		}
	}
	s.logf(protocol.LevelInfo, "tool socket closed", "path", s.path)
	return err
}

// waitCtx runs wait and reports whether it returned before ctx ended.
func waitCtx(ctx context.Context, wait func()) bool {
	done := make(chan struct{})
	go func() {
		wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}
