package browsertools

import (
	"time"

	"github.com/meith-dev/meith/backend/browser"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/state"
)

// StateHooks returns opts with the engine callbacks that tie live tabs to
// their records in st: Lookup reopens a tab from its record, OnChange
// mirrors a page into its record, OnPopup records a page opened by another
// as a new active tab next to its opener, and NewTabID names it. Records
// that no longer exist are left alone. now defaults to time.Now.
func StateHooks(st *state.Store, opts browser.Options, now func() time.Time) browser.Options {
	if now == nil {
		now = time.Now
	}
	opts.Lookup = func(id string) (browser.Spec, bool) {
		s := st.Get()
		b := s.BrowserTab(id)
		if b == nil {
			return browser.Spec{}, false
		}
		return browser.Spec{ID: b.ID, ContextKey: b.BrowserContext(), URL: b.URL}, true
	}
	opts.OnChange = func(id string, info browser.PageInfo) {
		_ = st.Update(func(s *state.State) error {
			if b := s.BrowserTab(id); b != nil {
				ApplyPageInfo(b, info, now().UnixMilli())
			}
			return nil
		})
	}
	opts.OnPopup = func(openerID, id string, info browser.PageInfo) {
		_ = st.Update(func(s *state.State) error {
			opener := s.BrowserTab(openerID)
			if opener == nil || s.BrowserTab(id) != nil {
				return nil
			}
			ms := now().UnixMilli()
			b := state.BrowserTab{ID: id, SpaceID: opener.SpaceID, URL: info.URL, Title: info.URL,
				LoadState: browser.LoadLoading, Mode: state.BrowserModeWeb, ContextKey: opener.BrowserContext(),
				CreatedAt: ms}
			ApplyPageInfo(&b, info, ms)
			return s.AddBrowserTab(b)
		})
	}
	opts.NewTabID = func() string { return protocol.NewID(state.BrowserTabPrefix) }
	return opts
}

// ApplyPageInfo copies a page's info into its record. The title is the
// page's; a page that reports none shows its URL (a record keeps the title
// it had while the URL stays the same, such as the one open_browser_tab
// was given).
func ApplyPageInfo(b *state.BrowserTab, info browser.PageInfo, nowMs int64) {
	switch {
	case info.Title != "":
		b.Title = info.Title
	case info.URL != "" && info.URL != b.URL:
		b.Title = info.URL
	}
	if info.URL != "" {
		b.URL = info.URL
	}
	b.Favicon = info.Favicon
	if info.LoadState != "" {
		b.LoadState = info.LoadState
	}
	b.CanGoBack = info.CanGoBack
	b.CanGoForward = info.CanGoForward
	b.ErrorText = info.ErrorText
	b.UpdatedAt = nowMs
}
