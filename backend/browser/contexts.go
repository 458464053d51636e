package browser

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Browser contexts: one per context key ("space:<id>", "session:<id>"),
// created on first use, hardened (permissions denied, downloads routed) and
// disposed of with their tabs.

// browserContext returns the browser context for key, creating and
// hardening it on first use.
func (m *Manager) browserContext(ctx context.Context, run *session, key string) (cdp.BrowserContextID, error) {
	m.mu.Lock()
	id, ok := m.contexts[key]
	m.mu.Unlock()
	if ok {
		return id, nil
	}
	res, err := chromedp.CallBrowser(withCancelOf(run.ctx, ctx), target.CreateBrowserContext, target.CreateBrowserContextParams{})
	if err != nil {
		return "", fmt.Errorf("browser: create browser context: %w", err)
	}
	id = res.BrowserContextID
	m.harden(withCancelOf(run.ctx, ctx), id)
	m.restoreCookies(withCancelOf(run.ctx, ctx), id, key)
	m.mu.Lock()
	if prev, ok := m.contexts[key]; ok { // lost a race: keep the first
		m.mu.Unlock()
		chromedp.CallBrowser(run.ctx, target.DisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: id})
		return prev, nil
	}
	m.contexts[key] = id
	m.mu.Unlock()
	return id, nil
}

// deniedPermissions are the permissions every browser context denies:
// nothing a page asks for reaches the user's devices or clipboard.
var deniedPermissions = []browser.PermissionDescriptor{
	{Name: "geolocation"}, {Name: "notifications"}, {Name: "camera"}, {Name: "microphone"},
	{Name: "midi", Sysex: true}, {Name: "clipboard-read"}, {Name: "display-capture"},
	{Name: "idle-detection"}, {Name: "push", UserVisibleOnly: true}, {Name: "background-sync"},
	{Name: "persistent-storage"}, {Name: "screen-wake-lock"}, {Name: "window-management"},
	{Name: "local-fonts"}, {Name: "storage-access"}, {Name: "accelerometer"}, {Name: "gyroscope"},
	{Name: "magnetometer"}, {Name: "ambient-light-sensor"}, {Name: "payment-handler"},
	{Name: "nfc"}, {Name: "keyboard-lock"}, {Name: "pointer-lock"},
}

// harden denies the permissions and routes downloads of a browser context.
func (m *Manager) harden(ctx context.Context, id cdp.BrowserContextID) {
	for _, p := range deniedPermissions {
		p := p
		if _, err := chromedp.CallBrowser(ctx, browser.SetPermission, browser.SetPermissionParams{
			Permission: &p, Setting: browser.PermissionSettingDenied, BrowserContextID: id,
		}); err != nil {
			m.logf("debug", "deny permission %s: %v", p.Name, err)
		}
	}
	m.routeDownloads(ctx, id)
}

// CloseContext closes every tab of a browser context and disposes of it
// (its cookies and storage are gone).
func (m *Manager) CloseContext(ctx context.Context, key string) error {
	m.mu.Lock()
	var doomed []*Tab
	for id, t := range m.tabs {
		if t.key == key {
			doomed = append(doomed, t)
			delete(m.tabs, id)
			delete(m.byTarget, t.targetID)
		}
	}
	bc, ok := m.contexts[key]
	delete(m.contexts, key)
	run := m.run
	m.mu.Unlock()
	for _, t := range doomed {
		t.close()
	}
	m.forgetCookies(key)
	if ok && run != nil && run.ctx.Err() == nil {
		if _, err := chromedp.CallBrowser(withCancelOf(run.ctx, ctx), target.DisposeBrowserContext,
			target.DisposeBrowserContextParams{BrowserContextID: bc}); err != nil {
			return fmt.Errorf("browser: dispose of %s: %w", key, err)
		}
	}
	return nil
}
