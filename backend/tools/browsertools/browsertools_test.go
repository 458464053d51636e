package browsertools_test

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/applog"
	"github.com/meith-dev/meith/backend/browser"
	"github.com/meith-dev/meith/backend/client"
	"github.com/meith-dev/meith/backend/instance"
	"github.com/meith-dev/meith/backend/instance/instancetest"
	"github.com/meith-dev/meith/backend/permission"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
	"github.com/meith-dev/meith/backend/tools/browsertools"
)

// TestCapabilities: the twenty tools of reference §3.1 with their exact
// capabilities (no browser needed).
func TestCapabilities(t *testing.T) {
	r := registry.New(registry.Options{})
	browsertools.Register(r, browsertools.Deps{})
	cb, ro, net := protocol.CapControlsBrowser, protocol.CapReadOnly, protocol.CapAccessesNetwork
	want := map[string][]protocol.Capability{
		"get_tabs": {ro}, "get_active_tab": {ro}, "open_browser_tab": {cb}, "navigate": {cb}, "go_back": {cb},
		"go_forward": {cb}, "refresh": {cb}, "focus_browser_tab": {cb}, "close_browser_tab": {cb},
		"browser_use_start": {cb}, "browser_use_end": {cb}, "take_screenshot": {cb, ro}, "get_browser_state": {ro, cb},
		"click_element": {cb}, "type_text": {cb}, "scroll_page": {cb}, "send_keys": {cb}, "cdp_command": {cb, net},
		"get_console_logs": {ro}, "get_network_logs": {ro, net},
		"get_browser_dialog": {ro}, "browser_handle_dialog": {cb}, "get_link_at": {ro, cb},
	}
	if names := r.Names(); len(names) != 23 {
		t.Errorf("registered %d tools %v, want the original's 20 and meith's 3", len(names), names)
	}
	for name, caps := range want {
		d, ok := r.Describe(name)
		if !ok || fmt.Sprint(d.Capabilities) != fmt.Sprint(caps) {
			t.Errorf("%s: registered %v with %v, want %v", name, ok, d.Capabilities, caps)
		}
	}
}

// TestBrowserTools drives every tool against one real runtime and one real
// Chromium, with pages served on 127.0.0.1.
func TestBrowserTools(t *testing.T) {
	needChromium(t)
	srv := site(t)
	inst := instancetest.New(t, instancetest.WithGrantCLI(protocol.CapControlsBrowser, protocol.CapWritesFiles, protocol.CapDestructive))
	c := caller{t: t, reg: inst.Registry()}
	url := func(path string) string { return srv.URL + path }
	defaultSpace := inst.State().Get().ActiveSpaceID

	// The first tab: opened by the window, it is the space's active tab.
	var tabA state.BrowserTab
	c.ok(renderer, "open_browser_tab", map[string]any{"url": url("/a")}, &tabA)

	// A tool that changes a tab record answers once state.json holds the
	// change (no debounce window a kill -9 could lose).
	t.Run("durable", func(t *testing.T) {
		c := caller{t: t, reg: inst.Registry()}
		who := protocol.ClientInfo{Caller: protocol.CallerCLI, SessionID: "socket:durable"}
		c.ok(who, "browser_use_start", map[string]any{"tabId": tabA.ID}, nil)
		raw, err := os.ReadFile(filepath.Join(inst.UserData, "state.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(raw), `"ownerId": "socket:durable"`) && !strings.Contains(string(raw), `"ownerId":"socket:durable"`) {
			t.Errorf("state.json right after browser_use_start lacks the owner:\n%.400s", raw)
		}
		c.ok(who, "browser_use_end", map[string]any{"tabId": tabA.ID}, nil)
	})

	t.Run("open", func(t *testing.T) {
		c := caller{t: t, reg: inst.Registry()}
		checks := []struct {
			name      string
			got, want any
		}{
			{"id prefix", strings.HasPrefix(tabA.ID, "btab_"), true},
			{"url", tabA.URL, url("/a")},
			{"title", tabA.Title, "Page A"},
			{"loadState", tabA.LoadState, browser.LoadComplete},
			{"active", tabA.Active, true},
			{"ownerId", tabA.OwnerID == nil, true},
			{"mode", tabA.Mode, "web"},
			{"space", tabA.SpaceID, defaultSpace},
			{"contextKey", tabA.ContextKey, "space:" + defaultSpace},
			{"pane", tabA.Pane, state.PanePrimary},
			{"canGoBack", tabA.CanGoBack, false},
			{"timestamps", tabA.CreatedAt > 0 && tabA.UpdatedAt >= tabA.CreatedAt, true},
		}
		for _, ck := range checks {
			if ck.got != ck.want {
				t.Errorf("open_browser_tab: %s = %v, want %v", ck.name, ck.got, ck.want)
			}
		}
		var active *state.BrowserTab
		c.ok(renderer, "get_active_tab", nil, &active)
		if active == nil || active.ID != tabA.ID {
			t.Errorf("get_active_tab = %+v, want %s", active, tabA.ID)
		}
		if got := findTab(tabs(c, defaultSpace), tabA.ID); got == nil {
			t.Errorf("get_tabs does not list %s", tabA.ID)
		}
		// A scheme-less address gets http(s) like an address bar; a page
		// that cannot load gives a record whose load failed, not an error.
		host := strings.TrimPrefix(srv.URL, "http://")
		var inferred state.BrowserTab
		c.ok(renderer, "open_browser_tab", map[string]any{"url": host + "/b", "title": "my title"}, &inferred)
		if !strings.HasPrefix(inferred.URL, "http") || !hasSuffix(inferred.URL, "/b") {
			t.Errorf("open %s: url %s", host+"/b", inferred.URL)
		}
		c.ok(renderer, "close_browser_tab", map[string]any{"tabId": inferred.ID}, nil)
		var failed state.BrowserTab
		c.ok(renderer, "open_browser_tab", map[string]any{"url": "http://127.0.0.1:1/"}, &failed)
		if failed.LoadState != browser.LoadFailed || failed.ErrorText == "" {
			t.Errorf("a page that cannot load: %+v, want loadState failed with errorText", failed)
		}
		c.ok(renderer, "close_browser_tab", map[string]any{"tabId": failed.ID}, nil)
		// A blank tab (Ctrl+T) is a record at once; its page opens when
		// something first needs it.
		var blank state.BrowserTab
		c.ok(renderer, "open_browser_tab", map[string]any{"url": "about:blank"}, &blank)
		if blank.URL != "about:blank" || blank.LoadState != browser.LoadComplete || inst.Browser().Peek(blank.ID) != nil {
			t.Errorf("blank tab: %+v (live: %v), want a record without a page yet", blank, inst.Browser().Peek(blank.ID) != nil)
		}
		c.ok(renderer, "navigate", map[string]any{"tabId": blank.ID, "url": url("/b")}, &blank)
		if blank.Title != "Page B" || inst.Browser().Peek(blank.ID) == nil {
			t.Errorf("navigate from a blank tab: %+v", blank)
		}
		c.ok(renderer, "close_browser_tab", map[string]any{"tabId": blank.ID}, nil)
		c.ok(renderer, "focus_browser_tab", map[string]any{"tabId": tabA.ID}, nil)
	})

	t.Run("history", func(t *testing.T) {
		c := caller{t: t, reg: inst.Registry()}
		var got state.BrowserTab
		c.ok(renderer, "navigate", map[string]any{"tabId": tabA.ID, "url": url("/b")}, &got)
		if got.URL != url("/b") || got.Title != "Page B" || !got.CanGoBack || got.CanGoForward {
			t.Errorf("navigate: %+v", got)
		}
		c.ok(renderer, "navigate", map[string]any{"tabId": tabA.ID, "url": url("/c")}, &got)
		c.ok(renderer, "go_back", map[string]any{"tabId": tabA.ID}, &got)
		if got.URL != url("/b") || !got.CanGoBack || !got.CanGoForward {
			t.Errorf("go_back: %+v", got)
		}
		c.ok(renderer, "go_back", map[string]any{"tabId": tabA.ID}, &got)
		if got.URL != url("/a") || got.CanGoBack || !got.CanGoForward || got.Title != "Page A" {
			t.Errorf("go_back twice: %+v", got)
		}
		c.ok(renderer, "go_forward", map[string]any{"tabId": tabA.ID}, &got)
		if got.URL != url("/b") || !got.CanGoBack || !got.CanGoForward {
			t.Errorf("go_forward: %+v", got)
		}
		c.ok(renderer, "refresh", map[string]any{"tabId": tabA.ID}, &got)
		if got.URL != url("/b") || got.LoadState != browser.LoadComplete {
			t.Errorf("refresh: %+v", got)
		}
		// The record in the state says the same.
		st := inst.State().Get()
		if rec := st.BrowserTab(tabA.ID); rec == nil || rec.URL != url("/b") || !rec.CanGoForward {
			t.Errorf("state record: %+v", rec)
		}
		c.ok(renderer, "navigate", map[string]any{"tabId": tabA.ID, "url": url("/a")}, &got)
	})

	t.Run("refusals", func(t *testing.T) {
		c := caller{t: t, reg: inst.Registry()}
		tests := []struct {
			tool string
			args map[string]any
			code protocol.ErrorCode
			msg  string
		}{
			{"open_browser_tab", map[string]any{"url": "javascript:alert(1)"}, protocol.CodeValidation, ""},
			{"open_browser_tab", map[string]any{"url": "file:///etc/passwd"}, protocol.CodeValidation, ""},
			{"open_browser_tab", map[string]any{"url": url("/a"), "spaceId": "space_nope"}, protocol.CodeValidation, "space_nope"},
			{"open_browser_tab", map[string]any{"url": url("/a"), "isolated": true}, protocol.CodeValidation, "isolation needs an agent session"},
			{"navigate", map[string]any{"tabId": tabA.ID, "url": "chrome://settings"}, protocol.CodeValidation, ""},
			{"navigate", map[string]any{"tabId": "btab_nope", "url": url("/a")}, protocol.CodeToolFailed, `unknown browser tab "btab_nope"`},
			{"go_back", map[string]any{"tabId": "btab_nope"}, protocol.CodeToolFailed, `unknown browser tab "btab_nope"`},
			{"focus_browser_tab", map[string]any{"tabId": "btab_nope"}, protocol.CodeToolFailed, `unknown browser tab "btab_nope"`},
			{"close_browser_tab", map[string]any{"tabId": "btab_nope"}, protocol.CodeToolFailed, `unknown browser tab "btab_nope"`},
			{"get_console_logs", map[string]any{"tabId": "btab_nope"}, protocol.CodeToolFailed, `unknown browser tab "btab_nope"`},
			{"get_console_logs", map[string]any{"tabId": tabA.ID, "limit": 0}, protocol.CodeValidation, ""},
			{"get_network_logs", map[string]any{"tabId": tabA.ID, "limit": -1}, protocol.CodeValidation, ""},
			{"get_tabs", map[string]any{"spaceId": "space_nope"}, protocol.CodeValidation, "space_nope"},
			{"get_active_tab", map[string]any{"spaceId": "space_nope"}, protocol.CodeValidation, "space_nope"},
			{"cdp_command", map[string]any{"tabId": tabA.ID, "method": "Browser.close"}, protocol.CodeValidation, "Browser domain"},
			{"cdp_command", map[string]any{"tabId": tabA.ID, "method": "Target.createTarget", "params": map[string]any{"url": "about:blank"}}, protocol.CodeValidation, "Target domain"},
			{"cdp_command", map[string]any{"tabId": tabA.ID, "method": "evaluate"}, protocol.CodeValidation, ""},
			{"scroll_page", map[string]any{"tabId": tabA.ID}, protocol.CodeValidation, ""},
			{"send_keys", map[string]any{"tabId": tabA.ID, "keys": ""}, protocol.CodeValidation, ""},
			{"click_element", map[string]any{"tabId": tabA.ID, "elementId": "el-99999"}, protocol.CodeToolFailed, "get_browser_state"},
			{"type_text", map[string]any{"tabId": tabA.ID, "elementId": "el-99999", "text": "x"}, protocol.CodeToolFailed, "get_browser_state"},
		}
		for _, tt := range tests {
			msg, _ := c.fail(renderer, tt.tool, tt.args, tt.code)
			if !strings.Contains(msg, tt.msg) {
				t.Errorf("%s %v: message %q lacks %q", tt.tool, tt.args, msg, tt.msg)
			}
		}
		// The browser is still the same after all that.
		if got := c.eval(renderer, tabA.ID, "location.pathname"); got != `"/a"` {
			t.Errorf("tab A is at %s", got)
		}
	})

	t.Run("page state, typing, clicking, keys, scrolling", func(t *testing.T) {
		c := caller{t: t, reg: inst.Registry()}
		var ps browsertools.StateResult
		c.ok(renderer, "get_browser_state", map[string]any{"tabId": tabA.ID}, &ps)
		if ps.TabID != tabA.ID || ps.URL != url("/a") || ps.Title != "Page A" || ps.Viewport.Width <= 0 || ps.Viewport.Height <= 0 {
			t.Errorf("get_browser_state: %+v", ps)
		}
		var input, button string
		for _, el := range ps.Elements {
			switch {
			case el.Tag == "input":
				input = el.ID
			case el.Tag == "button" && strings.Contains(el.Text+el.Label, "Go"):
				button = el.ID
			}
		}
		if input == "" || button == "" || !strings.HasPrefix(input, "el-") {
			t.Fatalf("elements lack the input or the button: %+v", ps.Elements)
		}
		var typed browsertools.TypeResult
		c.ok(renderer, "type_text", map[string]any{"tabId": tabA.ID, "elementId": input, "text": "héllo"}, &typed)
		if typed.Typed != 5 {
			t.Errorf("typed = %d, want 5", typed.Typed)
		}
		if v := c.eval(renderer, tabA.ID, "document.getElementById('q').value"); v != `"héllo"` {
			t.Errorf("input value = %s", v)
		}
		c.ok(renderer, "get_browser_state", map[string]any{"tabId": tabA.ID}, &ps)
		for _, el := range ps.Elements {
			if el.ID == input && el.Value != "héllo" {
				t.Errorf("state of the input after typing: %+v", el)
			}
		}
		var clicked browsertools.ClickResult
		c.ok(renderer, "click_element", map[string]any{"tabId": tabA.ID, "elementId": button}, &clicked)
		if clicked.Clicked != button {
			t.Errorf("click_element = %+v", clicked)
		}
		eventually(t, "the click's title", func() bool { return c.eval(renderer, tabA.ID, "document.title") == `"clicked héllo"` })

		var ok browsertools.OKResult
		c.ok(renderer, "type_text", map[string]any{"tabId": tabA.ID, "elementId": input, "text": ""}, nil)
		c.ok(renderer, "send_keys", map[string]any{"tabId": tabA.ID, "keys": "abc"}, &ok)
		c.ok(renderer, "send_keys", map[string]any{"tabId": tabA.ID, "keys": "Enter"}, &ok)
		if !ok.OK {
			t.Errorf("send_keys = %+v", ok)
		}
		eventually(t, "Enter in the input", func() bool { return c.eval(renderer, tabA.ID, "document.title") == `"entered abc"` })

		c.ok(renderer, "navigate", map[string]any{"tabId": tabA.ID, "url": url("/tall")}, nil)
		c.ok(renderer, "scroll_page", map[string]any{"tabId": tabA.ID, "deltaY": 400}, &ok)
		eventually(t, "scrolled by 400", func() bool { return c.eval(renderer, tabA.ID, "Math.round(window.scrollY)") == "400" })
		c.ok(renderer, "scroll_page", map[string]any{"tabId": tabA.ID, "toY": 1000}, &ok)
		eventually(t, "scrolled to 1000", func() bool { return c.eval(renderer, tabA.ID, "Math.round(window.scrollY)") == "1000" })

		var cdp browsertools.CDPResult
		c.ok(renderer, "cdp_command", map[string]any{"tabId": tabA.ID, "method": "Runtime.evaluate",
			"params": map[string]any{"expression": "1+2", "returnByValue": true}}, &cdp)
		if cdp.TabID != tabA.ID || cdp.Method != "Runtime.evaluate" || !strings.Contains(string(cdp.Result), `"value":3`) {
			t.Errorf("cdp_command = %+v (%s)", cdp, cdp.Result)
		}
		c.ok(renderer, "navigate", map[string]any{"tabId": tabA.ID, "url": url("/a")}, nil)
	})

	t.Run("screenshot", func(t *testing.T) {
		c := caller{t: t, reg: inst.Registry()}
		var shot browsertools.ScreenshotResult
		c.ok(renderer, "take_screenshot", map[string]any{"tabId": tabA.ID}, &shot)
		dir := filepath.Join(inst.UserData, "artifacts", "screenshots")
		if shot.TabID != tabA.ID || filepath.Dir(shot.Path) != dir || !strings.HasPrefix(filepath.Base(shot.Path), tabA.ID+"-") ||
			filepath.Ext(shot.Path) != ".png" {
			t.Errorf("take_screenshot = %+v, want a png of %s in %s", shot, tabA.ID, dir)
		}
		fi, err := os.Stat(shot.Path)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("screenshot file: %v, %v", fi, err)
		}
		if di, _ := os.Stat(dir); di == nil || di.Mode().Perm() != 0o700 {
			t.Errorf("screenshots dir mode %v", di)
		}
		b, _ := os.ReadFile(shot.Path)
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("not a PNG: %v", err)
		}
		if img.Bounds().Dx() != shot.Width || img.Bounds().Dy() != shot.Height || shot.Width <= 0 {
			t.Errorf("PNG is %v, reported %dx%d", img.Bounds(), shot.Width, shot.Height)
		}
	})

	t.Run("console and network", func(t *testing.T) {
		c := caller{t: t, reg: inst.Registry()}
		var tab state.BrowserTab
		c.ok(renderer, "open_browser_tab", map[string]any{"url": url("/console")}, &tab)
		defer c.ok(renderer, "close_browser_tab", map[string]any{"tabId": tab.ID}, nil)
		var logs []browser.ConsoleEntry
		eventually(t, "four console entries", func() bool {
			c.ok(renderer, "get_console_logs", map[string]any{"tabId": tab.ID}, &logs)
			return len(logs) >= 4
		})
		want := map[string]string{"hello log": "log", "careful": "warn", "bad thing": "error", "boom uncaught": "error"}
		for text, level := range want {
			found := false
			for _, e := range logs {
				found = found || (strings.Contains(e.Text, text) && e.Level == level && e.TS > 0)
			}
			if !found {
				t.Errorf("console lacks %s %q: %+v", level, text, logs)
			}
		}
		c.ok(renderer, "get_console_logs", map[string]any{"tabId": tab.ID, "limit": 1}, &logs)
		if len(logs) != 1 {
			t.Errorf("limit 1 gave %d entries", len(logs))
		}

		var reqs []browser.NetworkEntry
		find := func(path string) *browser.NetworkEntry {
			for i := range reqs {
				if reqs[i].URL == url(path) && reqs[i].EndedAt > 0 {
					return &reqs[i]
				}
			}
			return nil
		}
		eventually(t, "the fetches in the network log", func() bool {
			c.ok(renderer, "get_network_logs", map[string]any{"tabId": tab.ID}, &reqs)
			return find("/missing") != nil && find("/data") != nil
		})
		for path, status := range map[string]int{"/missing": 404, "/data": 200, "/console": 200} {
			e := find(path)
			if e == nil || e.Status != status || e.PageURL != url("/console") || e.Method != "GET" || e.StartedAt <= 0 {
				t.Errorf("network entry of %s = %+v, want status %d on page %s", path, e, status, url("/console"))
			}
		}
		c.ok(renderer, "get_network_logs", map[string]any{"tabId": tab.ID, "limit": 2}, &reqs)
		if len(reqs) != 2 || reqs[0].StartedAt > reqs[1].StartedAt {
			t.Errorf("the newest two requests, oldest first: %+v", reqs)
		}
	})

	t.Run("focus and close", func(t *testing.T) {
		c := caller{t: t, reg: inst.Registry()}
		var b1, b2 state.BrowserTab
		c.ok(renderer, "open_browser_tab", map[string]any{"url": url("/b")}, &b1)
		c.ok(renderer, "open_browser_tab", map[string]any{"url": url("/c")}, &b2)
		var focused state.BrowserTab
		c.ok(renderer, "focus_browser_tab", map[string]any{"tabId": tabA.ID}, &focused)
		if !focused.Active {
			t.Errorf("focused tab is not active: %+v", focused)
		}
		list := tabs(c, defaultSpace)
		for _, b := range list {
			if b.Active != (b.ID == tabA.ID) {
				t.Errorf("after focusing %s, %s active=%v", tabA.ID, b.ID, b.Active)
			}
		}
		st := inst.State().Get()
		if l := st.Space(defaultSpace).Layout; l.PrimaryTabID != tabA.ID {
			t.Errorf("the pane shows %s, want %s", l.PrimaryTabID, tabA.ID)
		}
		// Closing the active tab reactivates the newest remaining one.
		var closed browsertools.ClosedResult
		c.ok(renderer, "focus_browser_tab", map[string]any{"tabId": b1.ID}, nil)
		c.ok(renderer, "close_browser_tab", map[string]any{"tabId": b1.ID}, &closed)
		if !closed.Closed || inst.Browser().Peek(b1.ID) != nil {
			t.Errorf("close_browser_tab = %+v, still live %v", closed, inst.Browser().Peek(b1.ID) != nil)
		}
		var active *state.BrowserTab
		c.ok(renderer, "get_active_tab", map[string]any{"spaceId": defaultSpace}, &active)
		if active == nil || active.ID != b2.ID {
			t.Errorf("after closing the active tab, active = %+v, want %s (the newest)", active, b2.ID)
		}
		c.ok(renderer, "close_browser_tab", map[string]any{"tabId": b2.ID}, nil)
		if findTab(tabs(c, ""), b2.ID) != nil {
			t.Errorf("closed tab still listed")
		}
	})

	t.Run("popup", func(t *testing.T) {
		c := caller{t: t, reg: inst.Registry()}
		var ps browsertools.StateResult
		c.ok(renderer, "get_browser_state", map[string]any{"tabId": tabA.ID}, &ps)
		link := ""
		for _, el := range ps.Elements {
			if el.Tag == "a" && hasSuffix(el.Href, "/b") {
				link = el.ID
			}
		}
		if link == "" {
			t.Fatalf("no link in %+v", ps.Elements)
		}
		before := len(tabs(c, defaultSpace))
		c.ok(renderer, "click_element", map[string]any{"tabId": tabA.ID, "elementId": link}, nil)
		var popup *state.BrowserTab
		eventually(t, "the popup's record", func() bool {
			list := tabs(c, defaultSpace)
			if len(list) != before+1 {
				return false
			}
			popup = &list[len(list)-1]
			return popup.Title == "Page B" && strings.HasSuffix(popup.URL, "/b")
		})
		if !popup.Active || popup.SpaceID != defaultSpace || popup.ContextKey != tabA.ContextKey || popup.Pane != tabA.Pane ||
			!strings.HasPrefix(popup.ID, "btab_") {
			t.Errorf("popup record = %+v", popup)
		}
		c.ok(renderer, "close_browser_tab", map[string]any{"tabId": popup.ID}, nil)
	})

	t.Run("download", func(t *testing.T) {
		c := caller{t: t, reg: inst.Registry()}
		var tab state.BrowserTab
		c.ok(renderer, "open_browser_tab", map[string]any{"url": url("/dl")}, &tab)
		defer c.ok(renderer, "close_browser_tab", map[string]any{"tabId": tab.ID}, nil)
		var ps browsertools.StateResult
		c.ok(renderer, "get_browser_state", map[string]any{"tabId": tab.ID}, &ps)
		if len(ps.Elements) == 0 {
			t.Fatalf("no link on the download page")
		}
		c.ok(renderer, "click_element", map[string]any{"tabId": tab.ID, "elementId": ps.Elements[0].ID}, nil)
		// The runtime's log says where the file went.
		var path string
		eventually(t, "the download's log line", func() bool {
			entries, _ := inst.Logger().Query(applog.Filter{Source: "browser", Search: "download completed"})
			for _, e := range entries {
				if p, _ := e.Data["path"].(string); p != "" && e.Data["tabId"] == tab.ID && e.Level == protocol.LevelInfo {
					path = p
				}
			}
			return path != ""
		})
		if filepath.Dir(path) != filepath.Join(inst.UserData, "artifacts", "downloads") {
			t.Errorf("download saved at %s", path)
		}
		if b, err := os.ReadFile(path); err != nil || string(b) != "report body" {
			t.Errorf("downloaded file: %q, %v", b, err)
		}
	})

	t.Run("claims of agents", func(t *testing.T) {
		c := caller{t: t, reg: inst.Registry()}
		for _, s := range []string{"sess_one", "sess_two"} {
			inst.Permissions().Grant(permission.Grant{Caller: protocol.CallerAgent, SessionID: s,
				Capabilities: []protocol.Capability{protocol.CapControlsBrowser}})
		}
		one, two := agent("sess_one"), agent("sess_two")
		_, d := c.fail(one, "navigate", map[string]any{"tabId": tabA.ID, "url": url("/b")}, protocol.CodePermissionDenied)
		if d["tabId"] != tabA.ID || d["reason"] != "claim_required" {
			t.Errorf("unclaimed navigate by an agent: details %v", d)
		}
		c.fail(one, "get_browser_state", map[string]any{"tabId": tabA.ID}, protocol.CodePermissionDenied)
		// Focus is not control: no claim needed.
		c.ok(one, "focus_browser_tab", map[string]any{"tabId": tabA.ID}, nil)
		// Logs are read-only: no claim needed.
		c.ok(one, "get_console_logs", map[string]any{"tabId": tabA.ID}, nil)

		var claimed state.BrowserTab
		c.ok(one, "browser_use_start", map[string]any{"tabId": tabA.ID, "owner": "someone-else"}, &claimed)
		if claimed.OwnerID == nil || *claimed.OwnerID != "sess_one" {
			t.Fatalf("claimed owner = %v, want sess_one (the session, never the owner argument)", claimed.OwnerID)
		}
		c.ok(one, "browser_use_start", map[string]any{"tabId": tabA.ID}, nil) // idempotent
		c.ok(one, "navigate", map[string]any{"tabId": tabA.ID, "url": url("/b")}, nil)
		for _, who := range []protocol.ClientInfo{two, renderer} {
			_, d := c.fail(who, "navigate", map[string]any{"tabId": tabA.ID, "url": url("/c"), "owner": "sess_one"}, protocol.CodePermissionDenied)
			if d["tabId"] != tabA.ID || d["ownerId"] != "sess_one" {
				t.Errorf("%s navigating a claimed tab: details %v", who.Caller, d)
			}
			c.fail(who, "browser_use_start", map[string]any{"tabId": tabA.ID}, protocol.CodePermissionDenied)
			c.fail(who, "browser_use_end", map[string]any{"tabId": tabA.ID, "owner": "sess_one", "force": true}, protocol.CodePermissionDenied)
			c.fail(who, "close_browser_tab", map[string]any{"tabId": tabA.ID}, protocol.CodePermissionDenied)
			c.fail(who, "take_screenshot", map[string]any{"tabId": tabA.ID}, protocol.CodePermissionDenied)
		}
		if got := c.eval(one, tabA.ID, "location.pathname"); got != `"/b"` {
			t.Errorf("the claimed tab moved: %s", got)
		}
		var released state.BrowserTab
		c.ok(one, "browser_use_end", map[string]any{"tabId": tabA.ID}, &released)
		if released.OwnerID != nil {
			t.Errorf("released owner = %v", *released.OwnerID)
		}
		// The runtime itself (internal) may force a release.
		c.ok(two, "browser_use_start", map[string]any{"tabId": tabA.ID}, nil)
		c.ok(internal, "browser_use_end", map[string]any{"tabId": tabA.ID}, &released)
		if released.OwnerID != nil {
			t.Errorf("internal did not release: %v", *released.OwnerID)
		}

		// An agent's isolated tab has the session's browser context.
		var iso state.BrowserTab
		c.ok(one, "open_browser_tab", map[string]any{"url": url("/cookie/show"), "isolated": true}, &iso)
		if iso.ContextKey != "session:sess_one" || iso.OwnerID != nil {
			t.Errorf("isolated tab: %+v", iso)
		}
		c.ok(one, "browser_use_start", map[string]any{"tabId": iso.ID}, nil)
		c.ok(one, "close_browser_tab", map[string]any{"tabId": iso.ID}, nil)
		c.ok(renderer, "navigate", map[string]any{"tabId": tabA.ID, "url": url("/a")}, nil)
	})

	t.Run("claims over the socket", func(t *testing.T) {
		ctx := context.Background()
		first, err := client.Dial(ctx, inst.SocketPath)
		if err != nil {
			t.Fatal(err)
		}
		defer first.Close()
		second, err := client.Dial(ctx, inst.SocketPath)
		if err != nil {
			t.Fatal(err)
		}
		defer second.Close()
		call := func(cl *client.Client, info protocol.ClientInfo, tool, args string) protocol.ToolResult {
			t.Helper()
			res, err := cl.Call(ctx, tool, []byte(args), client.CallOptions{ClientInfo: info})
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		cli := protocol.ClientInfo{Caller: protocol.CallerCLI}
		var tab state.BrowserTab
		decodeOK(t, "open_browser_tab", call(first, cli, "open_browser_tab", fmt.Sprintf(`{"url":%q}`, url("/a"))), &tab)
		decodeOK(t, "browser_use_start", call(first, cli, "browser_use_start", fmt.Sprintf(`{"tabId":%q}`, tab.ID)), &tab)
		if tab.OwnerID == nil || !strings.HasPrefix(*tab.OwnerID, "socket:") {
			t.Fatalf("owner of a socket claim = %v, want the connection's session", tab.OwnerID)
		}
		owner := *tab.OwnerID
		// The second connection claims to be the first: owner argument,
		// session id and an agent caller. None of it is honoured.
		spoof := protocol.ClientInfo{Caller: protocol.CallerAgent, SessionID: owner}
		for _, tc := range []struct{ tool, args string }{
			{"navigate", fmt.Sprintf(`{"tabId":%q,"url":%q,"owner":%q}`, tab.ID, url("/c"), owner)},
			{"browser_use_end", fmt.Sprintf(`{"tabId":%q,"owner":%q,"force":true}`, tab.ID, owner)},
			{"refresh", fmt.Sprintf(`{"tabId":%q}`, tab.ID)},
		} {
			_, d := decodeFail(t, tc.tool, call(second, spoof, tc.tool, tc.args), protocol.CodePermissionDenied)
			if d["tabId"] != tab.ID || d["ownerId"] != owner {
				t.Errorf("%s by the second connection: details %v, want {tabId %s, ownerId %s}", tc.tool, d, tab.ID, owner)
			}
		}
		st := inst.State().Get()
		if rec := st.BrowserTab(tab.ID); rec == nil || rec.URL != url("/a") || rec.OwnerID == nil || *rec.OwnerID != owner {
			t.Errorf("the tab changed: %+v", rec)
		}
		if live := inst.Browser().Peek(tab.ID); live == nil || live.Info().URL != url("/a") {
			t.Errorf("the page moved: %+v", live)
		}
		// The owner controls it.
		decodeOK(t, "navigate", call(first, cli, "navigate", fmt.Sprintf(`{"tabId":%q,"url":%q}`, tab.ID, url("/b"))), nil)
		// When the owner's connection ends, its claim goes with it.
		first.Close()
		eventually(t, "the claim to end with the connection", func() bool {
			st := inst.State().Get()
			rec := st.BrowserTab(tab.ID)
			return rec != nil && rec.OwnerID == nil
		})
		decodeOK(t, "navigate", call(second, cli, "navigate", fmt.Sprintf(`{"tabId":%q,"url":%q}`, tab.ID, url("/c"))), nil)
		decodeOK(t, "close_browser_tab", call(second, cli, "close_browser_tab", fmt.Sprintf(`{"tabId":%q}`, tab.ID)), nil)
	})

	t.Run("browser contexts", func(t *testing.T) {
		c := caller{t: t, reg: inst.Registry()}
		var spA, spB state.Space
		c.ok(renderer, "create_space", map[string]any{"name": "A"}, &spA)
		c.ok(renderer, "create_space", map[string]any{"name": "B"}, &spB)
		open := func(space, path string) state.BrowserTab {
			var tab state.BrowserTab
			c.ok(renderer, "open_browser_tab", map[string]any{"url": url(path), "spaceId": space}, &tab)
			if tab.SpaceID != space || tab.ContextKey != "space:"+space {
				t.Errorf("tab %+v, want space %s", tab, space)
			}
			return tab
		}
		var none *state.BrowserTab
		c.ok(renderer, "get_active_tab", map[string]any{"spaceId": spB.ID}, &none)
		if none != nil {
			t.Errorf("get_active_tab of a space without browser tabs = %+v, want null", none)
		}
		open(spA.ID, "/cookie/set")
		a2 := open(spA.ID, "/cookie/show")
		b1 := open(spB.ID, "/cookie/show")
		if a2.Title != "cookie space-a" {
			t.Errorf("a second tab of space A: title %q, want the cookie of the first", a2.Title)
		}
		if b1.Title != "cookie none" {
			t.Errorf("a tab of space B: title %q, want no cookie", b1.Title)
		}
		if n := len(tabs(c, spA.ID)); n != 2 {
			t.Errorf("get_tabs of space A lists %d browser tabs", n)
		}

		// close_space closes its live pages.
		ids := []string{}
		for _, b := range tabs(c, spA.ID) {
			ids = append(ids, b.ID)
			if inst.Browser().Peek(b.ID) == nil {
				t.Errorf("tab %s of space A is not live", b.ID)
			}
		}
		c.ok(renderer, "close_space", map[string]any{"spaceId": spA.ID}, nil)
		for _, id := range ids {
			if inst.Browser().Peek(id) != nil {
				t.Errorf("tab %s of the closed space is still live", id)
			}
		}
		if slices.ContainsFunc(tabs(c, ""), func(b state.BrowserTab) bool { return slices.Contains(ids, b.ID) }) {
			t.Errorf("closed space's tabs still listed")
		}
		c.ok(renderer, "close_space", map[string]any{"spaceId": spB.ID}, nil)
		if inst.Browser().Peek(b1.ID) != nil {
			t.Errorf("tab of space B still live")
		}
	})
}

// TestRestore: a tab outlives the runtime. After a restart it is listed, a
// read-only log query does not start Chromium, and controlling it reopens
// the page from its record. Socket claims of the last run are gone.
func TestRestore(t *testing.T) {
	needChromium(t)
	srv := site(t)
	root, err := os.MkdirTemp("", "mt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	cfg := instance.Config{Home: filepath.Join(root, "h"), UserData: filepath.Join(root, "u"), AppPath: os.Args[0]}
	start := func() *instance.Instance {
		t.Helper()
		inst, err := instance.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := inst.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		return inst
	}
	stop := func(inst *instance.Instance) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := inst.Close(ctx); err != nil {
			t.Errorf("close: %v", err)
		}
	}

	first := start()
	c := caller{t: t, reg: first.Registry()}
	var tab state.BrowserTab
	c.ok(renderer, "open_browser_tab", map[string]any{"url": srv.URL + "/a"}, &tab)
	c.ok(renderer, "navigate", map[string]any{"tabId": tab.ID, "url": srv.URL + "/b"}, nil)
	err = first.State().Update(func(s *state.State) error {
		owner := "socket:gone"
		s.BrowserTab(tab.ID).OwnerID = &owner
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !first.Browser().Running() {
		t.Fatal("Chromium is not running after open_browser_tab")
	}
	stop(first)
	if first.Browser().Running() {
		t.Error("Chromium still runs after the instance closed")
	}

	second := start()
	defer stop(second)
	c = caller{t: t, reg: second.Registry()}
	rec := findTab(tabs(c, ""), tab.ID)
	if rec == nil || rec.URL != srv.URL+"/b" || rec.Title != "Page B" {
		t.Fatalf("after a restart get_tabs shows %+v", rec)
	}
	if rec.OwnerID != nil {
		t.Errorf("a socket claim of the last run survived: %v", *rec.OwnerID)
	}
	var logs []browser.ConsoleEntry
	c.ok(renderer, "get_console_logs", map[string]any{"tabId": tab.ID}, &logs)
	var reqs []browser.NetworkEntry
	c.ok(renderer, "get_network_logs", map[string]any{"tabId": tab.ID}, &reqs)
	if len(logs) != 0 || len(reqs) != 0 || second.Browser().Running() {
		t.Errorf("logs of a tab that is not live: %v %v; Chromium running: %v", logs, reqs, second.Browser().Running())
	}
	var ps browsertools.StateResult
	c.ok(renderer, "get_browser_state", map[string]any{"tabId": tab.ID}, &ps)
	if ps.URL != srv.URL+"/b" || ps.Title != "Page B" {
		t.Errorf("get_browser_state of the reopened tab: %+v", ps)
	}
	var got state.BrowserTab
	c.ok(renderer, "navigate", map[string]any{"tabId": tab.ID, "url": srv.URL + "/c"}, &got)
	if got.URL != srv.URL+"/c" || got.Title != "Page C" {
		t.Errorf("navigate the reopened tab: %+v", got)
	}
}
