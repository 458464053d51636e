// Package app is the desktop side of meith: the Wails binding through which
// the window (the trusted "renderer" caller) reaches the tool registry, and
// the code that runs the window (run.go, the only file here that imports
// Wails).
//
// Wails v2 bound methods cannot be cancelled and reject with strings, so the
// binding mirrors the socket protocol: [App.Call] returns a call id at once
// and runs the call in the background; its events and result arrive as the
// Wails events "tool_event" {callId, event} and "tool_result"
// {callId, result}; [App.Cancel] cancels it. Changes to the list of pending
// approvals are announced with a small "approvals_changed" event, and the UI
// re-reads [App.PendingApprovals]; changes to the app state (state.json)
// are announced with a small "state_changed" {kind, ids} event, and the UI
// re-reads what changed through tool calls; new app log entries are
// announced with a throttled "logs_appended" {count} hint, and changes of
// watched git repositories with "git_changed" {root, count}.
//
// The live browser view is bound too: [App.BrowserInput],
// [App.BrowserViewport] and [App.BrowserStop] reach a browser tab's page
// directly (renderer-trusted, like every call of the window), while its
// frames are pulled through the asset server (run.go), never pushed.
//
// Terminal tabs work the same way: [App.TerminalWrite] and
// [App.TerminalResize] reach a terminal's PTY directly, its output is
// pulled through the asset server (process.OutputPath), and changes of the
// managed processes are announced with a throttled "process_changed"
// {kind, id} hint, after which the UI re-reads them through the tools.
package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/meith-dev/meith/backend/agent"
	"github.com/meith-dev/meith/backend/applog"
	"github.com/meith-dev/meith/backend/browser"
	"github.com/meith-dev/meith/backend/git/watch"
	"github.com/meith-dev/meith/backend/permission"
	"github.com/meith-dev/meith/backend/process"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
)

// The Wails events the binding emits. Payloads stay small: WebKit keeps the
// JavaScript it evaluates for each event, so bulk data must be pulled by the
// frontend instead of pushed.
const (
	EventToolEvent        = "tool_event"
	EventToolResult       = "tool_result"
	EventApprovalsChanged = "approvals_changed"
	EventStateChanged     = "state_changed"
	EventLogsAppended     = "logs_appended"
	EventGitChanged       = "git_changed"
	EventProcessChanged   = "process_changed"
	EventAgentChanged     = "agent_changed"
)

// agentThrottle is the most often "agent_changed" hints are sent: a
// streaming answer announces itself at most this often.
const agentThrottle = 100 * time.Millisecond

// maxAgentHints is how many distinct (session, kind) hints one throttle
// period sends one by one; beyond it a single empty hint says "re-read".
const maxAgentHints = 16

// processThrottle is the most often "process_changed" hints are sent:
// changes within it are announced together, each process once.
const processThrottle = 150 * time.Millisecond

// maxProcessHints is how many distinct processes one throttle period
// announces one by one; beyond it a single hint with an empty kind and id
// says "re-read everything".
const maxProcessHints = 8

// ProcessChangedPayload is the payload of [EventProcessChanged]: a managed
// process (kind "dev-server" or "terminal") was added, removed, or changed
// status or port. Empty kind and id: many changed. The UI re-reads
// list_dev_servers, list_terminals and get_process_tree.
type ProcessChangedPayload struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
}

// GitChangedPayload is the payload of [EventGitChanged]: the worktree root
// of a watched repository whose files, index, HEAD or branches changed, and
// how many paths changed (0: unknown, re-read everything). The UI re-reads
// git_status / git_diff for that root.
type GitChangedPayload struct {
	Root  string `json:"root"`
	Count int    `json:"count"`
}

// logsThrottle is the most often a "logs_appended" hint is sent: entries
// written within it are announced together.
const logsThrottle = 200 * time.Millisecond

// LogsAppendedPayload is the payload of [EventLogsAppended]: how many app
// log entries were written since the last hint (the UI re-reads them with
// app_get_logs), never the entries themselves.
type LogsAppendedPayload struct {
	Count int `json:"count"`
}

// SessionRenderer is the session id of every call from the window.
const SessionRenderer = "renderer"

// ToolEventPayload is the payload of [EventToolEvent].
type ToolEventPayload struct {
	CallID string         `json:"callId"`
	Event  protocol.Event `json:"event"`
}

// ToolResultPayload is the payload of [EventToolResult].
type ToolResultPayload struct {
	CallID string              `json:"callId"`
	Result protocol.ToolResult `json:"result"`
}

// ApprovalsChangedPayload is the payload of [EventApprovalsChanged]: a hint
// to re-read the pending approvals, not the list itself.
type ApprovalsChangedPayload struct {
	Kind    permission.ApprovalEventKind `json:"kind"`
	ID      string                       `json:"id"`
	Pending int                          `json:"pending"`
}

// StateChangedPayload is the payload of [EventStateChanged]: what kind of
// state changed ("spaces", "tabs" or "settings") and the ids of the spaces
// or tabs concerned (empty for settings), never the state itself.
type StateChangedPayload struct {
	Kind string   `json:"kind"`
	IDs  []string `json:"ids"`
}

// emitter is all the binding needs of the Wails runtime.
type emitter interface {
	Emit(name string, payload any)
}

// App is the object bound to the window (window.go.app.App in JavaScript).
// Its exported methods other than Startup and Shutdown are the bound
// surface; Wails calls Startup and Shutdown around the window's life.
type App struct {
	reg       *registry.Registry
	approvals *permission.Approvals // nil: no approval prompts
	store     *state.Store          // nil: no state_changed events
	logs      *applog.Logger        // nil: no logs_appended events
	git       *watch.Hub            // nil: no git_changed events
	browser   *browser.Manager      // nil: no live browser view
	processes *process.Manager      // nil: no terminal input

	// newEmitter turns the Wails context into an emitter (run.go sets it;
	// tests set a fake). onStartup runs at the end of Startup.
	newEmitter func(ctx context.Context) emitter
	onStartup  func(ctx context.Context)
	// pickFolder shows the native folder dialog (run.go sets it; tests set
	// a fake). It returns "" when the user cancels.
	pickFolder func(ctx context.Context, title string) (string, error)
	// confirmQuit asks the user a yes/no question before the window closes
	// (run.go sets a native dialog; tests set a fake).
	confirmQuit func(ctx context.Context, title, message string) (bool, error)
	// quitting is set when the runtime itself ends the window (a signal):
	// then nobody is asked.
	quitting atomic.Bool

	mu         sync.Mutex
	em         emitter
	wctx       context.Context // the Wails context, set by Startup
	base       context.Context // parent of every call; cancelled by Shutdown
	stop       context.CancelFunc
	calls      map[string]context.CancelFunc
	detach     func()
	unsub      func()
	unsubSt    func()
	unsubLog   func()
	unsubGit   func()
	logCount   int                              // entries not yet announced
	logTimer   *time.Timer                      // pending logs_appended hint
	procHints  hintBatch[ProcessChangedPayload] // process_changed hints
	agentHints hintBatch[agent.Change]          // agent_changed hints
	started    bool
	shutdown   bool
	wg         sync.WaitGroup
}

// Option configures [New].
type Option func(*App)

// WithState makes the window hear of every change of the app state as a
// "state_changed" event while it is open.
func WithState(store *state.Store) Option { return func(a *App) { a.store = store } }

// WithLogs makes the window hear of new app log entries as throttled
// "logs_appended" hints while it is open, so the Logs panel is live.
func WithLogs(l *applog.Logger) Option { return func(a *App) { a.logs = l } }

// WithGitWatch makes the window hear of changes to the repositories the git
// tools watch, as "git_changed" events.
func WithGitWatch(h *watch.Hub) Option { return func(a *App) { a.git = h } }

// WithBrowser gives the window's live browser view (BrowserInput,
// BrowserViewport, BrowserStop) the engine that holds the tabs.
func WithBrowser(m *browser.Manager) Option { return func(a *App) { a.browser = m } }

// WithProcesses gives the window's terminal tabs (TerminalWrite,
// TerminalResize) the engine that runs the terminals.
func WithProcesses(m *process.Manager) Option { return func(a *App) { a.processes = m } }

// ProcessHook carries the process engine's change notices to the window.
// The engine is built with the runtime, before the window's binding
// exists, so instance.Config.OnProcessChange is set to [ProcessHook.Notify]
// and the binding attaches itself later (run.go); notices before that, or
// after the window closed, are dropped.
type ProcessHook struct{ app atomic.Pointer[App] }

// Notify announces a change of the process id of kind ("dev-server" or
// "terminal") to the attached window, throttled. It is safe to call from
// any goroutine.
func (h *ProcessHook) Notify(kind, id string) {
	if a := h.app.Load(); a != nil {
		a.onProcessChange(kind, id)
	}
}

// NotifyAgent announces a change of an agent session to the attached
// window as a throttled "agent_changed" hint ({sessionId, kind}). It is safe
// to call from any goroutine.
func (h *ProcessHook) NotifyAgent(c agent.Change) {
	if a := h.app.Load(); a != nil {
		a.onAgentChange(c)
	}
}

// attach makes a the window the hook notifies.
func (h *ProcessHook) attach(a *App) { h.app.Store(a) }

// New returns the binding for a registry and, optionally, the approval
// broker it answers prompts for.
func New(reg *registry.Registry, approvals *permission.Approvals, opts ...Option) *App {
	base, stop := context.WithCancel(context.Background())
	a := &App{reg: reg, approvals: approvals, base: base, stop: stop, calls: map[string]context.CancelFunc{},
		procHints:  hintBatch[ProcessChangedPayload]{event: EventProcessChanged, throttle: processThrottle, max: maxProcessHints},
		agentHints: hintBatch[agent.Change]{event: EventAgentChanged, throttle: agentThrottle, max: maxAgentHints},
	}
	for _, o := range opts {
		o(a)
	}
	return a
}

// Startup is called by Wails when the window starts. It attaches the window
// to the approval broker, so privileged CLI calls prompt here, and
// subscribes to the state store's changes.
func (a *App) Startup(ctx context.Context) {
	a.mu.Lock()
	if a.started || a.shutdown {
		a.mu.Unlock()
		return
	}
	a.started = true
	a.wctx = ctx
	if a.newEmitter != nil {
		a.em = a.newEmitter(ctx)
	}
	if a.approvals != nil {
		a.detach = a.approvals.Attach()
		a.unsub = a.approvals.Subscribe(a.onApproval)
	}
	if a.store != nil {
		a.unsubSt = a.store.Subscribe(a.onStateChange)
	}
	if a.logs != nil {
		a.unsubLog = a.logs.Subscribe(a.onLog)
	}
	if a.git != nil {
		a.unsubGit = a.git.Subscribe(func(c watch.Change) {
			a.emit(EventGitChanged, GitChangedPayload{Root: c.Root, Count: len(c.Paths)})
		})
	}
	hook := a.onStartup
	a.mu.Unlock()
	if hook != nil {
		hook(ctx)
	}
}

// Shutdown is called by Wails when the window closes. It unsubscribes from
// the state store, detaches from the approval broker (pending prompts are
// denied), cancels the calls in flight
// and waits for them until ctx ends. Later calls fail with
// RUNTIME_SHUTTING_DOWN.
func (a *App) Shutdown(ctx context.Context) {
	a.mu.Lock()
	if a.shutdown {
		a.mu.Unlock()
		return
	}
	a.shutdown = true
	a.em = nil // the window is going away: nothing more is emitted
	detach, unsub, unsubSt, unsubLog, unsubGit := a.detach, a.unsub, a.unsubSt, a.unsubLog, a.unsubGit
	if a.logTimer != nil {
		a.logTimer.Stop()
		a.logTimer = nil
	}
	a.procHints.stopLocked()
	a.agentHints.stopLocked()
	a.mu.Unlock()

	if unsubLog != nil {
		unsubLog()
	}
	if unsubGit != nil {
		unsubGit()
	}
	if unsubSt != nil {
		unsubSt()
	}
	if unsub != nil {
		unsub()
	}
	if detach != nil {
		detach()
	}
	a.stop()
	done := make(chan struct{})
	go func() { a.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// ListTools returns the descriptors of every registered tool.
func (a *App) ListTools() ([]protocol.ToolDescriptor, error) {
	tools := a.reg.List()
	if tools == nil {
		tools = []protocol.ToolDescriptor{}
	}
	return tools, nil
}

// Call starts a tool call and returns its id ("call_" + 12 hex digits) at
// once. The call runs as the renderer caller, whatever clientInfo says (its
// cwd, spaceId and tabId are kept as scope hints). Its events and its result
// arrive as "tool_event" and "tool_result" events carrying the id.
func (a *App) Call(tool string, args map[string]any, clientInfo protocol.ClientInfo) (string, error) {
	raw := json.RawMessage(`{}`)
	if len(args) > 0 {
		b, err := json.Marshal(args)
		if err != nil {
			return "", protocol.Errorf(protocol.CodeValidation, "arguments of %q are not JSON: %v", tool, err)
		}
		raw = b
	}
	clientInfo.Caller = protocol.CallerRenderer
	clientInfo.SessionID = SessionRenderer

	id := protocol.NewID("call")
	a.mu.Lock()
	if a.shutdown {
		a.mu.Unlock()
		return "", protocol.Errorf(protocol.CodeRuntimeShuttingDown, "the window is closing; tool %q was not run", tool)
	}
	ctx, cancel := context.WithCancel(a.base)
	a.calls[id] = cancel
	a.wg.Add(1)
	a.mu.Unlock()

	go func() {
		defer a.wg.Done()
		defer cancel()
		res := a.reg.Call(ctx, registry.Request{
			RequestID: id,
			ToolName:  tool,
			Args:      raw,
			Client:    clientInfo,
			Emit: func(ev protocol.Event) {
				a.emit(EventToolEvent, ToolEventPayload{CallID: id, Event: ev})
			},
		})
		a.mu.Lock()
		delete(a.calls, id)
		a.mu.Unlock()
		a.emit(EventToolResult, ToolResultPayload{CallID: id, Result: res})
	}()
	return id, nil
}

// Cancel cancels the call id; the call then resolves with CANCELLED (unless
// it finished first). Unknown or finished ids are ignored.
func (a *App) Cancel(callID string) {
	a.mu.Lock()
	cancel := a.calls[callID]
	a.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// BeforeClose runs when the window is about to close (Wails OnBeforeClose)
// and returns true to keep it open. With the confirmOnClose setting on and
// work in flight — tool calls still running (from the window, the CLI or
// agents) or programs waiting for approval — it asks the user first; with
// nothing to lose it closes at once. A failing dialog never traps the user:
// the window closes.
func (a *App) BeforeClose(ctx context.Context) (prevent bool) {
	if a.quitting.Load() || a.store == nil || !a.store.Settings().ConfirmOnClose {
		return false
	}
	a.mu.Lock()
	ask := a.confirmQuit
	a.mu.Unlock()
	pending := 0
	if a.approvals != nil {
		pending = len(a.approvals.Pending())
	}
	question := quitQuestion(a.reg.InFlight(), pending)
	if ask == nil || question == "" {
		return false
	}
	quit, err := ask(ctx, "Quit meith?", question)
	if err != nil {
		return false
	}
	return !quit
}

// quitQuestion words the question BeforeClose asks, or "" when nothing is
// in flight.
func quitQuestion(calls, approvals int) string {
	var parts []string
	switch {
	case calls == 1:
		parts = append(parts, "1 tool call is still running")
	case calls > 1:
		parts = append(parts, fmt.Sprintf("%d tool calls are still running", calls))
	}
	switch {
	case approvals == 1:
		parts = append(parts, "1 program is waiting for your approval")
	case approvals > 1:
		parts = append(parts, fmt.Sprintf("%d programs are waiting for your approval", approvals))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, " and ") + ". Quitting cancels them. Quit anyway?"
}

// OpenFolderDialog shows the native folder picker and returns the chosen
// folder's absolute path, or "" when the user cancels. The UI then opens the
// folder as a space with create_space {cwd}, which reuses the space that
// already has that folder.
func (a *App) OpenFolderDialog(title string) (string, error) {
	a.mu.Lock()
	ctx, pick, shut := a.wctx, a.pickFolder, a.shutdown
	a.mu.Unlock()
	switch {
	case shut:
		return "", protocol.Errorf(protocol.CodeRuntimeShuttingDown, "the window is closing")
	case pick == nil || ctx == nil:
		return "", protocol.Errorf(protocol.CodeToolFailed, "no native folder dialog is available in this build")
	}
	if title == "" {
		title = "Open folder as a space"
	}
	dir, err := pick(ctx, title)
	if err != nil {
		return "", protocol.Errorf(protocol.CodeToolFailed, "folder dialog: %v", err)
	}
	return dir, nil
}

// PendingApprovals returns the privileged CLI calls waiting for the user,
// oldest first.
func (a *App) PendingApprovals() []permission.ApprovalRequest {
	if a.approvals == nil {
		return []permission.ApprovalRequest{}
	}
	return a.approvals.Pending()
}

// DecideApproval answers a pending approval with "allow_once",
// "allow_connection" or "deny". Errors read "CODE: message" so the frontend
// can type them.
func (a *App) DecideApproval(id, decision string) error {
	if a.approvals == nil {
		return protocol.Errorf(protocol.CodeValidation, "this runtime has no approval broker")
	}
	err := a.approvals.Decide(id, permission.Decision(decision))
	switch {
	case err == nil:
		return nil
	case errors.Is(err, permission.ErrInvalidDecision):
		return protocol.Errorf(protocol.CodeValidation, "%v (want allow_once, allow_connection or deny)", err)
	case errors.Is(err, permission.ErrUnknownApproval):
		return protocol.Errorf(protocol.CodeValidation, "%v", err)
	default:
		return protocol.Errorf(protocol.CodeToolFailed, "%v", err)
	}
}

// onApproval forwards a change of the pending list to the window.
func (a *App) onApproval(ev permission.ApprovalEvent) {
	a.emit(EventApprovalsChanged, ApprovalsChangedPayload{
		Kind: ev.Kind, ID: ev.Request.ID, Pending: len(a.approvals.Pending()),
	})
}

// onStateChange forwards a change of the app state to the window.
func (a *App) onStateChange(c state.Change) {
	ids := c.IDs
	if ids == nil {
		ids = []string{}
	}
	a.emit(EventStateChanged, StateChangedPayload{Kind: c.Kind, IDs: ids})
}

// onLog counts a new log entry and schedules one hint for the entries of
// the next logsThrottle.
func (a *App) onLog(applog.Entry) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.shutdown {
		return
	}
	a.logCount++
	if a.logTimer == nil {
		a.logTimer = time.AfterFunc(logsThrottle, a.flushLogs)
	}
}

// flushLogs sends the pending logs_appended hint.
func (a *App) flushLogs() {
	a.mu.Lock()
	n := a.logCount
	a.logCount = 0
	a.logTimer = nil
	a.mu.Unlock()
	if n > 0 {
		a.emit(EventLogsAppended, LogsAppendedPayload{Count: n})
	}
}

// onProcessChange records a change of a managed process; the hints of the
// changes of one processThrottle go out together.
func (a *App) onProcessChange(kind, id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.shutdown && a.started {
		a.procHints.addLocked(a, ProcessChangedPayload{Kind: kind, ID: id})
	}
}

// onAgentChange records an agent session change; the hints of one
// agentThrottle go out together.
func (a *App) onAgentChange(c agent.Change) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.shutdown && a.started {
		a.agentHints.addLocked(a, c)
	}
}

// emit sends an event to the window, if there is one.
func (a *App) emit(name string, payload any) {
	a.mu.Lock()
	em := a.em
	a.mu.Unlock()
	if em != nil {
		em.Emit(name, payload)
	}
}

// browserCallTimeout bounds one live-view call (input, viewport, stop). The
// first call on a tab that is not live yet may start Chromium and reopen
// the tab, which takes a few seconds.
const browserCallTimeout = 8 * time.Second

// Limits of [App.BrowserViewport] (the engine's; the window clamps a
// smaller pane to the minimum and draws the page scaled down).
const (
	minViewportSide  = 100
	maxViewportSide  = 8192
	maxViewportScale = 8
)

// BrowserInput dispatches one input of the window's live view (mouse,
// wheel, key or text, in the page's CSS pixels) to the browser tab tabID.
// The window sends its inputs one at a time, in order. Errors read
// "CODE: message": VALIDATION_ERROR for a malformed event or an unknown
// tab.
func (a *App) BrowserInput(tabID string, ev browser.InputEvent) error {
	if err := validateInput(ev); err != nil {
		return err
	}
	return a.withLiveTab(tabID, "input", func(ctx context.Context, t *browser.Tab) error { return t.Input(ctx, ev) })
}

// BrowserViewport sets the page size of the browser tab tabID to the live
// view's size (CSS pixels) and device scale (the window's
// devicePixelRatio), so the page is laid out for the pane it is shown in.
func (a *App) BrowserViewport(tabID string, width, height int, scale float64) error {
	switch {
	case width < minViewportSide || height < minViewportSide || width > maxViewportSide || height > maxViewportSide:
		return protocol.Errorf(protocol.CodeValidation, "viewport %d×%d is out of range (%d to %d CSS pixels a side)",
			width, height, minViewportSide, maxViewportSide)
	case !(scale > 0 && scale <= maxViewportScale):
		return protocol.Errorf(protocol.CodeValidation, "device scale %v is out of range (above 0, at most %d)", scale, maxViewportScale)
	}
	return a.withLiveTab(tabID, "viewport", func(ctx context.Context, t *browser.Tab) error {
		return t.SetViewport(ctx, browser.Viewport{Width: width, Height: height}, scale)
	})
}

// BrowserStop stops the loading of the browser tab tabID (the address
// bar's stop button).
func (a *App) BrowserStop(tabID string) error {
	return a.withLiveTab(tabID, "stop", func(ctx context.Context, t *browser.Tab) error { return t.Stop(ctx) })
}

// withLiveTab runs fn on the live tab tabID under a short timeout that the
// window's shutdown also cancels, and words its error for the window.
func (a *App) withLiveTab(tabID, what string, fn func(ctx context.Context, t *browser.Tab) error) error {
	if tabID == "" {
		return protocol.Errorf(protocol.CodeValidation, "browser %s: no tab id", what)
	}
	a.mu.Lock()
	shut := a.shutdown
	a.mu.Unlock()
	switch {
	case shut:
		return protocol.Errorf(protocol.CodeRuntimeShuttingDown, "the window is closing")
	case a.browser == nil:
		return protocol.Errorf(protocol.CodeToolFailed, "this window has no browser engine")
	}
	ctx, cancel := context.WithTimeout(a.base, browserCallTimeout)
	defer cancel()
	t, err := a.browser.Live(ctx, tabID)
	if err == nil {
		err = fn(ctx, t)
	}
	switch {
	case err == nil:
		return nil
	case browser.IsNoTab(err):
		return protocol.Errorf(protocol.CodeValidation, "there is no browser tab %q (was it closed?)", tabID)
	case browser.IsNotFound(err):
		return protocol.Errorf(protocol.CodeToolFailed, "browser %s: %v", what, err)
	case errors.Is(err, context.DeadlineExceeded):
		return protocol.Errorf(protocol.CodeTimeout, "browser %s on tab %s took longer than %v", what, tabID, browserCallTimeout)
	case a.base.Err() != nil:
		return protocol.Errorf(protocol.CodeRuntimeShuttingDown, "the window is closing")
	default:
		return protocol.Errorf(protocol.CodeToolFailed, "browser %s on tab %s: %v", what, tabID, err)
	}
}

// validateInput checks an input event of the live view before it reaches
// the browser.
func validateInput(ev browser.InputEvent) error {
	bad := func(format string, args ...any) error {
		return protocol.Errorf(protocol.CodeValidation, "browser input: "+format, args...)
	}
	switch ev.Kind {
	case browser.InputMouse:
		switch ev.Type {
		case "mousePressed", "mouseReleased", "mouseMoved":
		default:
			return bad("mouse type %q (want mousePressed, mouseReleased or mouseMoved)", ev.Type)
		}
		switch ev.Button {
		case "", "none", "left", "middle", "right", "back", "forward":
		default:
			return bad("mouse button %q (want none, left, middle or right)", ev.Button)
		}
	case browser.InputWheel:
	case browser.InputKey:
		switch ev.Type {
		case "keyDown", "keyUp":
		default:
			return bad("key type %q (want keyDown or keyUp)", ev.Type)
		}
		if ev.Key == "" && ev.Code == "" && ev.KeyCode == 0 {
			return bad("a key event needs a key, a code or a keyCode")
		}
	case browser.InputText:
		if ev.Text == "" {
			return bad("a text event needs text")
		}
	default:
		return bad("kind %q (want mouse, wheel, key or text)", ev.Kind)
	}
	if ev.Modifiers < 0 || ev.Modifiers > 15 {
		return bad("modifiers %d (a bit field: Alt=1, Ctrl=2, Meta=4, Shift=8)", ev.Modifiers)
	}
	return nil
}

// bulkHandler serves the window's bulk data, which is pulled through the
// asset server rather than pushed as events: the live browser view's frames
// under browser.FramePath and the output of dev servers and terminals under
// process.OutputPath. It is nil when the window has neither engine.
func (a *App) bulkHandler() http.Handler {
	if a.browser == nil && a.processes == nil {
		return nil
	}
	mux := http.NewServeMux()
	if a.browser != nil {
		mux.Handle(browser.FramePath, a.browser.FrameHandler())
	}
	if a.processes != nil {
		mux.Handle(process.OutputPath, a.processes.OutputHandler())
	}
	return mux
}

// Limits of the terminal bindings.
const (
	// maxTerminalWrite bounds one TerminalWrite (a paste is sent whole).
	maxTerminalWrite = 1 << 20
	// maxTerminalCols and maxTerminalRows bound a TerminalResize.
	maxTerminalCols = 1000
	maxTerminalRows = 500
)

// TerminalWrite writes the keys (or pasted text) of a terminal tab to the
// terminal id's PTY. Like every call of the window it is trusted as the
// renderer; it goes to the engine directly rather than through the
// write_terminal tool, so keystrokes are neither audited nor logged one by
// one. Errors read "CODE: message": VALIDATION_ERROR for an unknown
// terminal or too much data.
func (a *App) TerminalWrite(id, data string) error {
	if len(data) > maxTerminalWrite {
		return protocol.Errorf(protocol.CodeValidation, "terminal input of %d bytes is too large (at most %d per write)", len(data), maxTerminalWrite)
	}
	m, err := a.terminalEngine(id)
	if err != nil {
		return err
	}
	if data == "" {
		return nil
	}
	if _, err := m.WriteTerminal(id, data); err != nil {
		return terminalError("write to", id, err)
	}
	return nil
}

// TerminalResize sets the size (character cells) of the terminal id's PTY
// to its tab's, when the tab's pane changes size. Trusted and not audited,
// like [App.TerminalWrite].
func (a *App) TerminalResize(id string, cols, rows int) error {
	if cols < 1 || rows < 1 || cols > maxTerminalCols || rows > maxTerminalRows {
		return protocol.Errorf(protocol.CodeValidation, "terminal size %d×%d is out of range (1 to %d columns, 1 to %d rows)",
			cols, rows, maxTerminalCols, maxTerminalRows)
	}
	m, err := a.terminalEngine(id)
	if err != nil {
		return err
	}
	if _, err := m.ResizeTerminal(id, cols, rows); err != nil {
		return terminalError("resize", id, err)
	}
	return nil
}

// terminalEngine checks a terminal binding's id and state and returns the
// engine.
func (a *App) terminalEngine(id string) (*process.Manager, error) {
	if id == "" {
		return nil, protocol.Errorf(protocol.CodeValidation, "terminal: no terminal id")
	}
	a.mu.Lock()
	shut := a.shutdown
	a.mu.Unlock()
	switch {
	case shut:
		return nil, protocol.Errorf(protocol.CodeRuntimeShuttingDown, "the window is closing")
	case a.processes == nil:
		return nil, protocol.Errorf(protocol.CodeToolFailed, "this window has no process engine")
	}
	return a.processes, nil
}

// terminalError words an engine error of a terminal binding for the window.
func terminalError(what, id string, err error) error {
	if process.IsUnknown(err) {
		return protocol.Errorf(protocol.CodeValidation, "there is no terminal %q (was it closed?)", id)
	}
	return protocol.Errorf(protocol.CodeToolFailed, "%s terminal %s: %v", what, id, err)
}
