package app

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/hint"
	"github.com/meith-dev/meith/backend/instance"
	"github.com/meith-dev/meith/backend/permission"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
)

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
	p, ok := e.payload.(hint.ApprovalsChanged)
	return ok && e.name == EventApprovalsChanged && p.Kind == string(permission.ApprovalPending)
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
	hints, _ := withHints(t, instance.HintSources{Approvals: appr})
	a, em := startApp(t, reg, appr, hints)

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
		p, ok := e.payload.(hint.ApprovalsChanged)
		return ok && p.Kind == string(permission.ApprovalResolved) && p.ID == req.ID && p.Pending == 0
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

func TestOpenFileDialog(t *testing.T) {
	// Without a picker (a build without the window) it fails clearly.
	a, _ := startApp(t, newTestRegistry(t, nil), nil)
	if _, err := a.OpenFileDialog("", nil); protocol.CodeOf(err) != protocol.CodeToolFailed {
		t.Errorf("OpenFileDialog without a picker = %v, want TOOL_FAILED", err)
	}

	b := New(newTestRegistry(t, nil), nil)
	var gotTitle string
	var gotFilters []FileFilter
	var gotCtx context.Context
	answer, answerErr := "/home/me/board.tgz", error(nil)
	b.pickFile = func(ctx context.Context, title string, filters []FileFilter) (string, error) {
		gotCtx, gotTitle, gotFilters = ctx, title, filters
		return answer, answerErr
	}
	wctx := context.WithValue(context.Background(), struct{}{}, "wails")
	b.Startup(wctx)
	archives := []FileFilter{{DisplayName: "Plugin archives", Pattern: "*.tgz;*.tar.gz;*.tar"}}
	for _, tc := range []struct {
		title, answer string
		filters       []FileFilter
		err           error
		want, code    string
		wantTitle     string
	}{
		{"Install plugin from archive", "/home/me/board.tgz", archives, nil, "/home/me/board.tgz", "", "Install plugin from archive"},
		{"", "", nil, nil, "", "", "Choose a file"}, // cancelled
		{"", "", archives, errors.New("no display"), "", "TOOL_FAILED", "Choose a file"},
	} {
		answer, answerErr = tc.answer, tc.err
		gotFilters = nil
		got, err := b.OpenFileDialog(tc.title, tc.filters)
		if got != tc.want || string(protocol.CodeOf(err)) != tc.code || gotTitle != tc.wantTitle || gotCtx != wctx || len(gotFilters) != len(tc.filters) {
			t.Errorf("OpenFileDialog(%q, %v) = %q, %v (title %q, filters %v); want %q, code %q, title %q, the filters, the Wails context",
				tc.title, tc.filters, got, err, gotTitle, gotFilters, tc.want, tc.code, tc.wantTitle)
		}
	}
	if _, err := b.OpenFileDialog("", make([]FileFilter, maxFileFilters+1)); protocol.CodeOf(err) != protocol.CodeValidation {
		t.Errorf("OpenFileDialog with too many filters = %v, want VALIDATION_ERROR", err)
	}
	b.Shutdown(context.Background())
	if _, err := b.OpenFileDialog("", nil); protocol.CodeOf(err) != protocol.CodeRuntimeShuttingDown {
		t.Errorf("OpenFileDialog after Shutdown = %v, want RUNTIME_SHUTTING_DOWN", err)
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

func TestFocus(t *testing.T) {
	// Without the window's hook (a build without a window) it fails clearly.
	a, _ := startApp(t, newTestRegistry(t, nil), nil)
	if err := a.focus(context.Background()); err == nil || err.Error() != "this build has no window to focus" {
		t.Errorf("focus without a window = %v", err)
	}

	b := New(newTestRegistry(t, nil), nil)
	var raised []context.Context
	b.raiseWindow = func(ctx context.Context) { raised = append(raised, ctx) }
	if err := b.focus(context.Background()); err == nil || err.Error() != "the window is not open yet" {
		t.Errorf("focus before Startup = %v", err)
	}
	wctx := context.WithValue(context.Background(), struct{}{}, "wails")
	b.Startup(wctx)
	if err := b.focus(context.Background()); err != nil || len(raised) != 1 || raised[0] != wctx {
		t.Errorf("focus = %v, raised %d times; want once with the Wails context", err, len(raised))
	}
	b.Shutdown(context.Background())
	if err := b.focus(context.Background()); err == nil || len(raised) != 1 {
		t.Errorf("focus after Shutdown = %v (raised %d times), want an error and no raise", err, len(raised))
	}
}
