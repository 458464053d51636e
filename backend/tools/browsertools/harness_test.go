package browsertools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
)

// needChromium skips the test when no Chromium is installed (MEITH_CHROME
// or one on PATH); everything else in these tests is real.
func needChromium(t *testing.T) {
	t.Helper()
	if p := os.Getenv("MEITH_CHROME"); p != "" {
		return
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"} {
		if _, err := exec.LookPath(name); err == nil {
			return
		}
	}
	t.Skip("no Chromium found (install chromium or set MEITH_CHROME)")
}

// site is the test's web server on 127.0.0.1.
func site(t *testing.T) *httptest.Server {
	t.Helper()
	page := func(title, body string) string {
		return "<!doctype html><html><head><meta charset=utf-8><title>" + title + "</title></head><body>" + body + "</body></html>"
	}
	mux := http.NewServeMux()
	serve := func(path, html string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, html)
		})
	}
	serve("/a", page("Page A", `<input id="q" aria-label="Query" value="">`+
		`<button id="go" onclick="document.title='clicked '+document.getElementById('q').value">Go</button>`+
		`<a id="pop" href="/b" target="_blank">popup</a>`+
		`<script>document.getElementById('q').addEventListener('keydown', e => { if (e.key === 'Enter') document.title = 'entered ' + e.target.value })</script>`))
	serve("/b", page("Page B", "<p>b</p>"))
	serve("/c", page("Page C", "<p>c</p>"))
	serve("/tall", page("Tall", `<div style="height:5000px">tall</div>`))
	serve("/console", page("Console", `<script>console.log("hello log"); console.warn("careful"); console.error("bad thing");`+
		`fetch("/missing").then(() => fetch("/data")).then(() => { document.title = "fetched" })</script>`+
		`<script>throw new Error("boom uncaught")</script>`))
	serve("/dl", page("Download", `<a id="d" href="/file.txt" download="report.txt" style="display:block;width:200px;height:50px">get</a>`))
	mux.HandleFunc("/file.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "report body")
	})
	mux.HandleFunc("/data", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"ok":true}`) })
	mux.HandleFunc("/cookie/set", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "meith", Value: "space-a", Path: "/"})
		fmt.Fprint(w, page("set", "cookie set"))
	})
	mux.HandleFunc("/cookie/show", func(w http.ResponseWriter, r *http.Request) {
		v := "none"
		if c, err := r.Cookie("meith"); err == nil {
			v = c.Value
		}
		fmt.Fprint(w, page("cookie "+v, v))
	})
	mux.HandleFunc("/", http.NotFound)
	srv := httptest.NewServer(mux) // 127.0.0.1
	t.Cleanup(srv.Close)
	return srv
}

// caller is who calls a tool in-process.
var (
	renderer = protocol.ClientInfo{Caller: protocol.CallerRenderer}
	internal = protocol.ClientInfo{Caller: protocol.CallerInternal}
)

func agent(session string) protocol.ClientInfo {
	return protocol.ClientInfo{Caller: protocol.CallerAgent, SessionID: session}
}

// caller runs tools through a registry as one client.
type caller struct {
	t   *testing.T
	reg *registry.Registry
}

func (c caller) call(who protocol.ClientInfo, tool string, args any) protocol.ToolResult {
	c.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		c.t.Fatal(err)
	}
	if args == nil {
		raw = []byte(`{}`)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	return c.reg.Call(ctx, registry.Request{RequestID: protocol.NewID("req"), ToolName: tool, Args: raw, Client: who})
}

// ok calls tool, fails the test unless it succeeds, and decodes the content
// into out (when not nil).
func (c caller) ok(who protocol.ClientInfo, tool string, args any, out any) {
	c.t.Helper()
	decodeOK(c.t, tool, c.call(who, tool, args), out)
}

// fail calls tool and fails the test unless it fails with code; it
// returns the error's details as a map.
func (c caller) fail(who protocol.ClientInfo, tool string, args any, code protocol.ErrorCode) (string, map[string]any) {
	c.t.Helper()
	return decodeFail(c.t, tool, c.call(who, tool, args), code)
}

func decodeOK(t *testing.T, tool string, res protocol.ToolResult, out any) {
	t.Helper()
	if !res.OK {
		t.Fatalf("%s: %+v, want ok", tool, res.Error)
	}
	if out != nil {
		if err := json.Unmarshal(res.Content, out); err != nil {
			t.Fatalf("%s: content %s: %v", tool, res.Content, err)
		}
	}
}

func decodeFail(t *testing.T, tool string, res protocol.ToolResult, code protocol.ErrorCode) (string, map[string]any) {
	t.Helper()
	if res.OK || res.Error == nil || res.Error.Code != code {
		t.Fatalf("%s: ok=%v content=%s error=%+v, want %s", tool, res.OK, res.Content, res.Error, code)
	}
	var details map[string]any
	if res.Error.Details != nil {
		b, _ := json.Marshal(res.Error.Details)
		json.Unmarshal(b, &details)
	}
	return res.Error.Message, details
}

// eventually polls cond until it holds or the time is up.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// eval runs a JavaScript expression in a tab through cdp_command and
// returns its value as JSON text.
func (c caller) eval(who protocol.ClientInfo, tabID, expr string) string {
	c.t.Helper()
	var out struct {
		Result struct {
			Result struct {
				Value json.RawMessage `json:"value"`
			} `json:"result"`
		} `json:"result"`
	}
	c.ok(who, "cdp_command", map[string]any{"tabId": tabID, "method": "Runtime.evaluate",
		"params": map[string]any{"expression": expr, "returnByValue": true}}, &out)
	var v any // re-encoded, so that "\u00e9" and "é" compare equal
	if err := json.Unmarshal(out.Result.Result.Value, &v); err != nil {
		return string(out.Result.Result.Value)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func tabs(c caller, spaceID string) []state.BrowserTab {
	c.t.Helper()
	var out struct {
		BrowserTabs   []state.BrowserTab   `json:"browserTabs"`
		WorkspaceTabs []state.WorkspaceTab `json:"workspaceTabs"`
	}
	args := map[string]any{}
	if spaceID != "" {
		args["spaceId"] = spaceID
	}
	c.ok(renderer, "get_tabs", args, &out)
	if out.BrowserTabs == nil || out.WorkspaceTabs == nil {
		c.t.Fatalf("get_tabs lists must be [] when empty: %+v", out)
	}
	return out.BrowserTabs
}

func findTab(list []state.BrowserTab, id string) *state.BrowserTab {
	for i := range list {
		if list[i].ID == id {
			return &list[i]
		}
	}
	return nil
}

func hasSuffix(url, path string) bool { return strings.HasSuffix(url, path) }
