package permission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// testUI is a desktop UI stand-in: attached to a broker, it receives the
// approval events on its own goroutine and answers pending requests with
// its policy (no answer when the policy says so).
type testUI struct {
	mu     sync.Mutex
	events []ApprovalEvent
	seen   chan ApprovalEvent // every event, for tests that wait on one
}

// startUI attaches a UI answering with policy; it detaches at cleanup.
func startUI(t *testing.T, a *Approvals, policy func(ApprovalRequest) (Decision, bool)) *testUI {
	t.Helper()
	ui := &testUI{seen: make(chan ApprovalEvent, 1000)}
	inbox := make(chan ApprovalEvent, 1000)
	stop := make(chan struct{})
	done := make(chan struct{})
	// Subscribe before Attach: a call waiting for the first UI is asked the
	// moment a UI attaches, and its pending event must not fall between the two.
	cancel := a.Subscribe(func(ev ApprovalEvent) { inbox <- ev })
	detach := a.Attach()
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case ev := <-inbox:
				ui.mu.Lock()
				ui.events = append(ui.events, ev)
				ui.mu.Unlock()
				if ev.Kind == ApprovalPending && policy != nil {
					if d, ok := policy(ev.Request); ok {
						if err := a.Decide(ev.Request.ID, d); err != nil {
							t.Errorf("Decide(%s, %s) = %v", ev.Request.ID, d, err)
						}
					}
				}
				ui.seen <- ev
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		detach()
		close(stop)
		<-done
	})
	return ui
}

// next returns the next event the UI handled, failing after a while.
func (ui *testUI) next(t *testing.T) ApprovalEvent {
	t.Helper()
	select {
	case ev := <-ui.seen:
		return ev
	case <-time.After(5 * time.Second):
		t.Fatal("no approval event within 5s")
		return ApprovalEvent{}
	}
}

// count returns how many events of kind the UI handled.
func (ui *testUI) count(kind ApprovalEventKind) int {
	ui.mu.Lock()
	defer ui.mu.Unlock()
	n := 0
	for _, ev := range ui.events {
		if ev.Kind == kind {
			n++
		}
	}
	return n
}

// always returns a policy answering d.
func always(d Decision) func(ApprovalRequest) (Decision, bool) {
	return func(ApprovalRequest) (Decision, bool) { return d, true }
}

// cliCall runs tool name through tr as the cli session, collecting events.
func cliCall(ctx context.Context, tr *testRegistry, session, name, args string) (protocol.ToolResult, []protocol.Event) {
	var (
		mu     sync.Mutex
		events []protocol.Event
	)
	res := tr.reg.Call(ctx, registry.Request{
		RequestID: "req_cli", ToolName: name, Args: json.RawMessage(args),
		Client: protocol.ClientInfo{Caller: protocol.CallerCLI, SessionID: session, Cwd: "/work/project"},
		Peer:   &registry.Peer{PID: 4242, UID: 1000, Exe: "/usr/local/bin/meith", Cwd: "/work/project"},
		Emit: func(ev protocol.Event) {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, ev)
		},
	})
	// Drain the audit entry so the channel never fills.
	select {
	case <-tr.entries:
	default:
	}
	mu.Lock()
	defer mu.Unlock()
	return res, events
}

// waitGoroutines waits until the goroutine count is back to base.
func waitGoroutines(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines, want at most %d:\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestApprovalAllowOnce(t *testing.T) {
	a := NewApprovals(ApprovalsOptions{})
	s := New(Options{Approvals: a, ApprovalTimeout: time.Minute})
	tr := newTestRegistry(t, s)
	var (
		mu   sync.Mutex
		reqs []ApprovalRequest
	)
	ui := startUI(t, a, func(r ApprovalRequest) (Decision, bool) {
		mu.Lock()
		reqs = append(reqs, r)
		mu.Unlock()
		return AllowOnce, true
	})

	res, events := cliCall(t.Context(), tr, cliSession, "wipe_all", `{"note":"Bearer abcdefghijklmnopqrstu"}`)
	if res.Err() != nil || tr.runs.Load() != 1 {
		t.Fatalf("cli wipe_all allowed once = %v (ran %d), want ok and run once", res.Err(), tr.runs.Load())
	}
	want := protocol.Progress("waiting for approval in the meith app…", -1)
	if len(events) != 1 || events[0].Kind != want.Kind || events[0].Message != want.Message || events[0].Fraction != nil {
		t.Errorf("events = %+v, want one progress %q without fraction", events, want.Message)
	}
	r := reqs[0]
	if !regexp.MustCompile(`^appr_[0-9a-f]{12}$`).MatchString(r.ID) {
		t.Errorf("request ID = %q, want appr_<12 hex>", r.ID)
	}
	if r.ToolName != "wipe_all" || r.Description != "Test tool wipe_all." || r.Caller != protocol.CallerCLI || r.SessionID != cliSession {
		t.Errorf("request = %+v, want wipe_all from cli %s", r, cliSession)
	}
	if !slices.Equal(r.Capabilities, []protocol.Capability{de, wf}) || r.Capability != de {
		t.Errorf("request capabilities = %v gating %s, want [destructive writes-files] gating destructive", r.Capabilities, r.Capability)
	}
	if r.Peer == nil || *r.Peer != (registry.Peer{PID: 4242, UID: 1000, Exe: "/usr/local/bin/meith", Cwd: "/work/project"}) {
		t.Errorf("request peer = %+v, want pid 4242 /usr/local/bin/meith in /work/project", r.Peer)
	}
	if want := `{"note":"[REDACTED]"}`; r.ArgsSummary != want {
		t.Errorf("request args = %s, want %s", r.ArgsSummary, want)
	}
	if d := r.ExpiresAt.Sub(r.CreatedAt); d != time.Minute {
		t.Errorf("request expires %v after creation, want 1m", d)
	}
	if g := s.Grants(protocol.CallerCLI, cliSession); len(g) != 0 {
		t.Errorf("grants after allow once = %+v, want none", g)
	}
	// The next call asks again.
	if res, _ := cliCall(t.Context(), tr, cliSession, "wipe_all", `{}`); res.Err() != nil {
		t.Errorf("second call = %v, want allowed once more", res.Err())
	}
	if n := ui.count(ApprovalPending); n != 2 {
		t.Errorf("UI saw %d pending requests, want 2 (allow once does not remember)", n)
	}
	if p := a.Pending(); len(p) != 0 {
		t.Errorf("Pending() after the calls = %v, want none", p)
	}
}

func TestApprovalAllowForConnection(t *testing.T) {
	a := NewApprovals(ApprovalsOptions{})
	s := New(Options{Approvals: a})
	tr := newTestRegistry(t, s)
	ui := startUI(t, a, func(r ApprovalRequest) (Decision, bool) {
		if r.SessionID == cliSession {
			return AllowCapabilityForConnection, true
		}
		return Deny, true
	})
	if res, _ := cliCall(t.Context(), tr, cliSession, "wipe_all", `{}`); res.Err() != nil {
		t.Fatalf("wipe_all allowed for the connection = %v, want ok", res.Err())
	}
	g := s.Grants(protocol.CallerCLI, cliSession)
	want := []Grant{{Caller: protocol.CallerCLI, SessionID: cliSession, Capabilities: []protocol.Capability{de, wf}}}
	if len(g) != 1 || g[0].Caller != want[0].Caller || g[0].SessionID != cliSession || !slices.Equal(g[0].Capabilities, want[0].Capabilities) ||
		g[0].ToolName != "" || g[0].Uses != 0 {
		t.Errorf("grants = %+v, want %+v", g, want)
	}
	// Covered calls no longer ask.
	for _, name := range []string{"wipe_all", "write_file", "wipe_all"} {
		if res, events := cliCall(t.Context(), tr, cliSession, name, `{}`); res.Err() != nil || len(events) != 0 {
			t.Errorf("%s after allow-for-connection = %v with %d events, want ok without asking", name, res.Err(), len(events))
		}
	}
	// A capability outside the grant asks again (and this UI grants it).
	if res, events := cliCall(t.Context(), tr, cliSession, "open_tab", `{}`); res.Err() != nil || len(events) != 1 {
		t.Errorf("open_tab = %v with %d events, want asked and allowed", res.Err(), len(events))
	}
	if n := ui.count(ApprovalPending); n != 2 {
		t.Errorf("UI saw %d pending requests, want 2", n)
	}
	// Another connection is not covered.
	if res, _ := cliCall(t.Context(), tr, "socket:other", "write_file", `{}`); !protocol.IsPermissionDenied(res.Err()) {
		t.Errorf("write_file from another connection = %v, want denied by the UI", res.Err())
	}
	// Closing the connection revokes it.
	s.RevokeSession(protocol.CallerCLI, cliSession)
	if res, events := cliCall(t.Context(), tr, cliSession, "write_file", `{}`); res.Err() != nil || len(events) != 1 {
		t.Errorf("write_file after revoke = %v with %d events, want asked again", res.Err(), len(events))
	}
}

func TestApprovalDeny(t *testing.T) {
	a := NewApprovals(ApprovalsOptions{})
	tr := newTestRegistry(t, New(Options{Approvals: a}))
	ui := startUI(t, a, always(Deny))
	res, _ := cliCall(t.Context(), tr, cliSession, "write_file", `{}`)
	if !protocol.IsPermissionDenied(res.Err()) || res.Error.Message != `User denied "write_file".` {
		t.Errorf("denied call = %v, want PERMISSION_DENIED %q", res.Err(), `User denied "write_file".`)
	}
	if tr.runs.Load() != 0 {
		t.Errorf("tool ran %d times after a deny, want 0", tr.runs.Load())
	}
	if d := res.Error.Details.(DenyDetails); d.Reason != ReasonUserDenied {
		t.Errorf("details reason = %s, want %s", d.Reason, ReasonUserDenied)
	}
	ui.next(t) // pending
	if ev := ui.next(t); ev.Kind != ApprovalResolved || ev.Resolution != ResolvedDeny {
		t.Errorf("second event = %s/%s, want resolved/deny", ev.Kind, ev.Resolution)
	}
}

func TestApprovalTimeout(t *testing.T) {
	a := NewApprovals(ApprovalsOptions{})
	tr := newTestRegistry(t, New(Options{Approvals: a, ApprovalTimeout: 50 * time.Millisecond}))
	ui := startUI(t, a, nil) // never answers
	start := time.Now()
	res, _ := cliCall(t.Context(), tr, cliSession, "write_file", `{}`)
	if want := `Approval for "write_file" timed out after 50ms.`; !protocol.IsPermissionDenied(res.Err()) || res.Error.Message != want {
		t.Errorf("unanswered call = %v, want PERMISSION_DENIED %q", res.Err(), want)
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("unanswered call returned after %v, before the timeout", d)
	}
	if p := a.Pending(); len(p) != 0 {
		t.Errorf("Pending() after the timeout = %v, want none", p)
	}
	pending := ui.next(t)
	if ev := ui.next(t); ev.Kind != ApprovalResolved || ev.Resolution != ResolvedTimeout || ev.Request.ID != pending.Request.ID {
		t.Errorf("events = pending %s then %s/%s for %s, want resolved/timeout for the same id", pending.Request.ID, ev.Kind, ev.Resolution, ev.Request.ID)
	}
	if err := a.Decide(pending.Request.ID, AllowOnce); !errors.Is(err, ErrUnknownApproval) {
		t.Errorf("Decide after the timeout = %v, want ErrUnknownApproval", err)
	}
}

func TestApprovalDefaultTimeout(t *testing.T) {
	a := NewApprovals(ApprovalsOptions{})
	s := New(Options{Approvals: a})
	ui := startUI(t, a, nil)
	errc := make(chan error, 1)
	go func() { errc <- authorize(s, protocol.CallerCLI, tool("write_file", wf)) }()
	ev := ui.next(t)
	if d := ev.Request.ExpiresAt.Sub(ev.Request.CreatedAt); d != DefaultApprovalTimeout {
		t.Errorf("default expiry = %v, want %v", d, DefaultApprovalTimeout)
	}
	a.Decide(ev.Request.ID, Deny)
	checkDenied(t, "Authorize", <-errc, `User denied "write_file".`)
}

func TestApprovalCancel(t *testing.T) {
	a := NewApprovals(ApprovalsOptions{})
	s := New(Options{Approvals: a})
	ui := startUI(t, a, nil)

	// Directly: Authorize returns the context's error.
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() {
		errc <- s.Authorize(ctx, registry.AuthRequest{Tool: tool("write_file", wf),
			Client: protocol.ClientInfo{Caller: protocol.CallerCLI, SessionID: cliSession}})
	}()
	pending := ui.next(t)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("Authorize cancelled while waiting = %v, want context.Canceled", err)
	}
	if ev := ui.next(t); ev.Kind != ApprovalResolved || ev.Resolution != ResolvedCancelled || ev.Request.ID != pending.Request.ID {
		t.Errorf("event after cancel = %s/%s, want resolved/cancelled", ev.Kind, ev.Resolution)
	}
	if p := a.Pending(); len(p) != 0 {
		t.Errorf("Pending() after cancel = %v, want none", p)
	}
	if err := a.Decide(pending.Request.ID, AllowOnce); !errors.Is(err, ErrUnknownApproval) {
		t.Errorf("Decide after cancel = %v, want ErrUnknownApproval", err)
	}

	// Through the registry: CANCELLED, and the tool does not run.
	tr := newTestRegistry(t, s)
	ctx, cancel = context.WithCancel(t.Context())
	resc := make(chan protocol.ToolResult, 1)
	go func() {
		res, _ := cliCall(ctx, tr, cliSession, "write_file", `{}`)
		resc <- res
	}()
	ui.next(t)
	cancel()
	if res := <-resc; protocol.CodeOf(res.Err()) != protocol.CodeCancelled || tr.runs.Load() != 0 {
		t.Errorf("registry call cancelled while waiting = %v (ran %d), want CANCELLED and not run", res.Err(), tr.runs.Load())
	}
}

func TestApprovalDecideErrors(t *testing.T) {
	a := NewApprovals(ApprovalsOptions{})
	s := New(Options{Approvals: a})
	ui := startUI(t, a, nil)
	if err := a.Decide("appr_000000000000", AllowOnce); !errors.Is(err, ErrUnknownApproval) {
		t.Errorf("Decide(unknown id) = %v, want ErrUnknownApproval", err)
	}
	errc := make(chan error, 1)
	go func() { errc <- authorize(s, protocol.CallerCLI, tool("write_file", wf)) }()
	id := ui.next(t).Request.ID
	if err := a.Decide(id, "always"); !errors.Is(err, ErrInvalidDecision) {
		t.Errorf("Decide(%s, always) = %v, want ErrInvalidDecision", id, err)
	}
	if p := a.Pending(); len(p) != 1 || p[0].ID != id {
		t.Errorf("Pending() after an invalid decision = %v, want %s still pending", p, id)
	}
	if err := a.Decide(id, AllowOnce); err != nil {
		t.Errorf("Decide(%s, allow_once) = %v, want nil", id, err)
	}
	if err := a.Decide(id, Deny); !errors.Is(err, ErrUnknownApproval) {
		t.Errorf("second Decide(%s) = %v, want ErrUnknownApproval", id, err)
	}
	if err := <-errc; err != nil {
		t.Errorf("Authorize after allow once = %v, want nil", err)
	}
}

func TestApprovalUIDetach(t *testing.T) {
	a := NewApprovals(ApprovalsOptions{})
	s := New(Options{Approvals: a})
	detach1 := a.Attach()
	detach2 := a.Attach()
	if n := a.Attached(); n != 2 {
		t.Fatalf("Attached() = %d, want 2", n)
	}
	evc := make(chan ApprovalEvent, 10)
	defer a.Subscribe(func(ev ApprovalEvent) { evc <- ev })()
	errc := make(chan error, 1)
	go func() { errc <- authorize(s, protocol.CallerCLI, tool("write_file", wf)) }()
	<-evc
	detach1()
	detach1() // idempotent
	if n := a.Attached(); n != 1 {
		t.Errorf("Attached() after one detach (twice) = %d, want 1", n)
	}
	if p := a.Pending(); len(p) != 1 {
		t.Errorf("Pending() with one UI left = %d requests, want 1", len(p))
	}
	detach2()
	select {
	case err := <-errc:
		checkDenied(t, "Authorize when the last UI detached", err,
			`Tool "write_file" requires writes-files permission. The approval UI closed before a decision was made.`)
	case <-time.After(5 * time.Second):
		t.Fatal("Authorize still waits after the last UI detached")
	}
	if ev := <-evc; ev.Resolution != ResolvedDetached {
		t.Errorf("event = %s/%s, want resolved/detached", ev.Kind, ev.Resolution)
	}
	// With no UI now, the next call is denied at once.
	err := authorize(s, protocol.CallerCLI, tool("write_file", wf))
	checkDenied(t, "Authorize without UI", err, "")
	if d := err.(*protocol.ToolError).Details.(DenyDetails); d.Reason != ReasonNoApprovalUI {
		t.Errorf("reason = %s, want %s", d.Reason, ReasonNoApprovalUI)
	}
}

func TestApprovalMaxPending(t *testing.T) {
	a := NewApprovals(ApprovalsOptions{MaxPending: 2})
	s := New(Options{Approvals: a})
	ui := startUI(t, a, nil)
	errc := make(chan error, 2)
	for range 2 {
		go func() { errc <- authorize(s, protocol.CallerCLI, tool("write_file", wf)) }()
	}
	ui.next(t)
	ui.next(t)
	err := authorize(s, protocol.CallerCLI, tool("write_file", wf))
	checkDenied(t, "third Authorize with 2 pending", err, "")
	if d := err.(*protocol.ToolError).Details.(DenyDetails); d.Reason != ReasonTooManyPending {
		t.Errorf("reason = %s, want %s", d.Reason, ReasonTooManyPending)
	}
	for _, p := range a.Pending() {
		a.Decide(p.ID, AllowOnce)
	}
	for range 2 {
		if err := <-errc; err != nil {
			t.Errorf("pending call = %v, want allowed", err)
		}
	}
}

func TestApprovalNotForAgentsOrTrusted(t *testing.T) {
	a := NewApprovals(ApprovalsOptions{})
	s := New(Options{Approvals: a, PluginGrants: plugins("demo")})
	ui := startUI(t, a, always(AllowOnce))
	checkDenied(t, "agent Authorize with a UI attached", authorize(s, protocol.CallerAgent, tool("write_file", wf)),
		`Tool "write_file" requires writes-files permission.`)
	checkDenied(t, "plugin Authorize with a UI attached", authorize(s, protocol.CallerPlugin, tool("write_file", wf)), "")
	for _, c := range []protocol.Caller{protocol.CallerRenderer, protocol.CallerInternal} {
		if err := authorize(s, c, tool("write_file", wf)); err != nil {
			t.Errorf("%s Authorize = %v, want nil", c, err)
		}
	}
	if err := authorize(s, protocol.CallerCLI, tool("read_state", ro, an)); err != nil {
		t.Errorf("cli read-only Authorize = %v, want nil", err)
	}
	if n := ui.count(ApprovalPending); n != 0 {
		t.Errorf("UI was asked %d times, want never", n)
	}
}

func TestApprovalConcurrent(t *testing.T) {
	base := runtime.NumGoroutine()
	func() {
		a := NewApprovals(ApprovalsOptions{MaxPending: 200}) // room for all 121 calls
		s := New(Options{Approvals: a})
		// Decide by session: allow once, allow for the connection, deny.
		decide := func(r ApprovalRequest) (Decision, bool) {
			var i int
			fmt.Sscanf(r.SessionID, "socket:%d", &i)
			return []Decision{AllowOnce, AllowCapabilityForConnection, Deny}[i%3], true
		}
		ctx := context.Background()
		ui := startUIManual(a, decide)
		defer ui()
		const sessions, calls = 30, 4
		var wg sync.WaitGroup
		results := make([][]error, sessions)
		for i := range sessions {
			results[i] = make([]error, calls)
			for j := range calls {
				wg.Go(func() {
					results[i][j] = s.Authorize(ctx, registry.AuthRequest{
						Tool:   tool("write_file", wf),
						Client: protocol.ClientInfo{Caller: protocol.CallerCLI, SessionID: fmt.Sprintf("socket:%d", i)},
						Emit:   func(protocol.Event) {},
					})
				})
			}
		}
		// Meanwhile, a canceller and an extra UI coming and going.
		cctx, cancel := context.WithCancel(ctx)
		wg.Go(func() {
			err := s.Authorize(cctx, registry.AuthRequest{Tool: tool("write_file", wf),
				Client: protocol.ClientInfo{Caller: protocol.CallerCLI, SessionID: "socket:cancel"}})
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled Authorize = %v", err)
			}
		})
		wg.Go(func() {
			for range 20 {
				a.Attach()()
				a.Pending()
			}
			cancel()
		})
		wg.Wait()
		for i := range sessions {
			for j, err := range results[i] {
				if want := i%3 != 2; (err == nil) != want {
					t.Errorf("session %d call %d = %v, want allowed %v", i, j, err, want)
				}
			}
		}
		if p := a.Pending(); len(p) != 0 {
			t.Errorf("Pending() after all calls = %d requests, want none", len(p))
		}
	}()
	waitGoroutines(t, base)
}

// startUIManual attaches a UI that decides inside its subscription callback
// (which runs on the broker's delivery goroutine) and returns its stop func.
func startUIManual(a *Approvals, policy func(ApprovalRequest) (Decision, bool)) func() {
	cancel := a.Subscribe(func(ev ApprovalEvent) {
		if ev.Kind == ApprovalPending {
			if d, ok := policy(ev.Request); ok {
				a.Decide(ev.Request.ID, d)
			}
		}
	})
	detach := a.Attach()
	return func() { cancel(); detach() }
}

func TestSubscribe(t *testing.T) {
	base := runtime.NumGoroutine()
	a := NewApprovals(ApprovalsOptions{})
	s := New(Options{Approvals: a})
	detach := a.Attach()
	defer detach()

	var mu sync.Mutex
	var log []string
	cancel := a.Subscribe(func(ev ApprovalEvent) {
		// Re-entering the broker from the callback is allowed.
		a.Pending()
		mu.Lock()
		log = append(log, string(ev.Kind)+":"+ev.Request.ID)
		mu.Unlock()
		if ev.Kind == ApprovalPending {
			a.Decide(ev.Request.ID, AllowOnce)
		}
	})
	for range 20 {
		if err := authorize(s, protocol.CallerCLI, tool("write_file", wf)); err != nil {
			t.Fatalf("Authorize = %v, want allowed from the callback", err)
		}
	}
	// Every request shows pending before resolved.
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := len(log)
		mu.Unlock()
		if n == 40 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	mu.Lock()
	state := map[string]string{}
	for _, l := range log {
		kind, id, _ := strings.Cut(l, ":")
		switch {
		case kind == "pending" && state[id] == "":
		case kind == "resolved" && state[id] == "pending":
		default:
			t.Errorf("event %s after %q for %s, want pending then resolved", kind, state[id], id)
		}
		state[id] = kind
	}
	if len(log) != 40 {
		t.Errorf("callback saw %d events, want 40", len(log))
	}
	mu.Unlock()

	cancel()
	cancel() // idempotent
	mu.Lock()
	before := len(log)
	mu.Unlock()
	other := a.Subscribe(func(ev ApprovalEvent) {
		if ev.Kind == ApprovalPending {
			a.Decide(ev.Request.ID, Deny)
		}
	})
	checkDenied(t, "Authorize after the first subscriber cancelled", authorize(s, protocol.CallerCLI, tool("write_file", wf)), "")
	other()
	mu.Lock()
	if len(log) != before {
		t.Errorf("cancelled subscriber got %d more events, want none", len(log)-before)
	}
	mu.Unlock()
	detach()
	waitGoroutines(t, base)
}

// TestApprovalWaitsForTheFirstUI: with FirstUIGrace (the desktop runtime,
// whose socket answers before its window is up), a call that must ask waits
// for the first UI to attach and is then asked there; without the grace, or
// once it has run out, or once a UI came and went, it is denied at once.
func TestApprovalWaitsForTheFirstUI(t *testing.T) {
	req := func(emit func(protocol.Event)) registry.AuthRequest {
		return registry.AuthRequest{Tool: tool("write_file", wf), Args: json.RawMessage(`{}`), Emit: emit,
			Client: protocol.ClientInfo{Caller: protocol.CallerCLI, SessionID: sessionOf(protocol.CallerCLI)}}
	}
	t.Run("the window comes up while the call waits", func(t *testing.T) {
		a := NewApprovals(ApprovalsOptions{FirstUIGrace: time.Minute})
		s := New(Options{Approvals: a, ApprovalTimeout: time.Minute})
		if decided, _ := s.AuthorizeNow(req(nil)); decided {
			t.Fatal("AuthorizeNow decided while the window may still come; want it left to Authorize")
		}
		progress := make(chan string, 10)
		errc := make(chan error, 1)
		go func() { errc <- s.Authorize(t.Context(), req(func(ev protocol.Event) { progress <- ev.Message })) }()
		if msg := <-progress; msg != "waiting for the meith window…" {
			t.Fatalf("first progress = %q, want the wait for the window", msg)
		}
		startUI(t, a, func(ApprovalRequest) (Decision, bool) { return AllowOnce, true })
		if msg := <-progress; msg != "waiting for approval in the meith app…" {
			t.Errorf("second progress = %q, want the wait for the approval", msg)
		}
		if err := <-errc; err != nil {
			t.Errorf("Authorize once the window came up and allowed = %v, want allowed", err)
		}
	})
	for _, tc := range []struct {
		name  string
		grace time.Duration
		setup func(a *Approvals)
	}{
		{"no grace", 0, func(*Approvals) {}},
		{"grace ran out", time.Nanosecond, func(*Approvals) { time.Sleep(time.Millisecond) }},
		{"a UI came and went", time.Minute, func(a *Approvals) { a.Attach()() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := NewApprovals(ApprovalsOptions{FirstUIGrace: tc.grace})
			tc.setup(a)
			s := New(Options{Approvals: a})
			decided, err := s.AuthorizeNow(req(nil))
			if !decided {
				t.Fatal("AuthorizeNow left the call to Authorize; want it denied at once")
			}
			checkDenied(t, "AuthorizeNow without a UI", err, "")
			if d := err.(*protocol.ToolError).Details.(DenyDetails); d.Reason != ReasonNoApprovalUI {
				t.Errorf("reason = %s, want %s", d.Reason, ReasonNoApprovalUI)
			}
		})
	}
}
