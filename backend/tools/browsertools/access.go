package browsertools

import (
	"fmt"

	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
)

// controllable returns the tab's record when the caller may control it
// (reference §3: the owner comes from the trusted context; agent and
// plugin callers must have claimed the tab).
func (t *tools) controllable(call *registry.Call, id string) (state.BrowserTab, error) {
	s := t.d.Store.Get()
	b := s.BrowserTab(id)
	if b == nil {
		return state.BrowserTab{}, unknownTab(id)
	}
	if err := pluginTabRefused(call, b); err != nil {
		return state.BrowserTab{}, err
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

// ownedByOther refuses control of a tab another owner claimed.
func ownedByOther(id, owner string) error {
	return &protocol.ToolError{Code: protocol.CodePermissionDenied,
		Message: fmt.Sprintf("browser tab %s is controlled by another owner (%s); it must release it with browser_use_end first", id, owner),
		Details: map[string]any{"tabId": id, "ownerId": owner}}
}

// pluginTabRefused refuses a plugin tab to every caller but the window
// (renderer): a plugin's page holds its bridge, so driving the page (or
// claiming it, or reading its console and requests) would act with, or
// reveal what was got with, the plugin's approved grants. Internal callers
// are refused too: nothing in meith drives a plugin's page for it.
func pluginTabRefused(call *registry.Call, b *state.BrowserTab) error {
	if b.Mode != state.BrowserModePlugin || call.Client.Caller == protocol.CallerRenderer {
		return nil
	}
	return &protocol.ToolError{Code: protocol.CodePermissionDenied,
		Message: fmt.Sprintf("browser tab %s is a plugin tab (plugin %s): only the meith window may control or read it, since driving its page would act with the plugin's grants", b.ID, b.PluginID),
		Details: map[string]any{"tabId": b.ID, "pluginId": b.PluginID, "reason": "plugin_tab"}}
}
