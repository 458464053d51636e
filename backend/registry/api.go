// Package registry is the single choke point every tool call goes through:
// the desktop renderer, the socket (CLI, plugins), agents and internal code
// all call [Registry.Call], which validates arguments, may refuse a call
// that changes something ([Options.Admit]), asks the [Authorizer],
// applies the timeout, races the tool against cancellation, wraps the result
// in a [protocol.ToolResult] and reports the outcome to the audit hook.
//
// Tools are registered with the generic [Register], which infers the JSON
// Schema of the input and of the output (the content of a successful call)
// from the Go types and panics on a bad registration; a tool package lists
// its tools as a table of [Def] rows for [RegisterAll]. [Registry.Signature]
// gives those Go types to code generators (backend/cmd/gentypes writes the
// frontend's TypeScript types from them). [InvalidArg] and [MapError] are
// the errors a handler shares with every other: a refused argument shaped
// like the registry's own, and its engine's errors mapped with the
// context's end left for the registry.
package registry

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/meith-dev/meith/backend/protocol"
)

// Tool is the static definition of a tool, given to [Register].
type Tool struct {
	// Name is unique and snake_case (^[a-z][a-z0-9_]*$).
	Name string
	// Description is a one-line summary shown in tool lists and help.
	Description string
	// Capabilities is the tool's safety metadata; at least one, all valid.
	Capabilities []protocol.Capability
	// Timeout overrides the default 30 s when the call sets none. Use a very
	// large value for streams that run until cancelled. It is an idle
	// timeout: each event the handler emits restarts it.
	Timeout time.Duration
	// MaxTimeout is the hard cap of a call whose events keep extending its
	// timeout; zero means Options.MaxTimeout, else protocol.MaxToolTimeoutMs.
	MaxTimeout time.Duration
	// ArgCapabilities, when set, names the capabilities a call needs
	// beyond Capabilities because of its validated arguments (a flag that
	// also starts a process, say). The authorizer decides on the union, so
	// an argument cannot do more than the caller may.
	ArgCapabilities func(args json.RawMessage) []protocol.Capability
	// Inline, when set, says whether a call with these validated arguments
	// (defaults filled in) runs its handler on the caller's goroutine
	// instead of a goroutine of its own. Say yes only for a handler that
	// cannot block: it does not wait on I/O, locks held for long, channels,
	// timers or other calls, and returns in microseconds (app_ping without
	// a delay). Such a call is still validated, authorized, audited and
	// answered like any other, and still ends with TIMEOUT, CANCELLED or
	// RUNTIME_SHUTTING_DOWN when its context ended before the handler
	// returned; but nothing can interrupt the handler itself, so a handler
	// that blocks would stall its caller (the socket's reader: no cancel
	// frame of the connection would be read meanwhile). It must be cheap:
	// it is asked on every call, except a call without arguments, for which
	// it is asked once at registration. Nil means never inline.
	Inline func(args json.RawMessage) bool
}

// Peer describes the process on the other end of a socket connection, read
// from SO_PEERCRED and /proc. It is nil for in-process callers.
type Peer struct {
	PID int    `json:"pid"`
	UID int    `json:"uid"`
	Exe string `json:"exe,omitempty"`
	Cwd string `json:"cwd,omitempty"`
	// StartTime is the peer's start time (/proc/<pid>/stat field 22) when
	// it connected: with PID it names the process even if the pid is
	// reused later. Zero when unknown.
	StartTime uint64 `json:"-"`
}

// Request is one call to [Registry.Call].
type Request struct {
	// RequestID identifies the call (req_… for socket calls).
	RequestID string
	// ToolName is the tool to run.
	ToolName string
	// Args is the JSON arguments object; empty means {}.
	Args json.RawMessage
	// Client is the trusted caller context (already downgraded by the socket).
	Client protocol.ClientInfo
	// Peer is the socket peer, if any.
	Peer *Peer
	// Timeout is the call's own timeout (timeoutMs); zero means unset.
	Timeout time.Duration
	// Emit receives the call's events in order; it may be nil. It is never
	// called after Call returns.
	Emit func(protocol.Event)
	// OnStart, if set, is called once the call has its own context (a child
	// of Call's ctx), with the function that cancels it with a cause: a
	// caller that cancels calls one by one (the socket, by request id)
	// needs no context of its own per call. It is not called for a call
	// that ends before (validation failures, unknown tools).
	OnStart func(cancel context.CancelCauseFunc)
	// Detach, if set, is called at most once, on the goroutine that called
	// [Registry.Call], before the call does anything that may wait: an
	// admission check, an authorizer that cannot decide at once, or a
	// handler that is not [Tool.Inline] for these arguments (before its
	// goroutine starts). A caller that runs Call on a goroutine it needs
	// for other work (the socket's connection reader, which must go on
	// reading cancel frames) hands that work to another goroutine in
	// Detach; when Detach is not called, the whole call ran without
	// waiting. Nil means the caller does not care.
	Detach func()
}

// detach calls and clears req.Detach.
func (req *Request) detach() {
	if d := req.Detach; d != nil {
		req.Detach = nil
		d()
	}
}

// AuthRequest is what the [Authorizer] decides on.
type AuthRequest struct {
	// RequestID is the call's id (the agent gate keys its permission card
	// by it).
	RequestID string
	Tool      protocol.ToolDescriptor // name, description and capabilities (InputSchema may be nil)
	Client    protocol.ClientInfo
	Peer      *Peer
	// Args is the validated arguments object, for approval prompts (redact
	// before showing).
	Args json.RawMessage
	// Emit sends an event on the call's stream (e.g. "waiting for approval").
	Emit func(protocol.Event)
	// Record is where the authorizer writes how it decided (who was asked,
	// who answered, how long the call waited); the registry hands it to the
	// audit hook as [Outcome.Authorization]. It is never nil in a request
	// from [Registry.Call]; its methods accept a nil record.
	Record *AuthRecord
}

// AuthDecision is how the authorization step of a call ended.
type AuthDecision string

// The decisions of [Authorization]; the audit writes them as they are.
const (
	// AuthAllow: the call needed no one's approval (no privileged
	// capability, a trusted caller, the operator's policy, Full access).
	AuthAllow AuthDecision = "allow"
	// AuthApproved: a person approved the call, on a prompt or an agent's
	// permission card, now or earlier through a remembered scope or rule.
	AuthApproved AuthDecision = "approved"
	// AuthDeny: the policy refused the call without asking anyone.
	AuthDeny AuthDecision = "deny"
	// AuthRefused: the person asked answered no (or had answered no and
	// asked to remember it).
	AuthRefused AuthDecision = "refused"
	// AuthCancelled: the call ended (cancelled, disconnected, the prompt
	// withdrawn) before anyone approved it.
	AuthCancelled AuthDecision = "cancelled"
	// AuthTimeout: nobody answered the prompt in time.
	AuthTimeout AuthDecision = "timeout"
)

// Authorization is the record of a call's authorization step, in
// [Outcome.Authorization]. Its zero value means the call ended before the
// step (unknown tool, invalid arguments, refused admission, shutdown).
type Authorization struct {
	// Decision is how the step ended.
	Decision AuthDecision
	// ApprovalID names the question asked (an approval request's appr_…
	// id, an agent permission card's tool call id), when one was asked.
	ApprovalID string
	// DecidedBy is where the answer came from: "window" (the window's
	// prompt), "agent-card", "agent-remembered", "connection", "terminal",
	// "15-minutes", "folder-rule", "full-access"…; empty when nobody was
	// asked.
	DecidedBy string
	// Waited is how long the call waited for the answer.
	Waited time.Duration
}

// AuthRecord collects the [Authorization] of one call while its authorizer
// decides. It is safe for concurrent use (the registry may read it while an
// authorizer that ignored cancellation still writes), and a nil record
// ignores writes.
type AuthRecord struct {
	mu      sync.Mutex
	a       Authorization
	askedAt time.Time
}

// Ask records that a question was opened now: approvalID names it, via
// says where the answer is expected (DecidedBy until someone decides).
func (r *AuthRecord) Ask(approvalID, via string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.a.ApprovalID, r.a.DecidedBy, r.askedAt = approvalID, via, time.Now()
}

// Decide records how the step ended; by, when not empty, replaces
// DecidedBy. After an [AuthRecord.Ask], Waited is the time since it. The
// first decision stands: later ones are ignored.
func (r *AuthRecord) Decide(d AuthDecision, by string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.a.Decision != "" {
		return
	}
	r.a.Decision = d
	if by != "" {
		r.a.DecidedBy = by
	}
	if !r.askedAt.IsZero() {
		r.a.Waited = time.Since(r.askedAt)
	}
}

// Authorization returns what was recorded so far. A question still open
// has no Decision yet, and Waited is the time since it opened.
func (r *AuthRecord) Authorization() Authorization {
	if r == nil {
		return Authorization{}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	a := r.a
	if a.Decision == "" && !r.askedAt.IsZero() {
		a.Waited = time.Since(r.askedAt)
	}
	return a
}

// Authorizer decides whether a call may run. It returns nil to allow, a
// *protocol.ToolError with PERMISSION_DENIED to deny, or the context's error
// when ctx ends while it waits (for an approval, say). It is called after
// argument validation and before the timeout starts.
type Authorizer interface {
	Authorize(ctx context.Context, req AuthRequest) error
}

// QuickAuthorizer is an optional interface of an [Authorizer] that can
// decide most calls without waiting. The registry asks AuthorizeNow first,
// in the caller's goroutine; only when it reports decided false does the
// call go to Authorize, raced against cancellation in a goroutine of its own.
// This keeps the common path of a call free of goroutine hand-offs.
// AuthorizeNow must neither keep nor change the request's slices (they are
// the registry's own, shared to spare copies on every call).
type QuickAuthorizer interface {
	AuthorizeNow(req AuthRequest) (decided bool, err error)
}

// Outcome is the record of one finished call, handed to [Options.Audit] for
// every call, including unknown tools, validation failures and denials.
type Outcome struct {
	RequestID string
	Started   time.Time
	Duration  time.Duration
	ToolName  string
	// Capabilities is nil for an unknown tool. It may share its array with
	// the registry's descriptor and other outcomes: read it, never write
	// to it (append copies: it has no spare capacity).
	Capabilities []protocol.Capability
	Client       protocol.ClientInfo
	// Peer is the socket peer (pid, exe), nil for in-process callers.
	Peer   *Peer
	Args   json.RawMessage
	Result protocol.ToolResult
	// Authorization is how the authorization step ended (zero when the
	// call ended before it). Without an [Options.Authorizer] every call
	// that reaches the step is [AuthAllow].
	Authorization Authorization
}

// Options configures a [Registry]. The zero value is valid: no authorizer
// (everything allowed) and no audit.
type Options struct {
	Authorizer Authorizer
	Audit      func(Outcome)
	// DefaultTimeout replaces protocol.DefaultToolTimeoutMs when non-zero.
	DefaultTimeout time.Duration
	// MaxTimeout replaces protocol.MaxToolTimeoutMs as the hard cap of calls
	// kept alive by their events, when non-zero.
	MaxTimeout time.Duration
	// Admit, when set, is asked whether a call of a tool with a capability
	// other than read-only may run at all, after validation and before
	// authorization (the instance refuses such calls while the audit log
	// cannot be written). A non-nil error ends the call, which is audited
	// like any other: a *protocol.ToolError keeps its code and message, any
	// other error gives TOOL_FAILED with its text. It must not block for
	// long: it runs on the caller's path.
	Admit func(ctx context.Context, tool protocol.ToolDescriptor) error
}

// Call is the per-call handle passed to a tool's handler: who calls, and how
// to stream events back.
type Call struct {
	RequestID string
	Client    protocol.ClientInfo
	Peer      *Peer
	em        *emitter
	notes     notes
}

// notes are the diagnostics a handler adds with [Call.Diagnose].
type notes struct {
	mu     sync.Mutex
	list   []protocol.Diagnostic
	closed bool
}
