package browsertools_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/instance/instancetest"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/state"
)

// dialogResult is get_browser_dialog's answer.
type dialogResult struct {
	TabID  string `json:"tabId"`
	Dialog *struct {
		Type          string `json:"type"`
		Message       string `json:"message"`
		DefaultPrompt string `json:"defaultPrompt"`
	} `json:"dialog"`
}

// TestDialogTools answers a page's confirm and prompt through the tools,
// as an agent or the CLI does, and finds the link under a point.
func TestDialogTools(t *testing.T) {
	needChromium(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/ask", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Ask</title>
			<a href="/elsewhere" style="display:block;width:300px;height:60px">a link</a>
			<script>setTimeout(() => { const ok = confirm('proceed?'); const p = prompt('name?', 'anon'); document.title = 'answered:' + ok + ':' + p }, 50)</script>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	inst := instancetest.New(t, instancetest.WithGrantCLI(protocol.CapControlsBrowser))
	c := caller{t: t, reg: inst.Registry()}

	var tab state.BrowserTab
	c.ok(renderer, "open_browser_tab", map[string]any{"url": srv.URL + "/ask"}, &tab)
	var d dialogResult
	eventually(t, "the confirm", func() bool {
		c.ok(renderer, "get_browser_dialog", map[string]any{"tabId": tab.ID}, &d)
		return d.Dialog != nil && d.Dialog.Type == "confirm"
	})
	if d.TabID != tab.ID || d.Dialog.Message != "proceed?" {
		t.Errorf("get_browser_dialog = %+v", d)
	}
	// A call the page must answer says what it waits on.
	msg, _ := c.fail(renderer, "get_browser_state", map[string]any{"tabId": tab.ID}, protocol.CodeToolFailed)
	if !strings.Contains(msg, "confirm dialog") || !strings.Contains(msg, "browser_handle_dialog") {
		t.Errorf("a call while a dialog is open: %q", msg)
	}
	// An agent must claim the tab before it answers for it.
	c.fail(agent("sess_1"), "browser_handle_dialog", map[string]any{"tabId": tab.ID, "accept": true}, protocol.CodePermissionDenied)
	c.ok(renderer, "browser_handle_dialog", map[string]any{"tabId": tab.ID, "accept": true}, nil)
	eventually(t, "the prompt", func() bool {
		c.ok(renderer, "get_browser_dialog", map[string]any{"tabId": tab.ID}, &d)
		return d.Dialog != nil && d.Dialog.Type == "prompt"
	})
	if d.Dialog.DefaultPrompt != "anon" {
		t.Errorf("prompt: %+v", d.Dialog)
	}
	c.ok(renderer, "browser_handle_dialog", map[string]any{"tabId": tab.ID, "accept": true, "promptText": "Ada"}, nil)
	eventually(t, "the page's answers", func() bool {
		var got state.BrowserTab
		c.ok(renderer, "get_active_tab", nil, &got)
		return got.Title == "answered:true:Ada"
	})
	c.ok(renderer, "get_browser_dialog", map[string]any{"tabId": tab.ID}, &d)
	if d.Dialog != nil {
		t.Errorf("a dialog is still open: %+v", d.Dialog)
	}
	msg, _ = c.fail(renderer, "browser_handle_dialog", map[string]any{"tabId": tab.ID, "accept": false}, protocol.CodeToolFailed)
	if !strings.Contains(msg, "no open dialog") {
		t.Errorf("answering without a dialog: %q", msg)
	}

	var link struct {
		Href string `json:"href"`
	}
	c.ok(renderer, "get_link_at", map[string]any{"tabId": tab.ID, "x": 40, "y": 30}, &link)
	if link.Href != srv.URL+"/elsewhere" {
		t.Errorf("get_link_at over the link = %q", link.Href)
	}
	c.ok(renderer, "get_link_at", map[string]any{"tabId": tab.ID, "x": 700, "y": 500}, &link)
	if link.Href != "" {
		t.Errorf("get_link_at away from links = %q", link.Href)
	}
}
