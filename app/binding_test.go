package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/agent"
	"github.com/meith-dev/meith/backend/applog"
	"github.com/meith-dev/meith/backend/browser"
	"github.com/meith-dev/meith/backend/git/repo"
	"github.com/meith-dev/meith/backend/git/watch"
	"github.com/meith-dev/meith/backend/permission"
	"github.com/meith-dev/meith/backend/process"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
)

// fakeEmitter records what the binding would send to the window.
type fakeEmitter struct {
	mu     sync.Mutex
	events []emitted
	wake   chan struct{}
}

type emitted struct {
	name    string
	payload any
}

func newFakeEmitter() *fakeEmitter { return &fakeEmitter{wake: make(chan struct{}, 1)} }

func (f *fakeEmitter) Emit(name string, payload any) {
	// Wails marshals payloads to JSON; make sure ours survive that.
	if _, err := json.Marshal(payload); err != nil {
		panic(err)
	}
	f.mu.Lock()
	f.events = append(f.events, emitted{name, payload})
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// waitFor returns the first recorded event that matches, waiting up to 5 s.
func (f *fakeEmitter) waitFor(t *testing.T, what string, match func(emitted) bool) emitted {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		f.mu.Lock()
		for _, e := range f.events {
			if match(e) {
				f.mu.Unlock()
				return e
			}
		}
		f.mu.Unlock()
		select {
		case <-f.wake:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			t.Fatalf("timed out waiting for %s; got %v", what, f.names())
		}
	}
}

// count returns how many recorded events match.
func (f *fakeEmitter) count(match func(emitted) bool) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, e := range f.events {
		if match(e) {
			n++
		}
	}
	return n
}

func (f *fakeEmitter) names() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var s []string
	for _, e := range f.events {
		s = append(s, e.name)
	}
	return s
}

// result waits for the tool_result of callID.
func (f *fakeEmitter) result(t *testing.T, callID string) protocol.ToolResult {
	t.Helper()
	e := f.waitFor(t, "tool_result of "+callID, func(e emitted) bool {
		p, ok := e.payload.(ToolResultPayload)
		return ok && e.name == EventToolResult && p.CallID == callID
	})
	return e.payload.(ToolResultPayload).Result
}

// toolEvents returns the tool_event payloads of callID, in order.
func (f *fakeEmitter) toolEvents(callID string) []protocol.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []protocol.Event
	for _, e := range f.events {
		if p, ok := e.payload.(ToolEventPayload); ok && e.name == EventToolEvent && p.CallID == callID {
			out = append(out, p.Event)
		}
	}
	return out
}

type whoAmI struct {
	Caller    protocol.Caller `json:"caller"`
	SessionID string          `json:"sessionId"`
	Cwd       string          `json:"cwd"`
	Text      string          `json:"text"`
}

type echoIn struct {
	Text string `json:"text,omitempty"`
}

type noteIn struct {
	Text  string `json:"text"`
	Token string `json:"token,omitempty"`
}

type slowIn struct {
	Steps int `json:"steps,omitempty"`
}

// newTestRegistry returns a real registry with a few test tools, guarded by
// a real permission service whose approvals go through appr.
func newTestRegistry(t *testing.T, appr *permission.Approvals) *registry.Registry {
	t.Helper()
	perms := permission.New(permission.Options{Approvals: appr, ApprovalTimeout: 10 * time.Second})
	reg := registry.New(registry.Options{Authorizer: perms})
	registry.Register(reg, registry.Tool{
		Name: "whoami", Description: "Echo the caller context.", Capabilities: []protocol.Capability{protocol.CapReadOnly},
	}, func(ctx context.Context, call *registry.Call, in echoIn) (whoAmI, error) {
		return whoAmI{Caller: call.Client.Caller, SessionID: call.Client.SessionID, Cwd: call.Client.Cwd, Text: in.Text}, nil
	})
	registry.Register(reg, registry.Tool{
		Name: "stream", Description: "Emit progress events, then finish.", Capabilities: []protocol.Capability{protocol.CapReadOnly},
	}, func(ctx context.Context, call *registry.Call, in slowIn) (int, error) {
		for i := range in.Steps {
			call.Progress("step", float64(i+1)/float64(in.Steps))
		}
		return in.Steps, nil
	})
	registry.Register(reg, registry.Tool{
		Name: "wait_forever", Description: "Block until cancelled.", Capabilities: []protocol.Capability{protocol.CapReadOnly},
		Timeout: time.Hour,
	}, func(ctx context.Context, call *registry.Call, _ registry.NoArgs) (any, error) {
		call.Progress("waiting", -1)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	registry.Register(reg, registry.Tool{
		Name: "write_note", Description: "Pretend to write a file.", Capabilities: []protocol.Capability{protocol.CapWritesFiles},
	}, func(ctx context.Context, call *registry.Call, in noteIn) (string, error) {
		return "wrote " + in.Text, nil
	})
	return reg
}

// startApp returns a started binding with a fake emitter; it is shut down
// when the test ends.
func startApp(t *testing.T, reg *registry.Registry, appr *permission.Approvals, opts ...Option) (*App, *fakeEmitter) {
	t.Helper()
	em := newFakeEmitter()
	a := New(reg, appr, opts...)
	a.newEmitter = func(context.Context) emitter { return em }
	a.Startup(context.Background())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		a.Shutdown(ctx)
	})
	return a, em
}

var callIDRE = regexp.MustCompile(`^call_[0-9a-f]{12}$`)

func TestCallRoutesResultByCallID(t *testing.T) {
	a, em := startApp(t, newTestRegistry(t, nil), nil)
	ids := map[string]string{}
	for _, text := range []string{"one", "two", "three"} {
		id, err := a.Call("whoami", map[string]any{"text": text}, protocol.ClientInfo{})
		if err != nil {
			t.Fatal(err)
		}
		if !callIDRE.MatchString(id) {
			t.Fatalf("call id %q does not match %s", id, callIDRE)
		}
		if _, dup := ids[id]; dup {
			t.Fatalf("duplicate call id %q", id)
		}
		ids[id] = text
	}
	for id, text := range ids {
		res := em.result(t, id)
		var got whoAmI
		if !res.OK || json.Unmarshal(res.Content, &got) != nil || got.Text != text {
			t.Errorf("call %s: got %+v (%s), want text %q", id, res, res.Content, text)
		}
	}
}

func TestCallForcesRendererCaller(t *testing.T) {
	a, em := startApp(t, newTestRegistry(t, nil), nil)
	id, err := a.Call("whoami", nil, protocol.ClientInfo{Caller: protocol.CallerCLI, SessionID: "socket:spoofed", Cwd: "/work"})
	if err != nil {
		t.Fatal(err)
	}
	res := em.result(t, id)
	var got whoAmI
	if err := json.Unmarshal(res.Content, &got); err != nil {
		t.Fatalf("%+v: %v", res, err)
	}
	want := whoAmI{Caller: protocol.CallerRenderer, SessionID: SessionRenderer, Cwd: "/work"}
	if got != want {
		t.Errorf("tool saw %+v, want %+v", got, want)
	}
}

func TestCallStreamsEventsInOrderBeforeResult(t *testing.T) {
	a, em := startApp(t, newTestRegistry(t, nil), nil)
	id, err := a.Call("stream", map[string]any{"steps": 5}, protocol.ClientInfo{})
	if err != nil {
		t.Fatal(err)
	}
	if res := em.result(t, id); !res.OK || string(res.Content) != "5" {
		t.Fatalf("result %+v", res)
	}
	evs := em.toolEvents(id)
	if len(evs) != 5 {
		t.Fatalf("got %d events, want 5: %+v", len(evs), evs)
	}
	for i, ev := range evs {
		if ev.Kind != protocol.EventProgress || ev.Fraction == nil || *ev.Fraction != float64(i+1)/5 {
			t.Errorf("event %d = %+v", i, ev)
		}
	}
	// The result is the last thing emitted for the call.
	names := em.names()
	if names[len(names)-1] != EventToolResult {
		t.Errorf("last event %q, want %q", names[len(names)-1], EventToolResult)
	}
}

func TestCallFailuresArriveAsResults(t *testing.T) {
	a, em := startApp(t, newTestRegistry(t, nil), nil)
	cases := []struct {
		tool string
		args map[string]any
		code protocol.ErrorCode
	}{
		{"no_such_tool", nil, protocol.CodeUnknownTool},
		{"whoami", map[string]any{"text": 42}, protocol.CodeValidation},
		{"whoami", map[string]any{"extra": true}, protocol.CodeValidation},
	}
	for _, c := range cases {
		id, err := a.Call(c.tool, c.args, protocol.ClientInfo{})
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		res := em.result(t, id)
		if res.OK || res.Error == nil || res.Error.Code != c.code {
			t.Errorf("%s %v: got %+v, want %s", c.tool, c.args, res, c.code)
		}
	}
}

func TestCancel(t *testing.T) {
	a, em := startApp(t, newTestRegistry(t, nil), nil)
	id, err := a.Call("wait_forever", nil, protocol.ClientInfo{})
	if err != nil {
		t.Fatal(err)
	}
	// Wait until the tool runs, then cancel.
	em.waitFor(t, "the progress event", func(e emitted) bool {
		p, ok := e.payload.(ToolEventPayload)
		return ok && p.CallID == id
	})
	a.Cancel("call_000000000000") // unknown ids are ignored
	a.Cancel(id)
	res := em.result(t, id)
	if res.OK || res.Error == nil || res.Error.Code != protocol.CodeCancelled {
		t.Fatalf("got %+v, want CANCELLED", res)
	}
	a.Cancel(id) // a finished id is ignored too
}

func TestListTools(t *testing.T) {
	a := New(newTestRegistry(t, nil), nil)
	tools, err := a.ListTools()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range tools {
		names = append(names, d.Name)
		if len(d.Capabilities) == 0 || len(d.InputSchema) == 0 {
			t.Errorf("descriptor %+v lacks capabilities or schema", d)
		}
	}
	if got := strings.Join(names, ","); got != "whoami,stream,wait_forever,write_note" {
		t.Errorf("tools = %s", got)
	}
	empty, _ := New(registry.New(registry.Options{}), nil).ListTools()
	if empty == nil {
		t.Error("ListTools of an empty registry is nil; the UI wants []")
	}
}

func TestShutdownCancelsCallsAndRefusesNewOnes(t *testing.T) {
	em := newFakeEmitter()
	a := New(newTestRegistry(t, nil), nil)
	a.newEmitter = func(context.Context) emitter { return em }
	a.Startup(context.Background())
	id, err := a.Call("wait_forever", nil, protocol.ClientInfo{})
	if err != nil {
		t.Fatal(err)
	}
	em.waitFor(t, "the progress event", func(e emitted) bool { return e.name == EventToolEvent })

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	a.Shutdown(ctx)
	if ctx.Err() != nil {
		t.Fatal("Shutdown did not wait for the cancelled call to finish in time")
	}
	a.mu.Lock()
	left := len(a.calls)
	a.mu.Unlock()
	if left != 0 {
		t.Errorf("%d calls still tracked after Shutdown (%s)", left, id)
	}
	_, err = a.Call("whoami", nil, protocol.ClientInfo{})
	if protocol.CodeOf(err) != protocol.CodeRuntimeShuttingDown || !strings.HasPrefix(err.Error(), "RUNTIME_SHUTTING_DOWN: ") {
		t.Errorf("Call after Shutdown: %v", err)
	}
	a.Shutdown(ctx) // idempotent
}

// cliCall runs a privileged call as a socket session would, in the
// background.
func cliCall(reg *registry.Registry, session string, text string) <-chan protocol.ToolResult {
	out := make(chan protocol.ToolResult, 1)
	go func() {
		out <- reg.Call(context.Background(), registry.Request{
			ToolName: "write_note",
			Args:     json.RawMessage(`{"text":"` + text + `","token":"sk-secret"}`),
			Client:   protocol.ClientInfo{Caller: protocol.CallerCLI, SessionID: session},
			Peer:     &registry.Peer{PID: 4242, UID: 1000, Exe: "/usr/bin/meith", Cwd: "/home/me/project"},
		})
	}()
	return out
}

// awaitPending waits for the approvals_changed event of request number
// seen+1 and returns the pending request the window would show.
func awaitPending(t *testing.T, a *App, em *fakeEmitter, seen int) permission.ApprovalRequest {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for em.count(isPendingEvent) <= seen {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for approvals_changed (pending) #%d; got %v", seen+1, em.names())
		}
		time.Sleep(5 * time.Millisecond)
	}
	pending := a.PendingApprovals()
	if len(pending) != 1 {
		t.Fatalf("PendingApprovals = %+v, want one", pending)
	}
	return pending[0]
}

func isPendingEvent(e emitted) bool {
	p, ok := e.payload.(ApprovalsChangedPayload)
	return ok && e.name == EventApprovalsChanged && p.Kind == permission.ApprovalPending
}

func result(t *testing.T, ch <-chan protocol.ToolResult) protocol.ToolResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("the CLI call did not finish")
		return protocol.ToolResult{}
	}
}

func TestApprovalsRoundTrip(t *testing.T) {
	appr := permission.NewApprovals(permission.ApprovalsOptions{})
	reg := newTestRegistry(t, appr)
	a, em := startApp(t, reg, appr)

	// 1. Allow once: the call runs; the request carries what the prompt shows.
	done := cliCall(reg, "socket:one", "a")
	req := awaitPending(t, a, em, 0)
	if req.ToolName != "write_note" || req.Capability != protocol.CapWritesFiles ||
		req.Peer == nil || req.Peer.PID != 4242 || req.Peer.Exe != "/usr/bin/meith" || req.Peer.Cwd != "/home/me/project" {
		t.Errorf("approval request %+v (peer %+v)", req, req.Peer)
	}
	if strings.Contains(req.ArgsSummary, "sk-secret") {
		t.Errorf("args summary leaks the secret: %s", req.ArgsSummary)
	}
	if err := a.DecideApproval(req.ID, "maybe"); err == nil || !strings.HasPrefix(err.Error(), "VALIDATION_ERROR: ") {
		t.Errorf("bad decision: %v", err)
	}
	if err := a.DecideApproval(req.ID, string(permission.AllowOnce)); err != nil {
		t.Fatal(err)
	}
	if res := result(t, done); !res.OK {
		t.Fatalf("allowed call: %+v", res.Error)
	}
	if err := a.DecideApproval(req.ID, string(permission.Deny)); err == nil || !strings.HasPrefix(err.Error(), "VALIDATION_ERROR: ") {
		t.Errorf("second decision on a finished request: %v", err)
	}
	em.waitFor(t, "approvals_changed (resolved)", func(e emitted) bool {
		p, ok := e.payload.(ApprovalsChangedPayload)
		return ok && p.Kind == permission.ApprovalResolved && p.ID == req.ID && p.Pending == 0
	})

	// 2. Deny: PERMISSION_DENIED.
	done = cliCall(reg, "socket:one", "b")
	req = awaitPending(t, a, em, 1)
	if err := a.DecideApproval(req.ID, string(permission.Deny)); err != nil {
		t.Fatal(err)
	}
	if res := result(t, done); res.OK || res.Error.Code != protocol.CodePermissionDenied {
		t.Fatalf("denied call: %+v", res)
	}

	// 3. Allow for the connection: the next call of that session runs
	// without asking; another session is asked again.
	done = cliCall(reg, "socket:two", "c")
	req = awaitPending(t, a, em, 2)
	if err := a.DecideApproval(req.ID, string(permission.AllowCapabilityForConnection)); err != nil {
		t.Fatal(err)
	}
	if res := result(t, done); !res.OK {
		t.Fatalf("allowed call: %+v", res.Error)
	}
	if res := result(t, cliCall(reg, "socket:two", "d")); !res.OK {
		t.Fatalf("granted session asked again: %+v", res.Error)
	}
	done = cliCall(reg, "socket:three", "e")
	req = awaitPending(t, a, em, 3)

	// 4. Closing the window denies what is still pending.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	a.Shutdown(ctx)
	if res := result(t, done); res.OK || res.Error.Code != protocol.CodePermissionDenied {
		t.Fatalf("call pending at shutdown: %+v", res)
	}
	if appr.Attached() != 0 {
		t.Errorf("still attached after Shutdown")
	}
}

func TestRendererNeedsNoApproval(t *testing.T) {
	appr := permission.NewApprovals(permission.ApprovalsOptions{})
	a, em := startApp(t, newTestRegistry(t, appr), appr)
	id, err := a.Call("write_note", map[string]any{"text": "x"}, protocol.ClientInfo{})
	if err != nil {
		t.Fatal(err)
	}
	if res := em.result(t, id); !res.OK {
		t.Fatalf("renderer call to a privileged tool: %+v", res.Error)
	}
	if p := a.PendingApprovals(); len(p) != 0 {
		t.Errorf("renderer call prompted: %+v", p)
	}
}

func TestWithoutWindowCLICallsAreDenied(t *testing.T) {
	appr := permission.NewApprovals(permission.ApprovalsOptions{})
	reg := newTestRegistry(t, appr)
	_ = New(reg, appr) // not started: no UI attached
	if res := result(t, cliCall(reg, "socket:x", "y")); res.OK || res.Error.Code != protocol.CodePermissionDenied {
		t.Fatalf("got %+v (%+v), want PERMISSION_DENIED", res, res.Error)
	}
}

func TestNoApprovalBroker(t *testing.T) {
	a := New(newTestRegistry(t, nil), nil)
	if p := a.PendingApprovals(); p == nil || len(p) != 0 {
		t.Errorf("PendingApprovals = %#v, want []", p)
	}
	if err := a.DecideApproval("appr_000000000000", "deny"); err == nil {
		t.Error("DecideApproval without a broker succeeded")
	}
}

func isStateChanged(e emitted) bool { return e.name == EventStateChanged }

func TestStateChangesReachTheWindow(t *testing.T) {
	store, err := state.Open(filepath.Join(t.TempDir(), "state.json"), state.Options{Debounce: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	a, em := startApp(t, newTestRegistry(t, nil), nil, WithState(store))

	if err := store.Update(func(s *state.State) error { s.Settings.AutoRunOnOpen = true; return nil }); err != nil {
		t.Fatal(err)
	}
	e := em.waitFor(t, "state_changed", isStateChanged)
	if p, ok := e.payload.(StateChangedPayload); !ok || p.Kind != state.ChangeSettings || p.IDs == nil || len(p.IDs) != 0 {
		t.Errorf("state_changed payload = %#v, want kind settings and no ids", e.payload)
	}
	if n := em.count(isStateChanged); n != 1 {
		t.Errorf("one update emitted %d state_changed events, want 1", n)
	}

	var spaceID string
	if err := store.Update(func(s *state.State) error {
		s.Spaces[0].Name = "Renamed"
		spaceID = s.Spaces[0].ID
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	em.waitFor(t, "state_changed of spaces", func(e emitted) bool {
		p, ok := e.payload.(StateChangedPayload)
		return isStateChanged(e) && ok && p.Kind == state.ChangeSpaces && len(p.IDs) == 1 && p.IDs[0] == spaceID
	})
	b, _ := json.Marshal(e.payload)
	if string(b) != `{"kind":"settings","ids":[]}` {
		t.Errorf("state_changed JSON = %s, want {kind, ids} only", b)
	}

	// After Shutdown the store has no subscriber from the window.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	a.Shutdown(ctx)
	a.mu.Lock()
	a.em = em // Shutdown drops the emitter; put it back to see that the subscription is gone too
	a.mu.Unlock()
	before := em.count(isStateChanged)
	if err := store.Update(func(s *state.State) error { s.Settings.AutoRunOnOpen = false; return nil }); err != nil {
		t.Fatal(err)
	}
	if n := em.count(isStateChanged); n != before {
		t.Errorf("state_changed after Shutdown: %d events, want %d", n, before)
	}
}

func TestNoStateNoStateEvents(t *testing.T) {
	store, err := state.Open(filepath.Join(t.TempDir(), "state.json"), state.Options{Debounce: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	_, em := startApp(t, newTestRegistry(t, nil), nil) // no WithState
	if err := store.Update(func(s *state.State) error { s.Settings.AutoRunOnOpen = true; return nil }); err != nil {
		t.Fatal(err)
	}
	if n := em.count(isStateChanged); n != 0 {
		t.Errorf("a binding without a store emitted %d state_changed events", n)
	}
}

func TestOpenFolderDialog(t *testing.T) {
	// Without a picker (a build without the window) it fails clearly.
	a, _ := startApp(t, newTestRegistry(t, nil), nil)
	if _, err := a.OpenFolderDialog(""); protocol.CodeOf(err) != protocol.CodeToolFailed {
		t.Errorf("OpenFolderDialog without a picker = %v, want TOOL_FAILED", err)
	}

	b := New(newTestRegistry(t, nil), nil)
	var gotTitle string
	var gotCtx context.Context
	answer, answerErr := "/home/me/project", error(nil)
	b.pickFolder = func(ctx context.Context, title string) (string, error) {
		gotCtx, gotTitle = ctx, title
		return answer, answerErr
	}
	wctx := context.WithValue(context.Background(), struct{}{}, "wails")
	b.Startup(wctx)
	for _, tc := range []struct {
		title, answer string
		err           error
		want, code    string
		wantTitle     string
	}{
		{"", "/home/me/project", nil, "/home/me/project", "", "Open folder as a space"},
		{"Pick", "", nil, "", "", "Pick"}, // cancelled
		{"", "", errors.New("no display"), "", "TOOL_FAILED", "Open folder as a space"},
	} {
		answer, answerErr = tc.answer, tc.err
		got, err := b.OpenFolderDialog(tc.title)
		if got != tc.want || string(protocol.CodeOf(err)) != tc.code || gotTitle != tc.wantTitle || gotCtx != wctx {
			t.Errorf("OpenFolderDialog(%q) = %q, %v (title %q); want %q, code %q, title %q, the Wails context",
				tc.title, got, err, gotTitle, tc.want, tc.code, tc.wantTitle)
		}
	}
	b.Shutdown(context.Background())
	if _, err := b.OpenFolderDialog(""); protocol.CodeOf(err) != protocol.CodeRuntimeShuttingDown {
		t.Errorf("OpenFolderDialog after Shutdown = %v, want RUNTIME_SHUTTING_DOWN", err)
	}
}

func isLogsAppended(e emitted) bool { return e.name == EventLogsAppended }

func TestLogsAppendedIsThrottledAndSmall(t *testing.T) {
	logs, err := applog.Open(filepath.Join(t.TempDir(), "logs.jsonl"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer logs.Close()
	a, em := startApp(t, newTestRegistry(t, nil), nil, WithLogs(logs))

	// A burst of entries becomes one hint carrying the count, not the entries.
	for i := range 50 {
		logs.Logf(protocol.LevelInfo, "test", "entry %d", i)
	}
	e := em.waitFor(t, "logs_appended", isLogsAppended)
	if p, ok := e.payload.(LogsAppendedPayload); !ok || p.Count != 50 {
		t.Errorf("logs_appended payload = %#v, want count 50", e.payload)
	}
	if b, _ := json.Marshal(e.payload); string(b) != `{"count":50}` {
		t.Errorf("logs_appended JSON = %s", b)
	}
	time.Sleep(2 * logsThrottle)
	if n := em.count(isLogsAppended); n != 1 {
		t.Errorf("50 entries in a burst gave %d hints, want 1", n)
	}
	logs.Logf(protocol.LevelInfo, "test", "later")
	em.waitFor(t, "a second logs_appended", func(e emitted) bool {
		p, ok := e.payload.(LogsAppendedPayload)
		return isLogsAppended(e) && ok && p.Count == 1
	})

	// After Shutdown nothing more is announced.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	a.Shutdown(ctx)
	a.mu.Lock()
	a.em = em
	a.mu.Unlock()
	before := em.count(isLogsAppended)
	logs.Logf(protocol.LevelInfo, "test", "after shutdown")
	time.Sleep(2 * logsThrottle)
	if n := em.count(isLogsAppended); n != before {
		t.Errorf("logs_appended after Shutdown: %d, want %d", n, before)
	}
}

func TestQuitQuestion(t *testing.T) {
	for _, tc := range []struct {
		calls, approvals int
		want             string
	}{
		{0, 0, ""},
		{1, 0, "1 tool call is still running. Quitting cancels them. Quit anyway?"},
		{3, 0, "3 tool calls are still running. Quitting cancels them. Quit anyway?"},
		{0, 1, "1 program is waiting for your approval. Quitting cancels them. Quit anyway?"},
		{2, 2, "2 tool calls are still running and 2 programs are waiting for your approval. Quitting cancels them. Quit anyway?"},
	} {
		if got := quitQuestion(tc.calls, tc.approvals); got != tc.want {
			t.Errorf("quitQuestion(%d, %d) = %q, want %q", tc.calls, tc.approvals, got, tc.want)
		}
	}
}

func TestBeforeCloseAsksOnlyWithWorkInFlight(t *testing.T) {
	store, err := state.Open(filepath.Join(t.TempDir(), "state.json"), state.Options{Debounce: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	a, em := startApp(t, newTestRegistry(t, nil), nil, WithState(store))
	var asked []string
	answer, answerErr := false, error(nil)
	a.confirmQuit = func(ctx context.Context, title, message string) (bool, error) {
		asked = append(asked, message)
		return answer, answerErr
	}
	setConfirm := func(on bool) {
		if err := store.Update(func(s *state.State) error { s.Settings.ConfirmOnClose = on; return nil }); err != nil {
			t.Fatal(err)
		}
	}

	// Nothing in flight: close without a question.
	if a.BeforeClose(context.Background()) || len(asked) != 0 {
		t.Fatalf("idle: BeforeClose prevented or asked %v", asked)
	}

	// A long call in flight: ask; "No" keeps the window open, "Yes" closes it.
	id, err := a.Call("wait_forever", nil, protocol.ClientInfo{})
	if err != nil {
		t.Fatal(err)
	}
	em.waitFor(t, "the call to start", func(e emitted) bool { return e.name == EventToolEvent })
	for _, tc := range []struct {
		answer      bool
		err         error
		wantPrevent bool
	}{
		{false, nil, true},
		{true, nil, false},
		{false, errors.New("no dialog"), false}, // a broken dialog never traps the user
	} {
		answer, answerErr = tc.answer, tc.err
		asked = nil
		if got := a.BeforeClose(context.Background()); got != tc.wantPrevent || len(asked) != 1 ||
			asked[0] != "1 tool call is still running. Quitting cancels them. Quit anyway?" {
			t.Errorf("answer %v/%v: BeforeClose = %v (asked %q), want %v", tc.answer, tc.err, got, asked, tc.wantPrevent)
		}
	}

	// The setting off, or the runtime quitting on a signal: no question.
	asked = nil
	setConfirm(false)
	if a.BeforeClose(context.Background()) || len(asked) != 0 {
		t.Errorf("confirmOnClose off: asked %v", asked)
	}
	setConfirm(true)
	a.quitting.Store(true)
	if a.BeforeClose(context.Background()) || len(asked) != 0 {
		t.Errorf("quitting: asked %v", asked)
	}
	a.Cancel(id)
}

func TestGitChangesReachTheWindow(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q", "--allow-empty", "-m", "x"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	hub := watch.NewHub(watch.Options{Debounce: 5 * time.Millisecond})
	defer hub.Close()
	_, em := startApp(t, newTestRegistry(t, nil), nil, WithGitWatch(hub))
	r, err := repo.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	hub.Engine(r) // a git tool looked at the repository: it is watched
	if err := os.WriteFile(filepath.Join(dir, "new.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := em.waitFor(t, "git_changed", func(e emitted) bool { return e.name == EventGitChanged })
	p, ok := e.payload.(GitChangedPayload)
	if !ok || p.Root != dir || p.Count != 1 {
		t.Errorf("git_changed payload = %#v, want root %s and count 1", e.payload, dir)
	}
}

func TestBrowserBindingRefusals(t *testing.T) {
	mouse := browser.InputEvent{Kind: browser.InputMouse, Type: "mousePressed", X: 10, Y: 10, Button: "left", Buttons: 1, ClickCount: 1}

	// Without an engine (a window built without one) it fails clearly.
	bare, _ := startApp(t, newTestRegistry(t, nil), nil)
	if err := bare.BrowserInput("btab_1", mouse); protocol.CodeOf(err) != protocol.CodeToolFailed {
		t.Errorf("BrowserInput without an engine = %v, want TOOL_FAILED", err)
	}

	// A real engine with no tab records: unknown tabs and bad events are
	// refused before anything starts Chromium.
	m := browser.New(browser.Options{DataDir: t.TempDir()})
	t.Cleanup(func() { _ = m.Shutdown(context.Background()) })
	a, _ := startApp(t, newTestRegistry(t, nil), nil, WithBrowser(m))
	for _, tc := range []struct {
		name string
		call func() error
		code protocol.ErrorCode
		text string
	}{
		{"input to an unknown tab", func() error { return a.BrowserInput("btab_gone", mouse) }, protocol.CodeValidation, `there is no browser tab "btab_gone"`},
		{"viewport of an unknown tab", func() error { return a.BrowserViewport("btab_gone", 800, 600, 1) }, protocol.CodeValidation, "no browser tab"},
		{"stop of an unknown tab", func() error { return a.BrowserStop("btab_gone") }, protocol.CodeValidation, "no browser tab"},
		{"no tab id", func() error { return a.BrowserStop("") }, protocol.CodeValidation, "no tab id"},
		{"unknown kind", func() error { return a.BrowserInput("btab_1", browser.InputEvent{Kind: "touch"}) }, protocol.CodeValidation, `kind "touch"`},
		{"unknown mouse type", func() error {
			return a.BrowserInput("btab_1", browser.InputEvent{Kind: browser.InputMouse, Type: "mouseWheel"})
		}, protocol.CodeValidation, "mouse type"},
		{"unknown button", func() error {
			return a.BrowserInput("btab_1", browser.InputEvent{Kind: browser.InputMouse, Type: "mouseMoved", Button: "thumb"})
		}, protocol.CodeValidation, "mouse button"},
		{"key without a key", func() error {
			return a.BrowserInput("btab_1", browser.InputEvent{Kind: browser.InputKey, Type: "keyDown"})
		}, protocol.CodeValidation, "needs a key"},
		{"char key type", func() error {
			return a.BrowserInput("btab_1", browser.InputEvent{Kind: browser.InputKey, Type: "char", Key: "a"})
		}, protocol.CodeValidation, "key type"},
		{"empty text", func() error { return a.BrowserInput("btab_1", browser.InputEvent{Kind: browser.InputText}) }, protocol.CodeValidation, "needs text"},
		{"bad modifiers", func() error {
			return a.BrowserInput("btab_1", browser.InputEvent{Kind: browser.InputWheel, Modifiers: 16})
		}, protocol.CodeValidation, "modifiers"},
		{"tiny viewport", func() error { return a.BrowserViewport("btab_1", 40, 600, 1) }, protocol.CodeValidation, "out of range"},
		{"huge viewport", func() error { return a.BrowserViewport("btab_1", 800, 9000, 1) }, protocol.CodeValidation, "out of range"},
		{"no scale", func() error { return a.BrowserViewport("btab_1", 800, 600, 0) }, protocol.CodeValidation, "device scale"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if protocol.CodeOf(err) != tc.code || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("got %v, want %s containing %q", err, tc.code, tc.text)
			}
		})
	}
	if m.Running() {
		t.Error("refused calls started Chromium")
	}
	a.Shutdown(context.Background())
	if err := a.BrowserInput("btab_1", mouse); protocol.CodeOf(err) != protocol.CodeRuntimeShuttingDown {
		t.Errorf("BrowserInput after Shutdown = %v, want RUNTIME_SHUTTING_DOWN", err)
	}
}

// livePage is what TestBrowserBindingDrivesALivePage clicks and types into.
const livePage = `<!doctype html><title>live</title><style>html,body{margin:0}</style>
<button id="b" style="position:absolute;left:10px;top:10px;width:100px;height:40px"
  onclick="document.title='clicked'" ondblclick="document.title='double'">Go</button>
<input id="i" style="position:absolute;left:10px;top:80px;width:200px;height:30px">
<div style="height:5000px"></div>`

// evalString evaluates a JavaScript expression in a tab and returns its
// value as a string.
func evalString(t *testing.T, tab *browser.Tab, expr string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	params, _ := json.Marshal(map[string]any{"expression": "String(" + expr + ")", "returnByValue": true})
	raw, err := tab.CDP(ctx, "Runtime.evaluate", params)
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	var r struct {
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("evaluate %s: %v in %s", expr, err, raw)
	}
	return r.Result.Value
}

// waitEval polls expr in a tab until it gives want (5 s at most).
func waitEval(t *testing.T, tab *browser.Tab, expr, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := evalString(t, tab, expr)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s = %q, want %q", expr, got, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestBrowserBindingDrivesALivePage(t *testing.T) {
	if _, err := browser.FindChrome(); err != nil {
		t.Skipf("no Chromium: %v", err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, livePage) }))
	t.Cleanup(srv.Close)
	m := browser.New(browser.Options{DataDir: t.TempDir(), DownloadDir: t.TempDir()})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = m.Shutdown(ctx)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tab, err := m.Open(ctx, browser.Spec{ID: "btab_app", ContextKey: "space:app", URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := startApp(t, newTestRegistry(t, nil), nil, WithBrowser(m))

	// The viewport follows the view.
	if err := a.BrowserViewport("btab_app", 640, 480, 1); err != nil {
		t.Fatal(err)
	}
	waitEval(t, tab, "innerWidth + 'x' + innerHeight", "640x480")

	// A click (press + release) on the button, then a double click.
	click := func(x, y float64, count int) {
		t.Helper()
		for _, typ := range []string{"mousePressed", "mouseReleased"} {
			buttons := 1
			if typ == "mouseReleased" {
				buttons = 0
			}
			if err := a.BrowserInput("btab_app", browser.InputEvent{Kind: browser.InputMouse, Type: typ, X: x, Y: y,
				Button: "left", Buttons: buttons, ClickCount: count}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := a.BrowserInput("btab_app", browser.InputEvent{Kind: browser.InputMouse, Type: "mouseMoved", X: 60, Y: 30}); err != nil {
		t.Fatal(err)
	}
	click(60, 30, 1)
	waitEval(t, tab, "document.title", "clicked")
	click(60, 30, 1)
	click(60, 30, 2)
	waitEval(t, tab, "document.title", "double")

	// Keys and pasted text land in the focused input.
	click(100, 95, 1)
	waitEval(t, tab, "document.activeElement.id", "i")
	for _, ev := range []browser.InputEvent{
		{Kind: browser.InputKey, Type: "keyDown", Key: "H", Code: "KeyH", KeyCode: 72, Text: "H", Modifiers: 8},
		{Kind: browser.InputKey, Type: "keyUp", Key: "H", Code: "KeyH", KeyCode: 72, Modifiers: 8},
		{Kind: browser.InputText, Text: "ey there"},
		{Kind: browser.InputKey, Type: "keyDown", Key: "Backspace", Code: "Backspace", KeyCode: 8},
		{Kind: browser.InputKey, Type: "keyUp", Key: "Backspace", Code: "Backspace", KeyCode: 8},
	} {
		if err := a.BrowserInput("btab_app", ev); err != nil {
			t.Fatalf("%+v: %v", ev, err)
		}
	}
	waitEval(t, tab, "document.getElementById('i').value", "Hey ther")

	// The wheel scrolls the page (vertically only, as a mouse wheel does:
	// deltaX is 0, and CDP wants both deltas).
	if err := a.BrowserInput("btab_app", browser.InputEvent{Kind: browser.InputWheel, X: 300, Y: 300, DeltaY: 400}); err != nil {
		t.Fatalf("a vertical wheel: %v", err)
	}
	waitEval(t, tab, "scrollY > 0", "true")

	if err := a.BrowserStop("btab_app"); err != nil {
		t.Errorf("BrowserStop = %v", err)
	}
}

func isProcessChanged(e emitted) bool { return e.name == EventProcessChanged }

func TestProcessChangedIsThrottledAndSmall(t *testing.T) {
	hook := &ProcessHook{}
	hook.Notify("dev-server", "dev_early") // no window yet: dropped
	a, em := startApp(t, newTestRegistry(t, nil), nil)
	hook.attach(a)

	// A burst of changes becomes one hint per process, after the throttle.
	for range 5 {
		hook.Notify("dev-server", "dev_1")
		hook.Notify("terminal", "term_1")
	}
	em.waitFor(t, "process_changed", isProcessChanged)
	time.Sleep(2 * processThrottle)
	var got []ProcessChangedPayload
	em.mu.Lock()
	for _, e := range em.events {
		if isProcessChanged(e) {
			got = append(got, e.payload.(ProcessChangedPayload))
		}
	}
	em.mu.Unlock()
	want := []ProcessChangedPayload{{Kind: "dev-server", ID: "dev_1"}, {Kind: "terminal", ID: "term_1"}}
	if !slices.Equal(got, want) {
		t.Errorf("process_changed hints = %+v, want %+v", got, want)
	}
	if b, _ := json.Marshal(got[0]); string(b) != `{"kind":"dev-server","id":"dev_1"}` {
		t.Errorf("process_changed JSON = %s", b)
	}

	// Many processes at once: one hint to re-read everything.
	before := em.count(isProcessChanged)
	for i := range maxProcessHints + 3 {
		hook.Notify("dev-server", fmt.Sprintf("dev_%d", i))
	}
	time.Sleep(3 * processThrottle)
	if n := em.count(isProcessChanged) - before; n != 1 {
		t.Fatalf("%d changes gave %d hints, want 1", maxProcessHints+3, n)
	}
	em.mu.Lock()
	last := em.events[len(em.events)-1].payload
	em.mu.Unlock()
	if last != (ProcessChangedPayload{}) {
		t.Errorf("the hint for many changes = %+v, want an empty one", last)
	}

	// After Shutdown nothing more is announced.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	a.Shutdown(ctx)
	a.mu.Lock()
	a.em = em
	a.mu.Unlock()
	before = em.count(isProcessChanged)
	hook.Notify("dev-server", "dev_late")
	time.Sleep(2 * processThrottle)
	if n := em.count(isProcessChanged); n != before {
		t.Errorf("process_changed after Shutdown: %d, want %d", n, before)
	}
}

func TestTerminalBindingRefusals(t *testing.T) {
	bare, _ := startApp(t, newTestRegistry(t, nil), nil)
	if err := bare.TerminalWrite("term_1", "ls\r"); protocol.CodeOf(err) != protocol.CodeToolFailed {
		t.Errorf("TerminalWrite without an engine = %v, want TOOL_FAILED", err)
	}

	m := process.New(process.Options{})
	t.Cleanup(func() { _ = m.Shutdown(context.Background(), true) })
	a, _ := startApp(t, newTestRegistry(t, nil), nil, WithProcesses(m))
	for _, tc := range []struct {
		name string
		call func() error
		code protocol.ErrorCode
		text string
	}{
		{"write to an unknown terminal", func() error { return a.TerminalWrite("term_gone", "ls\r") }, protocol.CodeValidation, `there is no terminal "term_gone"`},
		{"resize an unknown terminal", func() error { return a.TerminalResize("term_gone", 80, 24) }, protocol.CodeValidation, "no terminal"},
		{"no id", func() error { return a.TerminalWrite("", "x") }, protocol.CodeValidation, "no terminal id"},
		{"too much input", func() error { return a.TerminalWrite("term_1", strings.Repeat("x", maxTerminalWrite+1)) }, protocol.CodeValidation, "too large"},
		{"no columns", func() error { return a.TerminalResize("term_1", 0, 24) }, protocol.CodeValidation, "out of range"},
		{"too many rows", func() error { return a.TerminalResize("term_1", 80, maxTerminalRows+1) }, protocol.CodeValidation, "out of range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if protocol.CodeOf(err) != tc.code || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("got %v, want %s containing %q", err, tc.code, tc.text)
			}
		})
	}
	a.Shutdown(context.Background())
	if err := a.TerminalWrite("term_1", "x"); protocol.CodeOf(err) != protocol.CodeRuntimeShuttingDown {
		t.Errorf("TerminalWrite after Shutdown = %v, want RUNTIME_SHUTTING_DOWN", err)
	}
}

// TestTerminalBindingDrivesARealShell types into a real PTY through the
// binding, resizes it, and sees the shell's answers in the terminal's
// output; the engine's change notices reach the window as process_changed.
func TestTerminalBindingDrivesARealShell(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	hook := &ProcessHook{}
	m := process.New(process.Options{OnChange: hook.Notify})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = m.Shutdown(ctx, true)
	})
	a, em := startApp(t, newTestRegistry(t, nil), nil, WithProcesses(m))
	hook.attach(a)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	term, err := m.CreateTerminal(ctx, process.TermSpec{Cwd: t.TempDir(), Shell: "/bin/sh"})
	if err != nil {
		t.Fatal(err)
	}
	em.waitFor(t, "process_changed of the new terminal", func(e emitted) bool {
		p, ok := e.payload.(ProcessChangedPayload)
		return isProcessChanged(e) && ok && (p.ID == term.ID || p.ID == "")
	})

	if err := a.TerminalResize(term.ID, 100, 30); err != nil {
		t.Fatalf("TerminalResize: %v", err)
	}
	if err := a.TerminalWrite(term.ID, "stty size; echo meith-$((40+2))\r"); err != nil {
		t.Fatalf("TerminalWrite: %v", err)
	}
	// The output is pulled through the window's asset handler, as the
	// terminal view pulls it.
	srv := httptest.NewServer(a.bulkHandler())
	t.Cleanup(srv.Close)
	if r, err := http.Get(srv.URL + process.OutputPath + "term_gone/output?after=0"); err != nil || r.StatusCode != http.StatusNotFound {
		t.Errorf("output of an unknown terminal = %v %v, want 404", r, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	var out strings.Builder
	var after int64
	for !strings.Contains(out.String(), "meith-42") || !strings.Contains(out.String(), "30 100") {
		if time.Now().After(deadline) {
			t.Fatalf("the shell's answers did not arrive; output: %q", out.String())
		}
		r, err := http.Get(fmt.Sprintf("%s%s%s/output?after=%d", srv.URL, process.OutputPath, term.ID, after))
		if err != nil {
			t.Fatal(err)
		}
		var page struct {
			Entries []process.LogEntry `json:"entries"`
			NextSeq int64              `json:"nextSeq"`
			Status  string             `json:"status"`
		}
		err = json.NewDecoder(r.Body).Decode(&page)
		r.Body.Close()
		if err != nil || r.StatusCode != http.StatusOK || page.Status != process.StatusRunning {
			t.Fatalf("output page: HTTP %d, %+v, %v", r.StatusCode, page, err)
		}
		for _, e := range page.Entries {
			if e.Stream != process.StreamPTY {
				t.Errorf("a terminal entry of stream %q", e.Stream)
			}
			out.WriteString(e.Text)
		}
		after = page.NextSeq - 1
	}
}

func isAgentChanged(e emitted) bool { return e.name == EventAgentChanged }

func TestAgentChangedIsThrottled(t *testing.T) {
	hook := &ProcessHook{}
	hook.NotifyAgent(agent.Change{SessionID: "sess_early", Kind: agent.ChangeSessions}) // no window: dropped
	a, em := startApp(t, newTestRegistry(t, nil), nil)
	hook.attach(a)
	// A streaming answer's burst becomes one hint per session and kind.
	for range 50 {
		hook.NotifyAgent(agent.Change{SessionID: "sess_1", Kind: agent.ChangeTranscript})
	}
	hook.NotifyAgent(agent.Change{SessionID: "sess_1", Kind: agent.ChangePermission})
	em.waitFor(t, "agent_changed", isAgentChanged)
	time.Sleep(2 * agentThrottle)
	var got []agent.Change
	em.mu.Lock()
	for _, e := range em.events {
		if isAgentChanged(e) {
			got = append(got, e.payload.(agent.Change))
		}
	}
	em.mu.Unlock()
	want := []agent.Change{{SessionID: "sess_1", Kind: agent.ChangeTranscript}, {SessionID: "sess_1", Kind: agent.ChangePermission}}
	if !slices.Equal(got, want) {
		t.Fatalf("agent_changed hints = %+v, want %+v", got, want)
	}
	if b, _ := json.Marshal(got[0]); string(b) != `{"sessionId":"sess_1","kind":"transcript"}` {
		t.Errorf("agent_changed JSON = %s", b)
	}
	// Many sessions at once: one empty hint.
	before := em.count(isAgentChanged)
	for i := range maxAgentHints + 5 {
		hook.NotifyAgent(agent.Change{SessionID: fmt.Sprintf("sess_%d", i), Kind: agent.ChangeSessions})
	}
	time.Sleep(3 * agentThrottle)
	if n := em.count(isAgentChanged) - before; n != 1 {
		t.Fatalf("%d changes gave %d hints, want 1", maxAgentHints+5, n)
	}
}
