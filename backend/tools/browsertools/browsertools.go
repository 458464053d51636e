// Package browsertools registers the twenty browser tools of the original
// (reference §3.1): get_tabs, get_active_tab, open_browser_tab, navigate,
// go_back, go_forward, refresh, focus_browser_tab, close_browser_tab,
// browser_use_start, browser_use_end, take_screenshot, get_browser_state,
// click_element, type_text, scroll_page, send_keys, cdp_command,
// get_console_logs and get_network_logs.
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
// refuses control with PERMISSION_DENIED.
package browsertools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/meith-dev/meith/backend/browser"
	"github.com/meith-dev/meith/backend/internal/artifact"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/redact"
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

// TabsResult is the result of get_tabs.
type TabsResult struct {
	BrowserTabs   []state.BrowserTab   `json:"browserTabs"`
	WorkspaceTabs []state.WorkspaceTab `json:"workspaceTabs"`
}

// ClosedResult is the result of close_browser_tab.
type ClosedResult struct {
	Closed bool `json:"closed"`
}

// ScreenshotResult is the result of take_screenshot.
type ScreenshotResult struct {
	TabID  string `json:"tabId"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Path   string `json:"path"`
}

// StateResult is the result of get_browser_state.
type StateResult struct {
	TabID    string            `json:"tabId"`
	URL      string            `json:"url"`
	Title    string            `json:"title"`
	Viewport browser.Viewport  `json:"viewport"`
	Elements []browser.Element `json:"elements"`
}

// ClickResult is the result of click_element.
type ClickResult struct {
	Clicked string `json:"clicked"`
}

// TypeResult is the result of type_text: the text's length in UTF-16 code
// units, as a page's JavaScript counts it.
type TypeResult struct {
	Typed int `json:"typed"`
}

// OKResult is the result of scroll_page and send_keys.
type OKResult struct {
	OK bool `json:"ok"`
}

// CDPResult is the result of cdp_command.
type CDPResult struct {
	TabID  string          `json:"tabId"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
}

// SpaceInput is the input of get_tabs and get_active_tab.
type SpaceInput struct {
	SpaceID string `json:"spaceId,omitempty" jsonschema:"only this space (default: get_tabs lists every space, get_active_tab uses the active space)"`
}

// OpenInput is the input of open_browser_tab.
type OpenInput struct {
	URL      string `json:"url" jsonschema:"the address to open; a missing scheme is inferred as an address bar does (localhost:3000, example.com)"`
	Title    string `json:"title,omitempty" jsonschema:"title to show until the page reports its own (default: the URL)"`
	SpaceID  string `json:"spaceId,omitempty" jsonschema:"space to open the tab in (default: the active space)"`
	Cwd      string `json:"cwd,omitempty" jsonschema:"accepted for compatibility with the original; unused"`
	Isolated bool   `json:"isolated,omitempty" jsonschema:"agent sessions only: give the tab the session's own browser context (cookies and storage shared with no space)"`
	LegacyOwner
}

// TabInput is the input of the tools that take only a tab.
type TabInput struct {
	TabID string `json:"tabId" jsonschema:"the browser tab (btab_…)"`
	LegacyOwner
}

// LegacyOwner is the owner argument older clients send with the control
// tools. It is accepted and ignored: the owner always comes from the
// caller's identity.
type LegacyOwner struct {
	Owner json.RawMessage `json:"owner,omitempty" jsonschema:"ignored: the owner always comes from the caller's identity (kept so older clients still validate)"`
}

// ReleaseInput is the input of browser_use_end.
type ReleaseInput struct {
	TabID string `json:"tabId" jsonschema:"the browser tab (btab_…)"`
	LegacyOwner
	Force json.RawMessage `json:"force,omitempty" jsonschema:"ignored: only the owner releases a tab (kept so older clients still validate)"`
}

// NavigateInput is the input of navigate.
type NavigateInput struct {
	TabID string `json:"tabId" jsonschema:"the browser tab (btab_…)"`
	URL   string `json:"url" jsonschema:"the address to load; a missing scheme is inferred as an address bar does"`
	LegacyOwner
}

// ElementInput is the input of click_element.
type ElementInput struct {
	TabID     string `json:"tabId" jsonschema:"the browser tab (btab_…)"`
	ElementID string `json:"elementId" jsonschema:"an element id (el-N) from the latest get_browser_state"`
	LegacyOwner
}

// TypeInput is the input of type_text.
type TypeInput struct {
	TabID     string `json:"tabId" jsonschema:"the browser tab (btab_…)"`
	ElementID string `json:"elementId" jsonschema:"an element id (el-N) from the latest get_browser_state"`
	Text      string `json:"text" jsonschema:"the text that replaces the element's value"`
	LegacyOwner
}

// ScrollInput is the input of scroll_page.
type ScrollInput struct {
	TabID  string   `json:"tabId" jsonschema:"the browser tab (btab_…)"`
	DeltaX *float64 `json:"deltaX,omitempty" jsonschema:"scroll right by this many CSS pixels (negative: left)"`
	DeltaY *float64 `json:"deltaY,omitempty" jsonschema:"scroll down by this many CSS pixels (negative: up)"`
	ToX    *float64 `json:"toX,omitempty" jsonschema:"scroll to this horizontal position in CSS pixels"`
	ToY    *float64 `json:"toY,omitempty" jsonschema:"scroll to this vertical position in CSS pixels"`
	LegacyOwner
}

// KeysInput is the input of send_keys.
type KeysInput struct {
	TabID string `json:"tabId" jsonschema:"the browser tab (btab_…)"`
	Keys  string `json:"keys" jsonschema:"a named key (Enter, Tab, Backspace, ArrowDown, Control+A, …) or literal characters"`
	LegacyOwner
}

// CDPInput is the input of cdp_command.
type CDPInput struct {
	TabID  string         `json:"tabId" jsonschema:"the browser tab (btab_…)"`
	Method string         `json:"method" jsonschema:"a DevTools Protocol method of the page (Domain.method, e.g. Runtime.evaluate); the Browser and Target domains are refused"`
	Params map[string]any `json:"params,omitempty" jsonschema:"the method's parameters"`
	LegacyOwner
}

// LogsInput is the input of get_console_logs and get_network_logs.
type LogsInput struct {
	TabID string `json:"tabId" jsonschema:"the browser tab (btab_…)"`
	Limit int    `json:"limit,omitempty" jsonschema:"only the newest N entries (default: all that are kept)" minimum:"1"`
}

var (
	readOnly        = []protocol.Capability{protocol.CapReadOnly}
	readNetwork     = []protocol.Capability{protocol.CapReadOnly, protocol.CapAccessesNetwork}
	controls        = []protocol.Capability{protocol.CapControlsBrowser}
	controlsRead    = []protocol.Capability{protocol.CapControlsBrowser, protocol.CapReadOnly}
	readControls    = []protocol.Capability{protocol.CapReadOnly, protocol.CapControlsBrowser}
	controlsNetwork = []protocol.Capability{protocol.CapControlsBrowser, protocol.CapAccessesNetwork}
)

// cdpMethodRE is a DevTools Protocol method name: Domain.method.
var cdpMethodRE = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*\.[a-z][A-Za-z0-9]*$`)

// refusedCDPDomains reach the whole browser rather than one page.
var refusedCDPDomains = []string{"Browser", "Target"}

// Register adds the browser tools to r.
func Register(r *registry.Registry, d Deps) {
	if d.Now == nil {
		d.Now = time.Now
	}
	t := &tools{d: d}

	registry.Register(r, registry.Tool{Name: "get_tabs", Description: "List browser tabs and workspace tabs, optionally filtered by space.", Capabilities: readOnly},
		func(ctx context.Context, call *registry.Call, in SpaceInput) (TabsResult, error) {
			s := t.d.Store.Get()
			if in.SpaceID != "" && s.Space(in.SpaceID) == nil {
				return TabsResult{}, unknownSpace(in.SpaceID)
			}
			out := TabsResult{BrowserTabs: []state.BrowserTab{}, WorkspaceTabs: []state.WorkspaceTab{}}
			for _, b := range s.BrowserTabs {
				if in.SpaceID == "" || b.SpaceID == in.SpaceID {
					out.BrowserTabs = append(out.BrowserTabs, b)
				}
			}
			for _, w := range s.WorkspaceTabs {
				if in.SpaceID == "" || w.SpaceID == in.SpaceID {
					out.WorkspaceTabs = append(out.WorkspaceTabs, w)
				}
			}
			return out, nil
		})

	registry.Register(r, registry.Tool{Name: "get_active_tab", Description: "Return the active browser tab for a space (or the active space).", Capabilities: readOnly},
		func(ctx context.Context, call *registry.Call, in SpaceInput) (*state.BrowserTab, error) {
			s := t.d.Store.Get()
			id := in.SpaceID
			if id == "" {
				id = s.ActiveSpaceID
			}
			if s.Space(id) == nil {
				return nil, unknownSpace(id)
			}
			return s.ActiveBrowserTab(id), nil
		})

	registry.Register(r, registry.Tool{Name: "open_browser_tab", Description: "Open a new browser tab pointing at a URL and focus it.", Capabilities: controls},
		durable(t, t.open))

	registry.Register(r, registry.Tool{Name: "navigate", Description: "Navigate an existing browser tab to a new URL.", Capabilities: controls},
		durable(t, func(ctx context.Context, call *registry.Call, in NavigateInput) (state.BrowserTab, error) {
			url, err := normalizeURL(in.URL)
			if err != nil {
				return state.BrowserTab{}, err
			}
			return t.page(ctx, call, in.TabID, func(tab *browser.Tab) (browser.PageInfo, error) { return tab.Navigate(ctx, url) })
		}))

	registry.Register(r, registry.Tool{Name: "go_back", Description: "Navigate a browser tab back in its history.", Capabilities: controls},
		durable(t, func(ctx context.Context, call *registry.Call, in TabInput) (state.BrowserTab, error) {
			return t.page(ctx, call, in.TabID, func(tab *browser.Tab) (browser.PageInfo, error) { return tab.Back(ctx) })
		}))

	registry.Register(r, registry.Tool{Name: "go_forward", Description: "Navigate a browser tab forward in its history.", Capabilities: controls},
		durable(t, func(ctx context.Context, call *registry.Call, in TabInput) (state.BrowserTab, error) {
			return t.page(ctx, call, in.TabID, func(tab *browser.Tab) (browser.PageInfo, error) { return tab.Forward(ctx) })
		}))

	registry.Register(r, registry.Tool{Name: "refresh", Description: "Reload a browser tab.", Capabilities: controls},
		durable(t, func(ctx context.Context, call *registry.Call, in TabInput) (state.BrowserTab, error) {
			return t.page(ctx, call, in.TabID, func(tab *browser.Tab) (browser.PageInfo, error) { return tab.Reload(ctx) })
		}))

	registry.Register(r, registry.Tool{Name: "focus_browser_tab", Description: "Make a browser tab the active/visible tab in its space.", Capabilities: controls},
		durable(t, func(ctx context.Context, call *registry.Call, in TabInput) (state.BrowserTab, error) {
			// No ownership check, as in the original: focusing shows a tab,
			// it does not drive its page.
			return t.updateTab(in.TabID, func(s *state.State, _ *state.BrowserTab) error { return s.ShowTab(in.TabID) })
		}))

	registry.Register(r, registry.Tool{Name: "close_browser_tab", Description: "Close a browser tab and destroy its live view.", Capabilities: controls},
		durable(t, func(ctx context.Context, call *registry.Call, in TabInput) (ClosedResult, error) {
			if _, err := t.controllable(call, in.TabID); err != nil {
				return ClosedResult{}, err
			}
			if err := t.d.Browser.CloseTab(ctx, in.TabID); err != nil {
				return ClosedResult{}, t.engineError(in.TabID, err)
			}
			err := t.update(func(s *state.State) error {
				_, err := s.RemoveBrowserTab(in.TabID)
				if state.IsTabNotFound(err) {
					return nil // closed meanwhile by another call
				}
				return err
			})
			if err != nil {
				return ClosedResult{}, err
			}
			return ClosedResult{Closed: true}, nil
		}))

	registry.Register(r, registry.Tool{Name: "browser_use_start", Description: "Claim exclusive automation control of a browser tab. Prevents other agents/tools from controlling it concurrently.", Capabilities: controls},
		durable(t, func(ctx context.Context, call *registry.Call, in TabInput) (state.BrowserTab, error) {
			owner := ownerOf(call)
			return t.updateTab(in.TabID, func(_ *state.State, b *state.BrowserTab) error {
				if b.OwnerID != nil && *b.OwnerID != owner {
					return ownedByOther(b.ID, *b.OwnerID)
				}
				b.OwnerID = &owner
				b.UpdatedAt = t.now()
				return nil
			})
		}))

	registry.Register(r, registry.Tool{Name: "browser_use_end", Description: "Release automation control of a browser tab.", Capabilities: controls},
		durable(t, func(ctx context.Context, call *registry.Call, in ReleaseInput) (state.BrowserTab, error) {
			owner := ownerOf(call)
			return t.updateTab(in.TabID, func(_ *state.State, b *state.BrowserTab) error {
				if b.OwnerID == nil {
					return nil
				}
				// Only the owner releases; the runtime itself (internal)
				// may force it.
				if *b.OwnerID != owner && call.Client.Caller != protocol.CallerInternal {
					return ownedByOther(b.ID, *b.OwnerID)
				}
				b.OwnerID = nil
				b.UpdatedAt = t.now()
				return nil
			})
		}))

	registry.Register(r, registry.Tool{Name: "take_screenshot", Description: "Capture a screenshot of a browser tab using the live view. Persists a PNG artifact when storage is available.", Capabilities: controlsRead},
		func(ctx context.Context, call *registry.Call, in TabInput) (ScreenshotResult, error) {
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
		})

	registry.Register(r, registry.Tool{Name: "get_browser_state", Description: "Extract a browser tab's interactable elements (with stable ids), plus url/title/viewport. Use the returned element ids with click_element and type_text.", Capabilities: readControls},
		func(ctx context.Context, call *registry.Call, in TabInput) (StateResult, error) {
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
		})

	registry.Register(r, registry.Tool{Name: "click_element", Description: "Click an element by an id from the latest get_browser_state.", Capabilities: controls},
		func(ctx context.Context, call *registry.Call, in ElementInput) (ClickResult, error) {
			tab, err := t.live(ctx, call, in.TabID)
			if err != nil {
				return ClickResult{}, err
			}
			if err := tab.Click(ctx, in.ElementID); err != nil {
				return ClickResult{}, t.elementError(in.TabID, in.ElementID, err)
			}
			return ClickResult{Clicked: in.ElementID}, nil
		})

	registry.Register(r, registry.Tool{Name: "type_text", Description: "Focus an element (by get_browser_state id) and type text, replacing its current value.", Capabilities: controls},
		func(ctx context.Context, call *registry.Call, in TypeInput) (TypeResult, error) {
			tab, err := t.live(ctx, call, in.TabID)
			if err != nil {
				return TypeResult{}, err
			}
			if err := tab.Type(ctx, in.ElementID, in.Text); err != nil {
				return TypeResult{}, t.elementError(in.TabID, in.ElementID, err)
			}
			return TypeResult{Typed: len(utf16.Encode([]rune(in.Text)))}, nil
		})

	registry.Register(r, registry.Tool{Name: "scroll_page", Description: "Scroll a browser tab by a relative delta (deltaX/deltaY) or to an absolute position (toX/toY).", Capabilities: controls},
		func(ctx context.Context, call *registry.Call, in ScrollInput) (OKResult, error) {
			if in.DeltaX == nil && in.DeltaY == nil && in.ToX == nil && in.ToY == nil {
				return OKResult{}, validationError("deltaY", "give deltaX/deltaY to scroll by, or toX/toY to scroll to")
			}
			tab, err := t.live(ctx, call, in.TabID)
			if err != nil {
				return OKResult{}, err
			}
			if err := tab.ScrollBy(ctx, browser.Scroll{DeltaX: in.DeltaX, DeltaY: in.DeltaY, ToX: in.ToX, ToY: in.ToY}); err != nil {
				return OKResult{}, t.engineError(in.TabID, err)
			}
			return OKResult{OK: true}, nil
		})

	registry.Register(r, registry.Tool{Name: "send_keys", Description: "Dispatch keyboard input to the focused element/page. Use a named key (Enter, Tab, Backspace, ArrowDown, ...) or literal characters.", Capabilities: controls},
		func(ctx context.Context, call *registry.Call, in KeysInput) (OKResult, error) {
			if in.Keys == "" {
				return OKResult{}, validationError("keys", "keys must not be empty")
			}
			tab, err := t.live(ctx, call, in.TabID)
			if err != nil {
				return OKResult{}, err
			}
			if err := tab.SendKeys(ctx, in.Keys); err != nil {
				return OKResult{}, t.engineError(in.TabID, err)
			}
			return OKResult{OK: true}, nil
		})

	registry.Register(r, registry.Tool{Name: "cdp_command", Description: "Issue a raw Chrome DevTools Protocol command against a tab (e.g. Page.navigate, Runtime.evaluate). Treated as browser control.", Capabilities: controlsNetwork},
		func(ctx context.Context, call *registry.Call, in CDPInput) (CDPResult, error) {
			if !cdpMethodRE.MatchString(in.Method) {
				return CDPResult{}, validationError("method", "method is not a DevTools Protocol method (Domain.method, e.g. Runtime.evaluate)")
			}
			domain, _, _ := strings.Cut(in.Method, ".")
			for _, d := range refusedCDPDomains {
				if domain == d {
					return CDPResult{}, validationError("method", fmt.Sprintf("the %s domain reaches the whole browser, not one tab; cdp_command refuses it", d))
				}
			}
			var params json.RawMessage
			if in.Params != nil {
				b, err := json.Marshal(in.Params)
				if err != nil {
					return CDPResult{}, validationError("params", "params cannot be encoded: "+err.Error())
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
		})

	registry.Register(r, registry.Tool{Name: "get_console_logs", Description: "Return console messages captured for a browser tab (most recent last).", Capabilities: readOnly},
		func(ctx context.Context, call *registry.Call, in LogsInput) ([]browser.ConsoleEntry, error) {
			tab, err := t.peek(in.TabID)
			if err != nil || tab == nil {
				return []browser.ConsoleEntry{}, err
			}
			out := tab.Console(in.Limit)
			if out == nil {
				out = []browser.ConsoleEntry{}
			}
			return out, nil
		})

	registry.Register(r, registry.Tool{Name: "get_network_logs", Description: "Return network requests observed for a browser tab (most recent last).", Capabilities: readNetwork},
		func(ctx context.Context, call *registry.Call, in LogsInput) ([]browser.NetworkEntry, error) {
			tab, err := t.peek(in.TabID)
			if err != nil || tab == nil {
				return []browser.NetworkEntry{}, err
			}
			out := tab.Network(in.Limit)
			if out == nil {
				out = []browser.NetworkEntry{}
			}
			return out, nil
		})
}

type tools struct{ d Deps }

func (t *tools) now() int64 { return t.d.Now().UnixMilli() }

// open is open_browser_tab: the record first (so the engine's page events
// find it), then the live page, then the record as the loaded page left it.
func (t *tools) open(ctx context.Context, call *registry.Call, in OpenInput) (state.BrowserTab, error) {
	url, err := normalizeURL(in.URL)
	if err != nil {
		return state.BrowserTab{}, err
	}
	contextKey := ""
	if in.Isolated {
		if call.Client.Caller != protocol.CallerAgent || call.Client.SessionID == "" {
			return state.BrowserTab{}, validationError("isolated", "isolation needs an agent session: only an agent's tabs get a browser context of their own")
		}
		contextKey = state.SessionContextKey(call.Client.SessionID)
	}
	title := strings.TrimSpace(in.Title)
	if title == "" {
		title = url
	}
	now := t.now()
	rec := state.BrowserTab{
		ID: protocol.NewID(state.BrowserTabPrefix), URL: url, Title: title, LoadState: browser.LoadLoading,
		Mode: state.BrowserModeWeb, CreatedAt: now, UpdatedAt: now,
	}
	err = t.update(func(s *state.State) error {
		rec.SpaceID = in.SpaceID
		if rec.SpaceID == "" {
			rec.SpaceID = s.ActiveSpaceID
		}
		if s.Space(rec.SpaceID) == nil {
			return unknownSpace(rec.SpaceID)
		}
		rec.ContextKey = contextKey
		if rec.ContextKey == "" {
			rec.ContextKey = state.SpaceContextKey(rec.SpaceID)
		}
		return s.AddBrowserTab(rec)
	})
	if err != nil {
		return state.BrowserTab{}, err
	}
	if url == "about:blank" {
		// A blank tab (Ctrl+T) needs no page yet: the record is the tab,
		// and its page opens when the view or a tool first needs it, so
		// the address bar takes typing at once even while Chromium starts.
		return t.updateTab(rec.ID, func(_ *state.State, b *state.BrowserTab) error {
			b.LoadState = browser.LoadComplete
			return nil
		})
	}
	tab, err := t.d.Browser.Open(ctx, browser.Spec{ID: rec.ID, ContextKey: rec.ContextKey, URL: url})
	if err != nil {
		// No page, no tab: drop the record (and whatever the engine got
		// to open) so a failed open leaves nothing behind.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		_ = t.d.Browser.CloseTab(cctx, rec.ID)
		cancel()
		_ = t.d.Store.Update(func(s *state.State) error {
			_, err := s.RemoveBrowserTab(rec.ID)
			return err
		})
		return state.BrowserTab{}, t.engineError(rec.ID, err)
	}
	return t.applyInfo(rec.ID, tab.Info())
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

// peek returns the live page of a known tab, or nil when it is not live;
// it never starts the browser.
func (t *tools) peek(id string) (*browser.Tab, error) {
	s := t.d.Store.Get()
	if s.BrowserTab(id) == nil {
		return nil, unknownTab(id)
	}
	return t.d.Browser.Peek(id), nil
}

// controllable returns the tab's record when the caller may control it
// (reference §3: the owner comes from the trusted context; agent and
// plugin callers must have claimed the tab).
func (t *tools) controllable(call *registry.Call, id string) (state.BrowserTab, error) {
	s := t.d.Store.Get()
	b := s.BrowserTab(id)
	if b == nil {
		return state.BrowserTab{}, unknownTab(id)
	}
	owner := ownerOf(call)
	switch {
	case b.OwnerID != nil && *b.OwnerID != owner:
		return state.BrowserTab{}, ownedByOther(id, *b.OwnerID)
	case b.OwnerID == nil && requiresClaim(call.Client.Caller):
		return state.BrowserTab{}, &protocol.ToolError{Code: protocol.CodePermissionDenied,
			Message: fmt.Sprintf("claim browser tab %s with browser_use_start before controlling it (%s callers must claim a tab first)", id, call.Client.Caller),
			Details: map[string]any{"tabId": id, "reason": "claim_required"}}
	}
	return *b, nil
}

// applyInfo copies a page's info into its record and returns the record.
func (t *tools) applyInfo(id string, info browser.PageInfo) (state.BrowserTab, error) {
	return t.updateTab(id, func(_ *state.State, b *state.BrowserTab) error {
		ApplyPageInfo(b, info, t.now())
		return nil
	})
}

// updateTab changes one browser tab inside the store's update and returns
// its new value.
func (t *tools) updateTab(id string, fn func(*state.State, *state.BrowserTab) error) (state.BrowserTab, error) {
	var out state.BrowserTab
	err := t.update(func(s *state.State) error {
		b := s.BrowserTab(id)
		if b == nil {
			return unknownTab(id)
		}
		if err := fn(s, b); err != nil {
			return err
		}
		out = s.BrowserTab(id).Clone()
		return nil
	})
	return out, err
}

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
	err := t.d.Store.Update(fn)
	var te *protocol.ToolError
	if err == nil || errors.As(err, &te) {
		return err
	}
	return &protocol.ToolError{Code: protocol.CodeToolFailed, Message: err.Error(), Err: err}
}

// writeScreenshot saves png as <artifacts>/screenshots/<tabId>-<unixms>.png
// (folders 0700, file 0600); two shots of one millisecond get distinct
// names.
func (t *tools) writeScreenshot(id string, png []byte) (string, error) {
	return artifact.Write(filepath.Join(t.d.ArtifactsDir, ScreenshotsDir), fmt.Sprintf("%s-%d", id, t.now()), ".png", png)
}

// engineError maps an error of the browser engine to a tool error. A
// context's end stays as it is, so the registry reports CANCELLED or
// TIMEOUT.
func (t *tools) engineError(id string, err error) error {
	var te *protocol.ToolError
	switch {
	case errors.As(err, &te):
		return err
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case browser.IsNoTab(err):
		return unknownTab(id)
	case browser.IsNotResponding(err):
		var nr *browser.NotRespondingError
		errors.As(err, &nr)
		return &protocol.ToolError{Code: protocol.CodeToolFailed, Err: err,
			Message: fmt.Sprintf("browser tab %s: page not responding (no answer within %s; a script may be stuck in a loop): refresh the tab or close it (close_browser_tab)", id, nr.After),
			Details: map[string]any{"tabId": id, "reason": "page_not_responding"}}
	case browser.IsNotFound(err):
		return &protocol.ToolError{Code: protocol.CodeToolFailed, Err: err,
			Message: "no Chromium found to run browser tabs: install Chromium: apt-get install chromium, or set MEITH_CHROME to its executable (" + err.Error() + ")"}
	}
	return &protocol.ToolError{Code: protocol.CodeToolFailed, Message: fmt.Sprintf("browser tab %s: %v", id, err), Err: err}
}

// elementError is engineError for click_element and type_text: an unknown
// element id says how to get current ones.
func (t *tools) elementError(id, elementID string, err error) error {
	if browser.IsNoElement(err) {
		return &protocol.ToolError{Code: protocol.CodeToolFailed, Err: err,
			Message: fmt.Sprintf("unknown element %q in browser tab %s: call get_browser_state for the current element ids", elementID, id)}
	}
	return t.engineError(id, err)
}

// ownerOf is the owner id of a caller: its session id, else its name. It
// comes from the trusted context (the socket replaces a client's session
// id with the connection's), never from the arguments.
func ownerOf(call *registry.Call) string {
	if call.Client.SessionID != "" {
		return call.Client.SessionID
	}
	return string(call.Client.Caller)
}

// requiresClaim reports whether a caller must claim a tab before
// controlling it: agents and plugins must; cli, renderer and internal may
// control a free tab directly.
func requiresClaim(c protocol.Caller) bool {
	return c == protocol.CallerAgent || c == protocol.CallerPlugin
}

func ownedByOther(id, owner string) error {
	return &protocol.ToolError{Code: protocol.CodePermissionDenied,
		Message: fmt.Sprintf("browser tab %s is controlled by another owner (%s); it must release it with browser_use_end first", id, owner),
		Details: map[string]any{"tabId": id, "ownerId": owner}}
}

// unknownTab is TOOL_FAILED, not VALIDATION_ERROR: the original throws
// "Unknown browser tab", which its registry reports as TOOL_FAILED.
func unknownTab(id string) error {
	return protocol.Errorf(protocol.CodeToolFailed, "unknown browser tab %q", id)
}

func unknownSpace(id string) error {
	return validationError("spaceId", fmt.Sprintf("unknown space %q (list_spaces lists them)", id))
}

// normalizeURL applies browser.NormalizeURL; a refusal is a
// VALIDATION_ERROR carrying its message.
func normalizeURL(raw string) (string, error) {
	u, err := browser.NormalizeURL(raw)
	if err != nil {
		return "", validationError("url", err.Error())
	}
	return u, nil
}

// validationError is a VALIDATION_ERROR shaped like the registry's own.
// msg must not quote an argument's value (ids may stay: the caller needs
// them to act); it goes through the value scanner all the same.
func validationError(field, msg string) error {
	msg = redact.String(msg)
	return &protocol.ToolError{Code: protocol.CodeValidation, Message: "Invalid arguments: " + msg,
		Details: registry.ValidationDetails{Issues: []registry.Issue{{Path: field, Message: msg}}}}
}
