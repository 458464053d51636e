package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/meith-dev/meith/backend/protocol"
)

// Causes of the end of a call's context, told apart with context.Cause.
var (
	errCallTimeout = errors.New("tool call timed out")
	errShutdown    = errors.New("runtime is shutting down")
)

// maxTimeout caps a call's timeout so the deadline arithmetic cannot
// overflow; "run until cancelled" tools use a very large Tool.Timeout.
const maxTimeout = 100 * 365 * 24 * time.Hour

// handlerResult is what a handler goroutine hands back to Call.
type handlerResult struct {
	out any
	err error
}

// Call runs one tool call and returns its result; it never panics on a
// tool's behalf and never returns before the outcome is audited. The steps,
// in order, each ending the call with a failed envelope when it fails:
//
//  1. shutdown: after [Registry.BeginShutdown], RUNTIME_SHUTTING_DOWN;
//  2. lookup: an unregistered name gives UNKNOWN_TOOL, with a "did you mean"
//     suggestion when a registered name is close;
//  3. validation: the arguments (empty or null mean {}) must match the input
//     schema (unknown keys are refused with the closest known key); defaults
//     are filled in and the result decoded strictly into the input type;
//     failures give VALIDATION_ERROR with details {"issues":[{path,message}]};
//  4. admission: for a tool with a capability other than read-only,
//     [Options.Admit], if set, may refuse the call (TOOL_FAILED, or the
//     code of its *protocol.ToolError);
//  5. authorization: [Options.Authorizer], if set, decides with ctx (not
//     subject to the tool timeout); a *protocol.ToolError keeps its code, ctx
//     ending gives CANCELLED, any other error PERMISSION_DENIED;
//  6. execution: the handler runs in its own goroutine with a context that
//     ends at the timeout (req.Timeout, else Tool.Timeout, else
//     Options.DefaultTimeout, else protocol.DefaultToolTimeoutMs), when ctx
//     is cancelled or at shutdown; the timeout counts from the start or the
//     handler's last event (progress keeps a call alive), but never past
//     the hard cap (Tool.MaxTimeout, else Options.MaxTimeout, else
//     protocol.MaxToolTimeoutMs, and at least the timeout); Call returns
//     TIMEOUT, CANCELLED or RUNTIME_SHUTTING_DOWN at that moment even if the
//     handler ignores its context, dropping its late result and events;
//  7. handler errors: a *protocol.ToolError keeps its code, message and
//     details, a context error becomes TIMEOUT or CANCELLED, anything else
//     (a panic included) TOOL_FAILED;
//  8. success: an explicit envelope is returned as is, a raw value wrapped
//     as {ok: true, content: value}. Diagnostics the handler added with
//     [Call.Diagnose] follow the envelope's own (on a failure too).
//
// Every outcome is passed to [Options.Audit] exactly once, synchronously,
// before Call returns. Events reach req.Emit in order and never after Call
// returns; a slow req.Emit delays the call's resolution.
func (r *Registry) Call(ctx context.Context, req Request) protocol.ToolResult {
	if ctx == nil {
		ctx = context.Background()
	}
	if req.RequestID == "" {
		req.RequestID = protocol.NewID("req")
	}
	started := time.Now()
	cs := &callState{em: emitter{fn: req.Emit}}
	em := &cs.em
	rec := Outcome{
		RequestID: req.RequestID,
		Started:   started,
		ToolName:  req.ToolName,
		Client:    req.Client,
		Peer:      req.Peer,
	}
	finish := func(res protocol.ToolResult) protocol.ToolResult {
		em.close()
		rec.Duration = time.Since(started)
		rec.Result = res
		if rec.Args == nil {
			rec.Args = auditArgs(req.Args) // as received: the call ended before validation
		}
		if r.opts.Audit != nil {
			r.opts.Audit(rec)
		}
		return res
	}

	e := r.lookup(req.ToolName)
	if e != nil {
		rec.Capabilities = e.caps
	}

	// 1. Shutdown.
	if r.ShuttingDown() {
		return finish(protocol.ErrorResult(protocol.CodeRuntimeShuttingDown,
			fmt.Sprintf("Runtime is shutting down; tool %q was not run.", req.ToolName), nil))
	}

	// 2. Lookup.
	if e == nil {
		return finish(r.unknownTool(req.ToolName))
	}

	// 3. Validation.
	args, issues := e.prepare(req.Args)
	var run invoke
	switch {
	case issues != nil:
	case e.emptyRun != nil && isSame(args, e.emptyArgs):
		run = e.emptyRun
	default:
		run, issues = e.bind(args)
	}
	if issues != nil {
		return finish(protocol.ErrorResult(protocol.CodeValidation,
			fmt.Sprintf("Invalid arguments for %q: %s", req.ToolName, issues[0].Message),
			ValidationDetails{Issues: issues}))
	}
	rec.Args = args
	if e.tool.ArgCapabilities != nil {
		rec.Capabilities = slices.Clone(e.capabilitiesFor(args))
	}

	// The call's context ends when the caller cancels, at shutdown, and (from
	// step 6) at the timeout.
	callCtx, cancelCall := context.WithCancelCause(ctx)
	defer cancelCall(nil)
	cs.cancel = cancelCall
	if !r.track(cs) {
		return finish(r.ended(shutdownContext, req.ToolName, 0))
	}
	defer r.untrack(cs)
	if req.OnStart != nil {
		req.OnStart(cancelCall)
	}

	// 4. Admission of a call that changes something.
	if r.opts.Admit != nil && !e.readOnly {
		req.detach() // the check may wait
		if err := r.opts.Admit(callCtx, e.desc); err != nil {
			var te *protocol.ToolError
			if errors.As(err, &te) && te.Code.Valid() {
				return finish(protocol.ErrorResult(te.Code, te.Message, te.Details))
			}
			return finish(protocol.ErrorResult(protocol.CodeToolFailed, err.Error(), nil))
		}
	}

	// 5. Authorization, recorded for the audit.
	if a := r.opts.Authorizer; a != nil {
		res, ok := r.authorize(callCtx, a, e, &req, args, em, &cs.auth)
		rec.Authorization = cs.auth.Authorization()
		if !ok {
			return finish(res)
		}
	} else {
		rec.Authorization.Decision = AuthAllow
	}
	if callCtx.Err() != nil {
		return finish(r.ended(callCtx, req.ToolName, 0))
	}

	// 6. Execution, raced against the timeout and cancellation. The
	// timeout is an idle timeout: each event the tool emits restarts it, up
	// to the hard cap.
	timeout := r.timeoutFor(e, req)
	hctx := callCtx
	ka := &cs.alive
	ka.begin(req.ToolName, timeout, r.hardCapFor(e, timeout))
	em.setAlive(ka)
	call := &cs.call
	*call = Call{RequestID: req.RequestID, Client: req.Client, Peer: req.Peer, em: em}
	var hr handlerResult
	if e.inline(args) {
		// A handler that cannot block runs here, without a goroutine, the
		// two hand-offs it costs and a timer: a context that ended
		// meanwhile (a shutdown) and the timeout, checked when it returns,
		// still decide the outcome as they would have at that moment.
		r.enter()
		hr = runHandler(run, hctx, call)
		r.leave()
		if hctx.Err() != nil {
			return finish(r.ended(hctx, req.ToolName, timeout))
		}
		if msg, over := ka.check(time.Now()); over {
			return finish(protocol.ErrorResult(protocol.CodeTimeout, msg, nil))
		}
	} else {
		req.detach()
		ka.arm(cancelCall)
		defer ka.stop()
		done := make(chan handlerResult, 1)
		r.enter()
		go func() {
			hr := runHandler(run, hctx, call)
			r.leave()
			done <- hr
		}()
		select {
		case hr = <-done:
		case <-hctx.Done():
			select {
			case hr = <-done: // finished at the same moment: keep its result
			default:
				return finish(r.ended(hctx, req.ToolName, timeout))
			}
		}
	}

	// 7 and 8. The handler's error or result, with its diagnostics.
	var res protocol.ToolResult
	if hr.err != nil {
		res = r.handlerFailure(hctx, req.ToolName, timeout, hr.err)
	} else {
		res = wrapOutput(hr.out)
	}
	if d := call.notes.take(); len(d) > 0 {
		res.Diagnostics = append(slices.Clip(res.Diagnostics), d...)
	}
	return finish(res)
}

// runHandler runs a bound handler, turning a panic into an error.
func runHandler(run invoke, ctx context.Context, call *Call) (hr handlerResult) {
	defer func() {
		if p := recover(); p != nil {
			hr = handlerResult{err: fmt.Errorf("tool panicked: %v", p)}
		}
	}()
	hr.out, hr.err = run(ctx, call)
	return hr
}

// inline reports whether a call with the validated args runs its handler
// on the caller's goroutine ([Tool.Inline]).
func (e *entry) inline(args []byte) bool {
	switch {
	case e.tool.Inline == nil:
		return false
	case isSame(args, e.emptyArgs):
		return e.emptyInline
	default:
		return e.tool.Inline(args)
	}
}

// isSame reports whether a and b are the same slice (not just equal bytes).
func isSame(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// shutdownContext is an ended context whose cause is the shutdown.
var shutdownContext = func() context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errShutdown)
	return ctx
}()

// authorize asks the authorizer, racing it against ctx. It returns ok false
// with the failed result when the call may not run. What the authorizer
// wrote in record is completed with the decision its answer implies when it
// wrote none (see [decideFromAnswer]).
func (r *Registry) authorize(ctx context.Context, a Authorizer, e *entry, req *Request,
	args []byte, em *emitter, record *AuthRecord) (protocol.ToolResult, bool) {
	// The quick path shares the slices (AuthorizeNow neither keeps nor
	// changes them); Authorize, which may keep them, gets copies.
	areq := AuthRequest{
		RequestID: req.RequestID,
		Tool: protocol.ToolDescriptor{
			Name:         e.desc.Name,
			Description:  e.desc.Description,
			Capabilities: e.capabilitiesFor(args),
		},
		Client: req.Client,
		Peer:   req.Peer,
		Args:   args,
		Emit:   em.emitFunc(),
		Record: record,
	}
	if q, ok := a.(QuickAuthorizer); ok {
		if done, err := quickAuthorize(q, areq); done {
			decideFromAnswer(ctx, record, err)
			return r.authResult(ctx, req.ToolName, err)
		}
	}
	req.detach() // the authorizer may wait (for a person's approval)
	areq.Tool.Capabilities = slices.Clone(areq.Tool.Capabilities)
	areq.Args = slices.Clone(args)
	decided := make(chan error, 1)
	go func() {
		var err error
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("authorizer panicked: %v", p)
			}
			decided <- err
		}()
		err = a.Authorize(ctx, areq)
	}()
	var err error
	select {
	case err = <-decided:
	case <-ctx.Done():
		select {
		case err = <-decided:
		default:
			// Given up while the authorizer still waits: nobody approved
			// the call (unless the answer came just now).
			record.Decide(AuthCancelled, "")
			return r.ended(ctx, req.ToolName, 0), false
		}
	}
	decideFromAnswer(ctx, record, err)
	return r.authResult(ctx, req.ToolName, err)
}

// decideFromAnswer records the decision an authorizer's answer implies, for
// an authorizer that recorded none: nil allows (approved when a question
// was asked), the context's end cancels, PERMISSION_DENIED (or any other
// error) denies (refused when a question was asked).
func decideFromAnswer(ctx context.Context, record *AuthRecord, err error) {
	asked := record.Authorization().ApprovalID != ""
	var te *protocol.ToolError
	switch {
	case err == nil && asked:
		record.Decide(AuthApproved, "")
	case err == nil:
		record.Decide(AuthAllow, "")
	case !errors.As(err, &te) && ctx.Err() != nil:
		record.Decide(AuthCancelled, "")
	case asked:
		record.Decide(AuthRefused, "")
	default:
		record.Decide(AuthDeny, "")
	}
}

// quickAuthorize asks a QuickAuthorizer, turning a panic into a denial.
func quickAuthorize(q QuickAuthorizer, areq AuthRequest) (decided bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			decided, err = true, fmt.Errorf("authorizer panicked: %v", p)
		}
	}()
	return q.AuthorizeNow(areq)
}

// authResult maps an authorizer's answer; ok false carries the failure.
func (r *Registry) authResult(ctx context.Context, name string, err error) (protocol.ToolResult, bool) {
	if err == nil {
		return protocol.ToolResult{}, true
	}
	var te *protocol.ToolError
	switch {
	case errors.As(err, &te):
		code := te.Code
		if !code.Valid() {
			code = protocol.CodePermissionDenied
		}
		return protocol.ErrorResult(code, te.Message, te.Details), false
	case ctx.Err() != nil:
		return r.ended(ctx, name, 0), false
	default:
		return protocol.ErrorResult(protocol.CodePermissionDenied, err.Error(), nil), false
	}
}

// handlerFailure maps a handler's error to a failed envelope.
func (r *Registry) handlerFailure(hctx context.Context, name string, timeout time.Duration, err error) protocol.ToolResult {
	var te *protocol.ToolError
	switch {
	case errors.As(err, &te):
		if !te.Code.Valid() {
			return protocol.ErrorResult(protocol.CodeToolFailed, te.Error(), te.Details)
		}
		return protocol.ErrorResult(te.Code, te.Message, te.Details)
	case hctx.Err() != nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)):
		// The call's own deadline or cancellation, surfacing through the tool.
		return r.ended(hctx, name, timeout)
	default:
		// Any other error — including a deadline of the tool's own, such as
		// an inner request timing out — is the tool failing: TOOL_FAILED,
		// not TIMEOUT, so a client does not retry with a longer timeoutMs.
		return protocol.ErrorResult(protocol.CodeToolFailed, err.Error(), nil)
	}
}

// ended is the result of a call whose context ended, by its cause.
func (r *Registry) ended(ctx context.Context, name string, timeout time.Duration) protocol.ToolResult {
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errCallTimeout):
		msg := fmt.Sprintf("Tool %q timed out after %dms", name, timeout.Milliseconds())
		var te *timeoutError
		if errors.As(cause, &te) {
			msg = te.msg
		}
		return protocol.ErrorResult(protocol.CodeTimeout, msg, nil)
	case errors.Is(cause, errShutdown):
		return protocol.ErrorResult(protocol.CodeRuntimeShuttingDown,
			fmt.Sprintf("Runtime is shutting down; tool %q was cancelled.", name), nil)
	default:
		return protocol.ErrorResult(protocol.CodeCancelled, fmt.Sprintf("Tool %q was cancelled", name), nil)
	}
}

// auditArgs is the arguments as recorded before validation: {} when empty,
// and the text as a JSON string when it is not JSON, so an Outcome always
// marshals.
func auditArgs(args json.RawMessage) json.RawMessage {
	args = normalizeArgs(args)
	if json.Valid(args) {
		return append(json.RawMessage(nil), args...)
	}
	b, _ := json.Marshal(string(args))
	return b
}

func (r *Registry) unknownTool(name string) protocol.ToolResult {
	shown := name
	if utf8.RuneCountInString(shown) > 80 {
		shown = string([]rune(shown)[:80]) + "…"
	}
	msg := "Unknown tool: " + shown
	var details any
	if s := suggest(name, r.Names()); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
		details = map[string]string{"suggestion": s}
	}
	return protocol.ErrorResult(protocol.CodeUnknownTool, msg, details)
}

// timeoutFor picks the call's timeout: the call's, the tool's, the
// registry's default, the protocol default.
func (r *Registry) timeoutFor(e *entry, req Request) time.Duration {
	t := time.Duration(protocol.DefaultToolTimeoutMs) * time.Millisecond
	switch {
	case req.Timeout > 0:
		t = req.Timeout
	case e.tool.Timeout > 0:
		t = e.tool.Timeout
	case r.opts.DefaultTimeout > 0:
		t = r.opts.DefaultTimeout
	}
	return min(t, maxTimeout)
}

// hardCapFor is how long a call that keeps reporting progress may run at
// most: the tool's MaxTimeout, the registry's, the protocol default; never
// less than the timeout itself.
func (r *Registry) hardCapFor(e *entry, timeout time.Duration) time.Duration {
	c := time.Duration(protocol.MaxToolTimeoutMs) * time.Millisecond
	switch {
	case e.tool.MaxTimeout > 0:
		c = e.tool.MaxTimeout
	case r.opts.MaxTimeout > 0:
		c = r.opts.MaxTimeout
	}
	return min(max(c, timeout), maxTimeout)
}

// emitter delivers a call's events to the caller's Emit, in order, one at a
// time, and never after close.
type emitter struct {
	mu     sync.Mutex
	fn     func(protocol.Event)
	alive  *keepAlive // told of every event once the handler runs
	closed bool
}

// setAlive installs the timer told of each later event.
func (e *emitter) setAlive(k *keepAlive) {
	e.mu.Lock()
	e.alive = k
	e.mu.Unlock()
}

// emitFunc returns e.emit as a func value (one allocation: only the
// authorizer's slow path needs it).
func (e *emitter) emitFunc() func(protocol.Event) { return e.emit }

func (e *emitter) emit(ev protocol.Event) {
	if ev.Kind == protocol.EventLog && ev.Level == "" {
		ev.Level = protocol.LevelInfo
	}
	if ev.Validate() != nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return
	}
	if e.alive != nil {
		e.alive.touch()
	}
	if e.fn != nil {
		e.fn(ev)
	}
}

// close waits for an event being delivered and stops all later ones.
func (e *emitter) close() {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
}

// NewCall returns a Call that sends its events to emit (which may be nil),
// for running a handler outside [Registry.Call], in tests say.
func NewCall(requestID string, client protocol.ClientInfo, peer *Peer, emit func(protocol.Event)) *Call {
	return &Call{RequestID: requestID, Client: client, Peer: peer, em: &emitter{fn: emit}}
}

// Emit sends an event on the call's stream. Invalid events are dropped, as
// are events sent after the call resolved. It is safe for concurrent use.
func (c *Call) Emit(ev protocol.Event) {
	if c == nil || c.em == nil {
		return
	}
	c.em.emit(ev)
}

// Diagnose adds a diagnostic (a non-fatal note, such as "not saved: …") to
// the call's result. Diagnostics added after the call resolved are dropped.
// It is safe for concurrent use.
func (c *Call) Diagnose(d protocol.Diagnostic) {
	if c == nil {
		return
	}
	c.notes.mu.Lock()
	defer c.notes.mu.Unlock()
	if !c.notes.closed {
		c.notes.list = append(c.notes.list, d)
	}
}

// take returns the diagnostics added so far and drops any added later.
func (n *notes) take() []protocol.Diagnostic {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.closed = true
	return n.list
}

// Progress sends a progress event; a negative fraction means unknown, others
// are clamped to 0..1.
func (c *Call) Progress(message string, fraction float64) {
	c.Emit(protocol.Progress(message, fraction))
}

// Log sends a log event (level info when empty).
func (c *Call) Log(level protocol.LogLevel, message string) {
	c.Emit(protocol.Log(level, message))
}

// PartialText sends a chunk of streamed text.
func (c *Call) PartialText(text string) { c.Emit(protocol.PartialText(text)) }

// Artifact announces a produced artifact stored at path (name is a display
// name). Events without a mimeType are dropped.
func (c *Call) Artifact(mimeType, name, path string) {
	c.Emit(protocol.Event{Kind: protocol.EventArtifact, MimeType: mimeType, Name: name, Path: path})
}

// Path resolves a path argument as the caller means it: "~" and "~/…" name
// the user's home folder, a relative path is relative to the caller's
// working directory (when it is an absolute one). The result is absolute
// and clean; "" stays "".
func (c *Call) Path(p string) string {
	p = strings.TrimSpace(p)
	if p == "" {
		return ""
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[1:])
		}
	}
	if !filepath.IsAbs(p) && c != nil && filepath.IsAbs(c.Client.Cwd) {
		p = filepath.Join(c.Client.Cwd, p)
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}

// capabilitiesFor is what a call with args needs: the tool's capabilities
// and those its arguments add ([Tool.ArgCapabilities]), each once.
func (e *entry) capabilitiesFor(args []byte) []protocol.Capability {
	if e.tool.ArgCapabilities == nil {
		return e.desc.Capabilities
	}
	caps := e.desc.Capabilities
	for _, c := range e.tool.ArgCapabilities(args) {
		if !slices.Contains(caps, c) {
			caps = append(slices.Clip(caps), c)
		}
	}
	return caps
}
