package browsertools

import (
	"errors"
	"fmt"

	"github.com/meith-dev/meith/backend/browser"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// engineError maps an error of the browser engine to a tool error
// ([registry.MapError]: a context's end stays as it is, so the registry
// reports CANCELLED or TIMEOUT).
func (t *tools) engineError(id string, err error) error {
	return registry.MapError(err, func(err error) error {
		switch {
		case browser.IsNoTab(err):
			return unknownTab(id)
		case browser.IsNotResponding(err):
			var nr *browser.NotRespondingError
			errors.As(err, &nr)
			if tab := t.d.Browser.Peek(id); tab != nil {
				if d := tab.Dialog(); d != nil {
					return &protocol.ToolError{Code: protocol.CodeToolFailed, Err: err,
						Message: fmt.Sprintf("browser tab %s: the page waits on a %s dialog: answer it with browser_handle_dialog (get_browser_dialog shows it)", id, d.Type),
						Details: map[string]any{"tabId": id, "reason": "dialog_open", "dialogType": d.Type}}
				}
			}
			return &protocol.ToolError{Code: protocol.CodeToolFailed, Err: err,
				Message: fmt.Sprintf("browser tab %s: page not responding (no answer within %s; a script may be stuck in a loop): refresh the tab or close it (close_browser_tab)", id, nr.After),
				Details: map[string]any{"tabId": id, "reason": "page_not_responding"}}
		case browser.IsNoDialog(err):
			return &protocol.ToolError{Code: protocol.CodeToolFailed, Err: err,
				Message: fmt.Sprintf("browser tab %s has no open dialog to answer (get_browser_dialog shows it when one opens)", id),
				Details: map[string]any{"tabId": id, "reason": "no_dialog"}}
		case browser.IsNotFound(err):
			return &protocol.ToolError{Code: protocol.CodeToolFailed, Err: err,
				Message: "no Chromium found to run browser tabs: install Chromium: apt-get install chromium, or set MEITH_CHROME to its executable (" + err.Error() + ")"}
		}
		return &protocol.ToolError{Code: protocol.CodeToolFailed, Message: fmt.Sprintf("browser tab %s: %v", id, err), Err: err}
	})
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

// unknownTab is TOOL_FAILED, not VALIDATION_ERROR: the original throws
// "Unknown browser tab", which its registry reports as TOOL_FAILED.
func unknownTab(id string) error {
	return protocol.Errorf(protocol.CodeToolFailed, "unknown browser tab %q", id)
}

// unknownSpace refuses a spaceId argument that names no space.
func unknownSpace(id string) error {
	return registry.InvalidArg("spaceId", fmt.Sprintf("unknown space %q (list_spaces lists them)", id))
}

// normalizeURL applies browser.NormalizeURL; a refusal is a
// VALIDATION_ERROR carrying its message.
func normalizeURL(raw string) (string, error) {
	u, err := browser.NormalizeURL(raw)
	if err != nil {
		return "", registry.InvalidArg("url", err.Error())
	}
	return u, nil
}
