package browsertools

import (
	"context"

	"github.com/meith-dev/meith/backend/registry"
)

// dialog is get_browser_dialog: the tab's open JavaScript dialog (none when
// the tab is not live). It never starts the browser.
func (t *tools) dialog(ctx context.Context, call *registry.Call, in TabInput) (DialogResult, error) {
	tab, err := t.peek(call, in.TabID)
	if err != nil {
		return DialogResult{}, err
	}
	out := DialogResult{TabID: in.TabID}
	if tab != nil {
		out.Dialog = tab.Dialog()
	}
	return out, nil
}

// handleDialog is browser_handle_dialog: it answers the page's open dialog
// (the caller must be allowed to control the tab).
func (t *tools) handleDialog(ctx context.Context, call *registry.Call, in DialogInput) (OKResult, error) {
	tab, err := t.live(ctx, call, in.TabID)
	if err != nil {
		return OKResult{}, err
	}
	if err := tab.HandleDialog(ctx, in.Accept, in.PromptText); err != nil {
		return OKResult{}, t.engineError(in.TabID, err)
	}
	return OKResult{OK: true}, nil
}

// linkAt is get_link_at.
func (t *tools) linkAt(ctx context.Context, call *registry.Call, in PointInput) (LinkResult, error) {
	if in.X < 0 || in.Y < 0 {
		return LinkResult{}, registry.InvalidArg("x", "x and y must be inside the viewport (0 or more)")
	}
	tab, err := t.live(ctx, call, in.TabID)
	if err != nil {
		return LinkResult{}, err
	}
	href, err := tab.LinkAt(ctx, in.X, in.Y)
	if err != nil {
		return LinkResult{}, t.engineError(in.TabID, err)
	}
	return LinkResult{Href: href}, nil
}
