package browsertools

import "encoding/json"

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

// DialogInput is the input of browser_handle_dialog.
type DialogInput struct {
	TabID  string `json:"tabId" jsonschema:"the browser tab (btab_…)"`
	Accept bool   `json:"accept" jsonschema:"true presses OK (or leaves the page, for beforeunload); false presses Cancel"`
	// PromptText is a prompt's answer.
	PromptText string `json:"promptText,omitempty" jsonschema:"the text a prompt() answers with (only when accept is true)"`
}

// PointInput is the input of get_link_at.
type PointInput struct {
	TabID string  `json:"tabId" jsonschema:"the browser tab (btab_…)"`
	X     float64 `json:"x" jsonschema:"horizontal position in the page's CSS pixels from the viewport's left edge"`
	Y     float64 `json:"y" jsonschema:"vertical position in the page's CSS pixels from the viewport's top edge"`
}
