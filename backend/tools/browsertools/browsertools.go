// Package browsertools registers the twenty browser tools of the original
// (reference §3.1): get_tabs, get_active_tab, open_browser_tab, navigate,
// go_back, go_forward, refresh, focus_browser_tab, close_browser_tab,
// browser_use_start, browser_use_end, take_screenshot, get_browser_state,
// click_element, type_text, scroll_page, send_keys, cdp_command,
// get_console_logs and get_network_logs; and three of meith's own for the
// window's pane and devtools: get_browser_dialog and browser_handle_dialog
// (a page's JavaScript dialogs wait for an answer, never dismissed for the
// user) and get_link_at (the page's context menu).
//
// A browser tab is a record in the app state ([state.BrowserTab]) and, while
// it is open, a live page of the browser engine ([browser.Manager]); the
// record survives a restart and the engine reopens the page from it
// ([StateHooks] wires the engine's callbacks to the records). State is only
// changed inside [state.Store.Update], and the engine is never called while
// the store's lock is held.
//
// Ownership follows the original: the owner id comes from the trusted
// caller context (the session id, else the caller's name), never from the
// arguments; agent and plugin callers must claim a tab with
// browser_use_start before controlling it; a tab claimed by someone else
// refuses control with PERMISSION_DENIED. A plugin tab (mode plugin, opened
// by backend/pluginhost) holds its plugin's bridge: every tool that drives,
// claims or reads its page refuses it to every caller but the window.
//
// [Register] lists the tools in one table; their handlers are methods of
// one type: tabs.go holds the tools that change tab records, page.go those
// that drive a live page, dialogs.go the dialog and link tools, access.go
// the ownership rules and errors.go how
// engine errors become tool errors. The inputs and results are in
// inputs.go and results.go.
package browsertools

import (
	"context"
	"time"

	"github.com/meith-dev/meith/backend/browser"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
)

// Deps is what the browser tools need.
type Deps struct {
	Store   *state.Store
	Browser *browser.Manager
	// ArtifactsDir is <userData>/artifacts; screenshots go to its
	// screenshots folder.
	ArtifactsDir string
	// Now returns the current time (default time.Now).
	Now func() time.Time
}

// ScreenshotsDir is the folder of take_screenshot's PNGs under the
// artifacts dir.
const ScreenshotsDir = "screenshots"

// Register adds the browser tools to r.
func Register(r *registry.Registry, d Deps) {
	if d.Now == nil {
		d.Now = time.Now
	}
	t := &tools{d: d}
	controls := protocol.ControlsBrowser()
	registry.RegisterAll(r, []registry.Def{
		{Name: "get_tabs", Description: "List browser tabs and workspace tabs, optionally filtered by space.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.getTabs)},
		{Name: "get_active_tab", Description: "Return the active browser tab for a space (or the active space).",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.activeTab)},
		{Name: "open_browser_tab", Description: "Open a new browser tab pointing at a URL and focus it.",
			Capabilities: controls, Handler: registry.Handle(durable(t, t.open))},
		{Name: "navigate", Description: "Navigate an existing browser tab to a new URL.",
			Capabilities: controls, Handler: registry.Handle(durable(t, t.navigate))},
		{Name: "go_back", Description: "Navigate a browser tab back in its history.",
			Capabilities: controls, Handler: registry.Handle(durable(t, t.back))},
		{Name: "go_forward", Description: "Navigate a browser tab forward in its history.",
			Capabilities: controls, Handler: registry.Handle(durable(t, t.forward))},
		{Name: "refresh", Description: "Reload a browser tab.",
			Capabilities: controls, Handler: registry.Handle(durable(t, t.reload))},
		{Name: "focus_browser_tab", Description: "Make a browser tab the active/visible tab in its space.",
			Capabilities: controls, Handler: registry.Handle(durable(t, t.focus))},
		{Name: "close_browser_tab", Description: "Close a browser tab and destroy its live view.",
			Capabilities: controls, Handler: registry.Handle(durable(t, t.closeTab))},
		{Name: "browser_use_start", Description: "Claim exclusive automation control of a browser tab. Prevents other agents/tools from controlling it concurrently.",
			Capabilities: controls, Handler: registry.Handle(durable(t, t.claim))},
		{Name: "browser_use_end", Description: "Release automation control of a browser tab.",
			Capabilities: controls, Handler: registry.Handle(durable(t, t.release))},
		{Name: "take_screenshot", Description: "Capture a screenshot of a browser tab using the live view. Persists a PNG artifact when storage is available.",
			Capabilities: protocol.ControlsBrowser().Plus(protocol.CapReadOnly), Handler: registry.Handle(t.screenshot)},
		{Name: "get_browser_state", Description: "Extract a browser tab's interactable elements (with stable ids), plus url/title/viewport. Use the returned element ids with click_element and type_text.",
			Capabilities: protocol.ReadOnly().Plus(protocol.CapControlsBrowser), Handler: registry.Handle(t.pageState)},
		{Name: "click_element", Description: "Click an element by an id from the latest get_browser_state.",
			Capabilities: controls, Handler: registry.Handle(t.click)},
		{Name: "type_text", Description: "Focus an element (by get_browser_state id) and type text, replacing its current value.",
			Capabilities: controls, Handler: registry.Handle(t.typeText)},
		{Name: "scroll_page", Description: "Scroll a browser tab by a relative delta (deltaX/deltaY) or to an absolute position (toX/toY).",
			Capabilities: controls, Handler: registry.Handle(t.scroll)},
		{Name: "send_keys", Description: "Dispatch keyboard input to the focused element/page. Use a named key (Enter, Tab, Backspace, ArrowDown, ...) or literal characters.",
			Capabilities: controls, Handler: registry.Handle(t.sendKeys)},
		{Name: "cdp_command", Description: "Issue a raw Chrome DevTools Protocol command against a tab (e.g. Page.navigate, Runtime.evaluate). Treated as browser control.",
			Capabilities: protocol.ControlsBrowser().Plus(protocol.CapAccessesNetwork), Handler: registry.Handle(t.cdp)},
		{Name: "get_console_logs", Description: "Return console messages captured for a browser tab (most recent last).",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.consoleLogs)},
		{Name: "get_network_logs", Description: "Return network requests observed for a browser tab (most recent last).",
			Capabilities: protocol.ReadOnly().Plus(protocol.CapAccessesNetwork), Handler: registry.Handle(t.networkLogs)},
		{Name: "get_browser_dialog", Description: "Return the JavaScript dialog (alert, confirm, prompt, beforeunload) a browser tab's page has open and waits on, or null. Answer it with browser_handle_dialog.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.dialog)},
		{Name: "browser_handle_dialog", Description: "Answer a browser tab's open JavaScript dialog: accept (OK; leave the page for beforeunload) or dismiss (Cancel), with promptText as a prompt's answer. The page waits until its dialog is answered.",
			Capabilities: controls, Handler: registry.Handle(t.handleDialog)},
		{Name: "get_link_at", Description: "Return the address of the link under a point of a browser tab's viewport (CSS pixels), or an empty href.",
			Capabilities: protocol.ReadOnly().Plus(protocol.CapControlsBrowser), Handler: registry.Handle(t.linkAt)},
	})
}

// tools carries the dependencies of the handlers.
type tools struct{ d Deps }

func (t *tools) now() int64 { return t.d.Now().UnixMilli() }

// durable makes a tool that changes tab records answer only once state.json
// holds the change ([state.Store.Sync]); when it could not be written, the
// change stays in memory and the result says so in a diagnostic.
func durable[In, Out any](t *tools, h func(context.Context, *registry.Call, In) (Out, error)) func(context.Context, *registry.Call, In) (Out, error) {
	return func(ctx context.Context, call *registry.Call, in In) (Out, error) {
		out, err := h(ctx, call, in)
		if err == nil {
			for _, d := range t.d.Store.SyncDiagnostics(ctx) {
				call.Diagnose(d)
			}
		}
		return out, err
	}
}

// update runs fn through the store, keeping a *protocol.ToolError as is and
// turning anything else into TOOL_FAILED.
func (t *tools) update(fn func(*state.State) error) error {
	return registry.MapError(t.d.Store.Update(fn), nil)
}
