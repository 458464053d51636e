package browsertools

import (
	"encoding/json"

	"github.com/meith-dev/meith/backend/browser"
	"github.com/meith-dev/meith/backend/state"
)

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

// DialogResult is the result of get_browser_dialog.
type DialogResult struct {
	TabID string `json:"tabId"`
	// Dialog is the page's open JavaScript dialog, null when none is open.
	Dialog *browser.Dialog `json:"dialog"`
}

// LinkResult is the result of get_link_at.
type LinkResult struct {
	// Href is the address of the link under the point, "" when none.
	Href string `json:"href"`
}
