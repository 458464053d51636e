package browsertools

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf16"

	"github.com/meith-dev/meith/backend/browser"
	"github.com/meith-dev/meith/backend/internal/artifact"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
)

// cdpMethodRE is a DevTools Protocol method name: Domain.method.
var cdpMethodRE = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*\.[a-z][A-Za-z0-9]*$`)

// refusedCDPDomains reach the whole browser rather than one page.
var refusedCDPDomains = []string{"Browser", "Target"}

// navigate is navigate.
func (t *tools) navigate(ctx context.Context, call *registry.Call, in NavigateInput) (state.BrowserTab, error) {
	url, err := normalizeURL(in.URL)
	if err != nil {
		return state.BrowserTab{}, err
	}
	return t.page(ctx, call, in.TabID, func(tab *browser.Tab) (browser.PageInfo, error) { return tab.Navigate(ctx, url) })
}

// back is go_back.
func (t *tools) back(ctx context.Context, call *registry.Call, in TabInput) (state.BrowserTab, error) {
	return t.page(ctx, call, in.TabID, func(tab *browser.Tab) (browser.PageInfo, error) { return tab.Back(ctx) })
}

// forward is go_forward.
func (t *tools) forward(ctx context.Context, call *registry.Call, in TabInput) (state.BrowserTab, error) {
	return t.page(ctx, call, in.TabID, func(tab *browser.Tab) (browser.PageInfo, error) { return tab.Forward(ctx) })
}

// reload is refresh.
func (t *tools) reload(ctx context.Context, call *registry.Call, in TabInput) (state.BrowserTab, error) {
	return t.page(ctx, call, in.TabID, func(tab *browser.Tab) (browser.PageInfo, error) { return tab.Reload(ctx) })
}

// screenshot is take_screenshot.
func (t *tools) screenshot(ctx context.Context, call *registry.Call, in TabInput) (ScreenshotResult, error) {
	tab, err := t.live(ctx, call, in.TabID)
	if err != nil {
		return ScreenshotResult{}, err
	}
	shot, err := tab.Screenshot(ctx)
	if err != nil {
		return ScreenshotResult{}, t.engineError(in.TabID, err)
	}
	path, err := t.writeScreenshot(in.TabID, shot.PNG)
	if err != nil {
		return ScreenshotResult{}, protocol.Errorf(protocol.CodeToolFailed, "save the screenshot: %v", err)
	}
	return ScreenshotResult{TabID: in.TabID, Width: shot.Width, Height: shot.Height, Path: path}, nil
}

// pageState is get_browser_state.
func (t *tools) pageState(ctx context.Context, call *registry.Call, in TabInput) (StateResult, error) {
	tab, err := t.live(ctx, call, in.TabID)
	if err != nil {
		return StateResult{}, err
	}
	ps, err := tab.State(ctx)
	if err != nil {
		return StateResult{}, t.engineError(in.TabID, err)
	}
	out := StateResult{TabID: in.TabID, URL: ps.URL, Title: ps.Title, Viewport: ps.Viewport, Elements: ps.Elements}
	if out.Elements == nil {
		out.Elements = []browser.Element{}
	}
	return out, nil
}

// click is click_element.
func (t *tools) click(ctx context.Context, call *registry.Call, in ElementInput) (ClickResult, error) {
	tab, err := t.live(ctx, call, in.TabID)
	if err != nil {
		return ClickResult{}, err
	}
	if err := tab.Click(ctx, in.ElementID); err != nil {
		return ClickResult{}, t.elementError(in.TabID, in.ElementID, err)
	}
	return ClickResult{Clicked: in.ElementID}, nil
}

// typeText is type_text.
func (t *tools) typeText(ctx context.Context, call *registry.Call, in TypeInput) (TypeResult, error) {
	tab, err := t.live(ctx, call, in.TabID)
	if err != nil {
		return TypeResult{}, err
	}
	if err := tab.Type(ctx, in.ElementID, in.Text); err != nil {
		return TypeResult{}, t.elementError(in.TabID, in.ElementID, err)
	}
	return TypeResult{Typed: len(utf16.Encode([]rune(in.Text)))}, nil
}

// scroll is scroll_page.
func (t *tools) scroll(ctx context.Context, call *registry.Call, in ScrollInput) (OKResult, error) {
	if in.DeltaX == nil && in.DeltaY == nil && in.ToX == nil && in.ToY == nil {
		return OKResult{}, registry.InvalidArg("deltaY", "give deltaX/deltaY to scroll by, or toX/toY to scroll to")
	}
	tab, err := t.live(ctx, call, in.TabID)
	if err != nil {
		return OKResult{}, err
	}
	if err := tab.ScrollBy(ctx, browser.Scroll{DeltaX: in.DeltaX, DeltaY: in.DeltaY, ToX: in.ToX, ToY: in.ToY}); err != nil {
		return OKResult{}, t.engineError(in.TabID, err)
	}
	return OKResult{OK: true}, nil
}

// sendKeys is send_keys.
func (t *tools) sendKeys(ctx context.Context, call *registry.Call, in KeysInput) (OKResult, error) {
	if in.Keys == "" {
		return OKResult{}, registry.InvalidArg("keys", "keys must not be empty")
	}
	tab, err := t.live(ctx, call, in.TabID)
	if err != nil {
		return OKResult{}, err
	}
	if err := tab.SendKeys(ctx, in.Keys); err != nil {
		return OKResult{}, t.engineError(in.TabID, err)
	}
	return OKResult{OK: true}, nil
}

// cdp is cdp_command.
func (t *tools) cdp(ctx context.Context, call *registry.Call, in CDPInput) (CDPResult, error) {
	if !cdpMethodRE.MatchString(in.Method) {
		return CDPResult{}, registry.InvalidArg("method", "method is not a DevTools Protocol method (Domain.method, e.g. Runtime.evaluate)")
	}
	domain, _, _ := strings.Cut(in.Method, ".")
	for _, d := range refusedCDPDomains {
		if domain == d {
			return CDPResult{}, registry.InvalidArg("method", fmt.Sprintf("the %s domain reaches the whole browser, not one tab; cdp_command refuses it", d))
		}
	}
	var params json.RawMessage
	if in.Params != nil {
		b, err := json.Marshal(in.Params)
		if err != nil {
			return CDPResult{}, registry.InvalidArg("params", "params cannot be encoded: "+err.Error())
		}
		params = b
	}
	tab, err := t.live(ctx, call, in.TabID)
	if err != nil {
		return CDPResult{}, err
	}
	res, err := tab.CDP(ctx, in.Method, params)
	if err != nil {
		return CDPResult{}, t.engineError(in.TabID, err)
	}
	if len(res) == 0 {
		res = json.RawMessage(`{}`)
	}
	return CDPResult{TabID: in.TabID, Method: in.Method, Result: res}, nil
}

// consoleLogs is get_console_logs.
func (t *tools) consoleLogs(ctx context.Context, call *registry.Call, in LogsInput) ([]browser.ConsoleEntry, error) {
	return tabLogs(t, call, in, (*browser.Tab).Console)
}

// networkLogs is get_network_logs.
func (t *tools) networkLogs(ctx context.Context, call *registry.Call, in LogsInput) ([]browser.NetworkEntry, error) {
	return tabLogs(t, call, in, (*browser.Tab).Network)
}

// tabLogs reads a known tab's newest in.Limit log entries with read; a tab
// that is not live has none. Lists are never nil, so they marshal as [].
func tabLogs[E any](t *tools, call *registry.Call, in LogsInput, read func(*browser.Tab, int) []E) ([]E, error) {
	tab, err := t.peek(call, in.TabID)
	if err != nil || tab == nil {
		return []E{}, err
	}
	out := read(tab, in.Limit)
	if out == nil {
		out = []E{}
	}
	return out, nil
}

// page runs a navigation on a controllable tab and returns its record as
// the page left it.
func (t *tools) page(ctx context.Context, call *registry.Call, id string, op func(*browser.Tab) (browser.PageInfo, error)) (state.BrowserTab, error) {
	tab, err := t.live(ctx, call, id)
	if err != nil {
		return state.BrowserTab{}, err
	}
	info, err := op(tab)
	if err != nil {
		return state.BrowserTab{}, t.engineError(id, err)
	}
	return t.applyInfo(id, info)
}

// live checks that the caller may control the tab and returns its live
// page, reopening it from its record when it is not live.
func (t *tools) live(ctx context.Context, call *registry.Call, id string) (*browser.Tab, error) {
	if _, err := t.controllable(call, id); err != nil {
		return nil, err
	}
	tab, err := t.d.Browser.Live(ctx, id)
	if err != nil {
		return nil, t.engineError(id, err)
	}
	return tab, nil
}

// peek returns the live page of a known tab the caller may read, or nil
// when it is not live; it never starts the browser.
func (t *tools) peek(call *registry.Call, id string) (*browser.Tab, error) {
	s := t.d.Store.Get()
	b := s.BrowserTab(id)
	if b == nil {
		return nil, unknownTab(id)
	}
	if err := pluginTabRefused(call, b); err != nil {
		return nil, err
	}
	return t.d.Browser.Peek(id), nil
}

// writeScreenshot saves png as <artifacts>/screenshots/<tabId>-<unixms>.png
// (folders 0700, file 0600); two shots of one millisecond get distinct
// names.
func (t *tools) writeScreenshot(id string, png []byte) (string, error) {
	return artifact.Write(filepath.Join(t.d.ArtifactsDir, ScreenshotsDir), fmt.Sprintf("%s-%d", id, t.now()), ".png", png)
}
