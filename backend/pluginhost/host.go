// Package pluginhost runs plugin pages: a plugin's page is a tab of meith's
// Chromium, shown like browser tabs (a state.BrowserTab of mode plugin in
// the browser context "plugin:<id>"), and it reaches meith only through the
// bridge the host installs in the targets it creates for that plugin (see
// docs/decisions/2026-12-02-plugin-tabs.md).
//
// A local plugin (folder or archive) is served by the host's loopback file
// server from an origin of its own, http://<label>.plugins.localhost:<port>,
// from its root folder only; a dev-url plugin is loaded from its dev
// server. The bridge (a CDP binding plus a preload that defines
// window.meithPlugin) answers only the main frame's page world, only while
// the page stays in the plugin's scope (its origin and its entry's folder):
// a main-frame navigation out of scope drops it for good. The plugin's
// identity is the target the host created, never anything the page says;
// every call runs through the registry as caller plugin with session id
// "plugin:<id>", so the permission service decides by the plugin's
// approved capabilities and the audit names the plugin.
//
// The namespaces of window.meithPlugin exist only when approved: identity
// always, tools (list, call with events and cancel), storage
// (getBrowserTabs and getWorkspaceTabs without plugin tabs), cdp (send,
// through cdp_command with the plugin as owner) and ai (streamText,
// through ai_complete). [Host.Revoke] (disable) takes the bridge from every
// open tab of a plugin at once; [Host.Close] (uninstall) also closes them.
package pluginhost

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"strings"
	"sync"
	"time"

	"github.com/meith-dev/meith/backend/browser"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
)

// The API scopes a plugin may be approved for.
const (
	ScopeTools   = "tools"
	ScopeStorage = "storage"
	ScopeCDP     = "cdp"
	ScopeAI      = "ai"
)

// Info is what the host needs of an installed plugin.
type Info struct {
	ID      string
	Name    string
	Version string
	// Root is a local plugin's folder (its real path; archives are
	// extracted there); "" for a dev-url plugin.
	Root string
	// Entry is the entry page relative to Root ("" means index.html).
	Entry string
	// DevURL is a dev-url plugin's page: its origin is the scope.
	DevURL string
	// Scopes are the approved API scopes (tools, storage, cdp, ai).
	Scopes []string
	// Capabilities are the approved capabilities (the identity shows
	// them; the permission service decides with its own PluginGrants).
	Capabilities []protocol.Capability
	// Enabled says the plugin may run.
	Enabled bool
}

// Directory is where the host reads plugin records; it is asked again on
// every bridge call, so a change (disable, a scope taken back) counts at
// once.
type Directory interface {
	Plugin(id string) (Info, bool)
}

// Options configures a [Host].
type Options struct {
	Directory Directory
	Browser   *browser.Manager
	Store     *state.Store
	// Registry runs the bridge's calls.
	Registry *registry.Registry
	// Logf receives the host's log lines (level debug|info|warn|error).
	Logf func(level, format string, args ...any)
	// OnChange, when set, is told when a plugin tab's bridge changes
	// (connecting, live, dropped), from a goroutine of the host.
	OnChange func(TabStatus)
	// Now is the clock of tab records (default time.Now).
	Now func() time.Time
	// ListenAddr is the file server's address (default 127.0.0.1:0).
	ListenAddr string
}

// Bridge states of [TabStatus].
const (
	BridgeConnecting = "connecting" // opened, the entry not committed yet
	BridgeLive       = "live"
	BridgeDropped    = "dropped"
)

// TabStatus is the bridge of one plugin tab.
type TabStatus struct {
	TabID    string `json:"tabId"`
	PluginID string `json:"pluginId"`
	Bridge   string `json:"bridge"`
	// Reason says why a dropped bridge was dropped.
	Reason string `json:"reason,omitempty"`
}

// Host opens plugin tabs and answers their bridges. It is safe for
// concurrent use.
type Host struct {
	opts   Options
	ctx    context.Context // ends at Shutdown: every bridge call's parent
	cancel context.CancelFunc

	srvMu sync.Mutex
	srv   *fileServer

	mu     sync.Mutex
	tabs   map[string]*pluginTab // by tab id
	labels map[string]string     // host label → plugin id
	closed bool
}

// New returns a host; its file server starts with the first local plugin
// tab.
func New(opts Options) *Host {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.ListenAddr == "" {
		opts.ListenAddr = "127.0.0.1:0"
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Host{opts: opts, ctx: ctx, cancel: cancel, tabs: map[string]*pluginTab{}, labels: map[string]string{}}
}

func (h *Host) logf(level, format string, args ...any) {
	if h.opts.Logf != nil {
		h.opts.Logf(level, format, args...)
	}
}

// OpenRequest says which plugin to open and where.
type OpenRequest struct {
	PluginID string
	// SpaceID is the space of the tab ("" the active space).
	SpaceID string
}

// Open opens a new tab for an installed, enabled plugin at its entry, with
// its bridge, and returns the tab's record (mode plugin). Its errors are
// *protocol.ToolError: TOOL_FAILED for an unknown or disabled plugin (reason
// not_found, not_enabled) or a page that cannot open, VALIDATION_ERROR for
// an unknown space.
func (h *Host) Open(ctx context.Context, req OpenRequest) (state.BrowserTab, error) {
	info, err := h.enabledPlugin(req.PluginID)
	if err != nil {
		return state.BrowserTab{}, err
	}
	entry, sc, err := h.locate(info)
	if err != nil {
		return state.BrowserTab{}, err
	}
	now := h.opts.Now().UnixMilli()
	rec := state.BrowserTab{ID: protocol.NewID(state.BrowserTabPrefix), URL: entry, Title: info.Name,
		LoadState: browser.LoadLoading, Mode: state.BrowserModePlugin, PluginID: info.ID,
		ContextKey: state.PluginContextKey(info.ID), CreatedAt: now, UpdatedAt: now}
	err = h.opts.Store.Update(func(s *state.State) error {
		rec.SpaceID = req.SpaceID
		if rec.SpaceID == "" {
			rec.SpaceID = s.ActiveSpaceID
		}
		if s.Space(rec.SpaceID) == nil {
			return registry.InvalidArg("spaceId", fmt.Sprintf("unknown space %q (list_spaces lists them)", rec.SpaceID))
		}
		return s.AddBrowserTab(rec)
	})
	if err != nil {
		return state.BrowserTab{}, registry.MapError(err, nil)
	}
	pt := h.register(rec, info, sc)
	tab, err := h.opts.Browser.Open(ctx, browser.Spec{ID: rec.ID, ContextKey: rec.ContextKey, URL: entry, Bridge: pt.bridgeSpec()})
	if err != nil {
		pt.drop("the page could not open", false)
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		_ = h.opts.Browser.CloseTab(cctx, rec.ID)
		cancel()
		h.forget(pt)
		_ = h.opts.Store.Update(func(s *state.State) error {
			_, err := s.RemoveBrowserTab(rec.ID)
			return err
		})
		return state.BrowserTab{}, registry.MapError(err, func(err error) error {
			return &protocol.ToolError{Code: protocol.CodeToolFailed, Err: err,
				Message: fmt.Sprintf("open plugin %s: %v", info.ID, err)}
		})
	}
	return h.applyInfo(rec.ID, tab.Info())
}

// enabledPlugin reads an installed and enabled plugin.
func (h *Host) enabledPlugin(id string) (Info, error) {
	info, ok := h.opts.Directory.Plugin(id)
	if !ok {
		return Info{}, &protocol.ToolError{Code: protocol.CodeToolFailed,
			Message: fmt.Sprintf("Plugin %q is not installed", id),
			Details: map[string]any{"pluginId": id, "reason": "not_found"}}
	}
	if !info.Enabled {
		return Info{}, &protocol.ToolError{Code: protocol.CodeToolFailed,
			Message: fmt.Sprintf("Plugin %s is not enabled (enable it in Settings → Plugins or with set_plugin_enabled)", id),
			Details: map[string]any{"pluginId": id, "reason": "not_enabled"}}
	}
	return info, nil
}

// locate returns a plugin's entry URL and scope, starting the file server
// for a local plugin.
func (h *Host) locate(info Info) (string, scope, error) {
	if info.DevURL != "" {
		u, err := browser.NormalizeURL(info.DevURL)
		origin := canonicalOrigin(u)
		if err != nil || origin == "" {
			return "", scope{}, &protocol.ToolError{Code: protocol.CodeToolFailed,
				Message: fmt.Sprintf("Plugin %s: its dev URL %q is not an http(s) URL", info.ID, info.DevURL),
				Details: map[string]any{"pluginId": info.ID, "reason": "invalid"}}
		}
		return u, scope{origin: origin, prefix: "/"}, nil
	}
	if info.Root == "" {
		return "", scope{}, &protocol.ToolError{Code: protocol.CodeToolFailed,
			Message: fmt.Sprintf("Plugin %s has neither a folder nor a dev URL", info.ID),
			Details: map[string]any{"pluginId": info.ID, "reason": "invalid"}}
	}
	srv, err := h.server()
	if err != nil {
		return "", scope{}, &protocol.ToolError{Code: protocol.CodeToolFailed, Err: err,
			Message: fmt.Sprintf("Plugin %s: the plugin server cannot start: %v", info.ID, err)}
	}
	label := hostLabel(info.ID)
	h.mu.Lock()
	h.labels[label] = info.ID
	h.mu.Unlock()
	p, prefix := entryPath(info.Entry)
	origin := srv.origin(label)
	return origin + p, scope{origin: origin, prefix: prefix}, nil
}

// server returns the running file server, starting it.
func (h *Host) server() (*fileServer, error) {
	h.srvMu.Lock()
	defer h.srvMu.Unlock()
	if h.srv != nil {
		return h.srv, nil
	}
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		return nil, errors.New("pluginhost: shut down")
	}
	srv, err := startServer(h, h.opts.ListenAddr)
	if err != nil {
		return nil, err
	}
	h.srv = srv
	return srv, nil
}

// pluginForLabel is the plugin a file server request's host names.
func (h *Host) pluginForLabel(label string) (Info, bool) {
	h.mu.Lock()
	id, ok := h.labels[label]
	h.mu.Unlock()
	if !ok {
		return Info{}, false
	}
	return h.opts.Directory.Plugin(id)
}

// register makes pt the plugin tab of rec's id (a tab reopened replaces
// the one it had).
func (h *Host) register(rec state.BrowserTab, info Info, sc scope) *pluginTab {
	pt := newPluginTab(h, rec, info, sc)
	h.mu.Lock()
	old := h.tabs[rec.ID]
	h.tabs[rec.ID] = pt
	h.mu.Unlock()
	if old != nil {
		old.drop("the tab was reopened", false)
	}
	h.changed(pt.status())
	return pt
}

// forget removes pt (when it is still the tab's).
func (h *Host) forget(pt *pluginTab) {
	h.mu.Lock()
	if h.tabs[pt.tabID] == pt {
		delete(h.tabs, pt.tabID)
	}
	h.mu.Unlock()
}

func (h *Host) changed(st TabStatus) {
	if h.opts.OnChange != nil {
		h.opts.OnChange(st)
	}
}

// Status returns the bridge of a live plugin tab.
func (h *Host) Status(tabID string) (TabStatus, bool) {
	h.mu.Lock()
	pt := h.tabs[tabID]
	h.mu.Unlock()
	if pt == nil {
		return TabStatus{}, false
	}
	return pt.status(), true
}

// Tabs lists the live plugin tabs of a plugin ("" every plugin).
func (h *Host) Tabs(pluginID string) []TabStatus {
	var out []TabStatus
	for _, pt := range h.tabsOf(pluginID) {
		out = append(out, pt.status())
	}
	return out
}

func (h *Host) tabsOf(pluginID string) []*pluginTab {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []*pluginTab
	for _, pt := range h.tabs {
		if pluginID == "" || pt.pluginID == pluginID {
			out = append(out, pt)
		}
	}
	return out
}

// Revoke takes the bridge from every open tab of a plugin at once (disable):
// calls in flight are cancelled, the binding and preload are removed, and
// the page is replaced by a notice that says why (the tab stays, without
// the plugin's page; reopening the plugin gives a new tab). It returns how
// many tabs it revoked. A plugin tab that is not live gets the notice when
// it reopens, since the plugin is then not enabled.
func (h *Host) Revoke(ctx context.Context, pluginID, reason string) int {
	if reason == "" {
		reason = "the plugin was disabled"
	}
	tabs := h.tabsOf(pluginID)
	var wg sync.WaitGroup
	for _, pt := range tabs {
		pt.drop(reason, true)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if tab := h.opts.Browser.Peek(pt.tabID); tab != nil {
				nctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				defer cancel()
				if _, err := tab.Navigate(nctx, noticeURL(pt.name, reason)); err != nil {
					h.logf("warn", "plugin tab %s: show the revocation notice: %v", pt.tabID, err)
				}
			}
		}()
	}
	wg.Wait()
	return len(tabs)
}

// Close revokes a plugin's tabs, closes their pages, removes their records
// (live or not) and forgets the plugin's browser context, cookies included
// (uninstall). It returns the ids of the tabs it removed.
func (h *Host) Close(ctx context.Context, pluginID string) ([]string, error) {
	for _, pt := range h.tabsOf(pluginID) {
		pt.drop("the plugin was uninstalled", true)
		h.forget(pt)
	}
	h.mu.Lock()
	delete(h.labels, hostLabel(pluginID))
	h.mu.Unlock()
	var ids []string
	err := h.opts.Store.Update(func(s *state.State) error {
		ids = ids[:0]
		for _, b := range s.BrowserTabs {
			if b.Mode == state.BrowserModePlugin && b.PluginID == pluginID {
				ids = append(ids, b.ID)
			}
		}
		for _, id := range ids {
			if _, err := s.RemoveBrowserTab(id); err != nil {
				return err
			}
		}
		return nil
	})
	var errs []error
	if err != nil {
		errs = append(errs, err)
	}
	// The context goes with every page in it (popups are never adopted).
	if err := h.opts.Browser.CloseContext(ctx, state.PluginContextKey(pluginID)); err != nil {
		errs = append(errs, err)
	}
	return ids, errors.Join(errs...)
}

// Shutdown drops every bridge and stops the file server.
func (h *Host) Shutdown(ctx context.Context) {
	h.mu.Lock()
	h.closed = true
	tabs := make([]*pluginTab, 0, len(h.tabs))
	for _, pt := range h.tabs {
		tabs = append(tabs, pt)
	}
	h.mu.Unlock()
	for _, pt := range tabs {
		pt.drop("meith is shutting down", true)
	}
	h.cancel()
	h.srvMu.Lock()
	if h.srv != nil {
		h.srv.close()
		h.srv = nil
	}
	h.srvMu.Unlock()
}

// Reopen returns the spec that reopens a plugin tab that is not live
// (after a restart or a crash), for the engine's Options.Lookup: at the
// plugin's entry with a new bridge when the plugin is installed and
// enabled, else on a notice without one. handled is false when the record
// is not a plugin tab's.
func (h *Host) Reopen(id string) (spec browser.Spec, ok, handled bool) {
	s := h.opts.Store.Get()
	rec := s.BrowserTab(id)
	if rec == nil || rec.Mode != state.BrowserModePlugin {
		return browser.Spec{}, false, false
	}
	spec = browser.Spec{ID: rec.ID, ContextKey: state.PluginContextKey(rec.PluginID)}
	info, err := h.enabledPlugin(rec.PluginID)
	var entry string
	var sc scope
	if err == nil {
		entry, sc, err = h.locate(info)
	}
	if err != nil {
		spec.URL = noticeURL(cmp.Or(rec.Title, rec.PluginID), errMessage(err))
		return spec, true, true
	}
	// Two lookups of one tab at once (the live view and a tool) open one
	// page: the engine waits for the first open, so the second must not
	// replace the bridge the first is installing.
	h.mu.Lock()
	pt := h.tabs[rec.ID]
	h.mu.Unlock()
	if pt == nil || pt.status().Bridge != BridgeConnecting || pt.pluginID != info.ID {
		pt = h.register(*rec, info, sc)
	}
	spec.URL, spec.Bridge = entry, pt.bridgeSpec()
	return spec, true, true
}

// WrapLookup returns the engine's Options.Lookup that reopens plugin tabs
// through the host that host returns, and every other tab through next.
// host is called at each lookup (the composition root builds the engine
// before the host); while it returns nil, plugin tabs are not reopened.
func WrapLookup(next func(id string) (browser.Spec, bool), host func() *Host) func(id string) (browser.Spec, bool) {
	return func(id string) (browser.Spec, bool) {
		if h := host(); h != nil {
			if spec, ok, handled := h.Reopen(id); handled {
				return spec, ok
			}
		}
		if next == nil {
			return browser.Spec{}, false
		}
		spec, ok := next(id)
		if ok && strings.HasPrefix(spec.ContextKey, "plugin:") {
			return browser.Spec{}, false
		}
		return spec, ok
	}
}

// applyInfo copies a page's info into its record (as the browser tools'
// hooks do) and returns the record.
func (h *Host) applyInfo(id string, info browser.PageInfo) (state.BrowserTab, error) {
	var out state.BrowserTab
	err := h.opts.Store.Update(func(s *state.State) error {
		b := s.BrowserTab(id)
		if b == nil {
			return &protocol.ToolError{Code: protocol.CodeToolFailed, Message: fmt.Sprintf("plugin tab %s was closed while it opened", id)}
		}
		if info.Title != "" {
			b.Title = info.Title
		}
		if info.URL != "" {
			b.URL = info.URL
		}
		b.Favicon = info.Favicon
		if info.LoadState != "" {
			b.LoadState = info.LoadState
		}
		b.CanGoBack, b.CanGoForward, b.ErrorText = info.CanGoBack, info.CanGoForward, info.ErrorText
		b.UpdatedAt = h.opts.Now().UnixMilli()
		b.ClampPageFields()
		out = b.Clone()
		return nil
	})
	return out, registry.MapError(err, nil)
}

// noticeURL is the page a revoked plugin tab shows.
func noticeURL(name, reason string) string {
	page := `<!doctype html><html><head><meta charset="utf-8"><title>` + html.EscapeString(name) + ` — plugin stopped</title>` +
		`<style>:root{color-scheme:light dark;font-family:system-ui,sans-serif}body{margin:0;padding:2rem;line-height:1.5}</style></head>` +
		`<body><h1>` + html.EscapeString(name) + `</h1><p>This plugin tab no longer has access to meith: ` + html.EscapeString(reason) +
		`.</p><p>Its page was unloaded. Open the plugin again from Settings → Plugins once it is enabled.</p></body></html>`
	return "data:text/html;charset=utf-8;base64," + base64.StdEncoding.EncodeToString([]byte(page))
}

// errMessage is a tool error's message, else the error's text.
func errMessage(err error) string {
	var te *protocol.ToolError
	if errors.As(err, &te) {
		return te.Message
	}
	return err.Error()
}
