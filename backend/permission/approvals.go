package permission

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// DefaultMaxPending bounds the approval requests waiting at once when
// [ApprovalsOptions.MaxPending] is zero, so a socket peer cannot flood the
// user with prompts.
const DefaultMaxPending = 32

// ErrUnknownApproval is wrapped by [Approvals.Decide] for an id that names no
// pending request (never created, or already decided, timed out or
// cancelled).
var ErrUnknownApproval = errors.New("unknown or finished approval request")

// ErrInvalidDecision is wrapped by [Approvals.Decide] for a value that is not
// a [Decision].
var ErrInvalidDecision = errors.New("invalid approval decision")

// Internal failures of opening a request, turned into denials by [Service].
var (
	errNoUI    = errors.New("no approval UI attached")
	errTooMany = errors.New("too many pending approvals")
)

// Decision is the user's answer to an [ApprovalRequest].
type Decision string

// The decisions of the prompt: Allow once / this terminal / for 15 minutes /
// always for this folder / Deny (and, for clients that keep a connection,
// allow for this connection). Each scope allows the tool's privileged
// capabilities only.
const (
	// AllowOnce runs this call only.
	AllowOnce Decision = "allow_once"
	// AllowCapabilityForConnection grants the tool's privileged capabilities
	// to the connection (the cli session) until it closes, then runs the call.
	AllowCapabilityForConnection Decision = "allow_connection"
	// AllowThisTerminal allows the calls whose peer descends from the shell
	// of the terminal the call came from, until that terminal closes.
	AllowThisTerminal Decision = "allow_terminal"
	// AllowFor15Minutes allows the calls of the same executable working in
	// the same folder for [TimedScope].
	AllowFor15Minutes Decision = "allow_15_minutes"
	// AllowAlwaysInFolder adds a persisted [Rule] per capability: calls
	// whose peer works in the folder (or below) are allowed until revoked.
	AllowAlwaysInFolder Decision = "allow_folder"
	// Deny fails the call with PERMISSION_DENIED.
	Deny Decision = "deny"
)

// Valid reports whether d is one of the decisions.
func (d Decision) Valid() bool {
	switch d {
	case AllowOnce, AllowCapabilityForConnection, AllowThisTerminal, AllowFor15Minutes, AllowAlwaysInFolder, Deny:
		return true
	}
	return false
}

// scoped reports whether d is a scope that a request must offer (see
// [ApprovalRequest.Scopes]) to be chosen.
func (d Decision) scoped() bool {
	return d == AllowThisTerminal || d == AllowFor15Minutes || d == AllowAlwaysInFolder
}

// Resolution says how an approval request ended.
type Resolution string

// The resolutions: one per [Decision], and the ends no one decided.
const (
	ResolvedAllowOnce       = Resolution(AllowOnce)
	ResolvedAllowConnection = Resolution(AllowCapabilityForConnection)
	ResolvedAllowTerminal   = Resolution(AllowThisTerminal)
	ResolvedAllowTimed      = Resolution(AllowFor15Minutes)
	ResolvedAllowFolder     = Resolution(AllowAlwaysInFolder)
	ResolvedDeny            = Resolution(Deny)
	// ResolvedTimeout: no decision within the approval timeout.
	ResolvedTimeout Resolution = "timeout"
	// ResolvedCancelled: the call was cancelled (or its connection closed).
	ResolvedCancelled Resolution = "cancelled"
	// ResolvedDetached: the last UI detached before deciding.
	ResolvedDetached Resolution = "detached"
)

// ApprovalRequest is a pending question to the user: may this peer run this
// tool with these capabilities?
type ApprovalRequest struct {
	// ID is "appr_" + 12 hex digits; pass it to [Approvals.Decide].
	ID        string    `json:"id"`
	CreatedAt time.Time `json:"createdAt"`
	// ExpiresAt is when the call stops waiting and is denied.
	ExpiresAt   time.Time `json:"expiresAt"`
	ToolName    string    `json:"toolName"`
	Description string    `json:"description"`
	// Capabilities are the tool's privileged capabilities, all of which
	// "allow for this connection" grants.
	Capabilities []protocol.Capability `json:"capabilities"`
	// Capability is the most severe of them, the one the prompt names
	// (see [GatingCapability] and [ActionLabel]).
	Capability protocol.Capability `json:"capability"`
	Caller     protocol.Caller     `json:"caller"`
	SessionID  string              `json:"sessionId"`
	// Peer is the process on the other end of the socket (pid, exe, cwd),
	// when known.
	Peer *registry.Peer `json:"peer,omitempty"`
	// ArgsSummary is the redacted arguments (summary.Of).
	ArgsSummary string `json:"argsSummary"`
	// Origin names where the call comes from ("from Terminal · todo-api"),
	// resolved from the peer's process ancestry.
	Origin Origin `json:"origin"`
	// Scopes are the decisions the prompt offers, the default first
	// (Allow once) and Deny last.
	Scopes []Decision `json:"scopes"`
}

// ApprovalEventKind discriminates an [ApprovalEvent].
type ApprovalEventKind string

// The kinds of approval events.
const (
	// ApprovalPending: a new request waits for a decision.
	ApprovalPending ApprovalEventKind = "pending"
	// ApprovalResolved: a request left the pending list.
	ApprovalResolved ApprovalEventKind = "resolved"
)

// ApprovalEvent tells subscribers that the pending list changed; a UI can
// re-read [Approvals.Pending] or use Request directly.
type ApprovalEvent struct {
	Kind    ApprovalEventKind `json:"kind"`
	Request ApprovalRequest   `json:"request"`
	// Resolution is set for resolved events.
	Resolution Resolution `json:"resolution,omitempty"`
}

// ApprovalsOptions configures an [Approvals] broker. The zero value is valid.
type ApprovalsOptions struct {
	// MaxPending bounds the requests waiting at once; more are denied.
	// Zero means [DefaultMaxPending].
	MaxPending int
	// FirstUIGrace is how long after the broker is made a call that must
	// ask waits for the first UI to attach instead of being denied at once:
	// the desktop app's socket answers before its window is up (a `meith .`
	// that started the app calls at once). Zero: no wait. A UI that attached
	// and went away again is not waited for.
	FirstUIGrace time.Duration
}

// Approvals is the approval broker between cli calls that lack a grant and
// the UI that asks the user. A UI calls [Approvals.Attach] while it can show
// prompts, [Approvals.Subscribe] to learn of requests, and
// [Approvals.Decide] with the user's answer. Without an attached UI, calls
// are denied at once. It is safe for concurrent use.
type Approvals struct {
	maxPending int
	graceEnd   time.Time     // until then a call waits for the first UI
	firstUI    chan struct{} // closed at the first Attach

	mu       sync.Mutex
	attached int
	pending  []*pendingApproval // oldest first
	subs     map[*subscriber]struct{}
}

// pendingApproval is a request and the channel its resolution is sent on.
type pendingApproval struct {
	req  ApprovalRequest
	done chan Resolution // buffered 1; sent once, by whoever removes it
}

// NewApprovals returns a broker with no UI attached.
func NewApprovals(opts ApprovalsOptions) *Approvals {
	if opts.MaxPending <= 0 {
		opts.MaxPending = DefaultMaxPending
	}
	return &Approvals{maxPending: opts.MaxPending, subs: make(map[*subscriber]struct{}),
		graceEnd: time.Now().Add(opts.FirstUIGrace), firstUI: make(chan struct{})}
}

// awaitingFirstUI reports whether no UI has attached yet and the first-UI
// grace has not run out.
func (a *Approvals) awaitingFirstUI() bool {
	select {
	case <-a.firstUI:
		return false
	default:
		return time.Now().Before(a.graceEnd)
	}
}

// waitFirstUI waits, while [Approvals.awaitingFirstUI], until the first UI
// attaches, the grace runs out or ctx ends.
func (a *Approvals) waitFirstUI(ctx context.Context) {
	if !a.awaitingFirstUI() {
		return
	}
	t := time.NewTimer(time.Until(a.graceEnd))
	defer t.Stop()
	select {
	case <-a.firstUI:
	case <-t.C:
	case <-ctx.Done():
	}
}

// Attach records that a UI able to answer prompts is present, and returns
// the func that detaches it (idempotent). When the last UI detaches, the
// pending requests are resolved as [ResolvedDetached], so their calls are
// denied rather than left waiting.
func (a *Approvals) Attach() (detach func()) {
	a.mu.Lock()
	a.attached++
	select {
	case <-a.firstUI:
	default:
		close(a.firstUI)
	}
	a.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			a.mu.Lock()
			defer a.mu.Unlock()
			a.attached--
			if a.attached == 0 {
				for len(a.pending) > 0 {
					a.resolveLocked(a.pending[0], ResolvedDetached)
				}
			}
		})
	}
}

// Attached returns how many UIs are attached.
func (a *Approvals) Attached() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.attached
}

// Pending returns the requests waiting for a decision, oldest first.
func (a *Approvals) Pending() []ApprovalRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]ApprovalRequest, len(a.pending))
	for i, p := range a.pending {
		out[i] = p.req
		out[i].Capabilities = slices.Clone(p.req.Capabilities)
		out[i].Scopes = slices.Clone(p.req.Scopes)
	}
	return out
}

// Decide answers the pending request id. It returns an error wrapping
// [ErrUnknownApproval] when id is not pending (a second answer, or one that
// came too late) and [ErrInvalidDecision] for a bad d.
func (a *Approvals) Decide(id string, d Decision) error {
	if !d.Valid() {
		return fmt.Errorf("decide approval %q: %w %q", id, ErrInvalidDecision, string(d))
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	i := slices.IndexFunc(a.pending, func(p *pendingApproval) bool { return p.req.ID == id })
	if i < 0 {
		return fmt.Errorf("decide approval %q: %w", id, ErrUnknownApproval)
	}
	if d.scoped() && !slices.Contains(a.pending[i].req.Scopes, d) {
		return fmt.Errorf("decide approval %q: %w: %q is not offered for this call", id, ErrInvalidDecision, string(d))
	}
	a.resolveLocked(a.pending[i], Resolution(d))
	return nil
}

// Subscribe calls fn with every approval event, in order, on a goroutine of
// its own (so fn may call Pending or Decide). cancel stops the delivery: fn
// is not called after cancel returns, except for a call already running.
func (a *Approvals) Subscribe(fn func(ApprovalEvent)) (cancel func()) {
	s := &subscriber{fn: fn, wake: make(chan struct{}, 1), stop: make(chan struct{})}
	a.mu.Lock()
	a.subs[s] = struct{}{}
	a.mu.Unlock()
	go s.run()
	var once sync.Once
	return func() {
		once.Do(func() {
			a.mu.Lock()
			delete(a.subs, s)
			a.mu.Unlock()
			s.mu.Lock()
			s.stopped = true
			s.queue = nil
			s.mu.Unlock()
			close(s.stop)
		})
	}
}

// open adds a pending request (its ID set here), tells asked its ID, and
// announces it. It fails with errNoUI when no UI is attached and errTooMany
// when the list is full.
func (a *Approvals) open(req ApprovalRequest, asked func(id string)) (*pendingApproval, error) {
	req.ID = protocol.NewID("appr")
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case a.attached == 0:
		return nil, errNoUI
	case len(a.pending) >= a.maxPending:
		return nil, errTooMany
	}
	p := &pendingApproval{req: req, done: make(chan Resolution, 1)}
	a.pending = append(a.pending, p)
	// Before anyone hears of it: a call that ends the moment the question is
	// out (its client disconnects) is already recorded as asked.
	asked(req.ID)
	a.publishLocked(ApprovalEvent{Kind: ApprovalPending, Request: req})
	return p, nil
}

// wait blocks until p is resolved, timeout passes or ctx ends, and returns
// the resolution; with ctx's error when ctx ended first. p is no longer
// pending when wait returns.
func (a *Approvals) wait(ctx context.Context, p *pendingApproval, timeout time.Duration) (Resolution, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case r := <-p.done:
		return r, nil
	case <-t.C:
		return a.finish(p, ResolvedTimeout), nil
	case <-ctx.Done():
		return a.finish(p, ResolvedCancelled), ctx.Err()
	}
}

// finish resolves p as r unless it was resolved meanwhile, and returns how
// it ended.
func (a *Approvals) finish(p *pendingApproval, r Resolution) Resolution {
	a.mu.Lock()
	if slices.Contains(a.pending, p) {
		a.resolveLocked(p, r)
	}
	a.mu.Unlock()
	return <-p.done
}

// resolveLocked removes p, sends r to its waiter and announces it.
func (a *Approvals) resolveLocked(p *pendingApproval, r Resolution) {
	a.pending = slices.DeleteFunc(a.pending, func(x *pendingApproval) bool { return x == p })
	p.done <- r
	a.publishLocked(ApprovalEvent{Kind: ApprovalResolved, Request: p.req, Resolution: r})
}

// publishLocked queues ev for every subscriber; queuing under a.mu keeps
// the events of all subscribers in the order of the changes.
func (a *Approvals) publishLocked(ev ApprovalEvent) {
	ev.Request.Capabilities = slices.Clone(ev.Request.Capabilities)
	ev.Request.Scopes = slices.Clone(ev.Request.Scopes)
	for s := range a.subs {
		s.push(ev)
	}
}

// subscriber delivers events to one Subscribe callback.
type subscriber struct {
	fn   func(ApprovalEvent)
	wake chan struct{} // buffered 1: events are queued
	stop chan struct{} // closed by cancel

	mu      sync.Mutex
	queue   []ApprovalEvent
	stopped bool
}

// push queues ev and wakes the delivery goroutine.
func (s *subscriber) push(ev ApprovalEvent) {
	s.mu.Lock()
	if !s.stopped {
		s.queue = append(s.queue, ev)
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// run delivers queued events until the subscription is cancelled.
func (s *subscriber) run() {
	for {
		select {
		case <-s.stop:
			return
		case <-s.wake:
		}
		for {
			s.mu.Lock()
			if s.stopped || len(s.queue) == 0 {
				s.mu.Unlock()
				break
			}
			ev := s.queue[0]
			s.queue = s.queue[1:]
			s.mu.Unlock()
			s.fn(ev)
		}
	}
}
