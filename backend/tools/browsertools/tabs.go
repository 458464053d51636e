package browsertools

import (
	"context"
	"strings"
	"time"

	"github.com/meith-dev/meith/backend/browser"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
)

// getTabs is get_tabs.
func (t *tools) getTabs(ctx context.Context, call *registry.Call, in SpaceInput) (TabsResult, error) {
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
}

// activeTab is get_active_tab.
func (t *tools) activeTab(ctx context.Context, call *registry.Call, in SpaceInput) (*state.BrowserTab, error) {
	s := t.d.Store.Get()
	id := in.SpaceID
	if id == "" {
		id = s.ActiveSpaceID
	}
	if s.Space(id) == nil {
		return nil, unknownSpace(id)
	}
	return s.ActiveBrowserTab(id), nil
}

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
			return state.BrowserTab{}, registry.InvalidArg("isolated", "isolation needs an agent session: only an agent's tabs get a browser context of their own")
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

// focus is focus_browser_tab. There is no ownership check, as in the
// original: focusing shows a tab, it does not drive its page.
func (t *tools) focus(ctx context.Context, call *registry.Call, in TabInput) (state.BrowserTab, error) {
	return t.updateTab(in.TabID, func(s *state.State, _ *state.BrowserTab) error { return s.ShowTab(in.TabID) })
}

// closeTab is close_browser_tab.
func (t *tools) closeTab(ctx context.Context, call *registry.Call, in TabInput) (ClosedResult, error) {
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
}

// claim is browser_use_start.
func (t *tools) claim(ctx context.Context, call *registry.Call, in TabInput) (state.BrowserTab, error) {
	owner := ownerOf(call)
	return t.updateTab(in.TabID, func(_ *state.State, b *state.BrowserTab) error {
		if err := pluginTabRefused(call, b); err != nil {
			return err
		}
		if b.OwnerID != nil && *b.OwnerID != owner {
			return ownedByOther(b.ID, *b.OwnerID)
		}
		b.OwnerID = &owner
		b.UpdatedAt = t.now()
		return nil
	})
}

// release is browser_use_end.
func (t *tools) release(ctx context.Context, call *registry.Call, in ReleaseInput) (state.BrowserTab, error) {
	owner := ownerOf(call)
	return t.updateTab(in.TabID, func(_ *state.State, b *state.BrowserTab) error {
		if b.OwnerID == nil {
			return nil
		}
		// Only the owner releases; the runtime itself (internal) may
		// force it.
		if *b.OwnerID != owner && call.Client.Caller != protocol.CallerInternal {
			return ownedByOther(b.ID, *b.OwnerID)
		}
		b.OwnerID = nil
		b.UpdatedAt = t.now()
		return nil
	})
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
