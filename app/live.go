package app

// live.go: the window's live views: input to a browser tab's page and to a
// terminal's PTY (bound methods), and the asset handler their bulk data is
// pulled from.

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/meith-dev/meith/backend/browser"
	"github.com/meith-dev/meith/backend/process"
	"github.com/meith-dev/meith/backend/protocol"
)

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
