package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/chromedp"

	"github.com/meith-dev/meith/backend/internal/atomicfile"
)

// cookieSaveEvery is how often the cookies of every browser context are
// saved while the browser runs (they are also saved when a tab closes and
// at shutdown).
const cookieSaveEvery = time.Minute

// Browser contexts live in memory, so a space's logins would end with the
// browser. With [Options.CookieDir] set, each context's cookies are kept in
// <CookieDir>/<key>.json (0600) and put back when the context is created
// again after a restart; closing the context (its space) deletes them.

// cookieFile is where the cookies of the context key are kept.
func (m *Manager) cookieFile(key string) string {
	name := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || r == '.' {
			return '_'
		}
		return r
	}, key)
	return filepath.Join(m.opts.CookieDir, name+".json")
}

// restoreCookies puts the saved cookies of key into the new context id.
func (m *Manager) restoreCookies(ctx context.Context, id cdp.BrowserContextID, key string) {
	if m.opts.CookieDir == "" {
		return
	}
	b, err := os.ReadFile(m.cookieFile(key))
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	var saved []*network.Cookie
	if err == nil {
		err = json.Unmarshal(b, &saved)
	}
	if err != nil {
		m.logf("warn", "cookies of %s: %v", key, err)
		return
	}
	now := float64(time.Now().Unix())
	params := make([]*network.CookieParam, 0, len(saved))
	for _, c := range saved {
		if c == nil || (!c.Session && c.Expires > 0 && c.Expires < now) {
			continue
		}
		p := &network.CookieParam{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, Secure: c.Secure,
			HTTPOnly: c.HTTPOnly, SameSite: c.SameSite, Priority: c.Priority, SourceScheme: c.SourceScheme,
			SourcePort: c.SourcePort, PartitionKey: c.PartitionKey}
		if !c.Session && c.Expires > 0 {
			p.Expires = cdp.TimeSinceEpoch(c.Expires)
		}
		params = append(params, p)
	}
	if len(params) == 0 {
		return
	}
	if _, err := chromedp.CallBrowser(ctx, storage.SetCookies, storage.SetCookiesParams{Cookies: params, BrowserContextID: id}); err != nil {
		m.logf("warn", "restore the cookies of %s: %v", key, err)
	}
}

// saveCookies writes the cookies of every live context.
func (m *Manager) saveCookies(ctx context.Context) {
	if m.opts.CookieDir == "" {
		return
	}
	m.mu.Lock()
	run := m.run
	contexts := make(map[string]cdp.BrowserContextID, len(m.contexts))
	for k, v := range m.contexts {
		contexts[k] = v
	}
	m.mu.Unlock()
	if run == nil || run.ctx.Err() != nil {
		return
	}
	for key, id := range contexts {
		if err := m.saveContextCookies(withCancelOf(run.ctx, ctx), key, id); err != nil {
			m.logf("warn", "save the cookies of %s: %v", key, err)
		}
	}
}

func (m *Manager) saveContextCookies(ctx context.Context, key string, id cdp.BrowserContextID) error {
	res, err := chromedp.CallBrowser(ctx, storage.GetCookies, storage.GetCookiesParams{BrowserContextID: id})
	if err != nil {
		return err
	}
	cookies := res.Cookies
	if cookies == nil {
		cookies = []*network.Cookie{}
	}
	b, err := json.Marshal(cookies)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(m.opts.CookieDir, 0o700); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(m.cookieFile(key), b, 0o600); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// forgetCookies deletes the saved cookies of a closed context.
func (m *Manager) forgetCookies(key string) {
	if m.opts.CookieDir == "" {
		return
	}
	if err := os.Remove(m.cookieFile(key)); err != nil && !errors.Is(err, os.ErrNotExist) {
		m.logf("warn", "forget the cookies of %s: %v", key, err)
	}
}

// saveCookiesEvery saves the cookies now and then while run lives.
func (m *Manager) saveCookiesEvery(run *session) {
	tick := time.NewTicker(cookieSaveEvery)
	defer tick.Stop()
	for {
		select {
		case <-run.done:
			return
		case <-tick.C:
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			m.saveCookies(ctx)
			cancel()
		}
	}
}
