// Package client is the Go client of the meith tool socket: the CLI and the
// tests use it to list and call tools on a running runtime.
//
// A [Client] multiplexes any number of concurrent calls over one connection:
// one reader goroutine dispatches the server's frames to the calls by
// requestId. Cancelling a call's context sends cancel_tool_call, so the tool
// stops on the runtime side too.
package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"github.com/meith-dev/meith/backend/protocol"
)

// CancelGrace is how long a cancelled call waits for the runtime's own
// tool_result before it resolves locally as CANCELLED.
const CancelGrace = 2 * time.Second

// TimeoutGrace is how long past its [CallOptions.Timeout] a call waits for
// the runtime's TIMEOUT result before it gives up locally: a runtime that
// hangs, or an answer lost on the way, cannot make a call with a timeout
// wait for ever.
const TimeoutGrace = 2 * time.Second

// writeTimeout bounds one frame write to the runtime.
const writeTimeout = 10 * time.Second

// ErrClosed is wrapped by the errors of calls that fail because the
// connection closed (the runtime went away, or [Client.Close] was called).
var ErrClosed = errors.New("connection to the meith runtime closed")

// ConnectError reports that [Dial] could not reach the runtime.
type ConnectError struct {
	Path string
	Err  error
}

// Error implements error.
func (e *ConnectError) Error() string {
	return fmt.Sprintf("Could not connect to the meith runtime at %s. Is the desktop app (or \"meith serve\") running? (%v)", e.Path, e.Err)
}

// Unwrap returns the dial error.
func (e *ConnectError) Unwrap() error { return e.Err }

// IsConnectError reports whether err is a *[ConnectError].
func IsConnectError(err error) bool {
	var ce *ConnectError
	return errors.As(err, &ce)
}

// ForeignRuntimeError reports that the process listening on the socket is
// run by another user: [Dial] refuses to talk to it, since every call (and
// its arguments) would go to that user.
type ForeignRuntimeError struct {
	Path string
	UID  int // the listener's uid
}

// Error implements error.
func (e *ForeignRuntimeError) Error() string {
	return fmt.Sprintf("Refusing the meith runtime at %s: it is run by uid %d, not by you (uid %d). Another user may have replaced the socket; check who owns its folder.",
		e.Path, e.UID, os.Getuid())
}

// IsForeignRuntime reports whether err is a *[ForeignRuntimeError].
func IsForeignRuntime(err error) bool {
	var fe *ForeignRuntimeError
	return errors.As(err, &fe)
}

// ProtocolError is a transport-level error frame the runtime sent about a
// request (a duplicate requestId, an unsupported protocol version, …). Tool
// failures are never ProtocolErrors: they come back as failed ToolResults.
type ProtocolError struct {
	Code    protocol.ErrorCode
	Message string
}

// Error implements error.
func (e *ProtocolError) Error() string {
	return fmt.Sprintf("meith runtime protocol error (%s): %s", e.Code, e.Message)
}

// IsProtocolError reports whether err is a *[ProtocolError].
func IsProtocolError(err error) bool {
	var pe *ProtocolError
	return errors.As(err, &pe)
}

// CallOptions tunes one [Client.Call].
type CallOptions struct {
	// ClientInfo is the caller context sent with the call. Caller defaults
	// to cli and Cwd to the working directory. The runtime replaces
	// SessionID and only honours the cli and plugin callers.
	ClientInfo protocol.ClientInfo
	// Timeout is sent as timeoutMs when positive; the runtime then answers
	// TIMEOUT when the tool runs longer.
	Timeout time.Duration
	// OnEvent receives the call's tool_event frames in order, all before
	// Call returns. It runs on the client's reader goroutine: it must
	// return quickly, and must neither wait for another call of this Client
	// nor close it.
	OnEvent func(protocol.Event)
}

// Client is a connection to a meith runtime. It is safe for concurrent use.
type Client struct {
	path string
	nc   net.Conn
	w    *protocol.Writer

	listMu sync.Mutex // orders list_tools waiters with their frames

	mu      sync.Mutex
	pending map[string]*pending
	lists   []chan listAnswer // list_tools waiters, in send order
	lastErr string            // last error frame without requestId
	err     error             // why the connection closed (wraps ErrClosed)

	done       chan struct{} // closed when the reader stops
	readerDone chan struct{}
	closeOnce  sync.Once
}

// pending is one call waiting for its result.
type pending struct {
	onEvent func(protocol.Event)
	result  chan protocol.ToolResult // buffered 1
	perr    chan *ProtocolError      // buffered 1
	alive   chan struct{}            // buffered 1: an event arrived (it restarts the local deadline)
}

// Dial connects to the runtime's socket at path. A failure to connect is a
// *[ConnectError]; a listener run by another user (SO_PEERCRED) is refused
// with a *[ForeignRuntimeError] before anything is sent.
func Dial(ctx context.Context, path string) (*Client, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, &ConnectError{Path: path, Err: err}
	}
	if uid, ok, err := peerUID(nc); err != nil {
		_ = nc.Close()
		return nil, &ConnectError{Path: path, Err: fmt.Errorf("read the runtime's credentials: %w", err)}
	} else if ok && uid != os.Getuid() {
		_ = nc.Close()
		return nil, &ForeignRuntimeError{Path: path, UID: uid}
	}
	c := &Client{
		path:       path,
		nc:         nc,
		w:          protocol.NewWriter(deadlineWriter{nc}),
		pending:    map[string]*pending{},
		done:       make(chan struct{}),
		readerDone: make(chan struct{}),
	}
	go c.readLoop()
	return c, nil
}

// Path returns the socket path the client is connected to.
func (c *Client) Path() string { return c.path }

// deadlineWriter bounds each write, so a runtime that stopped reading
// cannot block a caller forever.
type deadlineWriter struct{ c net.Conn }

func (w deadlineWriter) Write(p []byte) (int, error) {
	if err := w.c.SetWriteDeadline(time.Now().Add(writeTimeout)); err != nil {
		return 0, err
	}
	return w.c.Write(p)
}

// Close closes the connection. Calls still waiting fail with an error that
// wraps [ErrClosed]. Close is idempotent.
func (c *Client) Close() error {
	var err error
	c.closeOnce.Do(func() {
		c.fail(fmt.Errorf("client closed: %w", ErrClosed))
		err = c.nc.Close()
	})
	<-c.readerDone
	if err != nil {
		return fmt.Errorf("close meith runtime connection: %w", err)
	}
	return nil
}

// fail marks the connection closed with err, once.
func (c *Client) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.err = err
	close(c.done)
}

// closedErr returns why the connection closed.
func (c *Client) closedErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *Client) readLoop() {
	defer close(c.readerDone)
	r := protocol.NewReader(c.nc)
	for {
		msg, err := r.Next()
		if err != nil {
			var fe *protocol.FrameError
			if errors.As(err, &fe) {
				c.discarded(fe) // a frame we cannot read; the rest still can be
				continue
			}
			c.mu.Lock()
			last := c.lastErr
			c.mu.Unlock()
			cause := fmt.Errorf("connection to the meith runtime at %s lost: %w", c.path, ErrClosed)
			if last != "" {
				cause = fmt.Errorf("connection to the meith runtime at %s lost (%s): %w", c.path, last, ErrClosed)
			}
			c.fail(cause)
			_ = c.nc.Close()
			return
		}
		c.dispatch(msg)
	}
}

func (c *Client) dispatch(msg protocol.Message) {
	switch m := msg.(type) {
	case *protocol.ToolEvent:
		c.mu.Lock()
		p := c.pending[m.RequestID]
		c.mu.Unlock()
		if p == nil {
			break
		}
		if p.onEvent != nil {
			p.onEvent(m.Event)
		}
		select {
		case p.alive <- struct{}{}:
		default:
		}
	case *protocol.ToolResultFrame:
		c.mu.Lock()
		p := c.pending[m.RequestID]
		delete(c.pending, m.RequestID)
		c.mu.Unlock()
		if p != nil {
			p.result <- m.Result
		}
	case *protocol.ToolsList:
		c.mu.Lock()
		var ch chan listAnswer
		if len(c.lists) > 0 {
			ch, c.lists = c.lists[0], c.lists[1:]
		}
		c.mu.Unlock()
		if ch != nil {
			ch <- listAnswer{tools: m.Tools}
		}
	case *protocol.ErrorFrame:
		c.mu.Lock()
		var p *pending
		if m.RequestID != "" {
			p = c.pending[m.RequestID]
			delete(c.pending, m.RequestID)
		}
		// An error without a requestId answers a frame that carries none:
		// list_tools, the only such frame this client sends, and the
		// runtime answers in order, so it is the oldest list's answer.
		var list chan listAnswer
		if p == nil {
			c.lastErr = m.Message
			if len(c.lists) > 0 {
				list, c.lists = c.lists[0], c.lists[1:]
			}
		}
		c.mu.Unlock()
		if p != nil {
			p.perr <- &ProtocolError{Code: m.Code, Message: m.Message}
		}
		if list != nil {
			list <- listAnswer{err: &ProtocolError{Code: m.Code, Message: m.Message}}
		}
	}
	// Client frames echoed back are ignored.
}

// discarded handles a frame the reader could not read. An oversized
// tool_result (or a frame of unknown identity) would leave its call waiting
// for ever: the call it answers fails with a *[ProtocolError] (every pending
// call and list, when the frame's requestId could not be read). A lost
// event, or a malformed frame, only costs that frame.
func (c *Client) discarded(fe *protocol.FrameError) {
	if !fe.Oversize || fe.Type == protocol.TypeToolEvent {
		return
	}
	perr := &ProtocolError{Code: protocol.CodeProtocol,
		Message: "the runtime's answer was discarded: " + fe.Message}
	c.mu.Lock()
	var calls []*pending
	var lists []chan listAnswer
	if p := c.pending[fe.RequestID]; fe.RequestID != "" && p != nil {
		delete(c.pending, fe.RequestID)
		calls = append(calls, p)
	} else if fe.RequestID == "" && fe.Type != protocol.TypeToolResult {
		for id, p := range c.pending {
			delete(c.pending, id)
			calls = append(calls, p)
		}
		lists, c.lists = c.lists, nil
	}
	c.mu.Unlock()
	for _, p := range calls {
		p.perr <- perr
	}
	for _, l := range lists {
		l <- listAnswer{err: perr}
	}
}

// listAnswer is the runtime's answer to one list_tools.
type listAnswer struct {
	tools []protocol.ToolDescriptor
	err   error
}

func (a listAnswer) result() ([]protocol.ToolDescriptor, error) {
	if a.err != nil {
		return nil, fmt.Errorf("list tools: %w", a.err)
	}
	return a.tools, nil
}

// ListTools returns the descriptors of the runtime's tools.
func (c *Client) ListTools(ctx context.Context) ([]protocol.ToolDescriptor, error) {
	ch := make(chan listAnswer, 1)
	// Queue and send under listMu, so waiters stay in the order of their
	// frames (the runtime answers list_tools in order).
	c.listMu.Lock()
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		c.listMu.Unlock()
		return nil, fmt.Errorf("list tools: %w", err)
	}
	c.lists = append(c.lists, ch)
	c.mu.Unlock()
	err := c.w.Write(protocol.NewListTools(&protocol.ClientInfo{Caller: protocol.CallerCLI}))
	c.listMu.Unlock()
	if err != nil {
		c.abort(err)
		return nil, fmt.Errorf("list tools: %w", c.closedErr())
	}
	select {
	case a := <-ch:
		return a.result()
	case <-c.done:
		select {
		case a := <-ch:
			return a.result()
		default:
		}
		return nil, fmt.Errorf("list tools: %w", c.closedErr())
	case <-ctx.Done():
		// The waiter stays queued (its buffered channel absorbs the late
		// answer) so later lists still match their answers.
		return nil, fmt.Errorf("list tools: %w", ctx.Err())
	}
}

// abort closes the connection after a failed write.
func (c *Client) abort(err error) {
	c.fail(fmt.Errorf("write to the meith runtime at %s: %v: %w", c.path, err, ErrClosed))
	_ = c.nc.Close()
}

// Call calls tool with args (nil means {}) and returns its result; a tool
// failure is a result with OK false, not an error. When ctx ends first, Call
// sends cancel_tool_call and waits up to [CancelGrace] for the runtime's
// result (normally CANCELLED); after that it returns a local CANCELLED
// result. With a [CallOptions.Timeout], a runtime that has not answered
// [TimeoutGrace] after it is cancelled the same way and the call resolves
// locally as TIMEOUT. The error is a *[ProtocolError] when the runtime
// refused the frame or its answer could not be read (see
// [IsProtocolError]), or wraps [ErrClosed] when the connection closed before
// the result arrived.
func (c *Client) Call(ctx context.Context, tool string, args json.RawMessage, opts CallOptions) (protocol.ToolResult, error) {
	ci := opts.ClientInfo
	if ci.Caller == "" {
		ci.Caller = protocol.CallerCLI
	}
	if ci.Cwd == "" {
		ci.Cwd, _ = os.Getwd()
	}
	var timeoutMs int64
	if opts.Timeout > 0 {
		timeoutMs = max(1, int64((opts.Timeout+time.Millisecond-1)/time.Millisecond))
	}
	if ctx.Err() != nil {
		return cancelledResult(tool), nil
	}
	id := protocol.NewID("req")
	p := &pending{
		onEvent: opts.OnEvent,
		result:  make(chan protocol.ToolResult, 1),
		perr:    make(chan *ProtocolError, 1),
		alive:   make(chan struct{}, 1),
	}
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return protocol.ToolResult{}, fmt.Errorf("call %s: %w", tool, err)
	}
	c.pending[id] = p
	c.mu.Unlock()
	if err := c.w.Write(protocol.NewToolCall(id, tool, args, ci, timeoutMs)); err != nil {
		c.forget(id)
		if protocol.IsFrameTooLarge(err) { // nothing was sent
			return protocol.ToolResult{}, fmt.Errorf("call %s: the arguments are too large: %w", tool, err)
		}
		c.abort(err)
		return protocol.ToolResult{}, fmt.Errorf("call %s: %w", tool, c.closedErr())
	}

	// A call with a timeout also has a local deadline, restarted by each of
	// its events as the runtime restarts its own (progress keeps a call
	// alive).
	var local *time.Timer
	var localC <-chan time.Time
	if opts.Timeout > 0 {
		local = time.NewTimer(opts.Timeout + TimeoutGrace)
		defer local.Stop()
		localC = local.C
	}
	timedOut := false
wait:
	for {
		select {
		case res := <-p.result:
			return res, nil
		case pe := <-p.perr:
			return protocol.ToolResult{}, pe
		case <-c.done:
			return c.afterClose(tool, id, p)
		case <-ctx.Done():
			break wait
		case <-p.alive:
			if local != nil {
				local.Reset(opts.Timeout + TimeoutGrace)
			}
		case <-localC:
			timedOut = true
			break wait
		}
	}

	// Cancelled, or past the local deadline: ask the runtime to stop the tool.
	if err := c.w.Write(protocol.NewCancel(id)); err != nil {
		c.abort(err)
	}
	if timedOut {
		// The runtime did not answer its own timeout: do not wait again.
		c.forget(id)
		if res, ok := tryResult(p); ok {
			return res, nil
		}
		return protocol.ErrorResult(protocol.CodeTimeout, fmt.Sprintf(
			"Tool %q timed out after %dms (the runtime did not answer in time)", tool, opts.Timeout.Milliseconds()), nil), nil
	}
	// Wait a little for the runtime's answer (normally CANCELLED).
	grace := time.NewTimer(CancelGrace)
	defer grace.Stop()
	select {
	case res := <-p.result:
		return res, nil
	case pe := <-p.perr:
		return protocol.ToolResult{}, pe
	case <-c.done:
		if res, ok := tryResult(p); ok {
			return res, nil
		}
	case <-grace.C:
	}
	c.forget(id)
	return cancelledResult(tool), nil
}

// cancelledResult is the local result of a call cancelled by its context.
func cancelledResult(tool string) protocol.ToolResult {
	return protocol.ErrorResult(protocol.CodeCancelled, fmt.Sprintf("Tool %q was cancelled", tool), nil)
}

// afterClose resolves a call whose connection closed: its result may have
// arrived just before.
func (c *Client) afterClose(tool, id string, p *pending) (protocol.ToolResult, error) {
	if res, ok := tryResult(p); ok {
		return res, nil
	}
	select {
	case pe := <-p.perr:
		return protocol.ToolResult{}, pe
	default:
	}
	c.forget(id)
	return protocol.ToolResult{}, fmt.Errorf("call %s: %w", tool, c.closedErr())
}

func tryResult(p *pending) (protocol.ToolResult, bool) {
	select {
	case res := <-p.result:
		return res, true
	default:
		return protocol.ToolResult{}, false
	}
}

func (c *Client) forget(id string) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}
