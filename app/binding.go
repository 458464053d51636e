// Package app is the desktop side of meith: the Wails binding through which
// the window (the trusted "renderer" caller) reaches the tool registry, and
// the code that runs the window (run.go, the only file here that imports
// Wails). The binding's files follow its seams: binding.go (the App, its
// life and the tool calls), events.go (the events it emits), window.go (the
// methods only the window has), live.go (the live browser and terminal
// views and the asset handler they pull from).
//
// Wails v2 bound methods cannot be cancelled and reject with strings, so the
// binding mirrors the socket protocol: [App.Call] returns a call id at once
// and runs the call in the background; its events and result arrive as the
// Wails events "tool_event" {callId, event} and "tool_result"
// {callId, result}; [App.Cancel] cancels it.
//
// Changes reach the window by one road: the runtime's change bus (package
// hint), to which every engine publishes. While the window is open the
// binding forwards each hint unchanged as the Wails event of its topic —
// "state_changed" {kind, ids}, "approvals_changed" {kind, id, pending},
// "logs_appended" {count}, "git_changed" {root, count}, "process_changed"
// {kind, id}, "agent_changed" {sessionId, kind} — and the UI re-reads what
// changed through tool calls (or [App.PendingApprovals]).
//
// The live browser view is bound too: [App.BrowserInput],
// [App.BrowserViewport] and [App.BrowserStop] reach a browser tab's page
// directly (renderer-trusted, like every call of the window), while its
// frames are pulled through the asset server (run.go), never pushed.
// Terminal tabs work the same way: [App.TerminalWrite] and
// [App.TerminalResize] reach a terminal's PTY directly, and its output is
// pulled through the asset server (process.OutputPath).
package app

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"

	"github.com/meith-dev/meith/backend/browser"
	"github.com/meith-dev/meith/backend/hint"
	"github.com/meith-dev/meith/backend/permission"
	"github.com/meith-dev/meith/backend/process"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
)

// SessionRenderer is the session id of every call from the window.
const SessionRenderer = "renderer"

// App is the object bound to the window (window.go.app.App in JavaScript).
// Its exported methods other than Startup and Shutdown are the bound
// surface; Wails calls Startup and Shutdown around the window's life.
type App struct {
	reg       *registry.Registry
	approvals *permission.Approvals // nil: no approval prompts
	store     *state.Store          // nil: BeforeClose never asks
	hints     *hint.Bus             // nil: the window hears of no changes
	browser   *browser.Manager      // nil: no live browser view
	processes *process.Manager      // nil: no terminal input

	// newEmitter turns the Wails context into an emitter (run.go sets it;
	// tests set a fake). onStartup runs at the end of Startup.
	newEmitter func(ctx context.Context) emitter
	onStartup  func(ctx context.Context)
	// pickFolder shows the native folder dialog (run.go sets it; tests set
	// a fake). It returns "" when the user cancels.
	pickFolder func(ctx context.Context, title string) (string, error)
	// pickFile shows the native file dialog with its filters (run.go sets
	// it; tests set a fake). It returns "" when the user cancels.
	pickFile func(ctx context.Context, title string, filters []FileFilter) (string, error)
	// confirmQuit asks the user a yes/no question before the window closes
	// (run.go sets a native dialog; tests set a fake).
	confirmQuit func(ctx context.Context, title, message string) (bool, error)
	// raiseWindow shows, unminimises and raises the window (run.go sets
	// the Wails calls; tests set a fake).
	raiseWindow func(ctx context.Context)
	// quitting is set when the runtime itself ends the window (a signal):
	// then nobody is asked.
	quitting atomic.Bool

	mu       sync.Mutex
	em       emitter
	wctx     context.Context // the Wails context, set by Startup
	base     context.Context // parent of every call; cancelled by Shutdown
	stop     context.CancelFunc
	calls    map[string]context.CancelFunc
	detach   func() // leaves the approval broker
	unhint   func() // ends the subscription to the change bus
	started  bool
	shutdown bool
	wg       sync.WaitGroup
}

// Option configures [New].
type Option func(*App)

// WithState gives the window the app state, whose confirmOnClose setting
// decides whether [App.BeforeClose] asks before quitting.
func WithState(store *state.Store) Option { return func(a *App) { a.store = store } }

// WithHints makes the window hear of the runtime's changes while it is
// open: every hint of the bus is forwarded as the Wails event of its topic.
func WithHints(bus *hint.Bus) Option { return func(a *App) { a.hints = bus } }

// WithBrowser gives the window's live browser view (BrowserInput,
// BrowserViewport, BrowserStop) the engine that holds the tabs.
func WithBrowser(m *browser.Manager) Option { return func(a *App) { a.browser = m } }

// WithProcesses gives the window's terminal tabs (TerminalWrite,
// TerminalResize) the engine that runs the terminals.
func WithProcesses(m *process.Manager) Option { return func(a *App) { a.processes = m } }

// New returns the binding for a registry and, optionally, the approval
// broker it answers prompts for.
func New(reg *registry.Registry, approvals *permission.Approvals, opts ...Option) *App {
	base, stop := context.WithCancel(context.Background())
	a := &App{reg: reg, approvals: approvals, base: base, stop: stop, calls: map[string]context.CancelFunc{}}
	for _, o := range opts {
		o(a)
	}
	return a
}

// Startup is called by Wails when the window starts. It attaches the window
// to the approval broker, so privileged CLI calls prompt here, and
// subscribes to the change bus.
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
	}
	if a.hints != nil {
		a.unhint = a.hints.Subscribe(a.forwardHint)
	}
	hook := a.onStartup
	a.mu.Unlock()
	if hook != nil {
		hook(ctx)
	}
}

// Shutdown is called by Wails when the window closes. It unsubscribes from
// the change bus, detaches from the approval broker (pending prompts are
// denied), cancels the calls in flight and waits for them until ctx ends.
// Later calls fail with RUNTIME_SHUTTING_DOWN.
func (a *App) Shutdown(ctx context.Context) {
	a.mu.Lock()
	if a.shutdown {
		a.mu.Unlock()
		return
	}
	a.shutdown = true
	a.em = nil // the window is going away: nothing more is emitted
	detach, unhint := a.detach, a.unhint
	a.mu.Unlock()

	if unhint != nil {
		unhint()
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
