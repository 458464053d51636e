package socket

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/meith-dev/meith/backend/internal/procfs"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// errCancelledByClient is the cause of a call cancelled by cancel_tool_call.
var errCancelledByClient = errors.New("cancelled by the client")

// errConnClosed is the cause of calls stopped because their connection closed.
var errConnClosed = errors.New("connection closed")

// conn is one accepted connection.
type conn struct {
	s       *Server
	nc      *net.UnixConn
	w       *protocol.Writer
	session string
	peer    *registry.Peer

	ctx    context.Context
	cancel context.CancelCauseFunc

	mu      sync.Mutex
	calls   map[string]*inflight // in-flight calls by requestId
	closing bool                 // no new calls
	caller  protocol.Caller      // effective caller of the last call

	callWG    sync.WaitGroup
	closeOnce sync.Once
}

func newConn(s *Server, nc *net.UnixConn) *conn {
	c := &conn{
		s:       s,
		nc:      nc,
		session: "socket:" + uuid.NewString(),
		calls:   map[string]*inflight{},
		caller:  protocol.CallerCLI,
	}
	c.w = protocol.NewWriter(&deadlineWriter{c: nc, d: s.writeTO})
	c.ctx, c.cancel = context.WithCancelCause(s.ctx)
	return c
}

// deadlineWriter bounds each write with a deadline. Setting the deadline is
// not free, so it is moved forward only when less than half of the timeout
// is left: a write that blocks still fails after between d/2 and d.
// protocol.Writer serializes the writes, so the fields need no lock.
type deadlineWriter struct {
	c     net.Conn
	d     time.Duration
	until time.Time // the deadline currently set
}

func (w *deadlineWriter) Write(p []byte) (int, error) {
	if now := time.Now(); w.until.Sub(now) < w.d/2 {
		w.until = now.Add(w.d)
		if err := w.c.SetWriteDeadline(w.until); err != nil {
			return 0, err
		}
	}
	return w.c.Write(p)
}

// write sends one frame; a failed write closes the connection. A frame too
// large for the peer to read is never sent: a result becomes a TOOL_FAILED
// result, an event a short log event saying what was dropped, anything
// else an error frame (see [oversizeReplacement]).
func (c *conn) write(msg protocol.Message) {
	err := c.w.Write(msg)
	var tl *protocol.FrameTooLargeError
	if errors.As(err, &tl) {
		c.s.logf(protocol.LevelWarn, "tool socket frame too large; replaced",
			"session", c.session, "frame", msg.FrameType(), "bytes", tl.Size)
		err = c.w.Write(oversizeReplacement(msg, tl))
	}
	if err != nil {
		c.s.logf(protocol.LevelDebug, "tool socket write failed; closing connection",
			"session", c.session, "frame", msg.FrameType(), "err", err)
		c.closeConn()
	}
}

// oversizeReplacement is the small frame sent instead of msg, which is too
// large to send: the peer learns what happened and a waiting call resolves.
func oversizeReplacement(msg protocol.Message, tl *protocol.FrameTooLargeError) protocol.Message {
	switch m := msg.(type) {
	case *protocol.ToolResultFrame:
		return protocol.NewToolResult(m.RequestID, protocol.ErrorResult(protocol.CodeToolFailed,
			fmt.Sprintf("Result too large (%d bytes; a frame may carry at most %d): ask for less, for example with a narrower path, a limit or a page", tl.Size, tl.Max),
			map[string]int{"bytes": tl.Size, "maxFrameBytes": tl.Max}))
	case *protocol.ToolEvent:
		return protocol.NewToolEvent(m.RequestID, protocol.Log(protocol.LevelWarn,
			fmt.Sprintf("A %s event of %d bytes was dropped: it exceeds MAX_FRAME_BYTES (%d bytes)", m.Event.Kind, tl.Size, tl.Max)))
	default:
		return protocol.NewError("", fmt.Sprintf("The %s frame (%d bytes) exceeds MAX_FRAME_BYTES (%d bytes) and was not sent", tl.Type, tl.Size, tl.Max))
	}
}

func (c *conn) closeConn() {
	c.closeOnce.Do(func() { _ = c.nc.Close() })
}

// stopCalls refuses new calls and cancels the in-flight ones.
func (c *conn) stopCalls() {
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	c.cancel(errConnClosed)
}

func (c *conn) serve() {
	defer c.s.wg.Done()
	peer, err := c.authenticate()
	if err != nil {
		c.s.logf(protocol.LevelWarn, "tool socket peer refused", "err", err)
		c.stopCalls()
		c.refuse(err.Error())
		c.s.removeConn(c)
		return
	}
	c.peer = peer
	c.s.logf(protocol.LevelDebug, "tool socket session opened", "session", c.session,
		"pid", peer.PID, "exe", peer.Exe)
	c.readFrom(protocol.NewReader(c.nc))
}

// finish runs once, in the goroutine that read the end of the stream: it
// cancels the connection's calls, waits for their results to be written,
// closes the connection and reports the end of the session.
func (c *conn) finish() {
	defer c.s.removeConn(c)
	c.stopCalls()
	c.callWG.Wait()
	c.closeConn()
	c.mu.Lock()
	caller := c.caller
	c.mu.Unlock()
	c.s.logf(protocol.LevelDebug, "tool socket session closed", "session", c.session)
	if c.s.opts.OnSessionEnd != nil {
		c.s.opts.OnSessionEnd(caller, c.session)
	}
}

// refuseDrain bounds how long a refused peer's input is drained.
const refuseDrain = 500 * time.Millisecond

// refuse sends one error frame and closes the connection gracefully: it
// shuts down the write side and drains what the peer already sent (bounded),
// so the peer reads the frame and then EOF instead of a connection reset.
func (c *conn) refuse(message string) {
	c.write(protocol.NewError("", message))
	_ = c.nc.CloseWrite()
	_ = c.nc.SetReadDeadline(time.Now().Add(refuseDrain))
	_, _ = io.Copy(io.Discard, io.LimitReader(c.nc, 1<<20))
	c.closeConn()
}

// authenticate reads the peer's credentials and refuses other uids.
func (c *conn) authenticate() (*registry.Peer, error) {
	pid, uid, err := peerCred(c.nc)
	if err != nil {
		return nil, fmt.Errorf("connection refused: cannot read peer credentials: %w", err)
	}
	if uid != c.s.ownerUID {
		return nil, fmt.Errorf("connection refused: peer uid %d does not own this runtime", uid)
	}
	p := &registry.Peer{PID: pid, UID: uid}
	if pid > 0 {
		proc := "/proc/" + strconv.Itoa(pid)
		p.Exe, _ = os.Readlink(proc + "/exe")
		p.Cwd, _ = os.Readlink(proc + "/cwd")
		if st, err := procfs.ReadStat(pid); err == nil {
			p.StartTime = st.StartTime
		}
	}
	return p, nil
}

// readFrom reads frames with r until the stream ends, then calls finish.
// It runs each tool_call itself, on this goroutine, as long as the call
// does not wait (app_ping and other [registry.Tool.Inline] tools, refusals,
// failed validation): no hand-off stands between reading a call and
// answering it. When the call is about to wait (an admission check, an
// authorizer that asks someone, a handler that may block), the registry
// calls Detach first, which hands r to a new goroutine that goes on
// reading (so a cancel frame is read while the call runs); this goroutine
// then finishes the call and ends. Exactly one goroutine reads at any time.
func (c *conn) readFrom(r *protocol.Reader) {
	rd := &reader{c: c, r: r}
	rd.detach = rd.handOff
	for {
		msg, err := r.Next()
		if err != nil {
			var fe *protocol.FrameError
			if errors.As(err, &fe) {
				c.s.logf(protocol.LevelWarn, "tool socket frame rejected", "session", c.session, "err", fe.Message)
				c.write(fe.Frame())
				continue
			}
			c.finish() // EOF, a read error, or the connection closed under us
			return
		}
		switch m := msg.(type) {
		case *protocol.ListTools:
			c.write(protocol.NewToolsList(c.s.reg.List()))
		case *protocol.ToolCall:
			c.runCall(m, rd.detach)
			if rd.handedOff {
				return // another goroutine reads now
			}
		case *protocol.CancelToolCall:
			// Handled by the reader, ahead of any queue: calls run in other
			// goroutines, so a cancel never waits behind one.
			c.mu.Lock()
			f := c.calls[m.RequestID]
			var cancel context.CancelCauseFunc
			if f != nil {
				cancel, f.cancelled = f.cancel, true
			}
			c.mu.Unlock()
			if cancel != nil {
				cancel(errCancelledByClient)
			}
		default:
			c.write(protocol.NewError("", fmt.Sprintf("Invalid message: %s is a server frame", msg.FrameType())))
		}
	}
}

// reader is the state of one goroutine reading a connection.
type reader struct {
	c         *conn
	r         *protocol.Reader
	detach    func() // handOff, made once
	handedOff bool
}

// handOff starts a goroutine that goes on reading in this one's place.
func (rd *reader) handOff() {
	rd.handedOff = true
	rd.c.s.handOffs.Add(1)
	rd.c.s.wg.Add(1)
	rd.c.s.workers.Go(func() {
		defer rd.c.s.wg.Done()
		rd.c.readFrom(rd.r)
	})
}

// clientInfo applies the socket's caller policy to a client's claims.
func (c *conn) clientInfo(in protocol.ClientInfo, requestID string) protocol.ClientInfo {
	out := in
	switch in.Caller {
	case protocol.CallerCLI, protocol.CallerPlugin:
	default:
		c.s.logf(protocol.LevelWarn, "socket caller claim downgraded to cli", "session", c.session,
			"requestId", requestID, "claimed", in.Caller)
		out.Caller = protocol.CallerCLI
	}
	out.SessionID = c.session
	if out.Cwd == "" {
		out.Cwd = c.peer.Cwd
	}
	if out.Cwd == "" {
		out.Cwd = c.s.cwd
	}
	return out
}

// runCall registers a call, runs it and writes its tool_result, or refuses
// it (already in flight, shutting down). It runs on the reader's goroutine,
// until the registry calls detach (see [conn.readFrom]).
func (c *conn) runCall(m *protocol.ToolCall, detach func()) {
	id := m.RequestID
	ci := c.clientInfo(m.ClientInfo, id)
	peer := *c.peer
	req := registry.Request{
		RequestID: id,
		ToolName:  m.ToolName,
		Args:      m.Arguments,
		Client:    ci,
		Peer:      &peer,
		Timeout:   msDuration(m.TimeoutMs),
		Emit:      func(ev protocol.Event) { c.write(protocol.NewToolEvent(id, ev)) },
		Detach:    detach,
	}

	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		res := protocol.ErrorResult(protocol.CodeRuntimeShuttingDown, "The meith runtime is shutting down", nil)
		if c.s.reg.ShuttingDown() {
			// The registry refuses it at once, and audits the refusal.
			res = c.s.reg.Call(c.ctx, req)
		}
		c.write(protocol.NewToolResult(id, res))
		return
	}
	if _, dup := c.calls[id]; dup {
		c.mu.Unlock()
		c.write(protocol.NewError(id, fmt.Sprintf("Duplicate requestId %s is already in flight", id)))
		return
	}
	// The call's own context is the registry's (one per call, a child of
	// the connection's): it hands over its cancel func, which a
	// cancel_tool_call that came before uses at once.
	f := &inflight{}
	c.calls[id] = f
	req.OnStart = func(cancel context.CancelCauseFunc) {
		c.mu.Lock()
		f.cancel = cancel
		early := f.cancelled
		c.mu.Unlock()
		if early {
			cancel(errCancelledByClient)
		}
	}
	c.caller = ci.Caller
	c.callWG.Add(1)
	c.mu.Unlock()

	c.s.dispatched.Add(1)
	defer c.callWG.Done()
	res := c.s.reg.Call(c.ctx, req)
	// Forget the id before answering, so a client may reuse it as soon as
	// it has the result.
	c.mu.Lock()
	delete(c.calls, id)
	c.mu.Unlock()
	c.write(protocol.NewToolResult(id, res))
	c.s.answered.Add(1)
}

// inflight is a call of the connection that has not been answered.
// Guarded by conn.mu.
type inflight struct {
	cancel    context.CancelCauseFunc // the call's, once the registry made it
	cancelled bool                    // a cancel_tool_call came
}

// msDuration converts timeoutMs to a Duration (0 stays 0, huge values
// saturate).
func msDuration(ms int64) time.Duration {
	if ms <= 0 {
		return 0
	}
	if ms > math.MaxInt64/int64(time.Millisecond) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(ms) * time.Millisecond
}
